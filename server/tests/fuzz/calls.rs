//! Valid calls of every method of both services, encoded by the generated clients over
//! thrift's own output protocols: the seeds the corpus was written from
//! (`FUZZ_WRITE_CORPUS=1 cargo test --test fuzz corpus_of_valid_calls_is_current`) and the good calls
//! the tests send after hostile ones.

use std::collections::{BTreeMap, BTreeSet};

use redbase::generated::hbase1 as h1;
use redbase::generated::hbase2 as h2;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
};

use super::corpus::Proto;

/// The table, family, qualifier and row every seed call uses (the tests create them).
pub const TABLE: &[u8] = b"t";
pub const FAMILY: &[u8] = b"f";
pub const ROW: &[u8] = b"r";

type Call1 = (&'static str, fn(&mut dyn h1::THbaseSyncClient));
type Call2 = (&'static str, fn(&mut dyn h2::TTHBaseServiceSyncClient));

/// Runs `call` on a client whose output is captured; the reply it then waits for is never
/// there (its input is empty), so the call fails after writing its request.
fn capture1(p: Proto, call: fn(&mut dyn h1::THbaseSyncClient)) -> Vec<u8> {
    let mut out = Vec::new();
    let none: &[u8] = &[];
    match p {
        Proto::Binary => {
            let mut c = h1::HbaseSyncClient::new(
                TBinaryInputProtocol::new(none, true),
                TBinaryOutputProtocol::new(&mut out, true),
            );
            call(&mut c);
        }
        Proto::Compact => {
            let mut c = h1::HbaseSyncClient::new(
                TCompactInputProtocol::new(none),
                TCompactOutputProtocol::new(&mut out),
            );
            call(&mut c);
        }
    }
    out
}

fn capture2(p: Proto, call: fn(&mut dyn h2::TTHBaseServiceSyncClient)) -> Vec<u8> {
    let mut out = Vec::new();
    let none: &[u8] = &[];
    match p {
        Proto::Binary => {
            let mut c = h2::THBaseServiceSyncClient::new(
                TBinaryInputProtocol::new(none, true),
                TBinaryOutputProtocol::new(&mut out, true),
            );
            call(&mut c);
        }
        Proto::Compact => {
            let mut c = h2::THBaseServiceSyncClient::new(
                TCompactInputProtocol::new(none),
                TCompactOutputProtocol::new(&mut out),
            );
            call(&mut c);
        }
    }
    out
}

/// Every Thrift1 method's call, named by method.
pub fn thrift1(p: Proto) -> Vec<(&'static str, Vec<u8>)> {
    T1.iter().map(|(n, c)| (*n, capture1(p, *c))).collect()
}

/// Every Thrift2 method's call, named by method.
pub fn thrift2(p: Proto) -> Vec<(&'static str, Vec<u8>)> {
    T2.iter().map(|(n, c)| (*n, capture2(p, *c))).collect()
}

/// `getThriftServerType`, which both services answer with a REPLY.
pub fn server_type(service: u8, p: Proto) -> Vec<u8> {
    if service == 1 {
        capture1(p, |c| drop(c.get_thrift_server_type()))
    } else {
        capture2(p, |c| drop(c.get_thrift_server_type()))
    }
}

fn t() -> Vec<u8> {
    TABLE.to_vec()
}
fn r() -> Vec<u8> {
    ROW.to_vec()
}
fn fq() -> Vec<u8> {
    b"f:q".to_vec()
}
fn attrs() -> BTreeMap<Vec<u8>, Vec<u8>> {
    BTreeMap::from([(b"k".to_vec(), b"v".to_vec())])
}

fn mutation(delete: bool) -> h1::Mutation {
    h1::Mutation {
        is_delete: Some(delete),
        column: Some(fq()),
        value: Some(b"v".to_vec()),
        write_to_w_a_l: Some(true),
    }
}

fn scan1() -> h1::TScan {
    h1::TScan {
        start_row: Some(b"a".to_vec()),
        stop_row: Some(b"z".to_vec()),
        timestamp: Some(i64::MAX),
        columns: Some(vec![fq(), b"f".to_vec()]),
        caching: Some(10),
        filter_string: Some(b"PrefixFilter('r') AND ValueFilter(=, 'binary:v')".to_vec()),
        batch_size: Some(5),
        sort_columns: Some(true),
        reversed: Some(false),
        cache_blocks: Some(true),
    }
}

fn column_descriptor() -> h1::ColumnDescriptor {
    h1::ColumnDescriptor {
        name: Some(b"f:".to_vec()),
        max_versions: Some(3),
        compression: Some("NONE".into()),
        in_memory: Some(false),
        bloom_filter_type: Some("NONE".into()),
        bloom_filter_vector_size: Some(0),
        bloom_filter_nb_hashes: Some(0),
        block_cache_enabled: Some(true),
        time_to_live: Some(i32::MAX),
    }
}

const T1: &[Call1] = &[
    ("enableTable", |c| drop(c.enable_table(t()))),
    ("disableTable", |c| drop(c.disable_table(b"u".to_vec()))),
    ("isTableEnabled", |c| drop(c.is_table_enabled(t()))),
    ("compact", |c| drop(c.compact(t()))),
    ("majorCompact", |c| drop(c.major_compact(t()))),
    ("getTableNames", |c| drop(c.get_table_names())),
    ("getTableNamesWithIsTableEnabled", |c| {
        drop(c.get_table_names_with_is_table_enabled())
    }),
    ("getColumnDescriptors", |c| {
        drop(c.get_column_descriptors(t()))
    }),
    ("getTableRegions", |c| drop(c.get_table_regions(t()))),
    ("createTable", |c| {
        drop(c.create_table(b"u".to_vec(), vec![column_descriptor()]))
    }),
    ("deleteTable", |c| drop(c.delete_table(b"u".to_vec()))),
    ("get", |c| drop(c.get(t(), r(), fq(), attrs()))),
    ("getVer", |c| drop(c.get_ver(t(), r(), fq(), 3, attrs()))),
    ("getVerTs", |c| {
        drop(c.get_ver_ts(t(), r(), fq(), 1_000, 3, attrs()))
    }),
    ("getRow", |c| drop(c.get_row(t(), r(), attrs()))),
    ("getRowWithColumns", |c| {
        drop(c.get_row_with_columns(t(), r(), vec![fq(), b"f".to_vec()], attrs()))
    }),
    ("getRowTs", |c| drop(c.get_row_ts(t(), r(), 1_000, attrs()))),
    ("getRowWithColumnsTs", |c| {
        drop(c.get_row_with_columns_ts(t(), r(), vec![fq()], 1_000, attrs()))
    }),
    ("getRows", |c| {
        drop(c.get_rows(t(), vec![r(), b"s".to_vec()], attrs()))
    }),
    ("getRowsWithColumns", |c| {
        drop(c.get_rows_with_columns(t(), vec![r()], vec![fq()], attrs()))
    }),
    ("getRowsTs", |c| {
        drop(c.get_rows_ts(t(), vec![r()], 1_000, attrs()))
    }),
    ("getRowsWithColumnsTs", |c| {
        drop(c.get_rows_with_columns_ts(t(), vec![r()], vec![fq()], 1_000, attrs()))
    }),
    ("mutateRow", |c| {
        drop(c.mutate_row(t(), r(), vec![mutation(false)], attrs()))
    }),
    ("mutateRowTs", |c| {
        drop(c.mutate_row_ts(t(), r(), vec![mutation(false), mutation(true)], 5, attrs()))
    }),
    ("mutateRows", |c| {
        drop(c.mutate_rows(
            t(),
            vec![h1::BatchMutation {
                row: Some(r()),
                mutations: Some(vec![mutation(false)]),
            }],
            attrs(),
        ))
    }),
    ("mutateRowsTs", |c| {
        drop(c.mutate_rows_ts(
            t(),
            vec![h1::BatchMutation {
                row: Some(b"s".to_vec()),
                mutations: Some(vec![mutation(false)]),
            }],
            7,
            attrs(),
        ))
    }),
    ("atomicIncrement", |c| {
        drop(c.atomic_increment(t(), b"n".to_vec(), b"f:c".to_vec(), 2))
    }),
    ("deleteAll", |c| drop(c.delete_all(t(), r(), fq(), attrs()))),
    ("deleteAllTs", |c| {
        drop(c.delete_all_ts(t(), r(), fq(), 3, attrs()))
    }),
    ("deleteAllRow", |c| {
        drop(c.delete_all_row(t(), b"s".to_vec(), attrs()))
    }),
    ("increment", |c| {
        drop(c.increment(h1::TIncrement {
            table: Some(t()),
            row: Some(b"n".to_vec()),
            column: Some(b"f:c".to_vec()),
            ammount: Some(1),
        }))
    }),
    ("incrementRows", |c| {
        drop(c.increment_rows(vec![h1::TIncrement {
            table: Some(t()),
            row: Some(b"n".to_vec()),
            column: Some(b"f:d".to_vec()),
            ammount: Some(-1),
        }]))
    }),
    ("deleteAllRowTs", |c| {
        drop(c.delete_all_row_ts(t(), b"s".to_vec(), 3, attrs()))
    }),
    ("scannerOpenWithScan", |c| {
        drop(c.scanner_open_with_scan(t(), scan1(), attrs()))
    }),
    ("scannerOpen", |c| {
        drop(c.scanner_open(t(), b"a".to_vec(), vec![fq()], attrs()))
    }),
    ("scannerOpenWithStop", |c| {
        drop(c.scanner_open_with_stop(t(), b"a".to_vec(), b"z".to_vec(), vec![], attrs()))
    }),
    ("scannerOpenWithPrefix", |c| {
        drop(c.scanner_open_with_prefix(t(), r(), vec![b"f".to_vec()], attrs()))
    }),
    ("scannerOpenTs", |c| {
        drop(c.scanner_open_ts(t(), b"a".to_vec(), vec![fq()], 9, attrs()))
    }),
    ("scannerOpenWithStopTs", |c| {
        drop(c.scanner_open_with_stop_ts(t(), b"a".to_vec(), b"z".to_vec(), vec![], 9, attrs()))
    }),
    ("scannerGet", |c| drop(c.scanner_get(1))),
    ("scannerGetList", |c| drop(c.scanner_get_list(1, 10))),
    ("scannerClose", |c| drop(c.scanner_close(1))),
    ("getRegionInfo", |c| {
        drop(c.get_region_info(b"t,,99999999999999".to_vec()))
    }),
    ("append", |c| {
        drop(c.append(h1::TAppend {
            table: Some(t()),
            row: Some(r()),
            columns: Some(vec![b"f:a".to_vec()]),
            values: Some(vec![b"x".to_vec()]),
        }))
    }),
    ("checkAndPut", |c| {
        drop(c.check_and_put(t(), r(), fq(), b"v".to_vec(), mutation(false), attrs()))
    }),
    ("getThriftServerType", |c| drop(c.get_thrift_server_type())),
    ("getClusterId", |c| drop(c.get_cluster_id())),
    ("grant", |c| drop(c.grant(acl1()))),
    ("revoke", |c| drop(c.revoke(acl1()))),
];

/// A grant of read and write on the seed table to a user who is no superuser.
fn acl1() -> h1::TAccessControlEntity {
    h1::TAccessControlEntity {
        username: "carol".into(),
        scope: h1::TPermissionScope::TABLE,
        actions: "RW".into(),
        table_name: Some(t()),
        ns_name: None,
    }
}

fn acl2() -> h2::TAccessControlEntity {
    h2::TAccessControlEntity {
        username: "carol".into(),
        scope: h2::TPermissionScope::TABLE,
        actions: "RW".into(),
        table_name: Some("t".into()),
        ns_name: None,
    }
}

fn column() -> h2::TColumn {
    h2::TColumn {
        family: FAMILY.to_vec(),
        qualifier: Some(b"q".to_vec()),
        timestamp: None,
    }
}

fn column_value() -> h2::TColumnValue {
    h2::TColumnValue {
        family: FAMILY.to_vec(),
        qualifier: b"q".to_vec(),
        value: b"v".to_vec(),
        timestamp: Some(10),
        tags: None,
        type_: None,
    }
}

fn tget() -> h2::TGet {
    h2::TGet {
        row: r(),
        columns: Some(vec![column()]),
        timestamp: None,
        time_range: Some(h2::TTimeRange {
            min_stamp: 0,
            max_stamp: i64::MAX,
        }),
        max_versions: Some(2),
        filter_string: Some(b"ValueFilter(=, 'binary:v')".to_vec()),
        attributes: Some(attrs()),
        authorizations: None,
        consistency: Some(h2::TConsistency::STRONG),
        target_replica_id: None,
        cache_blocks: Some(true),
        store_limit: Some(5),
        store_offset: Some(0),
        existence_only: Some(false),
        filter_bytes: None,
    }
}

/// A serialized KeyOnlyFilter, as HBase's own client writes it (tests/oracle/filterbytes).
const KEY_ONLY: &str = "0a2c6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e4b65794f6e6c7946696c74657212020800";

fn tget_filter_bytes() -> h2::TGet {
    h2::TGet {
        filter_string: None,
        filter_bytes: Some(super::corpus::unhex(KEY_ONLY)),
        ..tget()
    }
}

fn tput() -> h2::TPut {
    h2::TPut {
        row: r(),
        column_values: vec![column_value()],
        timestamp: None,
        attributes: Some(attrs()),
        durability: Some(h2::TDurability::SYNC_WAL),
        cell_visibility: None,
    }
}

fn tdelete() -> h2::TDelete {
    h2::TDelete {
        row: b"s".to_vec(),
        columns: Some(vec![column()]),
        timestamp: None,
        delete_type: Some(h2::TDeleteType::DELETE_COLUMNS),
        attributes: None,
        durability: None,
        cell_visibility: None,
    }
}

fn tscan() -> h2::TScan {
    h2::TScan {
        start_row: Some(b"a".to_vec()),
        stop_row: Some(b"z".to_vec()),
        columns: Some(vec![column()]),
        caching: Some(10),
        max_versions: Some(1),
        time_range: None,
        filter_string: Some(b"PrefixFilter('r')".to_vec()),
        batch_size: Some(3),
        attributes: None,
        authorizations: None,
        reversed: Some(true),
        cache_blocks: None,
        col_fam_time_range_map: Some(BTreeMap::from([(
            FAMILY.to_vec(),
            h2::TTimeRange {
                min_stamp: 0,
                max_stamp: 100,
            },
        )])),
        read_type: Some(h2::TReadType::DEFAULT),
        limit: Some(100),
        consistency: None,
        target_replica_id: None,
        filter_bytes: Some(super::corpus::unhex(KEY_ONLY)),
    }
}

fn tname() -> h2::TTableName {
    h2::TTableName {
        ns: Some(b"default".to_vec()),
        qualifier: t(),
    }
}

fn other_name() -> h2::TTableName {
    h2::TTableName {
        ns: None,
        qualifier: b"u".to_vec(),
    }
}

fn family_descriptor() -> h2::TColumnFamilyDescriptor {
    h2::TColumnFamilyDescriptor {
        name: b"g".to_vec(),
        attributes: Some(BTreeMap::from([(b"VERSIONS".to_vec(), b"3".to_vec())])),
        configuration: Some(BTreeMap::from([("k".into(), "v".into())])),
        block_size: Some(65536),
        bloomn_filter_type: Some(h2::TBloomFilterType::ROW),
        compression_type: Some(h2::TCompressionAlgorithm::NONE),
        dfs_replication: Some(3),
        data_block_encoding: Some(h2::TDataBlockEncoding::NONE),
        keep_deleted_cells: Some(h2::TKeepDeletedCells::FALSE),
        max_versions: Some(3),
        min_versions: Some(0),
        scope: Some(0),
        time_to_live: Some(86_400),
        block_cache_enabled: Some(true),
        cache_blooms_on_write: None,
        cache_data_on_write: None,
        cache_indexes_on_write: None,
        compress_tags: None,
        evict_blocks_on_close: None,
        in_memory: Some(false),
    }
}

fn table_descriptor() -> h2::TTableDescriptor {
    h2::TTableDescriptor {
        table_name: other_name(),
        columns: Some(vec![family_descriptor()]),
        attributes: None,
        durability: Some(h2::TDurability::ASYNC_WAL),
    }
}

fn row_mutations() -> h2::TRowMutations {
    h2::TRowMutations {
        row: r(),
        mutations: vec![
            h2::TMutation::Put(tput()),
            h2::TMutation::DeleteSingle(h2::TDelete {
                row: r(),
                ..tdelete()
            }),
        ],
    }
}

fn namespace() -> h2::TNamespaceDescriptor {
    h2::TNamespaceDescriptor {
        name: "ns".into(),
        configuration: Some(BTreeMap::from([("k".into(), "v".into())])),
    }
}

fn server() -> BTreeSet<h2::TServerName> {
    BTreeSet::from([h2::TServerName {
        host_name: "localhost".into(),
        port: Some(9091),
        start_code: None,
    }])
}

const T2: &[Call2] = &[
    ("exists", |c| drop(c.exists(t(), tget()))),
    ("existsAll", |c| {
        drop(c.exists_all(t(), vec![tget(), tget()]))
    }),
    ("get", |c| drop(c.get(t(), tget()))),
    ("get-filterBytes", |c| drop(c.get(t(), tget_filter_bytes()))),
    ("getMultiple", |c| drop(c.get_multiple(t(), vec![tget()]))),
    ("put", |c| drop(c.put(t(), tput()))),
    ("checkAndPut", |c| {
        drop(c.check_and_put(
            t(),
            r(),
            b"f".to_vec(),
            b"q".to_vec(),
            b"v".to_vec(),
            tput(),
        ))
    }),
    ("putMultiple", |c| {
        drop(c.put_multiple(t(), vec![tput(), tput()]))
    }),
    ("deleteSingle", |c| drop(c.delete_single(t(), tdelete()))),
    ("deleteMultiple", |c| {
        drop(c.delete_multiple(t(), vec![tdelete()]))
    }),
    ("checkAndDelete", |c| {
        drop(c.check_and_delete(
            t(),
            b"s".to_vec(),
            b"f".to_vec(),
            b"q".to_vec(),
            vec![],
            tdelete(),
        ))
    }),
    ("increment", |c| {
        drop(c.increment(
            t(),
            h2::TIncrement {
                row: b"n".to_vec(),
                columns: vec![h2::TColumnIncrement {
                    family: b"f".to_vec(),
                    qualifier: b"c".to_vec(),
                    amount: Some(3),
                }],
                attributes: None,
                durability: None,
                cell_visibility: None,
                return_results: Some(true),
            },
        ))
    }),
    ("append", |c| {
        drop(c.append(
            t(),
            h2::TAppend {
                row: r(),
                columns: vec![column_value()],
                attributes: None,
                durability: None,
                cell_visibility: None,
                return_results: Some(true),
            },
        ))
    }),
    ("openScanner", |c| drop(c.open_scanner(t(), tscan()))),
    ("getScannerRows", |c| drop(c.get_scanner_rows(1, 10))),
    ("closeScanner", |c| drop(c.close_scanner(1))),
    ("mutateRow", |c| drop(c.mutate_row(t(), row_mutations()))),
    ("getScannerResults", |c| {
        drop(c.get_scanner_results(t(), tscan(), 10))
    }),
    ("getRegionLocation", |c| {
        drop(c.get_region_location(t(), r(), false))
    }),
    ("getAllRegionLocations", |c| {
        drop(c.get_all_region_locations(t()))
    }),
    ("checkAndMutate", |c| {
        drop(c.check_and_mutate(
            t(),
            r(),
            b"f".to_vec(),
            b"q".to_vec(),
            h2::TCompareOperator::EQUAL,
            b"v".to_vec(),
            row_mutations(),
        ))
    }),
    ("getTableDescriptor", |c| {
        drop(c.get_table_descriptor(tname()))
    }),
    ("getTableDescriptors", |c| {
        drop(c.get_table_descriptors(vec![tname(), other_name()]))
    }),
    ("tableExists", |c| drop(c.table_exists(tname()))),
    ("getTableDescriptorsByPattern", |c| {
        drop(c.get_table_descriptors_by_pattern("t.*".into(), true))
    }),
    ("getTableDescriptorsByNamespace", |c| {
        drop(c.get_table_descriptors_by_namespace("default".into()))
    }),
    ("getTableNamesByPattern", |c| {
        drop(c.get_table_names_by_pattern("[a-z]+".into(), false))
    }),
    ("getTableNamesByNamespace", |c| {
        drop(c.get_table_names_by_namespace("default".into()))
    }),
    ("createTable", |c| {
        drop(c.create_table(table_descriptor(), vec![b"m".to_vec()]))
    }),
    ("deleteTable", |c| drop(c.delete_table(other_name()))),
    ("truncateTable", |c| {
        drop(c.truncate_table(other_name(), true))
    }),
    ("enableTable", |c| drop(c.enable_table(tname()))),
    ("disableTable", |c| drop(c.disable_table(other_name()))),
    ("isTableEnabled", |c| drop(c.is_table_enabled(tname()))),
    ("isTableDisabled", |c| drop(c.is_table_disabled(tname()))),
    ("isTableAvailable", |c| drop(c.is_table_available(tname()))),
    ("isTableAvailableWithSplit", |c| {
        drop(c.is_table_available_with_split(tname(), vec![b"m".to_vec()]))
    }),
    ("addColumnFamily", |c| {
        drop(c.add_column_family(other_name(), family_descriptor()))
    }),
    ("deleteColumnFamily", |c| {
        drop(c.delete_column_family(other_name(), b"g".to_vec()))
    }),
    ("modifyColumnFamily", |c| {
        drop(c.modify_column_family(other_name(), family_descriptor()))
    }),
    ("modifyTable", |c| drop(c.modify_table(table_descriptor()))),
    ("createNamespace", |c| drop(c.create_namespace(namespace()))),
    ("modifyNamespace", |c| drop(c.modify_namespace(namespace()))),
    ("deleteNamespace", |c| drop(c.delete_namespace("ns".into()))),
    ("getNamespaceDescriptor", |c| {
        drop(c.get_namespace_descriptor("default".into()))
    }),
    ("listNamespaceDescriptors", |c| {
        drop(c.list_namespace_descriptors())
    }),
    ("listNamespaces", |c| drop(c.list_namespaces())),
    ("getThriftServerType", |c| drop(c.get_thrift_server_type())),
    ("getClusterId", |c| drop(c.get_cluster_id())),
    ("getSlowLogResponses", |c| {
        drop(c.get_slow_log_responses(
            server(),
            h2::TLogQueryFilter {
                region_name: None,
                client_address: None,
                table_name: Some("t".into()),
                user_name: None,
                limit: Some(10),
                log_type: Some(h2::TLogType::SLOW_LOG),
                filter_by_operator: Some(h2::TFilterByOperator::OR),
            },
        ))
    }),
    ("clearSlowLogResponses", |c| {
        drop(c.clear_slow_log_responses(server()))
    }),
    ("grant", |c| drop(c.grant(acl2()))),
    ("revoke", |c| drop(c.revoke(acl2()))),
];
