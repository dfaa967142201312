package redbase

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"
)

// WriterOptions bound a Writer's buffer; zero fields take the defaults.
type WriterOptions struct {
	// MaxRows flushes when that many row mutations are buffered (default 1,000).
	MaxRows int
	// MaxBytes flushes when the buffered keys and cell data reach it (default 4 MiB).
	MaxBytes int
	// FlushInterval flushes what has waited that long even if no further call comes
	// (default 1 s; negative: only by size, Flush and Close).
	FlushInterval time.Duration
}

// DeleteSettle is how long a Writer lets pass after the server acknowledged a row's delete
// before it sends a put or increment of that row. The server stamps both with its clock's
// millisecond and a delete marker hides every cell at or before its own stamp (HBase's rule),
// so a put landing in the delete's millisecond would vanish. One millisecond suffices on a
// steady clock; two leave room for a clock being slewed.
const DeleteSettle = 2 * time.Millisecond

type opKind int

const (
	opPut opKind = iota
	opDelete
	opIncrement
)

// writeOp is one buffered row mutation.
type writeOp struct {
	kind   opKind
	row    []byte
	cells  []Cell
	deltas []Delta
}

func (o *writeOp) size() int {
	n := len(o.row) + cellBytes(o.cells)
	for _, d := range o.deltas {
		n += len(d.Family) + len(d.Qualifier) + 8
	}
	return n
}

// Writer buffers puts, deletes and increments of one table and sends them in batches
// (putMultiple, deleteMultiple, one increment per row) when the buffer is full, when
// FlushInterval has passed, on Flush and on Close. Mutations are sent in the order they were
// made; increments of the same counter buffered together (with no put or delete of the row in
// between) are summed into one; a put or increment of a row deleted less than DeleteSettle
// before waits out the rest of it, so the delete's marker cannot hide it. An error of a background flush is returned by the next call or
// by Close. Safe for concurrent use; one flush runs at a time.
type Writer struct {
	ctx context.Context
	t   *TableClient
	o   WriterOptions

	mu      sync.Mutex // guards the fields below
	ops     []*writeOp
	bytes   int
	lastMut map[string]int // row → index in ops of its last put or delete
	incAt   map[string]int // row → index in ops of its increment
	timer   *time.Timer
	err     error // from a background flush, for the next call
	closed  bool

	flushing sync.Mutex           // one flush at a time; guards deleted
	deleted  map[string]time.Time // rows of recent deletes: when the server acknowledged them
}

// NewWriter returns a buffered writer of t; ctx bounds every flush, background ones included.
func NewWriter(ctx context.Context, t *TableClient, o WriterOptions) *Writer {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultChunkRows
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultChunkBytes
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = time.Second
	}
	return &Writer{ctx: ctx, t: t, o: o, lastMut: map[string]int{}, incAt: map[string]int{}, deleted: map[string]time.Time{}}
}

// Put buffers a put of cells to row.
func (w *Writer) Put(row []byte, cells []Cell) error {
	if len(cells) == 0 {
		return w.check()
	}
	return w.add(&writeOp{kind: opPut, row: row, cells: cells})
}

// Delete buffers the deletion of the whole row.
func (w *Writer) Delete(row []byte) error { return w.add(&writeOp{kind: opDelete, row: row}) }

// Increment buffers counter increments of row.
func (w *Writer) Increment(row []byte, deltas []Delta) error {
	if len(deltas) == 0 {
		return w.check()
	}
	return w.add(&writeOp{kind: opIncrement, row: row, deltas: deltas})
}

// check is a call that buffers nothing: ErrClosed, or a background flush's error.
func (w *Writer) check() error {
	w.mu.Lock()
	closed := w.closed
	w.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return w.takeErr()
}

func (w *Writer) takeErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	w.err = nil
	return err
}

func (w *Writer) add(op *writeOp) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if err := w.err; err != nil {
		w.err = nil
		w.mu.Unlock()
		return err
	}
	key := string(op.row)
	last, mutated := w.lastMut[key]
	if i, ok := w.incAt[key]; op.kind == opIncrement && ok && (!mutated || i > last) {
		before := w.ops[i].size()
		w.ops[i].deltas = sumDeltas(w.ops[i].deltas, op.deltas)
		w.bytes += w.ops[i].size() - before
	} else {
		if op.kind == opIncrement {
			op.deltas = sumDeltas(nil, op.deltas)
			w.incAt[key] = len(w.ops)
		} else {
			w.lastMut[key] = len(w.ops)
		}
		w.ops = append(w.ops, op)
		w.bytes += op.size()
	}
	if len(w.ops) == 1 && w.o.FlushInterval > 0 && w.timer == nil {
		w.timer = time.AfterFunc(w.o.FlushInterval, w.background)
	}
	full := len(w.ops) >= w.o.MaxRows || w.bytes >= w.o.MaxBytes
	w.mu.Unlock()
	if full {
		return w.Flush()
	}
	return nil
}

// sumDeltas adds more to have, one delta per counter.
func sumDeltas(have, more []Delta) []Delta {
	for _, d := range more {
		found := false
		for i := range have {
			if bytes.Equal(have[i].Family, d.Family) && bytes.Equal(have[i].Qualifier, d.Qualifier) {
				have[i].Amount += d.Amount
				found = true
				break
			}
		}
		if !found {
			have = append(have, d)
		}
	}
	return have
}

func (w *Writer) background() {
	if err := w.flush(); err != nil {
		w.mu.Lock()
		w.err = errors.Join(w.err, err)
		w.mu.Unlock()
	}
}

// Flush sends everything buffered; it returns a background flush's error too.
func (w *Writer) Flush() error {
	err := w.flush()
	return errors.Join(w.takeErr(), err)
}

// Close flushes and stops the writer; later calls return ErrClosed.
func (w *Writer) Close() error {
	err := w.Flush()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return err
}

func (w *Writer) flush() error {
	w.flushing.Lock()
	defer w.flushing.Unlock()
	w.mu.Lock()
	ops := w.ops
	w.ops, w.bytes = nil, 0
	w.lastMut, w.incAt = map[string]int{}, map[string]int{}
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	w.mu.Unlock()
	return w.send(ops)
}

// settle waits until DeleteSettle has passed since any row of run was last deleted.
func (w *Writer) settle(run []*writeOp) {
	now := time.Now()
	var latest time.Time
	for key, at := range w.deleted {
		if now.Sub(at) >= DeleteSettle {
			delete(w.deleted, key)
		}
	}
	for _, op := range run {
		if at, ok := w.deleted[string(op.row)]; ok && at.After(latest) {
			latest = at
		}
	}
	if !latest.IsZero() {
		time.Sleep(DeleteSettle - now.Sub(latest))
	}
}

// send writes ops in order, each run of one kind in one batch; failed rows of every run are
// gathered into one *BatchError whose indexes are positions in ops.
func (w *Writer) send(ops []*writeOp) error {
	var failures []RowFailure
	o := ApplyWriteOptions(nil)
	o.ChunkRows, o.ChunkBytes = w.o.MaxRows, w.o.MaxBytes
	for start := 0; start < len(ops); {
		end := start + 1
		for end < len(ops) && ops[end].kind == ops[start].kind {
			end++
		}
		run := ops[start:end]
		var err error
		if run[0].kind != opDelete {
			w.settle(run)
		}
		switch run[0].kind {
		case opPut:
			rows := make([]RowCells, len(run))
			for i, op := range run {
				rows[i] = RowCells{Row: op.row, Cells: op.cells}
			}
			err = w.t.PutMany(w.ctx, rows, o)
		case opDelete:
			rows := make([][]byte, len(run))
			for i, op := range run {
				rows[i] = op.row
			}
			err = w.t.DeleteMany(w.ctx, rows, o)
			acked := time.Now()
			for _, row := range rows {
				w.deleted[string(row)] = acked
			}
		case opIncrement:
			rows := make([]RowDeltas, len(run))
			for i, op := range run {
				rows[i] = RowDeltas{Row: op.row, Deltas: op.deltas}
			}
			_, err = w.t.IncrementMany(w.ctx, rows)
		}
		var be *BatchError
		switch {
		case errors.As(err, &be):
			for _, f := range be.Failures {
				f.Index += start
				failures = append(failures, f)
			}
		case err != nil:
			return err
		}
		start = end
	}
	if len(failures) > 0 {
		return &BatchError{Op: "flush", Failures: failures}
	}
	return nil
}
