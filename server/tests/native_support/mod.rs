//! The native RPC tests' harness: a real server with the native listener on loopback (and
//! the operations listener when asked), and a client that speaks HBase's framing byte by byte
//! with the generated messages.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use redbase::engine::{Engine, EngineConfig};
use redbase::native::pb;
use redbase::server::{self, Config, Listeners};

pub const CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";

pub struct Server {
    pub addr: SocketAddr,
    pub engine: Engine,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Server {
    /// A server with only the native listener, frames bounded to `max_frame` bytes.
    pub fn start(max_frame: usize) -> Server {
        let mut config = Config::default();
        config.limits.max_message = max_frame;
        Server::start_with(config, false).0
    }

    /// A server with `config` (advertising 127.0.0.1), and the operations listener too when
    /// `http` (its address returned).
    pub fn start_with(mut config: Config, http: bool) -> (Server, Option<SocketAddr>) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        config.advertised_host = Some("127.0.0.1".into());
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let e = engine.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async move {
                let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                let h = match http {
                    true => Some(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap()),
                    false => None,
                };
                let addrs = (
                    l.local_addr().unwrap(),
                    h.as_ref().map(|h| h.local_addr().unwrap()),
                );
                addr_tx.send(addrs).unwrap();
                let listeners = Listeners {
                    http: h,
                    ..Listeners::default()
                };
                server::run_with_native(e, listeners, Some(l), config, async move {
                    let _ = stop_rx.await;
                })
                .await;
            });
        });
        let (addr, http) = addr_rx.recv().unwrap();
        let server = Server {
            addr,
            engine,
            stop: Some(stop),
            thread: Some(thread),
            _dir: dir,
        };
        (server, http)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        self.engine.close();
    }
}

pub fn stream(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

pub fn delimited(buf: &mut &[u8]) -> Bytes {
    let len = prost::encoding::decode_varint(buf).unwrap() as usize;
    let (m, rest) = buf.split_at(len);
    *buf = rest;
    Bytes::copy_from_slice(m)
}

/// One response: its header, message and cell block.
pub struct Response {
    pub header: pb::ResponseHeader,
    pub message: Bytes,
    pub cells: Bytes,
}

impl Response {
    pub fn exception_class(&self) -> Option<String> {
        self.header
            .exception
            .as_ref()
            .and_then(|e| e.exception_class_name.clone())
    }
}

pub fn read_response<S: Read + ?Sized>(s: &mut S) -> Response {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    let mut b = &body[..];
    let header = pb::ResponseHeader::decode(delimited(&mut b)).unwrap();
    let cells_len = header
        .cell_block_meta
        .as_ref()
        .and_then(|m| m.length)
        .unwrap_or(0) as usize;
    let message = if b.len() > cells_len {
        delimited(&mut b)
    } else {
        Bytes::new()
    };
    Response {
        header,
        message,
        cells: Bytes::copy_from_slice(b),
    }
}

/// True when the server closed the connection (within the read timeout).
pub fn closed(s: &mut TcpStream) -> bool {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(0) | Err(_))
}

pub fn connection_header(service: &str, codec: bool) -> Vec<u8> {
    let h = pb::ConnectionHeader {
        user_info: Some(pb::UserInformation {
            effective_user: "tester".into(),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: codec.then(|| CODEC.to_string()),
        ..Default::default()
    };
    let mut out = b"HBas\x00\x50".to_vec();
    out.extend_from_slice(&(h.encoded_len() as u32).to_be_bytes());
    h.encode(&mut out).unwrap();
    out
}

pub fn call_frame(id: u32, method: &str, param: &[u8], cells: &[u8]) -> Vec<u8> {
    let header = pb::RequestHeader {
        call_id: Some(id),
        method_name: Some(method.into()),
        request_param: Some(true),
        cell_block_meta: (!cells.is_empty()).then_some(pb::CellBlockMeta {
            length: Some(cells.len() as u32),
        }),
        ..Default::default()
    };
    let mut body = Vec::new();
    header.encode_length_delimited(&mut body).unwrap();
    prost::encoding::encode_varint(param.len() as u64, &mut body);
    body.extend_from_slice(param);
    body.extend_from_slice(cells);
    let mut out = (body.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(&body);
    out
}

/// A connection to one service, past its header.
pub struct Conn {
    pub s: TcpStream,
    pub next: u32,
}

impl Conn {
    pub fn open(addr: SocketAddr, service: &str, codec: bool) -> Conn {
        let mut s = stream(addr);
        s.write_all(&connection_header(service, codec)).unwrap();
        Conn { s, next: 1 }
    }

    pub fn call_raw(&mut self, method: &str, param: &[u8], cells: &[u8]) -> Response {
        self.next += 1;
        let id = self.next;
        self.s
            .write_all(&call_frame(id, method, param, cells))
            .unwrap();
        let r = read_response(&mut self.s);
        assert_eq!(r.header.call_id, Some(id));
        r
    }

    pub fn call<M: Message + Default>(&mut self, method: &str, param: &impl Message) -> M {
        let r = self.call_raw(method, &param.encode_to_vec(), &[]);
        assert!(
            r.header.exception.is_none(),
            "{method}: {:?}",
            r.header.exception
        );
        M::decode(r.message).unwrap()
    }
}

pub fn table_name(q: &str) -> pb::TableName {
    pb::TableName {
        namespace: Bytes::from_static(b"default"),
        qualifier: Bytes::copy_from_slice(q.as_bytes()),
    }
}

pub fn create_table(addr: SocketAddr, name: &str) {
    let mut master = Conn::open(addr, "MasterService", false);
    let running: pb::IsMasterRunningResponse =
        master.call("IsMasterRunning", &pb::IsMasterRunningRequest {});
    assert!(running.is_master_running);
    let req = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name(name)),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        split_keys: vec![Bytes::from_static(b"m")],
        ..Default::default()
    };
    let done: pb::ProcedureResponse = master.call("CreateTable", &req);
    let proc_id = done.proc_id.expect("a procedure id");
    let result: pb::GetProcedureResultResponse = master.call(
        "getProcedureResult",
        &pb::GetProcedureResultRequest { proc_id },
    );
    assert_eq!(
        result.state,
        pb::get_procedure_result_response::State::Finished as i32
    );
}

/// The region of `row`, found as HBase's client finds it: a reversed scan of hbase:meta from
/// `table,row,99999999999999`, reading info:regioninfo.
pub fn locate(client: &mut Conn, table: &str, row: &str) -> Bytes {
    let scan = pb::ScanRequest {
        region: Some(pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: Bytes::from_static(b"hbase:meta,,1"),
        }),
        scan: Some(pb::Scan {
            start_row: Some(format!("{table},{row},99999999999999").into_bytes().into()),
            stop_row: Some(format!("{table},,").into_bytes().into()),
            include_stop_row: Some(true),
            reversed: Some(true),
            column: vec![pb::Column {
                family: Bytes::from_static(b"info"),
                qualifier: vec![],
            }],
            ..Default::default()
        }),
        number_of_rows: Some(1),
        ..Default::default()
    };
    let resp: pb::ScanResponse = client.call("Scan", &scan);
    let result = &resp.results[0];
    let info = result
        .cell
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"regioninfo"[..]))
        .expect("info:regioninfo");
    let value = info.value.clone().unwrap();
    assert_eq!(&value[..4], b"PBUF");
    let ri = pb::RegionInfo::decode(&value[4..]).unwrap();
    assert!(ri.start_key.as_deref().unwrap_or_default() <= row.as_bytes());
    let server = result
        .cell
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"server"[..]))
        .unwrap();
    assert!(server.value.as_deref().unwrap().starts_with(b"127.0.0.1:"));
    result.cell[0].row.clone().unwrap()
}

pub fn region(name: Bytes) -> pb::RegionSpecifier {
    pb::RegionSpecifier {
        r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
        value: name,
    }
}

pub fn put(row: &str, value: &str) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(row.as_bytes().to_vec().into()),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: Bytes::from_static(b"f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(Bytes::from_static(b"q")),
                value: Some(value.as_bytes().to_vec().into()),
                ..Default::default()
            }],
        }],
        ..Default::default()
    }
}

/// One KeyValue in a cell block (KeyValueCodec).
pub fn key_value(row: &[u8], family: &[u8], qualifier: &[u8], value: &[u8]) -> Vec<u8> {
    let klen = 2 + row.len() + 1 + family.len() + qualifier.len() + 8 + 1;
    let mut out = Vec::new();
    out.extend_from_slice(&((8 + klen + value.len()) as u32).to_be_bytes());
    out.extend_from_slice(&(klen as u32).to_be_bytes());
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(family.len() as u8);
    out.extend_from_slice(family);
    out.extend_from_slice(qualifier);
    out.extend_from_slice(&i64::MAX.to_be_bytes());
    out.push(4);
    out.extend_from_slice(value);
    out
}

/// Sends `bytes` on a fresh connection and returns the exception class of the first answer
/// (None: the server closed without one), checking the connection is closed after it.
pub fn refused(addr: SocketAddr, bytes: &[u8]) -> Option<String> {
    let mut s = stream(addr);
    s.write_all(bytes).unwrap();
    let mut len = [0u8; 4];
    if s.read_exact(&mut len).is_err() {
        return None;
    }
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    let mut b = &body[..];
    let h = pb::ResponseHeader::decode(delimited(&mut b)).unwrap();
    let e = h.exception.unwrap();
    assert!(closed(&mut s), "the connection stays open after {e:?}");
    e.exception_class_name
}

/// The server's /metrics text, over a plain HTTP/1.1 request.
pub fn metrics(http: SocketAddr) -> String {
    let mut s = stream(http);
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}
