//! ClientService.Scan: a scanner reads one region (HBase's client walks the regions itself,
//! opening a scanner in each), so the engine's scan is cut to the region's bounds; the response
//! says `more_results_in_region = false` when the region has no more rows, and the scanner
//! closes then, as HBase's does. `next_call_seq` must count up from 0 call by call: a client
//! that lost a response and sends the same call again hears OutOfOrderScannerNextException
//! and reopens its scanner where its last good row was.
//!
//! Heartbeats: a call whose client handles heartbeats and partial results (HBase's client
//! always does) has a time limit, half the shorter of the scanner lease and the call's
//! timeout, as RSRpcServices computes it. Past it the scanner stops between rows and the call
//! answers what it has, maybe nothing, flagged `heartbeat_message`, with the region not done;
//! the next call goes on after the last row read. With `need_cursor_result` such an answer
//! carries that row as its cursor, filtered or not, so the client can show progress.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::engine::{Engine, RegionMeta, Scan};

use super::convert::{self, CellOut, ReadParts};
use super::errors::{class, NativeError};
use super::meta::{self, MetaRange};
use super::pb;
use super::regions::{self, Target};
use super::scanners::{OpenScan, Source};
use super::Native;

/// Bytes of cells per response when the client sets no bound (HBase's default).
const DEFAULT_MAX_RESULT_SIZE: usize = 2 * 1024 * 1024;

/// What a scan call's time limit is made of, besides the scanner lease.
#[derive(Debug, Clone)]
pub struct ScanTimeLimit {
    /// A call's timeout when its client names none (HBase's `hbase.rpc.timeout`; zero: none).
    pub rpc_timeout: Duration,
    /// The shortest time limit (HBase's
    /// `hbase.region.server.rpc.minimum.scan.time.limit.delta`).
    pub min: Duration,
}

impl Default for ScanTimeLimit {
    fn default() -> Self {
        ScanTimeLimit {
            rpc_timeout: Duration::from_secs(60),
            min: Duration::from_millis(10),
        }
    }
}

impl ScanTimeLimit {
    /// When a call that began at `now` must answer: half the shorter of the scanner lease and
    /// what is left of the call's timeout, and no less than the minimum (None: neither bound
    /// is set).
    fn deadline(&self, lease: Duration, call: CallTime, now: Instant) -> Option<Instant> {
        let timeout = call
            .timeout
            .or((!self.rpc_timeout.is_zero()).then_some(self.rpc_timeout));
        // Time in the queue counts; a call left with less than the minimum gets the minimum.
        let left = timeout.map(|t| {
            t.saturating_sub(now.saturating_duration_since(call.received))
                .max(self.min)
        });
        let shorter = match (lease.is_zero(), left) {
            (false, Some(l)) => lease.min(l),
            (false, None) => lease,
            (true, Some(l)) => l,
            (true, None) => return None,
        };
        Some(now + (shorter / 2).max(self.min))
    }
}

/// When a call was read and the timeout its client gave it.
#[derive(Debug, Clone, Copy)]
pub struct CallTime {
    pub received: Instant,
    pub timeout: Option<Duration>,
}

impl From<&super::frame::Call> for CallTime {
    fn from(call: &super::frame::Call) -> CallTime {
        CallTime {
            received: call.received,
            timeout: call.timeout(),
        }
    }
}

pub fn scan(
    ctx: &Native,
    req: pb::ScanRequest,
    call: CallTime,
    out: &mut CellOut,
) -> Result<pb::ScanResponse, NativeError> {
    let (id, opened) = match (req.scanner_id, req.scan.as_ref()) {
        (Some(id), _) => (id, false),
        (None, Some(scan)) => (open(ctx, req.region.as_ref(), scan, &req)?, true),
        (None, None) => {
            return Err(NativeError::bad_request(
                "a scan request needs a scanner id or a region and a scan",
            ))
        }
    };
    let ttl = Some(ctx.scanners.lease().as_millis() as u32);
    if req.close_scanner == Some(true) && !opened {
        let mine = ctx.scanners.get(id).is_ok_and(|h| {
            h.lock()
                .unwrap_or_else(|p| p.into_inner())
                .owned_by_caller()
        });
        if mine {
            ctx.scanners.close(id);
        }
        return Ok(pb::ScanResponse {
            scanner_id: Some(id),
            more_results: Some(false),
            ..Default::default()
        });
    }
    let handle = match ctx.scanners.get(id) {
        Ok(h) => h,
        // As HBase answers a call on a scanner it closed itself (its region ran out) or the
        // client closed: nothing, and no error.
        Err(_) if ctx.scanners.was_closed(id) => {
            return Ok(pb::ScanResponse {
                scanner_id: Some(id),
                ..Default::default()
            })
        }
        Err(e) => return Err(e),
    };
    let mut open = handle.lock().unwrap_or_else(|p| p.into_inner());
    if !open.owned_by_caller() {
        return Err(ctx.scanners.unknown(id));
    }
    if !opened {
        if let Some(seq) = req.next_call_seq {
            let expected = open.next_call_seq;
            if seq != expected {
                drop(open);
                ctx.scanners.remove(id);
                return Err(NativeError::final_(
                    class::OUT_OF_ORDER_SCANNER_NEXT,
                    format!(
                        "Expected nextCallSeq: {expected} But the nextCallSeq got from client: \
                         {seq}; the scanner is closed: reopen it"
                    ),
                ));
            }
        }
    }
    if let Some(limit) = req.limit_of_rows.filter(|&l| l > 0) {
        open.remaining = Some(open.remaining.map_or(limit as u64, |r| r.min(limit as u64)));
    }
    let wanted = match req.number_of_rows {
        Some(0) if opened => 0,
        Some(n) => n as usize,
        None => usize::MAX,
    };
    let mut resp = pb::ScanResponse {
        scanner_id: Some(id),
        ttl,
        ..Default::default()
    };
    // As RSRpcServices: heartbeats only to a client that takes partial results too.
    let heartbeats =
        req.client_handles_heartbeats == Some(true) && req.client_handles_partials == Some(true);
    let deadline = heartbeats
        .then(|| {
            ctx.limits
                .scan_time
                .deadline(ctx.scanners.lease(), call, Instant::now())
        })
        .flatten();
    open.start_call(deadline);
    let budget = open.max_result_size;
    let mut rows = 0usize;
    let mut limit_hit = false;
    while rows < wanted {
        if open.remaining == Some(0) {
            limit_hit = true;
            break;
        }
        if out.bytes() >= budget {
            break;
        }
        let Some(row) = open.next_row()? else {
            break;
        };
        let r = out.row(&row);
        if out.uses_block() {
            resp.cells_per_result
                .push(r.associated_cell_count.unwrap_or(0) as u32);
            resp.partial_flag_per_result.push(row.partial);
        } else {
            resp.results.push(r);
        }
        rows += 1;
        if !row.partial {
            if let Some(r) = open.remaining.as_mut() {
                *r = r.saturating_sub(1);
            }
        }
    }
    if open.remaining == Some(0) {
        limit_hit = true;
    }
    let more_in_region = !limit_hit && open.has_more()?;
    // Stopped at the time limit with the region not done: a heartbeat.
    if more_in_region && open.paused() {
        resp.heartbeat_message = Some(true);
        if open.need_cursor {
            resp.cursor = open.cursor().map(|row| pb::Cursor {
                row: Some(row.to_vec().into()),
            });
        }
        ctx.metrics.heartbeat();
    }
    // RSRpcServices' rule: a round trip that found no row because the filter is done ends
    // the whole scan, so the client opens no further region.
    let filter_done = rows == 0 && open.filter_done();
    if req.track_scan_metrics == Some(true) {
        let (scanned, filtered) = open.take_metrics();
        let pair = |name: &str, value: u64| pb::NameInt64Pair {
            name: Some(name.to_string()),
            value: Some(value.min(i64::MAX as u64) as i64),
        };
        resp.scan_metrics = Some(pb::ScanMetrics {
            metrics: vec![
                pair("ROWS_SCANNED", scanned),
                pair("ROWS_FILTERED", filtered),
            ],
        });
    }
    open.next_call_seq += if opened { 0 } else { 1 };
    drop(open);
    resp.more_results_in_region = Some(more_in_region);
    resp.more_results = Some(!limit_hit && !filter_done);
    if !more_in_region || filter_done || req.close_scanner == Some(true) {
        ctx.scanners.close(id);
    }
    Ok(resp)
}

/// Opens a scanner on the region `spec` names; the first rows come in the same call.
fn open(
    ctx: &Native,
    spec: Option<&pb::RegionSpecifier>,
    s: &pb::Scan,
    req: &pb::ScanRequest,
) -> Result<u64, NativeError> {
    let include_start = s.include_start_row.unwrap_or(true);
    let include_stop = s.include_stop_row.unwrap_or(false);
    let reversed = s.reversed.unwrap_or(false);
    let start = s.start_row.as_deref().unwrap_or_default();
    let stop = s.stop_row.as_deref().unwrap_or_default();
    let max_size = s
        .max_result_size
        .filter(|&m| m > 0)
        .map_or(DEFAULT_MAX_RESULT_SIZE, |m| {
            m.min(usize::MAX as u64) as usize
        })
        .min(ctx.limits.max_response);
    let remaining = req.limit_of_rows.filter(|&l| l > 0).map(u64::from);
    let source = match regions::resolve(&ctx.engine, spec)? {
        Target::Meta => {
            let range = MetaRange {
                start: start.to_vec(),
                stop: stop.to_vec(),
                include_start,
                include_stop,
                reversed,
                families: s.column.iter().map(|c| c.family.to_vec()).collect(),
            };
            Source::Meta(Box::new(meta::MetaRows::open(
                &ctx.engine,
                &ctx.server,
                range,
            )))
        }
        Target::Region(region) => {
            ctx.access
                .check(crate::gateway::Need::Read(&region.table))?;
            let options = convert::read_options(ReadParts {
                columns: &s.column,
                time_range: s.time_range.as_ref(),
                cf_time_ranges: &s.cf_time_range,
                max_versions: s.max_versions,
                store_limit: s.store_limit,
                store_offset: s.store_offset,
                filter: s.filter.as_ref(),
            })?;
            let bounds = Bounds::within(
                &region,
                reversed,
                (start, include_start),
                (stop, include_stop),
            );
            table_source(&ctx.engine, &region, bounds, s, options)?
        }
    };
    let mut scan = OpenScan::new(source, remaining, max_size);
    scan.need_cursor = s.need_cursor_result == Some(true);
    ctx.scanners.add(scan)
}

/// A scan's bounds cut to one region: `start` is where it begins (the high end when reversed).
#[derive(Debug, PartialEq, Eq)]
struct Bounds {
    reversed: bool,
    start: Vec<u8>,
    include_start: bool,
    stop: Vec<u8>,
    include_stop: bool,
    /// The bounds leave no row (a start after the stop, or one row excluded).
    empty: bool,
}

impl Bounds {
    fn within(
        region: &RegionMeta,
        reversed: bool,
        (start, inc_start): (&[u8], bool),
        (stop, inc_stop): (&[u8], bool),
    ) -> Bounds {
        let (rs, re) = (region.start.as_slice(), region.end.as_slice());
        // The low bound, inclusive or not: the scan's, unless the region starts later.
        let low = |b: &[u8], inc: bool| -> (Vec<u8>, bool) {
            if b.is_empty() || b < rs {
                (rs.to_vec(), true)
            } else {
                (b.to_vec(), inc)
            }
        };
        // The high bound: the scan's, unless the region ends first (its end is exclusive).
        let high = |b: &[u8], inc: bool| -> (Vec<u8>, bool) {
            if re.is_empty() || (!b.is_empty() && b < re) {
                (b.to_vec(), inc)
            } else {
                (re.to_vec(), false)
            }
        };
        let ((s, si), (t, ti)) = if reversed {
            (high(start, inc_start), low(stop, inc_stop))
        } else {
            (low(start, inc_start), high(stop, inc_stop))
        };
        let (lo, lo_inc, hi, hi_inc) = if reversed {
            (&t, ti, &s, si)
        } else {
            (&s, si, &t, ti)
        };
        let empty =
            !lo.is_empty() && !hi.is_empty() && (lo > hi || (lo == hi && !(lo_inc && hi_inc)));
        Bounds {
            reversed,
            start: s,
            include_start: si,
            stop: t,
            include_stop: ti,
            empty,
        }
    }
}

fn table_source(
    engine: &Engine,
    region: &RegionMeta,
    b: Bounds,
    s: &pb::Scan,
    options: crate::engine::ReadOptions,
) -> Result<Source, NativeError> {
    let scan = Scan {
        start: b.start.clone(),
        stop: b.stop.clone(),
        reversed: b.reversed,
        batch: s.batch_size.unwrap_or(0) as usize,
        caching: s.caching.unwrap_or(0) as usize,
        options,
        ..Scan::default()
    };
    // Opened even when the bounds leave no row: a missing table or family is still an error.
    let mut scanner = engine.scan(&region.table, scan)?;
    if b.empty {
        return Ok(Source::Rows(VecDeque::new()));
    }
    if !b.include_start {
        scanner = scanner.exclude_start();
    }
    if b.include_stop {
        scanner = scanner.include_stop();
    }
    if s.need_cursor_result == Some(true) {
        scanner = scanner.track_cursor();
    }
    Ok(Source::Table(Box::new(scanner)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &[u8], end: &[u8]) -> RegionMeta {
        RegionMeta {
            table: "t".into(),
            id: 1,
            start: start.to_vec(),
            end: end.to_vec(),
            file: String::new(),
        }
    }

    #[test]
    fn the_time_limit_is_half_the_shorter_of_lease_and_call_timeout() {
        let limit = ScanTimeLimit::default();
        let now = Instant::now();
        let ms = Duration::from_millis;
        let call = |timeout: Option<u64>, queued: u64| CallTime {
            received: now - ms(queued),
            timeout: timeout.map(ms),
        };
        let lease = Duration::from_secs(60);
        // The client's timeout, less its time in the queue.
        assert_eq!(
            limit.deadline(lease, call(Some(400), 0), now),
            Some(now + ms(200))
        );
        assert_eq!(
            limit.deadline(lease, call(Some(400), 100), now),
            Some(now + ms(150))
        );
        // None named: the server's (HBase's hbase.rpc.timeout), or the lease when shorter.
        assert_eq!(
            limit.deadline(lease, call(None, 0), now),
            Some(now + ms(30_000))
        );
        assert_eq!(
            limit.deadline(ms(1000), call(None, 0), now),
            Some(now + ms(500))
        );
        // Never under the minimum, even when the queue took the whole timeout.
        assert_eq!(
            limit.deadline(lease, call(Some(30), 50), now),
            Some(now + ms(10))
        );
        // No timeout and no lease: no limit.
        let none = ScanTimeLimit {
            rpc_timeout: Duration::ZERO,
            ..ScanTimeLimit::default()
        };
        assert_eq!(none.deadline(Duration::ZERO, call(None, 0), now), None);
        assert_eq!(
            none.deadline(lease, call(None, 0), now),
            Some(now + ms(30_000))
        );
    }

    #[test]
    fn bounds_are_cut_to_the_region() {
        let r = region(b"b", b"d");
        // Forward over the whole table: the region's own range.
        let b = Bounds::within(&r, false, (b"", true), (b"", false));
        assert_eq!((b.start.as_slice(), b.include_start), (&b"b"[..], true));
        assert_eq!((b.stop.as_slice(), b.include_stop), (&b"d"[..], false));
        // A stop row inside the region, included.
        let b = Bounds::within(&r, false, (b"a", true), (b"c", true));
        assert_eq!((b.stop.as_slice(), b.include_stop), (&b"c"[..], true));
        // Reversed, moving on from the next region: its start key, excluded.
        let b = Bounds::within(&r, true, (b"d", false), (b"", false));
        assert_eq!((b.start.as_slice(), b.include_start), (&b"d"[..], false));
        assert_eq!((b.stop.as_slice(), b.include_stop), (&b"b"[..], true));
        assert!(!b.empty);
        // Reversed with a stop row inside the region.
        let b = Bounds::within(&r, true, (b"cc", true), (b"c", true));
        assert_eq!(
            (b.start.as_slice(), b.stop.as_slice()),
            (&b"cc"[..], &b"c"[..])
        );
        // One row, excluded at one end.
        assert!(Bounds::within(&r, false, (b"c", true), (b"c", false)).empty);
        assert!(!Bounds::within(&r, false, (b"c", true), (b"c", true)).empty);
        // The last region, reversed from the table's end.
        let last = region(b"x", b"");
        let b = Bounds::within(&last, true, (b"", true), (b"", false));
        assert_eq!(
            (b.start.as_slice(), b.stop.as_slice()),
            (&b""[..], &b"x"[..])
        );
    }
}
