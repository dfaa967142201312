package e2e

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"
)

func logKey(i int) sdk.AccessLogsKey {
	return sdk.AccessLogsKey{UserID: fmt.Sprintf("user%04d", i), SystemID: "jericho", Period: 201501 + int32(i%12)}
}

// count scans the whole table.
func count(t *testing.T, s interface {
	Next() bool
	Err() error
	Close() error
}) int {
	t.Helper()
	defer s.Close()
	n := 0
	for s.Next() {
		n++
	}
	must(t, s.Err())
	return n
}

func TestPutManyChunksAndDeleteMany(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	var rows []sdk.AccessLogsPut
	for i := 0; i < 2500; i++ {
		rows = append(rows, sdk.AccessLogsPut{Key: logKey(i), Values: sdk.AccessLogsValues{
			Hits: sdk.Ptr(int64(i)), LastSeen: sdk.Ptr(int64(1_400_000_000_000 + i))}})
	}
	// 1,000 rows per call by default: three putMultiple calls.
	must(t, logs.PutMany(ctx, rows))
	if n := count(t, logs.Scan(ctx, nil, sdk.ScanOptions{})); n != 2500 {
		t.Fatalf("%d rows after PutMany, want 2500", n)
	}
	for _, i := range []int{0, 999, 1000, 2499} {
		r := ok(logs.Get(ctx, logKey(i)))
		if *r.Values.Hits != int64(i) || *r.Values.LastSeen != int64(1_400_000_000_000+i) {
			t.Errorf("row %d: %+v", i, r.Values)
		}
	}
	// A byte bound small enough that every call carries a few rows.
	var more []sdk.AccessLogsPut
	for i := 0; i < 50; i++ {
		more = append(more, sdk.AccessLogsPut{Key: logKey(i), Values: sdk.AccessLogsValues{Hits: sdk.Ptr(int64(-i))}})
	}
	must(t, logs.PutMany(ctx, more, sdk.WithChunkBytes(40), sdk.WithChunkRows(7)))
	if h := *ok(logs.Get(ctx, logKey(49))).Values.Hits; h != -49 {
		t.Errorf("hits after the second PutMany: %d", h)
	}
	var keys []sdk.AccessLogsKey
	for i := 0; i < 2500; i += 2 {
		keys = append(keys, logKey(i))
	}
	must(t, logs.DeleteMany(ctx, keys, sdk.WithChunkRows(300)))
	if n := count(t, logs.Scan(ctx, nil, sdk.ScanOptions{})); n != 1250 {
		t.Fatalf("%d rows after DeleteMany, want 1250", n)
	}
	if _, err := logs.Get(ctx, logKey(0)); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("deleted row: %v", err)
	}
}

func TestBatchKeyErrorsBeforeAnythingIsSent(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	rows := []sdk.AccessLogsPut{
		{Key: logKey(1), Values: sdk.AccessLogsValues{Hits: sdk.Ptr(int64(1))}},
		{Key: sdk.AccessLogsKey{SystemID: "jericho", Period: 201501}, Values: sdk.AccessLogsValues{Hits: sdk.Ptr(int64(2))}},
	}
	err := logs.PutMany(ctx, rows)
	var ke *sdk.KeyError
	if !errors.Is(err, sdk.ErrKeyEncoding) || !errors.As(err, &ke) || ke.Component != "user_id" || !strings.Contains(err.Error(), "row 1") {
		t.Fatalf("PutMany with an empty user_id: %v", err)
	}
	if _, err := logs.Get(ctx, logKey(1)); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("row 0 was written before the key error: %v", err)
	}
	if err := logs.DeleteMany(ctx, []sdk.AccessLogsKey{logKey(1), {}}); !errors.Is(err, sdk.ErrKeyEncoding) {
		t.Errorf("DeleteMany with a zero key: %v", err)
	}
}

// Rows the server refuses (a family the table does not have) are found by retrying their
// chunk row by row; the other rows of the chunk and of later chunks are written.
func TestBatchReportsFailedRows(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	fresh(t, ctx, sdk.NewAccessLogsTable(c))
	raw := redbase.NewTableClient(c, sdk.AccessLogsDef)
	good := func(i int) redbase.RowCells {
		return redbase.RowCells{Row: ok(logKey(i).Encode()), Cells: []redbase.Cell{{Family: []byte("t"), Qualifier: []byte("h"), Value: make([]byte, 8)}}}
	}
	bad := func(i int) redbase.RowCells {
		return redbase.RowCells{Row: ok(logKey(i).Encode()), Cells: []redbase.Cell{{Family: []byte("nope"), Qualifier: []byte("x"), Value: []byte("v")}}}
	}
	rows := []redbase.RowCells{good(0), bad(1), good(2), good(3), bad(4), good(5)}
	err := raw.PutMany(ctx, rows, redbase.ApplyWriteOptions([]redbase.WriteOption{redbase.WithChunkRows(4)}))
	var be *sdk.BatchError
	if !errors.As(err, &be) || !errors.Is(err, sdk.ErrBatch) || !errors.Is(err, sdk.ErrServer) {
		t.Fatalf("PutMany with two bad rows: %v", err)
	}
	if len(be.Failures) != 2 || be.Failures[0].Index != 1 || be.Failures[1].Index != 4 {
		t.Fatalf("failures %+v, want rows 1 and 4", be.Failures)
	}
	for _, f := range be.Failures {
		if string(f.Row) != string(rows[f.Index].Row) || f.Message == "" {
			t.Errorf("failure %+v", f)
		}
	}
	logs := sdk.NewAccessLogsTable(c)
	for _, i := range []int{0, 2, 3, 5} {
		if _, err := logs.Get(ctx, logKey(i)); err != nil {
			t.Errorf("good row %d: %v", i, err)
		}
	}
}

func TestMutateRowIsOneAtomicChange(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	k := logKey(7)
	must(t, logs.Put(ctx, k, sdk.AccessLogsValues{Hits: sdk.Ptr(int64(5)), LastSeen: sdk.Ptr(int64(10))}))
	must(t, logs.MutateRow(ctx, k, sdk.AccessLogsValues{LastSeen: sdk.Ptr(int64(20))},
		[]sdk.Selector{sdk.AccessLogsColumns.Hits}))
	r := ok(logs.Get(ctx, k))
	if r.Values.Hits != nil || r.Values.LastSeen == nil || *r.Values.LastSeen != 20 {
		t.Errorf("after MutateRow: %+v", r.Values)
	}
	// A whole family deleted: the row is gone.
	must(t, logs.MutateRow(ctx, k, sdk.AccessLogsValues{}, []sdk.Selector{sdk.Family("t")}))
	if _, err := logs.Get(ctx, k); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("after deleting family t: %v", err)
	}
}

func TestIncrementManyOneCallPerRow(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	incs := []sdk.AccessLogsIncrement{
		{Key: logKey(1), Counters: sdk.AccessLogsCounters{Hits: 3}},
		{Key: logKey(2), Counters: sdk.AccessLogsCounters{Hits: 5}},
		{Key: logKey(1), Counters: sdk.AccessLogsCounters{Hits: 4}},
	}
	got := ok(logs.IncrementMany(ctx, incs))
	if len(got) != 3 || got[0].Hits != 3 || got[1].Hits != 5 || got[2].Hits != 7 {
		t.Errorf("IncrementMany results: %+v", got)
	}
	if v := ok(logs.Increment(ctx, logKey(2), sdk.AccessLogsCounters{Hits: -1})); v.Hits != 4 {
		t.Errorf("Increment: %+v", v)
	}
	if h := *ok(logs.Get(ctx, logKey(1))).Values.Hits; h != 7 {
		t.Errorf("hits of row 1: %d", h)
	}
}

func TestWriterFlushesBySizeTimeAndClose(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	w := logs.Writer(ctx, sdk.WriterOptions{MaxRows: 100, FlushInterval: -1})
	for i := 0; i < 250; i++ {
		must(t, w.Put(logKey(i), sdk.AccessLogsValues{Hits: sdk.Ptr(int64(i))}))
	}
	// Two flushes by size; the last 50 rows wait in the buffer.
	if n := count(t, logs.Scan(ctx, nil, sdk.ScanOptions{})); n != 200 {
		t.Errorf("%d rows written before Close, want 200", n)
	}
	must(t, w.Close())
	if n := count(t, logs.Scan(ctx, nil, sdk.ScanOptions{})); n != 250 {
		t.Errorf("%d rows after Close, want 250", n)
	}
	if err := w.Put(logKey(1), sdk.AccessLogsValues{}); !errors.Is(err, sdk.ErrClosed) {
		t.Errorf("Put after Close: %v", err)
	}

	// By time: nothing else is called, the row still arrives.
	w = logs.Writer(ctx, sdk.WriterOptions{FlushInterval: 100 * time.Millisecond})
	must(t, w.Put(logKey(900), sdk.AccessLogsValues{Hits: sdk.Ptr(int64(900))}))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := logs.Get(ctx, logKey(900)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the buffered row was not flushed by the interval")
		}
		time.Sleep(20 * time.Millisecond)
	}
	must(t, w.Close())
}

func TestWriterSumsIncrementsAndKeepsOrder(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	w := logs.Writer(ctx, sdk.WriterOptions{FlushInterval: -1})
	for i := 0; i < 5; i++ {
		must(t, w.Increment(logKey(1), sdk.AccessLogsCounters{Hits: 2}))
	}
	must(t, w.Put(logKey(2), sdk.AccessLogsValues{Hits: sdk.Ptr(int64(1))}))
	must(t, w.Delete(logKey(2))) // put then delete: gone
	must(t, w.Delete(logKey(3)))
	must(t, w.Put(logKey(3), sdk.AccessLogsValues{Hits: sdk.Ptr(int64(3))})) // delete then put: there
	must(t, w.Close())
	if h := *ok(logs.Get(ctx, logKey(1))).Values.Hits; h != 10 {
		t.Errorf("summed increments: %d, want 10", h)
	}
	if _, err := logs.Get(ctx, logKey(2)); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("put then delete: %v", err)
	}
	if h := *ok(logs.Get(ctx, logKey(3))).Values.Hits; h != 3 {
		t.Errorf("delete then put: %d", h)
	}
}

// A delete marker hides cells at or before its millisecond: on a fast server, a put or
// increment sent right after the row's delete lands in that millisecond unless the writer
// waits. Repeated, since one round passes by luck as often as not.
func TestWriterWritesAfterADeleteInTheSameMillisecond(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	for i := 0; i < 40; i++ {
		key := logKey(100 + i)
		must(t, logs.Put(ctx, key, sdk.AccessLogsValues{Hits: sdk.Ptr(int64(1))}))
		w := logs.Writer(ctx, sdk.WriterOptions{FlushInterval: -1})
		must(t, w.Delete(key))
		must(t, w.Put(key, sdk.AccessLogsValues{LastSeen: sdk.Ptr(int64(i))}))
		must(t, w.Flush()) // the delete, then the put, in one flush
		must(t, w.Delete(key))
		must(t, w.Increment(key, sdk.AccessLogsCounters{Hits: 5}))
		must(t, w.Close())
		row, err := logs.Get(ctx, key)
		if err != nil {
			t.Fatalf("round %d: the row written after its delete: %v", i, err)
		}
		if row.Values.Hits == nil || *row.Values.Hits != 5 || row.Values.LastSeen != nil {
			t.Fatalf("round %d: %+v, want hits 5 and no last_seen", i, row.Values)
		}
	}
}

// A background flush's failure comes back from the next call.
func TestWriterReportsBackgroundErrors(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	fresh(t, ctx, sdk.NewAccessLogsTable(c))
	raw := redbase.NewTableClient(c, sdk.AccessLogsDef)
	w := redbase.NewWriter(ctx, raw, redbase.WriterOptions{FlushInterval: 50 * time.Millisecond})
	must(t, w.Put(ok(logKey(1).Encode()), []redbase.Cell{{Family: []byte("nope"), Qualifier: []byte("x"), Value: []byte("v")}}))
	time.Sleep(500 * time.Millisecond)
	err := w.Put(ok(logKey(2).Encode()), []redbase.Cell{{Family: []byte("t"), Qualifier: []byte("h"), Value: make([]byte, 8)}})
	var be *sdk.BatchError
	if !errors.As(err, &be) || len(be.Failures) != 1 {
		t.Fatalf("the call after a failed background flush: %v", err)
	}
	must(t, w.Close())
}

// Options.TablePrefix names every table of a client: the same schema lives twice, apart.
func TestTablePrefixKeepsTablesApart(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	opts := *options
	opts.TablePrefix += "other_"
	other, err := sdk.Dial(ctx, target, &opts)
	must(t, err)
	t.Cleanup(func() { other.Close() })
	mine := fresh(t, ctx, sdk.NewCountersTable(c))
	theirs := fresh(t, ctx, sdk.NewCountersTable(other))
	key := sdk.CountersKey{Name: "page"}
	if n := ok(mine.IncrementSlots(ctx, key, 1, 2)); n != 2 {
		t.Errorf("mine: %d", n)
	}
	// Pattern counters in one increment call: slots 1 and 2 of the other table.
	got := ok(theirs.Increment(ctx, key, sdk.CountersCounters{Slots: map[int32]int64{1: 5, 2: 7}}))
	if !reflect.DeepEqual(got.Slots, map[int32]int64{1: 5, 2: 7}) {
		t.Errorf("theirs: %v (a table of its own)", got.Slots)
	}
	raw := redbase.NewTableClient(other, sdk.CountersDef)
	if name := raw.Def().Name; name != opts.TablePrefix+sdk.CountersDef.Name {
		t.Errorf("prefixed name %q", name)
	}
}
