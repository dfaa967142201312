//! The Thrift2 plumbing under every generated table client: a connection to redbase or
//! HBase's Thrift2 gateway (Apache `thrift` crate, binary protocol, buffered or framed
//! transport), table creation from the schema, and row-level calls in bytes.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
use thrift::transport::{
    TBufferedReadTransport, TBufferedWriteTransport, TFramedReadTransport, TFramedWriteTransport,
    TIoChannel, TTcpChannel,
};

use super::error::{Error, Result};
use super::keys::KeySpec;
use super::scan::{KeyRange, RawScan, ScanOptions};
use crate::thrift_gen::hbase2::{
    TBloomFilterType, TColumn, TColumnFamilyDescriptor, TColumnIncrement, TColumnValue,
    TCompressionAlgorithm, TDataBlockEncoding, TDelete, TGet, THBaseServiceSyncClient, TIncrement,
    TKeepDeletedCells, TNamespaceDescriptor, TPut, TResult, TTHBaseServiceSyncClient,
    TTableDescriptor, TTableName, TTimeRange,
};

/// A row's cells: (family, qualifier) → value, latest version only.
pub type Cells = BTreeMap<(Vec<u8>, Vec<u8>), Vec<u8>>;

/// One cell version as the server returned it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellVersion {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub value: Vec<u8>,
    /// Milliseconds since the epoch (HBase's cell timestamp).
    pub timestamp: i64,
}

/// The newest version of every column of `versions`.
pub fn latest(versions: &[CellVersion]) -> Cells {
    let mut newest: BTreeMap<(&[u8], &[u8]), &CellVersion> = BTreeMap::new();
    for c in versions {
        let key = (c.family.as_slice(), c.qualifier.as_slice());
        if newest.get(&key).is_none_or(|n| c.timestamp > n.timestamp) {
            newest.insert(key, c);
        }
    }
    newest
        .into_values()
        .map(|c| ((c.family.clone(), c.qualifier.clone()), c.value.clone()))
        .collect()
}

/// What a read returns besides the newest version of every column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Up to this many versions per column (Thrift2 `maxVersions`; HBase's default is 1).
    pub versions: Option<i32>,
    /// Only cells with `min <= timestamp < max` (milliseconds).
    pub time_range: Option<(i64, i64)>,
    /// (family, qualifier) columns, a `None` qualifier meaning the whole family; empty: all.
    pub columns: Vec<(Vec<u8>, Option<Vec<u8>>)>,
}

impl ReadOptions {
    pub fn new() -> Self {
        Self::default()
    }

    /// Up to `n` versions per column, newest first.
    pub fn versions(mut self, n: i32) -> Self {
        self.versions = Some(n);
        self
    }

    /// Only cells with `min <= timestamp < max` (ms), HBase's half-open range.
    pub fn time_range(mut self, min: i64, max: i64) -> Self {
        self.time_range = Some((min, max));
        self
    }

    /// Only cells written at exactly `ts` (ms).
    pub fn at(self, ts: i64) -> Self {
        self.time_range(ts, ts.saturating_add(1))
    }

    /// Only this column (repeatable).
    pub fn column(mut self, c: impl super::values::ColumnRef) -> Self {
        self.columns.push(c.column_ref());
        self
    }

    /// Every column of this family (repeatable).
    pub fn family(mut self, family: impl Into<Vec<u8>>) -> Self {
        self.columns.push((family.into(), None));
        self
    }

    pub(crate) fn tcolumns(&self) -> Option<Vec<TColumn>> {
        (!self.columns.is_empty()).then(|| {
            self.columns
                .iter()
                .map(|(f, q)| TColumn {
                    family: f.clone(),
                    qualifier: q.clone(),
                    timestamp: None,
                })
                .collect()
        })
    }

    pub(crate) fn ttime_range(&self) -> Result<Option<TTimeRange>> {
        match self.time_range {
            Some((min, max)) if min < 0 || max < min => Err(Error::InvalidArgument(format!(
                "time range [{min}, {max}) must have 0 <= min <= max"
            ))),
            Some((min_stamp, max_stamp)) => Ok(Some(TTimeRange {
                min_stamp,
                max_stamp,
            })),
            None => Ok(None),
        }
    }

    pub(crate) fn tversions(&self) -> Result<Option<i32>> {
        match self.versions {
            Some(n) if n < 1 => Err(Error::InvalidArgument(format!(
                "versions must be at least 1, got {n}"
            ))),
            v => Ok(v),
        }
    }
}

/// One cell to write: family, qualifier, value.
pub type Cell = (Vec<u8>, Vec<u8>, Vec<u8>);

pub(crate) type Client = THBaseServiceSyncClient<
    TBinaryInputProtocol<Box<dyn Read + Send>>,
    TBinaryOutputProtocol<Box<dyn Write + Send>>,
>;

/// How the gateway frames messages: redbase serves buffered; HBase's `thrift2 -f` is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Transport {
    #[default]
    Buffered,
    Framed,
}

/// Options of [`Connection::open`].
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    pub transport: Transport,
    /// Prepended to every table name used over the connection (`rs_` makes `access-logs`
    /// `rs_access-logs`): several applications or test suites can share one cluster.
    pub table_prefix: String,
    /// Connect, read and write timeout; `None` waits forever.
    pub timeout: Option<Duration>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            transport: Transport::Buffered,
            table_prefix: String::new(),
            timeout: Some(Duration::from_secs(30)),
        }
    }
}

/// One synchronous Thrift2 connection (one socket, one call at a time). It is `Send` but its
/// calls take `&mut self`: give each thread its own connection.
pub struct Connection {
    pub(crate) client: Client,
    stream: TcpStream,
    table_prefix: String,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("peer", &self.stream.peer_addr().ok())
            .finish()
    }
}

impl Connection {
    /// Connects with the default options: buffered transport, 30 s timeouts.
    pub fn connect(host: &str, port: u16) -> Result<Connection> {
        Connection::open(host, port, &ConnectOptions::default())
    }

    pub fn open(host: &str, port: u16, options: &ConnectOptions) -> Result<Connection> {
        let mut last = Error::Transport(format!("{host}:{port} resolves to no address"));
        for addr in (host, port).to_socket_addrs()? {
            let stream = match options.timeout {
                Some(t) => TcpStream::connect_timeout(&addr, t),
                None => TcpStream::connect(addr),
            };
            match stream {
                Ok(s) => return Connection::from_stream(s, options),
                Err(e) => last = Error::Transport(format!("{addr}: {e}")),
            }
        }
        Err(last)
    }

    fn from_stream(stream: TcpStream, options: &ConnectOptions) -> Result<Connection> {
        stream.set_read_timeout(options.timeout)?;
        stream.set_write_timeout(options.timeout)?;
        stream.set_nodelay(true)?;
        let (r, w) = TTcpChannel::with_stream(stream.try_clone()?).split()?;
        let (r, w): (Box<dyn Read + Send>, Box<dyn Write + Send>) = match options.transport {
            Transport::Buffered => (
                Box::new(TBufferedReadTransport::new(r)),
                Box::new(TBufferedWriteTransport::new(w)),
            ),
            Transport::Framed => (
                Box::new(TFramedReadTransport::new(r)),
                Box::new(TFramedWriteTransport::new(w)),
            ),
        };
        let client = THBaseServiceSyncClient::new(
            TBinaryInputProtocol::new(r, true),
            TBinaryOutputProtocol::new(w, true),
        );
        Ok(Connection {
            client,
            stream,
            table_prefix: options.table_prefix.clone(),
        })
    }

    /// The Thrift compiler's client, for calls the typed tables do not cover.
    pub fn thrift(&mut self) -> &mut impl TTHBaseServiceSyncClient {
        &mut self.client
    }

    /// The prefix of every table name used over this connection.
    pub fn table_prefix(&self) -> &str {
        &self.table_prefix
    }

    /// Closes the socket (dropping the connection does the same).
    pub fn close(self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// A column family's descriptor attributes (`None` keeps HBase's default).
#[derive(Debug, Clone, Copy)]
pub struct FamilyDef {
    pub name: &'static [u8],
    pub max_versions: Option<i32>,
    pub min_versions: Option<i32>,
    pub ttl_seconds: Option<i32>,
    pub keep_deleted_cells: Option<TKeepDeletedCells>,
    pub in_memory: Option<bool>,
    pub block_cache: Option<bool>,
    pub block_size: Option<i32>,
    pub bloom_filter: Option<TBloomFilterType>,
    pub compression: Option<TCompressionAlgorithm>,
    pub data_block_encoding: Option<TDataBlockEncoding>,
    pub scope: Option<i32>,
    pub dfs_replication: Option<i16>,
    pub configuration: &'static [(&'static str, &'static str)],
}

impl FamilyDef {
    /// A family with every setting at HBase's default.
    pub const fn named(name: &'static [u8]) -> FamilyDef {
        FamilyDef {
            name,
            max_versions: None,
            min_versions: None,
            ttl_seconds: None,
            keep_deleted_cells: None,
            in_memory: None,
            block_cache: None,
            block_size: None,
            bloom_filter: None,
            compression: None,
            data_block_encoding: None,
            scope: None,
            dfs_replication: None,
            configuration: &[],
        }
    }

    /// The Thrift2 descriptor `createTable` takes.
    pub fn descriptor(&self) -> TColumnFamilyDescriptor {
        let configuration: BTreeMap<String, String> = self
            .configuration
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TColumnFamilyDescriptor {
            name: self.name.to_vec(),
            attributes: None,
            configuration: (!configuration.is_empty()).then_some(configuration),
            block_size: self.block_size,
            bloomn_filter_type: self.bloom_filter,
            compression_type: self.compression,
            dfs_replication: self.dfs_replication,
            data_block_encoding: self.data_block_encoding,
            keep_deleted_cells: self.keep_deleted_cells,
            max_versions: self.max_versions,
            min_versions: self.min_versions,
            scope: self.scope,
            time_to_live: self.ttl_seconds,
            block_cache_enabled: self.block_cache,
            cache_blooms_on_write: None,
            cache_data_on_write: None,
            cache_indexes_on_write: None,
            compress_tags: None,
            evict_blocks_on_close: None,
            in_memory: self.in_memory,
        }
    }
}

/// A table as its schema declares it: name, families, split keys, key design.
#[derive(Debug, Clone, Copy)]
pub struct TableDef {
    pub namespace: &'static str,
    pub name: &'static str,
    pub families: &'static [FamilyDef],
    pub splits: &'static [&'static [u8]],
    pub key: KeySpec,
}

impl TableDef {
    /// `ns:name` as Thrift2 data calls take it (just `name` in the default namespace).
    pub fn full_name(&self) -> Vec<u8> {
        if self.namespace == "default" {
            self.name.as_bytes().to_vec()
        } else {
            format!("{}:{}", self.namespace, self.name).into_bytes()
        }
    }

    pub fn table_name(&self) -> TTableName {
        TTableName {
            ns: Some(self.namespace.as_bytes().to_vec()),
            qualifier: self.name.as_bytes().to_vec(),
        }
    }
}

/// Every cell version of a result, in the server's order (newest first per column).
pub(crate) fn versions(result: TResult) -> Vec<CellVersion> {
    result
        .column_values
        .into_iter()
        .map(|c| CellVersion {
            family: c.family,
            qualifier: c.qualifier,
            value: c.value,
            timestamp: c.timestamp.unwrap_or(0),
        })
        .collect()
}

pub(crate) fn tput(row: &[u8], cells: Vec<Cell>, timestamp: Option<i64>) -> TPut {
    TPut {
        row: row.to_vec(),
        column_values: cells
            .into_iter()
            .map(|(family, qualifier, value)| TColumnValue {
                family,
                qualifier,
                value,
                timestamp: None,
                tags: None,
                type_: None,
            })
            .collect(),
        timestamp,
        attributes: None,
        durability: None,
        cell_visibility: None,
    }
}

/// (family, qualifier) of a column to delete; `None` deletes the whole family.
pub type ColumnName = (Vec<u8>, Option<Vec<u8>>);

pub(crate) fn tdelete(row: &[u8], columns: &[ColumnName], timestamp: Option<i64>) -> TDelete {
    let columns: Vec<TColumn> = columns
        .iter()
        .map(|(f, q)| TColumn {
            family: f.clone(),
            qualifier: q.clone(),
            timestamp: None,
        })
        .collect();
    TDelete {
        row: row.to_vec(),
        columns: (!columns.is_empty()).then_some(columns),
        timestamp,
        delete_type: None,
        attributes: None,
        durability: None,
        cell_visibility: None,
    }
}

/// Row-level Thrift2 calls in bytes for one table over a borrowed connection; the generated
/// table clients type them.
pub struct TableClient<'c> {
    pub conn: &'c mut Connection,
    pub table: &'static TableDef,
}

impl<'c> TableClient<'c> {
    pub fn new(conn: &'c mut Connection, table: &'static TableDef) -> Self {
        TableClient { conn, table }
    }

    /// The table's name on this connection (its table prefix applied), as data calls take it.
    pub fn full_name(&self) -> Vec<u8> {
        let mut name = self.conn.table_prefix.as_bytes().to_vec();
        name.extend_from_slice(self.table.name.as_bytes());
        if self.table.namespace == "default" {
            name
        } else {
            [self.table.namespace.as_bytes(), b":", &name].concat()
        }
    }

    /// The table's name on this connection, as admin calls take it.
    pub fn table_name(&self) -> TTableName {
        TTableName {
            ns: Some(self.table.namespace.as_bytes().to_vec()),
            qualifier: format!("{}{}", self.conn.table_prefix, self.table.name).into_bytes(),
        }
    }

    /// Creates the table with its families and split keys, and its namespace if missing.
    pub fn create(&mut self) -> Result<()> {
        let ns = self.table.namespace;
        if ns != "default" {
            let known = self.conn.client.list_namespace_descriptors()?;
            if !known.iter().any(|d| d.name == ns) {
                let desc = TNamespaceDescriptor {
                    name: ns.to_string(),
                    configuration: None,
                };
                self.conn.client.create_namespace(desc)?;
            }
        }
        let desc = TTableDescriptor {
            table_name: self.table_name(),
            columns: Some(
                self.table
                    .families
                    .iter()
                    .map(FamilyDef::descriptor)
                    .collect(),
            ),
            attributes: None,
            durability: None,
        };
        let splits = self.table.splits.iter().map(|s| s.to_vec()).collect();
        Ok(self.conn.client.create_table(desc, splits)?)
    }

    pub fn exists(&mut self) -> Result<bool> {
        Ok(self.conn.client.table_exists(self.table_name())?)
    }

    /// Disables (if enabled) and deletes the table.
    pub fn drop_table(&mut self) -> Result<()> {
        let name = self.table_name();
        if self.conn.client.is_table_enabled(name.clone())? {
            self.conn.client.disable_table(name.clone())?;
        }
        Ok(self.conn.client.delete_table(name)?)
    }

    /// Start keys of the table's regions, ascending (the first is empty).
    pub fn region_starts(&mut self) -> Result<Vec<Vec<u8>>> {
        let locations = self
            .conn
            .client
            .get_all_region_locations(self.full_name())?;
        let mut starts: Vec<Vec<u8>> = locations
            .into_iter()
            .map(|l| l.region_info.start_key.unwrap_or_default())
            .collect();
        starts.sort();
        Ok(starts)
    }

    /// The row's cell versions, `None` if it has none.
    pub fn get(&mut self, row: &[u8], options: &ReadOptions) -> Result<Option<Vec<CellVersion>>> {
        let get = TGet {
            row: row.to_vec(),
            columns: options.tcolumns(),
            timestamp: None,
            time_range: options.ttime_range()?,
            max_versions: options.tversions()?,
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
        };
        let found = versions(self.conn.client.get(self.full_name(), get)?);
        Ok((!found.is_empty()).then_some(found))
    }

    /// Writes the cells, at `timestamp` (ms) if given, else at the server's clock.
    pub fn put(&mut self, row: &[u8], cells: Vec<Cell>, timestamp: Option<i64>) -> Result<()> {
        if cells.is_empty() {
            return Ok(());
        }
        Ok(self
            .conn
            .client
            .put(self.full_name(), tput(row, cells, timestamp))?)
    }

    /// Deletes the row, or every version of the given (family, qualifier) columns; with a
    /// timestamp, only the versions at or before it.
    pub fn delete(
        &mut self,
        row: &[u8],
        columns: &[ColumnName],
        timestamp: Option<i64>,
    ) -> Result<()> {
        Ok(self
            .conn
            .client
            .delete_single(self.full_name(), tdelete(row, columns, timestamp))?)
    }

    /// Atomically adds `amount` to a counter cell; returns the new value.
    pub fn increment(
        &mut self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let inc = TIncrement {
            row: row.to_vec(),
            columns: vec![TColumnIncrement {
                family: family.to_vec(),
                qualifier: qualifier.to_vec(),
                amount: Some(amount),
            }],
            attributes: None,
            durability: None,
            cell_visibility: None,
            return_results: None,
        };
        let result = self.conn.client.increment(self.full_name(), inc)?;
        let value = result
            .column_values
            .into_iter()
            .find(|c| c.family == family && c.qualifier == qualifier)
            .ok_or_else(|| Error::Protocol("the increment returned no value".into()))?;
        let raw: [u8; 8] = value.value.as_slice().try_into().map_err(|_| {
            Error::value(format!("a counter is 8 bytes, got {}", value.value.len()))
        })?;
        Ok(i64::from_be_bytes(raw))
    }

    /// Puts `cells` if the checked cell holds `expected` (`None`: if it is absent or empty;
    /// Thrift2 sends absence as an empty value, which HBase and redbase read the same way).
    pub fn check_and_put(
        &mut self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: Option<Vec<u8>>,
        cells: Vec<Cell>,
    ) -> Result<bool> {
        Ok(self.conn.client.check_and_put(
            self.full_name(),
            row.to_vec(),
            family.to_vec(),
            qualifier.to_vec(),
            expected.unwrap_or_default(),
            tput(row, cells, None),
        )?)
    }

    /// Rows in `keys`: one scanner per range (salt bucket), merged by the key without its salt
    /// (descending if reversed), or one bucket after the other with `options.bucket_order`.
    pub fn scan(&mut self, keys: &KeyRange, options: &ScanOptions) -> RawScan<'_> {
        let name = self.full_name();
        let salt_width = self.table.key.salt_width();
        RawScan::new(&mut *self.conn, name, keys, options, salt_width)
    }
}
