package e2e

import (
	"errors"
	"reflect"
	"testing"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"
)

// The access_logs family t keeps 3 versions (sdks/schemas/access_logs.toml).
func TestVersionsAndTimestamps(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	k := logKey(1)
	const t1, t2, t3 = 1_500_000_000_000, 1_500_000_001_000, 1_500_000_002_000
	for i, ts := range []int64{t1, t2, t3} {
		must(t, logs.Put(ctx, k, sdk.AccessLogsValues{LastSeen: sdk.Ptr(int64(100 + i))}, sdk.WithTimestamp(ts)))
	}
	want := []redbase.Version[int64]{{Timestamp: t3, Value: 102}, {Timestamp: t2, Value: 101}, {Timestamp: t1, Value: 100}}
	r := ok(logs.Get(ctx, k, sdk.WithVersions(3)))
	if !reflect.DeepEqual(r.Versions.LastSeen, want) {
		t.Errorf("versions: %+v, want %+v", r.Versions.LastSeen, want)
	}
	if *r.Values.LastSeen != 102 || len(r.Cells) != 3 || r.Cells[0].Timestamp != t3 || r.Cells[2].Timestamp != t1 {
		t.Errorf("newest value %d, cells %+v", *r.Values.LastSeen, r.Cells)
	}
	if r := ok(logs.Get(ctx, k)); len(r.Versions.LastSeen) != 1 || r.Versions.LastSeen[0].Timestamp != t3 {
		t.Errorf("default read: %+v", r.Versions.LastSeen)
	}
	if r := ok(logs.Get(ctx, k, sdk.WithVersions(3), sdk.WithTimeRange(t1, t3))); !reflect.DeepEqual(r.Versions.LastSeen, want[1:]) {
		t.Errorf("time range [t1, t3): %+v", r.Versions.LastSeen)
	}
	if r := ok(logs.Get(ctx, k, sdk.AtTimestamp(t1))); *r.Values.LastSeen != 100 {
		t.Errorf("at t1: %d", *r.Values.LastSeen)
	}
	if _, err := logs.Get(ctx, k, sdk.AtTimestamp(t1+1)); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("at a timestamp with no cell: %v", err)
	}

	// Scans see the same versions.
	rows := ok(logs.Scan(ctx, sdk.AccessLogsKeys().UserID("user0001"), sdk.ScanOptions{Versions: 3}).All())
	if len(rows) != 1 || !reflect.DeepEqual(rows[0].Versions.LastSeen, want) {
		t.Errorf("scan with versions: %+v", rows)
	}
	rows = ok(logs.Scan(ctx, nil, sdk.ScanOptions{Versions: 3, TimeRange: &sdk.TimeRange{Min: t2, Max: t3 + 1}}).All())
	if len(rows) != 1 || !reflect.DeepEqual(rows[0].Versions.LastSeen, want[:2]) {
		t.Errorf("scan with a time range: %+v", rows)
	}

	// A delete with a timestamp removes that version and older ones.
	must(t, logs.Delete(ctx, k, sdk.WithTimestamp(t2)))
	if r := ok(logs.Get(ctx, k, sdk.WithVersions(3))); !reflect.DeepEqual(r.Versions.LastSeen, want[:1]) {
		t.Errorf("after delete at t2: %+v", r.Versions.LastSeen)
	}

	// PutMany at one timestamp.
	must(t, logs.PutMany(ctx, []sdk.AccessLogsPut{{Key: logKey(2), Values: sdk.AccessLogsValues{Hits: sdk.Ptr(int64(1))}}}, sdk.WithTimestamp(t1)))
	if r := ok(logs.Get(ctx, logKey(2))); r.Cells[0].Timestamp != t1 {
		t.Errorf("PutMany timestamp: %+v", r.Cells)
	}
}

func TestGetColumns(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	k := logKey(3)
	must(t, logs.Put(ctx, k, sdk.AccessLogsValues{Hits: sdk.Ptr(int64(4)), LastSeen: sdk.Ptr(int64(5))}))
	r := ok(logs.Get(ctx, k, sdk.WithColumns(sdk.AccessLogsColumns.Hits)))
	if r.Values.Hits == nil || *r.Values.Hits != 4 || r.Values.LastSeen != nil {
		t.Errorf("columns hits: %+v", r.Values)
	}
	r = ok(logs.Get(ctx, k, sdk.WithColumns(sdk.Family("t"))))
	if r.Values.Hits == nil || r.Values.LastSeen == nil {
		t.Errorf("family t: %+v", r.Values)
	}
}
