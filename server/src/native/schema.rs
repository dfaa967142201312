//! Table, family and namespace descriptors between HBase's protobufs and the engine. A
//! descriptor travels as HBase's values maps (string keys such as VERSIONS and TTL), which the
//! engine's family descriptor reads and writes (`apply_values`, `values_map`).

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::engine::{FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName};

use super::errors::NativeError;
use super::pb;
use super::regions;

fn pair(k: &[u8], v: &[u8]) -> pb::hbase::BytesBytesPair {
    pb::hbase::BytesBytesPair {
        first: Some(Bytes::copy_from_slice(k)),
        second: Some(Bytes::copy_from_slice(v)),
    }
}

fn pairs(m: &BTreeMap<Vec<u8>, Vec<u8>>) -> Vec<pb::hbase::BytesBytesPair> {
    m.iter().map(|(k, v)| pair(k, v)).collect()
}

fn strings(m: &BTreeMap<String, String>) -> Vec<pb::NameStringPair> {
    m.iter()
        .map(|(k, v)| pb::NameStringPair {
            name: k.clone(),
            value: v.clone(),
        })
        .collect()
}

fn values(ps: &[pb::hbase::BytesBytesPair]) -> BTreeMap<Vec<u8>, Vec<u8>> {
    ps.iter()
        .map(|p| {
            (
                p.first.as_deref().unwrap_or_default().to_vec(),
                p.second.as_deref().unwrap_or_default().to_vec(),
            )
        })
        .collect()
}

fn config(ps: &[pb::NameStringPair]) -> BTreeMap<String, String> {
    ps.iter()
        .map(|p| (p.name.clone(), p.value.clone()))
        .collect()
}

pub fn family_to_pb(f: &FamilyDescriptor) -> pb::ColumnFamilySchema {
    pb::ColumnFamilySchema {
        name: f.name.clone().into(),
        attributes: pairs(&f.values_map()),
        configuration: strings(&f.configuration),
    }
}

pub fn family_from_pb(c: &pb::ColumnFamilySchema) -> Result<FamilyDescriptor, NativeError> {
    let mut f = FamilyDescriptor::new(&c.name);
    f.apply_values(&values(&c.attributes))
        .map_err(|e| NativeError::bad_request(e.to_string()))?;
    f.configuration = config(&c.configuration);
    Ok(f)
}

pub fn table_to_pb(t: &TableDescriptor) -> pb::TableSchema {
    // HBase's table values map: what was set, and IS_META.
    let mut attributes = t.attributes.clone();
    attributes
        .entry(b"IS_META".to_vec())
        .or_insert_with(|| b"false".to_vec());
    pb::TableSchema {
        table_name: Some(regions::table_name_pb(&t.name.to_string())),
        attributes: pairs(&attributes),
        column_families: t.families.values().map(family_to_pb).collect(),
        configuration: strings(&t.configuration),
    }
}

pub fn table_from_pb(s: &pb::TableSchema) -> Result<TableDescriptor, NativeError> {
    let name = s
        .table_name
        .as_ref()
        .ok_or_else(|| NativeError::bad_request("a table schema without a table name"))?;
    let name = TableName::parse(&regions::table_from_pb(name))
        .map_err(|e| NativeError::bad_request(e.to_string()))?;
    let mut t = TableDescriptor::new(name);
    for c in &s.column_families {
        let f = family_from_pb(c)?;
        t.families.insert(f.name.clone(), f);
    }
    t.attributes = values(&s.attributes);
    // Not a setting: HBase derives it from the name.
    t.attributes.remove(b"IS_META".as_slice());
    t.configuration = config(&s.configuration);
    Ok(t)
}

pub fn namespace_to_pb(n: &NamespaceDescriptor) -> pb::NamespaceDescriptor {
    pb::NamespaceDescriptor {
        name: n.name.clone().into_bytes().into(),
        configuration: strings(&n.configuration),
    }
}

pub fn namespace_from_pb(n: &pb::NamespaceDescriptor) -> NamespaceDescriptor {
    NamespaceDescriptor {
        name: String::from_utf8_lossy(&n.name).into_owned(),
        configuration: config(&n.configuration),
    }
}
