//! One request of an established session to its reply. Reads answer from the tree; a watch
//! asked for is accepted and never fires (nothing changes); a change answers NOTREADONLY, as a
//! read-only ZooKeeper server answers it; an operation this server does not know answers
//! UNIMPLEMENTED and ends the session, as ZooKeeper's does.

use std::net::SocketAddr;

use super::jute::{Malformed, Reader, Writer};
use super::protocol::{err, op, reply_header};
use super::znodes::Tree;

/// What a request came to.
pub struct Reply {
    pub bytes: Vec<u8>,
    /// The error code sent (0 = ok).
    pub err: i32,
    /// The connection ends after this reply (closeSession, an unknown operation).
    pub close: bool,
}

/// World-readable, as every node this server holds (ZooDefs.Perms.READ for world:anyone).
const READ: i32 = 1;

fn path<'a>(r: &mut Reader<'a>) -> Result<&'a str, Malformed> {
    r.string("path")
}

/// Answers one request (`body` is everything after the request header).
pub fn answer(tree: &Tree, zxid: i64, peer: SocketAddr, xid: i32, code: i32, body: &[u8]) -> Reply {
    match read(tree, peer, code, body) {
        Ok(Outcome::Ok(w)) => {
            let mut reply = reply_header(xid, zxid, err::OK);
            reply.extend(w);
            Reply {
                bytes: reply.packet(),
                err: err::OK,
                close: code == op::CLOSE_SESSION,
            }
        }
        Ok(Outcome::Err(e)) => Reply {
            bytes: reply_header(xid, zxid, e).packet(),
            err: e,
            close: e == err::UNIMPLEMENTED,
        },
        Err(m) => {
            tracing::debug!(%peer, op = code, error = %m, "zookeeper request does not decode");
            Reply {
                bytes: reply_header(xid, zxid, err::MARSHALLING_ERROR).packet(),
                err: err::MARSHALLING_ERROR,
                close: false,
            }
        }
    }
}

enum Outcome {
    /// The answer's record (possibly empty).
    Ok(Writer),
    Err(i32),
}

fn read(tree: &Tree, peer: SocketAddr, code: i32, body: &[u8]) -> Result<Outcome, Malformed> {
    let mut r = Reader::new(body);
    let mut w = Writer::body();
    match code {
        op::EXISTS | op::GET_DATA | op::GET_CHILDREN | op::GET_CHILDREN2 | op::GET_ACL => {
            let p = path(&mut r)?;
            if code != op::GET_ACL {
                let _watch = r.bool("watch")?;
            }
            let Some(node) = tree.get(p) else {
                return Ok(Outcome::Err(err::NO_NODE));
            };
            match code {
                op::EXISTS => node.stat.write(&mut w),
                op::GET_DATA => {
                    w.buffer(&node.data);
                    node.stat.write(&mut w);
                }
                op::GET_CHILDREN => {
                    w.strings(&node.children);
                }
                op::GET_CHILDREN2 => {
                    w.strings(&node.children);
                    node.stat.write(&mut w);
                }
                _ => {
                    w.int(1).int(READ).string("world").string("anyone");
                    node.stat.write(&mut w);
                }
            }
        }
        op::SYNC => {
            // One server is always in sync with itself.
            let p = path(&mut r)?;
            w.string(p);
        }
        op::GET_ALL_CHILDREN_NUMBER => {
            let p = path(&mut r)?;
            if tree.get(p).is_none() {
                return Ok(Outcome::Err(err::NO_NODE));
            }
            w.int(tree.descendants(p) as i32);
        }
        op::GET_EPHEMERALS => {
            // The ephemerals this session owns: none.
            let _prefix = path(&mut r)?;
            w.int(0);
        }
        op::WHO_AM_I => {
            w.int(1).string("ip").string(&peer.ip().to_string());
        }
        // Watches are accepted (and never fire: nothing here changes); authentication adds
        // nothing to read a world-readable tree. Their records are still checked.
        op::SET_WATCHES | op::SET_WATCHES2 => {
            let _relative_zxid = r.long("SetWatches.relativeZxid")?;
            let lists = if code == op::SET_WATCHES { 3 } else { 5 };
            for _ in 0..lists {
                r.strings("SetWatches paths")?;
            }
        }
        op::ADD_WATCH | op::CHECK_WATCHES | op::REMOVE_WATCHES => {
            let _path = path(&mut r)?;
            let _mode = r.int("watch mode")?;
        }
        op::AUTH => {
            let _type = r.int("AuthPacket.type")?;
            let _scheme = r.string("AuthPacket.scheme")?;
            let _auth = r.buffer("AuthPacket.auth")?;
        }
        op::PING | op::CLOSE_SESSION => {}
        c if op::is_write(c) => return Ok(Outcome::Err(err::NOT_READ_ONLY)),
        _ => return Ok(Outcome::Err(err::UNIMPLEMENTED)),
    }
    Ok(Outcome::Ok(w))
}
