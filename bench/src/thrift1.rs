//! The Thrift1 (`Hbase`) driver: the generated `HbaseSyncClient` over either transport and
//! protocol, one operation of each kind, and preloading.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use rand::rngs::SmallRng;
use rand::Rng;
use redbase::generated::hbase1::{
    BatchMutation, ColumnDescriptor, HbaseSyncClient, Mutation, THbaseSyncClient,
};

use crate::cli::OpKind;
use crate::spec::{new_row_key, open_protocols, row_key, InProt, OutProt, Spec};

pub type Client = HbaseSyncClient<InProt, OutProt>;

/// A Thrift1 client (of the measured gateway, or for start-up polling).
pub fn connect(spec: &Spec, addr: SocketAddr) -> Result<Client, String> {
    let (i, o) = open_protocols(addr, spec.transport, spec.protocol)?;
    Ok(HbaseSyncClient::new(i, o))
}

/// One durable cell at `f:q` of the full value size.
fn put(spec: &Spec) -> Mutation {
    Mutation {
        is_delete: Some(false),
        column: Some(spec.column.clone()),
        value: Some(spec.value.clone()),
        write_to_w_a_l: Some(true),
    }
}

/// One Thrift1 operation; replies are checked so that neither side can win by answering
/// less.
pub fn op(spec: &Spec, c: &mut Client, kind: OpKind, rng: &mut SmallRng) -> Result<(), String> {
    let e = |what: &str, err: thrift::Error| format!("{what}: {err}");
    match kind {
        OpKind::Get => {
            let row = row_key(rng.random_range(0..spec.rows));
            let cells = c
                .get(
                    spec.table.clone(),
                    row,
                    spec.column.clone(),
                    BTreeMap::new(),
                )
                .map_err(|x| e("get", x))?;
            let ok =
                cells.len() == 1 && cells[0].value.as_ref().map(Vec::len) == Some(spec.value.len());
            if !ok {
                return Err(format!("get returned {} cells, not one", cells.len()));
            }
        }
        OpKind::GetRow => {
            let row = row_key(rng.random_range(0..spec.rows));
            let rows = c
                .get_row(spec.table.clone(), row, BTreeMap::new())
                .map_err(|x| e("getRow", x))?;
            if rows.len() != 1 {
                return Err(format!("getRow returned {} rows, not one", rows.len()));
            }
        }
        OpKind::Put => {
            let row = new_row_key(rng);
            c.mutate_row(spec.table.clone(), row, vec![put(spec)], BTreeMap::new())
                .map_err(|x| e("mutateRow", x))?;
        }
        OpKind::Scan => {
            let n = spec.scan_rows as u64;
            let start = rng.random_range(0..spec.rows - n);
            let id = c
                .scanner_open_with_stop(
                    spec.table.clone(),
                    row_key(start),
                    row_key(start + n),
                    vec![spec.column.clone()],
                    BTreeMap::new(),
                )
                .map_err(|x| e("scannerOpenWithStop", x))?;
            let rows = c
                .scanner_get_list(id, spec.scan_rows as i32)
                .map_err(|x| e("scannerGetList", x))?;
            c.scanner_close(id).map_err(|x| e("scannerClose", x))?;
            if rows.len() as u64 != n {
                return Err(format!("scan returned {} rows, not {n}", rows.len()));
            }
        }
    }
    Ok(())
}

/// Whether `row` has the one cell at `f:q`.
pub fn has_row(spec: &Spec, c: &mut Client, row: Vec<u8>) -> Result<bool, String> {
    c.get(
        spec.table.clone(),
        row,
        spec.column.clone(),
        BTreeMap::new(),
    )
    .map_err(|e| format!("get: {e}"))
    .map(|cells| cells.len() == 1)
}

/// Creates the table (if missing) and loads the rows gets and scans read, 1,000 rows a
/// `mutateRows`.
pub fn prepare(spec: &Spec, addr: SocketAddr) -> Result<(), String> {
    let mut c = connect(spec, addr)?;
    let exists = c
        .get_table_names()
        .map_err(|e| format!("getTableNames: {e}"))?
        .contains(&spec.table);
    if !exists {
        let family = ColumnDescriptor {
            name: Some(spec.family.clone()),
            max_versions: Some(1),
            compression: Some("NONE".into()),
            in_memory: Some(false),
            bloom_filter_type: Some("NONE".into()),
            bloom_filter_vector_size: Some(0),
            bloom_filter_nb_hashes: Some(0),
            // HBase honours this: false would make every HBase read miss its block cache
            block_cache_enabled: Some(true),
            time_to_live: Some(i32::MAX),
        };
        c.create_table(spec.table.clone(), vec![family])
            .map_err(|e| format!("createTable: {e}"))?;
    }
    let mut i = 0;
    while i < spec.rows {
        let end = (i + 1000).min(spec.rows);
        let batch = (i..end)
            .map(|r| BatchMutation {
                row: Some(row_key(r)),
                mutations: Some(vec![put(spec)]),
            })
            .collect();
        c.mutate_rows(spec.table.clone(), batch, BTreeMap::new())
            .map_err(|e| format!("mutateRows: {e}"))?;
        i = end;
    }
    Ok(())
}
