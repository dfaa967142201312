//! The rows of one scan chunk, built into shared buffers before the scanner hands them out.

use std::collections::VecDeque;

use bytes::Bytes;

use crate::engine::model::cell::{RowBuilder, RowResult, RowSpan};
use crate::engine::reads::read::Pending;
use crate::engine::reads::read_plan::{pending_row, Visible};

/// The rows of a chunk, built into shared buffers: each result is then a slice of one
/// allocation, since a malloc and a free per row cost more than copying the row.
#[derive(Default)]
pub(super) struct ChunkRows {
    buf: Vec<u8>,
    rows: Vec<Built>,
}

pub(super) enum Built {
    /// A row inside `buf`.
    Span(RowSpan),
    /// A row with a buffer of its own (rewritten by a filter, or large).
    Own(RowResult),
}

/// A shared buffer is handed out once it holds this many bytes, so a chunk of large rows
/// never grows one buffer without bound; a row this large gets a buffer of its own.
const SHARED_BUFFER: usize = 64 * 1024;

/// The first reservation of a shared buffer.
const SHARED_START: usize = 16 * 1024;

impl ChunkRows {
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(super) fn push(&mut self, row: &[u8], v: Visible<'_>, out: &mut VecDeque<RowResult>) {
        match v {
            Visible::Row(r) => self.rows.push(Built::Own(r)),
            Visible::Cells(p) => self.push_cells(row, &p, out),
        }
    }

    pub(super) fn push_cells(
        &mut self,
        row: &[u8],
        pending: &[Pending<'_>],
        out: &mut VecDeque<RowResult>,
    ) {
        let mut own = false;
        let buf = &mut self.buf;
        let b = pending_row(
            |row, bytes, cells| {
                if row.len() + bytes >= SHARED_BUFFER {
                    own = true;
                    return RowBuilder::new(row, bytes, cells);
                }
                if buf.capacity() == 0 {
                    buf.reserve(SHARED_START);
                }
                RowBuilder::append_to(std::mem::take(buf), row, bytes, cells)
            },
            row,
            pending,
        );
        if own {
            self.rows.push(Built::Own(b.finish()));
            return;
        }
        let (buf, span) = b.finish_span();
        self.buf = buf;
        self.rows.push(Built::Span(span));
        if self.buf.len() >= SHARED_BUFFER {
            self.flush(out);
        }
    }

    /// Hands the rows built so far to `out`, in order.
    pub(super) fn flush(&mut self, out: &mut VecDeque<RowResult>) {
        let shared = Bytes::from(std::mem::take(&mut self.buf));
        for b in self.rows.drain(..) {
            out.push_back(match b {
                Built::Span(s) => s.result(shared.slice(s.range())),
                Built::Own(r) => r,
            });
        }
    }
}
