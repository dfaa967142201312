//! The Thrift2 (`THBaseService`) driver: the generated `THBaseServiceSyncClient` over either
//! transport and protocol, one operation of each kind, and preloading. Kept apart from the
//! Thrift1 driver because both generated modules define `TScan`, `TIncrement` and more.

use std::net::SocketAddr;

use rand::rngs::SmallRng;
use rand::Rng;
use redbase::generated::hbase2::{
    TColumn, TColumnFamilyDescriptor, TColumnValue, TDurability, TGet, THBaseServiceSyncClient,
    TPut, TResult, TScan, TTHBaseServiceSyncClient, TTableDescriptor, TTableName,
};

use crate::cli::{DurabilityKind, OpKind, T2Scan};
use crate::spec::{new_row_key, open_protocols, row_key, InProt, OutProt, Spec};

pub type Client = THBaseServiceSyncClient<InProt, OutProt>;

pub fn connect(spec: &Spec, addr: SocketAddr) -> Result<Client, String> {
    let (i, o) = open_protocols(addr, spec.transport, spec.protocol)?;
    Ok(THBaseServiceSyncClient::new(i, o))
}

pub fn table_name(spec: &Spec) -> TTableName {
    TTableName {
        ns: None,
        qualifier: spec.table.clone(),
    }
}

/// The one column every row has (`f:q`).
fn column(spec: &Spec) -> TColumn {
    TColumn {
        family: spec.family.clone(),
        qualifier: Some(spec.qualifier.clone()),
        timestamp: None,
    }
}

fn tget(row: Vec<u8>, columns: Option<Vec<TColumn>>) -> TGet {
    TGet {
        row,
        columns,
        timestamp: None,
        time_range: None,
        max_versions: None,
        filter_string: None,
        attributes: None,
        authorizations: None,
        consistency: None,
        target_replica_id: None,
        cache_blocks: None,
        store_limit: None,
        store_offset: None,
        existence_only: None,
        filter_bytes: None,
    }
}

/// One cell at `f:q`, with the table's default durability (durable, as Thrift1's puts).
fn tput(spec: &Spec, row: Vec<u8>) -> TPut {
    TPut {
        row,
        column_values: vec![TColumnValue {
            family: spec.family.clone(),
            qualifier: spec.qualifier.clone(),
            value: spec.value.clone(),
            timestamp: None,
            tags: None,
            type_: None,
        }],
        timestamp: None,
        attributes: None,
        durability: None,
        cell_visibility: None,
    }
}

fn tscan(spec: &Spec, start: Vec<u8>, stop: Vec<u8>) -> TScan {
    TScan {
        start_row: Some(start),
        stop_row: Some(stop),
        columns: Some(vec![column(spec)]),
        caching: Some(spec.scan_rows as i32),
        max_versions: None,
        time_range: None,
        filter_string: None,
        batch_size: None,
        attributes: None,
        authorizations: None,
        reversed: None,
        cache_blocks: None,
        col_fam_time_range_map: None,
        read_type: None,
        limit: None,
        consistency: None,
        target_replica_id: None,
        filter_bytes: None,
    }
}

/// A get must return the row and exactly its one cell of the full value size.
fn check_one(spec: &Spec, r: &TResult, what: &str) -> Result<(), String> {
    let ok = r.row.is_some()
        && r.column_values.len() == 1
        && r.column_values[0].value.len() == spec.value.len();
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} returned {} cells (row {}), not one of {} B",
            r.column_values.len(),
            if r.row.is_some() { "set" } else { "unset" },
            spec.value.len()
        ))
    }
}

/// One operation; replies are checked so that neither side can win by answering less.
pub fn op(spec: &Spec, c: &mut Client, kind: OpKind, rng: &mut SmallRng) -> Result<(), String> {
    let e = |what: &str, err: thrift::Error| format!("{what}: {err}");
    match kind {
        OpKind::Get => {
            let row = row_key(rng.random_range(0..spec.rows));
            let r = c
                .get(spec.table.clone(), tget(row, Some(vec![column(spec)])))
                .map_err(|x| e("get", x))?;
            check_one(spec, &r, "get")?;
        }
        OpKind::GetRow => {
            let row = row_key(rng.random_range(0..spec.rows));
            let r = c
                .get(spec.table.clone(), tget(row, None))
                .map_err(|x| e("get (whole row)", x))?;
            check_one(spec, &r, "get (whole row)")?;
        }
        OpKind::Put => {
            let row = new_row_key(rng);
            let mut p = tput(spec, row);
            p.durability = spec.durability.map(|d| match d {
                DurabilityKind::Skip => TDurability::SKIP_WAL,
                DurabilityKind::Async => TDurability::ASYNC_WAL,
                DurabilityKind::Sync => TDurability::SYNC_WAL,
                DurabilityKind::Fsync => TDurability::FSYNC_WAL,
            });
            c.put(spec.table.clone(), p).map_err(|x| e("put", x))?;
        }
        OpKind::Scan => {
            let n = spec.scan_rows as u64;
            let start = rng.random_range(0..spec.rows - n);
            let scan = tscan(spec, row_key(start), row_key(start + n));
            let rows = match spec.t2_scan {
                T2Scan::Scanner => {
                    let id = c
                        .open_scanner(spec.table.clone(), scan)
                        .map_err(|x| e("openScanner", x))?;
                    let rows = c
                        .get_scanner_rows(id, spec.scan_rows as i32)
                        .map_err(|x| e("getScannerRows", x))?;
                    c.close_scanner(id).map_err(|x| e("closeScanner", x))?;
                    rows
                }
                T2Scan::Results => c
                    .get_scanner_results(spec.table.clone(), scan, spec.scan_rows as i32)
                    .map_err(|x| e("getScannerResults", x))?,
            };
            if rows.len() as u64 != n {
                return Err(format!("scan returned {} rows, not {n}", rows.len()));
            }
        }
    }
    Ok(())
}

/// Whether `row` has the one cell of the full value size.
pub fn has_row(spec: &Spec, c: &mut Client, row: Vec<u8>) -> Result<bool, String> {
    let r = c
        .get(spec.table.clone(), tget(row, Some(vec![column(spec)])))
        .map_err(|e| format!("get: {e}"))?;
    Ok(check_one(spec, &r, "get").is_ok())
}

/// Creates the table (if missing) and loads the rows gets and scans read.
pub fn prepare(spec: &Spec, addr: SocketAddr) -> Result<(), String> {
    let mut c = connect(spec, addr)?;
    let exists = c
        .table_exists(table_name(spec))
        .map_err(|e| format!("tableExists: {e}"))?;
    if !exists {
        let desc = TTableDescriptor {
            table_name: table_name(spec),
            columns: Some(vec![family_descriptor(spec)]),
            attributes: None,
            durability: None,
        };
        c.create_table(desc, Vec::new())
            .map_err(|e| format!("createTable: {e}"))?;
    }
    let mut i = 0;
    while i < spec.rows {
        let end = (i + 1000).min(spec.rows);
        let batch = (i..end).map(|r| tput(spec, row_key(r))).collect();
        c.put_multiple(spec.table.clone(), batch)
            .map_err(|e| format!("putMultiple: {e}"))?;
        i = end;
    }
    Ok(())
}

pub fn family_descriptor(spec: &Spec) -> TColumnFamilyDescriptor {
    TColumnFamilyDescriptor {
        name: spec.family.clone(),
        attributes: None,
        configuration: None,
        block_size: None,
        bloomn_filter_type: None,
        compression_type: None,
        dfs_replication: None,
        data_block_encoding: None,
        keep_deleted_cells: None,
        max_versions: Some(1),
        min_versions: None,
        scope: None,
        time_to_live: None,
        block_cache_enabled: None,
        cache_blooms_on_write: None,
        cache_data_on_write: None,
        cache_indexes_on_write: None,
        compress_tags: None,
        evict_blocks_on_close: None,
        in_memory: None,
    }
}
