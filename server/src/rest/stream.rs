//! Cell sets of many rows (row ranges, globbed rows, multi-gets, stateless scans) answered as
//! HBase's REST server streams them: rows are read from the engine a few at a time and written
//! out as they come, so an answer of any size needs memory for about one chunk
//! ([`RestConfig::stream_chunk`](super::RestConfig) bytes) and the rows of one engine batch,
//! not for the whole answer.
//!
//! An answer that fits in one chunk is sent whole, with its length, exactly as before. A
//! larger one is sent with chunked transfer encoding: the request's task writes the first chunk,
//! then a producer task reads on and hands chunks to the connection through a channel of
//! [`IN_FLIGHT`] chunks, so a client that reads slowly slows the reading, and one that stops
//! reading holds at most that much. A streamed answer has [`RestConfig::stream_time`]
//! (super::RestConfig) to finish; past it, or when reading fails midway, the connection is
//! cut without the closing chunk, so a client sees an incomplete answer, never a short one
//! that looks whole.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use hyper::body::Frame;
use tokio::sync::mpsc;

use super::media::Media;
use super::model::{CellSet, RowM};
use super::schema::cell_set;
use super::{body, Rest, RestError, RestResult};

/// Chunks queued between the producer and the connection.
pub const IN_FLIGHT: usize = 2;

/// Rows asked of the engine at a time.
pub const ENGINE_BATCH: usize = 16;

/// Where a streamed answer's rows come from: the next few rows, empty once there are none.
pub trait RowSource: Send + 'static {
    fn next_rows(&mut self) -> Result<Vec<RowM>, RestError>;
}

impl<F> RowSource for F
where
    F: FnMut() -> Result<Vec<RowM>, RestError> + Send + 'static,
{
    fn next_rows(&mut self) -> Result<Vec<RowM>, RestError> {
        self()
    }
}

/// How the rows are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// One cell set in `media` (JSON, XML or one protobuf `CellSet`).
    CellSet(Media),
    /// A stateless scan's protobuf: cell sets of this many rows, each after its length.
    Chunks(Media, usize),
}

impl Form {
    fn media(self) -> Media {
        match self {
            Form::CellSet(m) | Form::Chunks(m, _) => m,
        }
    }
}

/// Writes a cell set row by row; what it writes, concatenated, is what [`cell_set`] (or
/// [`super::protobuf::streamed`]) writes for the same rows.
struct Writer {
    form: Form,
    rows: usize,
    group: Vec<RowM>,
}

impl Writer {
    fn new(form: Form) -> Writer {
        Writer {
            form,
            rows: 0,
            group: Vec::new(),
        }
    }

    fn start(&self, out: &mut Vec<u8>) {
        match self.form {
            Form::CellSet(Media::Json) => out.extend_from_slice(b"{\"Row\":["),
            Form::CellSet(Media::Xml) => {
                out.extend_from_slice(&super::xml::declaration());
                out.extend_from_slice(b"<CellSet>");
            }
            _ => {}
        }
    }

    fn row(&mut self, row: RowM, out: &mut Vec<u8>) {
        match self.form {
            Form::CellSet(Media::Json) => {
                let mut s = String::new();
                if self.rows > 0 {
                    s.push(',');
                }
                row.write_json(&mut s);
                out.extend_from_slice(s.as_bytes());
            }
            Form::CellSet(Media::Xml) => {
                out.extend_from_slice(&super::xml::write_fragment(&row.to_xml()))
            }
            // A protobuf message is its fields one after another: one row's `CellSet` per row
            // makes up the cell set of them all.
            Form::CellSet(_) => out.extend_from_slice(&CellSet { rows: vec![row] }.to_pb()),
            Form::Chunks(_, n) => {
                self.group.push(row);
                if self.group.len() >= n.max(1) {
                    self.flush_group(out);
                }
            }
        }
        self.rows += 1;
    }

    fn flush_group(&mut self, out: &mut Vec<u8>) {
        if let Form::Chunks(_, n) = self.form {
            let set = CellSet {
                rows: std::mem::take(&mut self.group),
            };
            out.extend_from_slice(&super::protobuf::streamed(&set, n));
        }
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        match self.form {
            Form::CellSet(Media::Json) => out.extend_from_slice(b"]}"),
            Form::CellSet(Media::Xml) => out.extend_from_slice(b"</CellSet>"),
            Form::Chunks(..) => self.flush_group(out),
            _ => {}
        }
    }
}

/// The answer: 200 with the rows `source` gives, whole when they fit in one chunk, else
/// streamed. No rows at all is `empty` when given (HBase's 404s), else an empty cell set.
pub fn answer(
    rest: &Rest,
    form: Form,
    mut source: impl RowSource,
    empty: Option<RestError>,
) -> RestResult {
    let chunk = rest.config.stream_chunk.max(1);
    let mut rows = Vec::new();
    let mut size = 0usize;
    let mut done = false;
    while size <= chunk {
        let batch = source.next_rows()?;
        if batch.is_empty() {
            done = true;
            break;
        }
        size += batch.iter().map(RowM::size).sum::<usize>();
        rows.extend(batch);
    }
    if done {
        if rows.is_empty() {
            if let Some(e) = empty {
                return Err(e);
            }
        }
        let set = CellSet { rows };
        return Ok(match form {
            Form::Chunks(media, n) => {
                body(StatusCode::OK, media, super::protobuf::streamed(&set, n))
            }
            Form::CellSet(media) => cell_set(media, &set),
        });
    }
    let (tx, rx) = mpsc::channel::<Piece>(IN_FLIGHT);
    let deadline = Instant::now() + rest.config.stream_time;
    let handle = tokio::runtime::Handle::current();
    let runtime = handle.clone();
    let mut open = rest.metrics.as_ref().map(|m| m.rest_stream());
    handle.spawn_blocking(move || {
        let whole = produce(
            &runtime,
            &tx,
            deadline,
            chunk,
            rows,
            Writer::new(form),
            &mut source,
        );
        if let (true, Some(open)) = (whole, open.as_mut()) {
            open.finished();
        }
    });
    let mut resp = Response::new(Body::new(Chunked { rx, ended: false }));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(form.media().mime()),
    );
    Ok(resp)
}

/// What the producer hands the connection: a chunk, or the sign that the answer is whole.
enum Piece {
    Chunk(Bytes),
    End,
}

/// Writes the rows read so far, reads the rest and sends them chunk by chunk (a chunk goes
/// once it holds `chunk` bytes, so none is larger than that and one row); stops, leaving the
/// answer unterminated, when reading fails, the client went away or the deadline passed.
/// True when the whole answer was handed to the connection.
fn produce(
    rt: &tokio::runtime::Handle,
    tx: &mpsc::Sender<Piece>,
    deadline: Instant,
    chunk: usize,
    read: Vec<RowM>,
    mut writer: Writer,
    source: &mut impl RowSource,
) -> bool {
    let send = |p: Piece| -> bool {
        let until = tokio::time::Instant::from_std(deadline);
        // The timer is made inside the runtime (a plain thread has no timer of its own).
        let sent = rt.block_on(async { tokio::time::timeout_at(until, tx.send(p)).await });
        let ok = matches!(sent, Ok(Ok(())));
        if !ok && Instant::now() >= deadline {
            tracing::warn!("REST answer cut: it took longer than the streaming time limit");
        }
        ok
    };
    let mut buf = Vec::with_capacity(chunk + 64);
    writer.start(&mut buf);
    let mut batch = read;
    loop {
        for r in batch {
            writer.row(r, &mut buf);
            if buf.len() >= chunk && !send(Piece::Chunk(Bytes::from(std::mem::take(&mut buf)))) {
                return false;
            }
        }
        batch = match source.next_rows() {
            Ok(b) if b.is_empty() => break,
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(error = %e.body.trim(), "REST answer cut: reading failed midway");
                return false;
            }
        };
    }
    writer.finish(&mut buf);
    if !buf.is_empty() && !send(Piece::Chunk(Bytes::from(buf))) {
        return false;
    }
    send(Piece::End)
}

/// The response body: the producer's chunks; an error (the connection is cut) if the
/// producer stopped before the end.
struct Chunked {
    rx: mpsc::Receiver<Piece>,
    ended: bool,
}

impl HttpBody for Chunked {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        match self.rx.poll_recv(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Piece::Chunk(b))) => Poll::Ready(Some(Ok(Frame::data(b)))),
            Poll::Ready(Some(Piece::End)) => {
                self.ended = true;
                Poll::Ready(None)
            }
            Poll::Ready(None) => {
                self.ended = true;
                Poll::Ready(Some(Err(io::Error::other(
                    "the answer was cut before its end",
                ))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::model::CellM;

    fn rows(n: usize) -> Vec<RowM> {
        (0..n)
            .map(|i| RowM {
                key: Some(format!("r{i}").into_bytes()),
                cells: vec![
                    CellM {
                        column: Some(b"cf:a".to_vec()),
                        timestamp: i as i64,
                        value: vec![b'x'; i],
                    },
                    CellM {
                        column: Some(b"cf:b".to_vec()),
                        timestamp: 7,
                        value: b"<&>".to_vec(),
                    },
                ],
            })
            .collect()
    }

    fn written(form: Form, rows: Vec<RowM>) -> Vec<u8> {
        let mut w = Writer::new(form);
        let mut out = Vec::new();
        w.start(&mut out);
        for r in rows {
            w.row(r, &mut out);
        }
        w.finish(&mut out);
        out
    }

    /// Row by row, every form writes what the whole-answer writers write.
    #[test]
    fn streamed_forms_equal_whole_answers() {
        let set = CellSet { rows: rows(23) };
        assert_eq!(
            written(Form::CellSet(Media::Json), set.rows.clone()),
            set.to_json_text().into_bytes()
        );
        assert_eq!(
            written(Form::CellSet(Media::Xml), set.rows.clone()),
            super::super::xml::write(&set.to_xml())
        );
        assert_eq!(
            written(Form::CellSet(Media::Protobuf), set.rows.clone()),
            set.to_pb()
        );
        assert_eq!(
            written(Form::Chunks(Media::Protobuf, 10), set.rows.clone()),
            super::super::protobuf::streamed(&set, 10)
        );
    }

    /// A client that stops reading holds a streamed answer only until its time limit; the
    /// answer then ends in an error (the connection is cut), not as if it were whole.
    #[test]
    fn a_client_that_stops_reading_is_cut_off_at_the_time_limit() {
        use http_body_util::BodyExt;
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let (tx, rx) = mpsc::channel(1);
        let handle = rt.handle().clone();
        let started = Instant::now();
        std::thread::spawn(move || {
            // Rows without end.
            let mut source = || -> Result<Vec<RowM>, RestError> { Ok(rows(3)) };
            produce(
                &handle,
                &tx,
                Instant::now() + std::time::Duration::from_millis(300),
                10,
                rows(1),
                Writer::new(Form::CellSet(Media::Json)),
                &mut source,
            );
        })
        .join()
        .expect("producer");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let mut body = Chunked { rx, ended: false };
        let (chunks, failed) = rt.block_on(async {
            let mut chunks = 0;
            while let Some(frame) = body.frame().await {
                match frame {
                    Ok(_) => chunks += 1,
                    Err(_) => return (chunks, true),
                }
            }
            (chunks, false)
        });
        assert_eq!((chunks, failed), (1, true));
    }
}
