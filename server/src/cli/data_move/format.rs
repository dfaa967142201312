//! The export file, version 1 (docs/export-format.md): JSON Lines, zstd-compressed. Line 1 is
//! the header (what the file holds and how to recreate its tables), then one line per row (or
//! per batch of a wide row's cells), then a trailer with the counts and a CRC-32 of every byte
//! before it, so a file cut short or altered is refused instead of half-trusted.
//!
//! JSON Lines because every line can be read, checked and reported on its own (errors name the
//! line), with any JSON tool after `zstd -d`; bytes are base64 so binary keys and values
//! survive. The reader also takes an uncompressed file (no zstd magic), for hand-made files.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// The `format` field of every header.
pub const FORMAT_NAME: &str = "redbase-export";
/// The version this build writes; readers refuse newer ones.
pub const FORMAT_VERSION: u32 = 1;
/// The first four bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Line 1.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub format: String,
    pub version: u32,
    /// Where the data came from (the Thrift2 address), for people reading the file.
    pub source: String,
    /// Milliseconds since the epoch when the export started.
    pub created_ms: i64,
    /// What the scans asked for, so a reader knows what the file does not hold.
    pub options: ExportOptions,
    /// Row lines name their table by its index here.
    pub tables: Vec<super::descriptor::TableDesc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ExportOptions {
    pub max_versions: i32,
    /// [start, end) in milliseconds; absent: every timestamp.
    pub time_range: Option<(i64, i64)>,
    /// Only these families (empty: all).
    pub families: Vec<String>,
}

/// One cell of a row line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellRecord {
    /// Family, base64.
    pub f: String,
    /// Qualifier, base64.
    pub q: String,
    pub ts: i64,
    /// Always `put` in version 1 (Thrift2 scans return no delete markers).
    #[serde(rename = "type")]
    pub kind: String,
    /// Value, base64.
    pub v: String,
}

/// A row line: `{"t":0,"row":"...","cells":[...]}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowRecord {
    pub t: usize,
    pub row: String,
    pub cells: Vec<CellRecord>,
}

/// The last line: `{"end":{...}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrailerLine {
    pub end: Trailer,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Trailer {
    /// Row lines (a wide row split into batches counts once per line).
    pub lines: u64,
    pub cells: u64,
    /// Per table (header order): row lines and cells.
    pub tables: Vec<TableCount>,
    /// CRC-32 (IEEE) of every byte before the trailer line, as 8 lowercase hex digits.
    pub crc32: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct TableCount {
    pub lines: u64,
    pub cells: u64,
}

pub fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

pub fn unb64(what: &str, text: &str) -> Result<Vec<u8>, String> {
    B64.decode(text)
        .map_err(|e| format!("{what} is not valid base64 ({e})"))
}

/// Writes lines through zstd, keeping the counts and checksum the trailer needs.
pub struct FileWriter {
    out: zstd::stream::write::Encoder<'static, BufWriter<std::fs::File>>,
    crc: crc32fast::Hasher,
    counts: Vec<TableCount>,
    buf: Vec<u8>,
}

impl FileWriter {
    pub fn create(path: &Path, header: &Header) -> Result<FileWriter, String> {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut out = zstd::stream::write::Encoder::new(BufWriter::new(file), 3)
            .map_err(|e| format!("cannot start compressing {}: {e}", path.display()))?;
        // zstd's own frame checksum too: a flipped bit is found even before JSON parsing.
        out.include_checksum(true)
            .map_err(|e| format!("zstd: {e}"))?;
        let mut w = FileWriter {
            out,
            crc: crc32fast::Hasher::new(),
            counts: vec![TableCount::default(); header.tables.len()],
            buf: Vec::with_capacity(64 * 1024),
        };
        let line = serde_json::to_vec(header).map_err(|e| format!("header: {e}"))?;
        w.write_line(&line)?;
        Ok(w)
    }

    fn write_line(&mut self, line: &[u8]) -> Result<(), String> {
        self.buf.clear();
        self.buf.extend_from_slice(line);
        self.buf.push(b'\n');
        self.crc.update(&self.buf);
        self.out
            .write_all(&self.buf)
            .map_err(|e| format!("cannot write the export file: {e}"))
    }

    /// One row line.
    pub fn write_row(&mut self, record: &RowRecord) -> Result<(), String> {
        let line = serde_json::to_vec(record).map_err(|e| format!("row: {e}"))?;
        self.write_line(&line)?;
        let c = &mut self.counts[record.t];
        c.lines += 1;
        c.cells += record.cells.len() as u64;
        Ok(())
    }

    /// The trailer, then the end of the zstd frame and a sync to disk: a file that has its
    /// trailer is whole.
    pub fn finish(mut self) -> Result<Trailer, String> {
        let trailer = Trailer {
            lines: self.counts.iter().map(|c| c.lines).sum(),
            cells: self.counts.iter().map(|c| c.cells).sum(),
            tables: self.counts.clone(),
            crc32: format!("{:08x}", self.crc.clone().finalize()),
        };
        let line = serde_json::to_vec(&TrailerLine {
            end: trailer.clone(),
        })
        .map_err(|e| format!("trailer: {e}"))?;
        self.write_line(&line)?;
        let buf = self
            .out
            .finish()
            .map_err(|e| format!("cannot finish the export file: {e}"))?;
        let file = buf
            .into_inner()
            .map_err(|e| format!("cannot write the export file: {}", e.error()))?;
        file.sync_all()
            .map_err(|e| format!("cannot sync the export file: {e}"))?;
        Ok(trailer)
    }
}

/// What the reader hands back after the header.
#[derive(Debug)]
pub enum Line {
    Row(RowRecord),
    /// A line that is not a valid row (the caller decides whether to go on).
    Bad(String),
    /// The trailer matched the counts and checksum of what came before.
    End(Trailer),
    /// The trailer disagrees with what was read: the file was altered, or bad lines were
    /// skipped (which the caller knows).
    Mismatch(String),
}

/// Reads an export file line by line, tracking line numbers, counts and the checksum.
pub struct FileReader {
    path: PathBuf,
    input: Box<dyn BufRead>,
    line_no: u64,
    crc: crc32fast::Hasher,
    counts: Vec<TableCount>,
    buf: Vec<u8>,
    pub header: Header,
    done: bool,
}

impl FileReader {
    pub fn open(path: &Path) -> Result<FileReader, String> {
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let mut raw = BufReader::with_capacity(256 * 1024, file);
        let compressed = raw
            .fill_buf()
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
            .starts_with(&ZSTD_MAGIC);
        let input: Box<dyn BufRead> = if compressed {
            let dec = zstd::stream::read::Decoder::with_buffer(raw)
                .map_err(|e| format!("{}: cannot start decompressing: {e}", path.display()))?;
            Box::new(BufReader::with_capacity(256 * 1024, dec))
        } else {
            Box::new(raw)
        };
        let mut r = FileReader {
            path: path.to_path_buf(),
            input,
            line_no: 0,
            crc: crc32fast::Hasher::new(),
            counts: Vec::new(),
            buf: Vec::new(),
            header: Header {
                format: String::new(),
                version: 0,
                source: String::new(),
                created_ms: 0,
                options: ExportOptions::default(),
                tables: Vec::new(),
            },
            done: false,
        };
        if !r.read_raw()? {
            return Err(format!("{}:1: the file is empty", path.display()));
        }
        let header = parse_header(&r.buf).map_err(|m| r.at(&m))?;
        r.counts = vec![TableCount::default(); header.tables.len()];
        r.header = header;
        Ok(r)
    }

    /// `FILE:LINE: message` for the current line.
    pub fn at(&self, message: &str) -> String {
        format!("{}:{}: {message}", self.path.display(), self.line_no)
    }

    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// The next line into `buf` (without its newline); false at the end of the input.
    fn read_raw(&mut self) -> Result<bool, String> {
        self.buf.clear();
        let n = self.input.read_until(b'\n', &mut self.buf).map_err(|e| {
            format!(
                "{}:{}: cannot read on (the compressed stream is damaged or cut short: {e})",
                self.path.display(),
                self.line_no + 1
            )
        })?;
        if n == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        self.crc.update(&self.buf);
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        Ok(true)
    }

    /// The next row line, a bad line, or the trailer (verified or not); `Ok(None)` only after
    /// the trailer. A missing trailer or a line after it is an `Err` (the file is cut short or
    /// was altered).
    pub fn next_line(&mut self) -> Result<Option<Line>, String> {
        if self.done {
            if self.read_raw()? {
                return Err(self.at("data after the trailer"));
            }
            return Ok(None);
        }
        let crc_before = self.crc.clone();
        if !self.read_raw()? {
            return Err(format!(
                "{}:{}: the file ends without its trailer: it was cut short (rows up to here \
                 were read)",
                self.path.display(),
                self.line_no
            ));
        }
        if self.buf.starts_with(b"{\"end\"") {
            let t: TrailerLine = serde_json::from_slice(&self.buf)
                .map_err(|e| self.at(&format!("bad trailer: {e}")))?;
            self.done = true;
            let crc = format!("{:08x}", crc_before.finalize());
            let seen = Trailer {
                lines: self.counts.iter().map(|c| c.lines).sum(),
                cells: self.counts.iter().map(|c| c.cells).sum(),
                tables: self.counts.clone(),
                crc32: crc,
            };
            if t.end != seen {
                return Ok(Some(Line::Mismatch(self.at(&format!(
                    "the trailer does not match the file: it records {} lines, {} cells, crc32 \
                     {}; the file holds {} lines, {} cells, crc32 {} (the file was altered or \
                     lines were skipped)",
                    t.end.lines, t.end.cells, t.end.crc32, seen.lines, seen.cells, seen.crc32
                )))));
            }
            return Ok(Some(Line::End(t.end)));
        }
        match serde_json::from_slice::<RowRecord>(&self.buf) {
            Ok(r) if r.t < self.counts.len() => {
                let c = &mut self.counts[r.t];
                c.lines += 1;
                c.cells += r.cells.len() as u64;
                Ok(Some(Line::Row(r)))
            }
            Ok(r) => Ok(Some(Line::Bad(self.at(&format!(
                "table index {} out of range (the header lists {})",
                r.t,
                self.counts.len()
            ))))),
            Err(e) => Ok(Some(Line::Bad(self.at(&format!("not a row record: {e}"))))),
        }
    }
}

fn parse_header(line: &[u8]) -> Result<Header, String> {
    let v: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("the header is not JSON: {e}"))?;
    match v.get("format").and_then(|f| f.as_str()) {
        Some(FORMAT_NAME) => {}
        Some(other) => return Err(format!("format {other:?} is not {FORMAT_NAME:?}")),
        None => {
            return Err(format!(
                "line 1 is not a {FORMAT_NAME} header (no \"format\" field)"
            ))
        }
    }
    match v.get("version").and_then(|f| f.as_u64()) {
        Some(n) if n == u64::from(FORMAT_VERSION) => {}
        Some(n) => {
            return Err(format!(
                "format version {n} is not supported (this redbase reads version \
                 {FORMAT_VERSION})"
            ))
        }
        None => return Err("the header has no version".into()),
    }
    serde_json::from_value(v).map_err(|e| format!("bad header: {e}"))
}

/// A map of bytes to bytes as base64 text, as descriptors' attributes are stored.
pub fn b64_map(m: &BTreeMap<Vec<u8>, Vec<u8>>) -> BTreeMap<String, String> {
    m.iter().map(|(k, v)| (b64(k), b64(v))).collect()
}

pub fn unb64_map(
    what: &str,
    m: &BTreeMap<String, String>,
) -> Result<BTreeMap<Vec<u8>, Vec<u8>>, String> {
    m.iter()
        .map(|(k, v)| Ok((unb64(what, k)?, unb64(what, v)?)))
        .collect()
}
