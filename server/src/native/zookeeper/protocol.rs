//! ZooKeeper's client protocol records (apache/zookeeper's zookeeper.jute and ZooDefs, by wire
//! format): the session handshake, request and reply headers, a znode's Stat, the operation
//! codes and the error codes a reply carries.
//!
//! Every packet is a 4-byte big-endian length, then the record. The first packet of a
//! connection is a ConnectRequest, answered by a ConnectResponse; after it each request is a
//! RequestHeader (xid, op) and the op's record, each reply a ReplyHeader (xid, zxid, err) and,
//! when err is 0, the op's answer.

use super::jute::{Malformed, Reader, Writer};

/// Operation codes (ZooDefs.OpCode).
pub mod op {
    pub const CREATE: i32 = 1;
    pub const DELETE: i32 = 2;
    pub const EXISTS: i32 = 3;
    pub const GET_DATA: i32 = 4;
    pub const SET_DATA: i32 = 5;
    pub const GET_ACL: i32 = 6;
    pub const SET_ACL: i32 = 7;
    pub const GET_CHILDREN: i32 = 8;
    pub const SYNC: i32 = 9;
    pub const PING: i32 = 11;
    pub const GET_CHILDREN2: i32 = 12;
    pub const CHECK: i32 = 13;
    pub const MULTI: i32 = 14;
    pub const CREATE2: i32 = 15;
    pub const RECONFIG: i32 = 16;
    pub const CHECK_WATCHES: i32 = 17;
    pub const REMOVE_WATCHES: i32 = 18;
    pub const CREATE_CONTAINER: i32 = 19;
    pub const DELETE_CONTAINER: i32 = 20;
    pub const CREATE_TTL: i32 = 21;
    pub const AUTH: i32 = 100;
    pub const SET_WATCHES: i32 = 101;
    pub const GET_EPHEMERALS: i32 = 103;
    pub const GET_ALL_CHILDREN_NUMBER: i32 = 104;
    pub const SET_WATCHES2: i32 = 105;
    pub const ADD_WATCH: i32 = 106;
    pub const WHO_AM_I: i32 = 107;
    pub const CLOSE_SESSION: i32 = -11;

    /// Operations that change the tree: a read-only server answers them NOTREADONLY.
    pub fn is_write(op: i32) -> bool {
        matches!(
            op,
            CREATE
                | DELETE
                | SET_DATA
                | SET_ACL
                | CHECK
                | MULTI
                | CREATE2
                | RECONFIG
                | CREATE_CONTAINER
                | DELETE_CONTAINER
                | CREATE_TTL
        )
    }

    /// The metric label of an operation: a fixed set, so a client cannot grow it.
    pub fn name(op: i32) -> &'static str {
        match op {
            EXISTS => "exists",
            GET_DATA => "getData",
            GET_ACL => "getACL",
            GET_CHILDREN => "getChildren",
            GET_CHILDREN2 => "getChildren2",
            SYNC => "sync",
            PING => "ping",
            CHECK_WATCHES => "checkWatches",
            REMOVE_WATCHES => "removeWatches",
            AUTH => "auth",
            SET_WATCHES => "setWatches",
            SET_WATCHES2 => "setWatches2",
            GET_EPHEMERALS => "getEphemerals",
            GET_ALL_CHILDREN_NUMBER => "getAllChildrenNumber",
            ADD_WATCH => "addWatch",
            WHO_AM_I => "whoAmI",
            CLOSE_SESSION => "closeSession",
            o if is_write(o) => "write",
            _ => "other",
        }
    }
}

/// Error codes of a reply (KeeperException.Code).
pub mod err {
    pub const OK: i32 = 0;
    /// The request's record does not decode.
    pub const MARSHALLING_ERROR: i32 = -5;
    /// An operation this server does not know; the connection closes after it, as ZooKeeper's.
    pub const UNIMPLEMENTED: i32 = -6;
    pub const NO_NODE: i32 = -101;
    /// A change sent to a read-only server.
    pub const NOT_READ_ONLY: i32 = -119;
}

/// Special xids: a ping's and a reply to it.
pub const PING_XID: i32 = -2;

/// The first packet of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectRequest {
    pub protocol_version: i32,
    pub last_zxid_seen: i64,
    /// The session timeout the client asks for, in milliseconds.
    pub timeout_ms: i32,
    /// 0 for a new session; else the session the client reconnects to.
    pub session_id: i64,
    pub password: Vec<u8>,
    /// Whether the client sent the trailing read-only flag (clients since ZooKeeper 3.4 do);
    /// the answer carries one exactly when the request did.
    pub read_only: Option<bool>,
}

impl ConnectRequest {
    pub fn decode(buf: &[u8]) -> Result<ConnectRequest, Malformed> {
        let mut r = Reader::new(buf);
        let protocol_version = r.int("ConnectRequest.protocolVersion")?;
        let last_zxid_seen = r.long("ConnectRequest.lastZxidSeen")?;
        let timeout_ms = r.int("ConnectRequest.timeOut")?;
        let session_id = r.long("ConnectRequest.sessionId")?;
        let password = r.buffer("ConnectRequest.passwd")?.to_vec();
        let read_only = match r.remaining() {
            0 => None,
            _ => Some(r.bool("ConnectRequest.readOnly")?),
        };
        Ok(ConnectRequest {
            protocol_version,
            last_zxid_seen,
            timeout_ms,
            session_id,
            password,
            read_only,
        })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.int(self.protocol_version)
            .long(self.last_zxid_seen)
            .int(self.timeout_ms)
            .long(self.session_id)
            .buffer(&self.password);
        if let Some(ro) = self.read_only {
            w.bool(ro);
        }
        w.packet()
    }
}

/// The answer to a ConnectRequest. A timeout of 0 and session id 0 mean the session the client
/// asked to resume does not exist (expired); the server then closes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectResponse {
    pub timeout_ms: i32,
    pub session_id: i64,
    pub password: Vec<u8>,
    pub read_only: Option<bool>,
}

impl ConnectResponse {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.int(0)
            .int(self.timeout_ms)
            .long(self.session_id)
            .buffer(&self.password);
        if let Some(ro) = self.read_only {
            w.bool(ro);
        }
        w.packet()
    }

    pub fn decode(buf: &[u8]) -> Result<ConnectResponse, Malformed> {
        let mut r = Reader::new(buf);
        let _version = r.int("ConnectResponse.protocolVersion")?;
        let timeout_ms = r.int("ConnectResponse.timeOut")?;
        let session_id = r.long("ConnectResponse.sessionId")?;
        let password = r.buffer("ConnectResponse.passwd")?.to_vec();
        let read_only = match r.remaining() {
            0 => None,
            _ => Some(r.bool("ConnectResponse.readOnly")?),
        };
        Ok(ConnectResponse {
            timeout_ms,
            session_id,
            password,
            read_only,
        })
    }
}

/// A znode's metadata as a client sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stat {
    pub czxid: i64,
    pub mzxid: i64,
    pub ctime: i64,
    pub mtime: i64,
    pub version: i32,
    pub cversion: i32,
    pub aversion: i32,
    pub ephemeral_owner: i64,
    pub data_length: i32,
    pub num_children: i32,
    pub pzxid: i64,
}

impl Stat {
    pub fn write(&self, w: &mut Writer) {
        w.long(self.czxid)
            .long(self.mzxid)
            .long(self.ctime)
            .long(self.mtime)
            .int(self.version)
            .int(self.cversion)
            .int(self.aversion)
            .long(self.ephemeral_owner)
            .int(self.data_length)
            .int(self.num_children)
            .long(self.pzxid);
    }

    pub fn read(r: &mut Reader<'_>) -> Result<Stat, Malformed> {
        Ok(Stat {
            czxid: r.long("Stat.czxid")?,
            mzxid: r.long("Stat.mzxid")?,
            ctime: r.long("Stat.ctime")?,
            mtime: r.long("Stat.mtime")?,
            version: r.int("Stat.version")?,
            cversion: r.int("Stat.cversion")?,
            aversion: r.int("Stat.aversion")?,
            ephemeral_owner: r.long("Stat.ephemeralOwner")?,
            data_length: r.int("Stat.dataLength")?,
            num_children: r.int("Stat.numChildren")?,
            pzxid: r.long("Stat.pzxid")?,
        })
    }
}

/// The start of a reply: the request's xid, the server's zxid and the error code.
pub fn reply_header(xid: i32, zxid: i64, err: i32) -> Writer {
    let mut w = Writer::new();
    w.int(xid).long(zxid).int(err);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_records_round_trip_with_and_without_the_read_only_flag() {
        for read_only in [None, Some(false), Some(true)] {
            let req = ConnectRequest {
                protocol_version: 0,
                last_zxid_seen: 5,
                timeout_ms: 30_000,
                session_id: 0,
                password: vec![0; 16],
                read_only,
            };
            let bytes = req.encode();
            assert_eq!(ConnectRequest::decode(&bytes[4..]).unwrap(), req);
            let resp = ConnectResponse {
                timeout_ms: 30_000,
                session_id: 9,
                password: vec![1; 16],
                read_only,
            };
            let bytes = resp.encode();
            assert_eq!(ConnectResponse::decode(&bytes[4..]).unwrap(), resp);
        }
        assert!(ConnectRequest::decode(&[0, 0, 0]).is_err());
    }
}
