//! How results print: HBase's shell tables (`ROW  COLUMN+CELL`, `COLUMN  CELL`), its byte
//! escaping (`Bytes.toStringBinary`), its timestamps, `N row(s)` and `Took` lines, `=> value`
//! return lines; or, with `--format json`, one JSON object per row or result.

use std::io::Write;

use base64::Engine as _;
use serde_json::{json, Value as Json};

/// HBase's `Bytes.toStringBinary`: bytes 0x20..=0x7E except the backslash print as
/// themselves, every other byte as `\xNN` with upper-case hex digits.
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if (b' '..=b'~').contains(&b) && b != b'\\' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// Bytes for JSON: a string when they are printable UTF-8, else base64 with the encoding said.
pub fn json_bytes(bytes: &[u8]) -> Json {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => Json::String(s.to_string()),
        _ => json!({
            "encoding": "base64",
            "data": base64::engine::general_purpose::STANDARD.encode(bytes),
        }),
    }
}

/// How cell timestamps print: HBase 2.6's shell shows them as a local date-time
/// (`java.time.LocalDateTime.toString`), or as epoch milliseconds when configured so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TimestampFormat {
    /// `2024-05-01T10:00:00.123` (UTC), as HBase 2.6's shell prints in a UTC time zone.
    Iso,
    /// Milliseconds since the epoch, as older shells and `hbase.shell.timestamp.format.epoch`.
    Epoch,
}

pub fn timestamp(ms: i64, format: TimestampFormat) -> String {
    if format == TimestampFormat::Epoch {
        return ms.to_string();
    }
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    // LocalDateTime.toString leaves out zero seconds and milliseconds.
    let time = if milli != 0 {
        format!("{h:02}:{mi:02}:{s:02}.{milli:03}")
    } else if s != 0 {
        format!("{h:02}:{mi:02}:{s:02}")
    } else {
        format!("{h:02}:{mi:02}")
    };
    format!("{y:04}-{m:02}-{d:02}T{time}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A Ruby-style inspection of a string, as IRB prints return values: `"t1"`.
pub fn ruby_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '#' => out.push('#'),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `=> ["a", "b"]`.
pub fn ruby_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| ruby_str(s)).collect();
    format!("[{}]", inner.join(", "))
}

/// Where a command's output goes, and in which form.
pub struct Output {
    pub out: Box<dyn Write>,
    pub json: bool,
    pub timestamps: TimestampFormat,
    /// The terminal's width for table columns; 0 (not a terminal) means no padding, as
    /// HBase's formatter does when its output is not a TTY.
    pub width: usize,
}

impl Output {
    pub fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "{s}");
    }
    /// A line only text mode prints (headers, footers, `Took`).
    pub fn text(&mut self, s: &str) {
        if !self.json {
            self.line(s);
        }
    }
    pub fn json(&mut self, v: Json) {
        let _ = writeln!(self.out, "{v}");
    }
    /// A two-column table header (not inset), as the HBase formatter prints it.
    pub fn header(&mut self, a: &str, b: &str) {
        if self.json {
            return;
        }
        let s = self.two(a, b, false);
        self.line(&s);
    }
    /// A two-column table row, inset by one space.
    pub fn row(&mut self, a: &str, b: &str) {
        let s = self.two(a, b, true);
        self.line(&s);
    }
    fn two(&self, a: &str, b: &str, inset: bool) -> String {
        let lead = if inset { " " } else { "  " };
        if self.width == 0 {
            return if inset {
                format!(" {a} {b}")
            } else {
                format!("{a}{lead}{b}")
            };
        }
        let w1 = self.width / 4;
        if inset {
            format!(" {a:<w1$} {b}")
        } else {
            format!("{a:<w1$}{lead}{b}")
        }
    }
    /// `Took 0.0123 seconds` (text mode only).
    pub fn took(&mut self, started: std::time::Instant) {
        let secs = started.elapsed().as_secs_f64();
        self.text(&format!("Took {secs:.4} seconds"));
    }
    /// An IRB return line, `=> value` (text mode only).
    pub fn ret(&mut self, v: &str) {
        self.text(&format!("=> {v}"));
    }
    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

/// A cell as HBase's shell shows it: `timestamp=..., value=...` (or `type=...` for a delete
/// marker of a raw scan).
pub fn cell_text(ts: i64, value: &[u8], kind: Option<i8>, tf: TimestampFormat) -> String {
    let t = timestamp(ts, tf);
    match kind.and_then(type_name) {
        Some(name) => format!("timestamp={t}, type={name}"),
        None => format!("timestamp={t}, value={}", to_string_binary(value)),
    }
}

/// HBase's `KeyValue.Type` name of a delete marker code (Put and unknown codes: None).
fn type_name(code: i8) -> Option<&'static str> {
    match code as u8 {
        8 => Some("Delete"),
        10 => Some("DeleteFamilyVersion"),
        12 => Some("DeleteColumn"),
        14 => Some("DeleteFamily"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_matches_to_string_binary() {
        assert_eq!(to_string_binary(b"abc ~"), "abc ~");
        assert_eq!(
            to_string_binary(&[0, 0, 0, 0, 0, 0, 0, 100]),
            "\\x00\\x00\\x00\\x00\\x00\\x00\\x00d"
        );
        assert_eq!(to_string_binary(b"a\\b"), "a\\x5Cb");
        assert_eq!(
            to_string_binary(&[0x7f, 0x80, 0xff, b'\n']),
            "\\x7F\\x80\\xFF\\x0A"
        );
        assert_eq!(to_string_binary("é".as_bytes()), "\\xC3\\xA9");
    }

    #[test]
    fn timestamps_as_local_date_time() {
        assert_eq!(
            timestamp(1_446_726_973_017, TimestampFormat::Iso),
            "2015-11-05T12:36:13.017"
        );
        assert_eq!(timestamp(0, TimestampFormat::Iso), "1970-01-01T00:00");
        assert_eq!(timestamp(1000, TimestampFormat::Iso), "1970-01-01T00:00:01");
        assert_eq!(
            timestamp(-1, TimestampFormat::Iso),
            "1969-12-31T23:59:59.999"
        );
        assert_eq!(timestamp(42, TimestampFormat::Epoch), "42");
    }

    #[test]
    fn json_bytes_say_their_encoding() {
        assert_eq!(json_bytes(b"row1"), json!("row1"));
        assert_eq!(
            json_bytes(&[0, 1]),
            json!({"encoding": "base64", "data": "AAE="})
        );
    }

    #[test]
    fn cells_and_markers() {
        assert_eq!(
            cell_text(0, b"v", None, TimestampFormat::Epoch),
            "timestamp=0, value=v"
        );
        assert_eq!(
            cell_text(5, b"", Some(12), TimestampFormat::Epoch),
            "timestamp=5, type=DeleteColumn"
        );
    }
}
