package e2e

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	rx "redbase.example/sdks/go"
)

// TestDocsIssue21Example runs docs/sdks.md's "Batches, versions, filters and ranges" Go
// example, its prints collected.
func TestDocsIssue21Example(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, rx.NewAccessLogsTable(c))
	key := rx.AccessLogsKey{UserID: "dave", SystemID: "jericho", Period: 201510}
	var out []string

	var puts []rx.AccessLogsPut
	for p := int32(201501); p <= 201512; p++ {
		puts = append(puts, rx.AccessLogsPut{
			Key:    rx.AccessLogsKey{UserID: "dave", SystemID: "jericho", Period: p},
			Values: rx.AccessLogsValues{Hits: rx.Ptr(int64(p % 100))},
		})
	}
	if err := logs.PutMany(ctx, puts); err != nil {
		var be *rx.BatchError
		if errors.As(err, &be) {
			t.Errorf("failures: %+v", be.Failures)
		}
		t.Fatal(err)
	}

	w := logs.Writer(ctx, rx.WriterOptions{FlushInterval: 500 * time.Millisecond})
	must(t, w.Increment(key, rx.AccessLogsCounters{Hits: 1}))
	must(t, w.Delete(rx.AccessLogsKey{UserID: "eve", SystemID: "anvil", Period: 201501}))
	must(t, w.Close())

	must(t, logs.Put(ctx, key, rx.AccessLogsValues{LastSeen: rx.Ptr(int64(1))}, rx.WithTimestamp(1_445_000_000_000)))
	row := ok(logs.Get(ctx, key, rx.WithVersions(3)))
	for _, v := range row.Versions.LastSeen {
		out = append(out, fmt.Sprint(v.Timestamp, " ", v.Value))
	}
	row = ok(logs.Get(ctx, key, rx.AtTimestamp(1_445_000_000_000)))
	out = append(out, fmt.Sprint(*row.Values.LastSeen, " ", row.Values.Hits == nil)) // hits has no cell at ts
	must(t, logs.Delete(ctx, key, rx.WithTimestamp(1_445_000_000_000)))

	hits := rx.AccessLogsColumns.Hits
	q2 := logs.Scan(ctx, rx.AccessLogsKeys().UserID("dave").SystemID("jericho").PeriodBetween(201504, 201506),
		rx.ScanOptions{
			Filter:   rx.AllOf(hits.Ge(5), rx.AnyOf(hits.Lt(6), rx.PageFilter(100))),
			Columns:  []rx.Selector{hits},
			Reversed: true,
		})
	defer q2.Close()
	for q2.Next() {
		out = append(out, fmt.Sprint(q2.Row().Key.Period, " ", *q2.Row().Values.Hits))
	}
	must(t, q2.Err())
	// The versioned put's cell, the at-timestamp read (only last_seen was written at ts), then
	// periods 201506, 201505 (hits 6, 5), highest key first; 201504 has hits 4 < 5.
	want := []string{"1445000000000 1", "1 true", "201506 6", "201505 5"}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("printed %q, want %q", out, want)
	}
}
