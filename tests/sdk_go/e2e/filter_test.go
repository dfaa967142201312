package e2e

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	sdk "redbase.example/sdks/go"
)

// userLogs fills access_logs_by_user: users a..d, systems s1 s2, periods 201501..201503; hits
// run 1, 2, ... in that order and last_seen is 1000 + hits.
func userLogs(t *testing.T) (*sdk.AccessLogsByUserTable, func(sdk.Keys, sdk.ScanOptions) []string) {
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsByUserTable(c))
	var rows []sdk.AccessLogsByUserPut
	n := int64(0)
	for _, u := range []string{"a", "b", "c", "d"} {
		for _, s := range []string{"s1", "s2"} {
			for p := int32(201501); p <= 201503; p++ {
				n++
				rows = append(rows, sdk.AccessLogsByUserPut{
					Key:    sdk.AccessLogsByUserKey{UserID: u, SystemID: s, Period: p},
					Values: sdk.AccessLogsByUserValues{Hits: sdk.Ptr(n), LastSeen: sdk.Ptr(1000 + n)},
				})
			}
		}
	}
	must(t, logs.PutMany(ctx, rows))
	list := func(keys sdk.Keys, opts sdk.ScanOptions) []string {
		var out []string
		for _, r := range ok(logs.Scan(ctx, keys, opts).All()) {
			out = append(out, fmt.Sprintf("%s|%s|%d", r.Key.UserID, r.Key.SystemID, r.Key.Period))
		}
		return out
	}
	return logs, list
}

func TestFilterValueComparisons(t *testing.T) {
	defer catch(t)
	_, list := userLogs(t)
	hits := sdk.AccessLogsByUserColumns.Hits
	if got := list(nil, sdk.ScanOptions{Filter: hits.Ge(22)}); !reflect.DeepEqual(got, []string{"d|s2|201501", "d|s2|201502", "d|s2|201503"}) {
		t.Errorf("hits >= 22: %v", got)
	}
	if got := list(nil, sdk.ScanOptions{Filter: sdk.AllOf(hits.Gt(3), hits.Le(5))}); !reflect.DeepEqual(got, []string{"a|s2|201501", "a|s2|201502"}) {
		t.Errorf("3 < hits <= 5: %v", got)
	}
	if got := list(nil, sdk.ScanOptions{Filter: sdk.AnyOf(hits.Eq(1), hits.Eq(24))}); !reflect.DeepEqual(got, []string{"a|s1|201501", "d|s2|201503"}) {
		t.Errorf("hits = 1 or 24: %v", got)
	}
	if got := list(nil, sdk.ScanOptions{Filter: sdk.AllOf(hits.Ne(1), hits.Lt(3))}); !reflect.DeepEqual(got, []string{"a|s1|201502"}) {
		t.Errorf("hits != 1 and < 3: %v", got)
	}
}

func TestFilterPrefixPageKeyOnlyColumns(t *testing.T) {
	defer catch(t)
	logs, list := userLogs(t)
	ctx, _ := connect(t)
	if got := list(nil, sdk.ScanOptions{Filter: sdk.AccessLogsByUserKeys().UserID("c").SystemID("s2").PrefixFilter()}); len(got) != 3 || !strings.HasPrefix(got[0], "c|s2|") {
		t.Errorf("prefix c|s2: %v", got)
	}
	regions := len(ok(logs.RegionStarts(ctx)))
	if got := list(nil, sdk.ScanOptions{Filter: sdk.PageFilter(2)}); len(got) < 2 || len(got) > 2*regions {
		t.Errorf("page 2 over %d region(s): %v", regions, got)
	}
	rows := ok(logs.Scan(ctx, nil, sdk.ScanOptions{Filter: sdk.KeyOnlyFilter(), Limit: 2}).All())
	if len(rows) != 2 || rows[0].Key.UserID != "a" || len(rows[0].Cells) != 2 || len(rows[0].Cells[0].Value) != 0 || rows[0].Values.Hits != nil {
		t.Errorf("key only: %+v", rows)
	}
	rows = ok(logs.Scan(ctx, nil, sdk.ScanOptions{Filter: sdk.FirstKeyOnlyFilter(), Limit: 1}).All())
	if len(rows) != 1 || len(rows[0].Cells) != 1 || rows[0].Values.Hits == nil || rows[0].Values.LastSeen != nil {
		t.Errorf("first key only: %+v", rows)
	}
	rows = ok(logs.Scan(ctx, nil, sdk.ScanOptions{Filter: sdk.ColumnPrefixFilter([]byte("l")), Limit: 1}).All())
	if len(rows) != 1 || rows[0].Values.Hits != nil || rows[0].Values.LastSeen == nil {
		t.Errorf("column prefix l: %+v", rows)
	}
	rows = ok(logs.Scan(ctx, nil, sdk.ScanOptions{Columns: []sdk.Selector{sdk.AccessLogsByUserColumns.Hits}, Limit: 1}).All())
	if len(rows) != 1 || rows[0].Values.Hits == nil || rows[0].Values.LastSeen != nil {
		t.Errorf("columns hits: %+v", rows)
	}
	// Caching and batch size change the round trips, not the rows.
	if got := list(nil, sdk.ScanOptions{Caching: 5, BatchSize: 10}); len(got) != 24 {
		t.Errorf("caching 5: %d rows", len(got))
	}
	if _, err := logs.Scan(ctx, nil, sdk.ScanOptions{Filter: sdk.AllOf()}).All(); !errors.Is(err, sdk.ErrFilter) {
		t.Errorf("empty AllOf: %v", err)
	}
}

func TestFilterTimestamps(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	k := logKey(5)
	for _, ts := range []int64{100, 200, 300} {
		must(t, logs.Put(ctx, k, sdk.AccessLogsValues{LastSeen: sdk.Ptr(ts * 10)}, sdk.WithTimestamp(ts)))
	}
	rows := ok(logs.Scan(ctx, nil, sdk.ScanOptions{Versions: 3, Filter: sdk.TimestampsFilter(100, 300)}).All())
	if len(rows) != 1 || len(rows[0].Versions.LastSeen) != 2 || rows[0].Versions.LastSeen[0].Value != 3000 || rows[0].Versions.LastSeen[1].Value != 1000 {
		t.Errorf("timestamps 100, 300: %+v", rows)
	}
}

func TestNamedRangeScans(t *testing.T) {
	defer catch(t)
	_, list := userLogs(t)
	keys := sdk.AccessLogsByUserKeys
	if got := list(keys().UserID("b").SystemID("s2").PeriodBetween(201502, 201503), sdk.ScanOptions{}); !reflect.DeepEqual(got, []string{"b|s2|201502", "b|s2|201503"}) {
		t.Errorf("b|s2|201502..201503: %v", got)
	}
	if got := list(keys().UserID("a").SystemID("s2").PeriodBetween(201501, 201503), sdk.ScanOptions{Reversed: true, Limit: 2}); !reflect.DeepEqual(got, []string{"a|s2|201503", "a|s2|201502"}) {
		t.Errorf("reversed a|s2|201501..201503 limit 2: %v", got)
	}
	// Text followed by more components in a separated key: "b0|" sorts before "b|", so a
	// range there is refused (bounds_test.go).
	if _, err := keys().UserIDBetween("b", "c").Range(); !errors.Is(err, sdk.ErrKeyEncoding) {
		t.Errorf("users b..c: %v", err)
	}
	// Bound out of order: the error names the missing component.
	_, err := keys().PeriodBetween(201501, 201502).Range()
	var ke *sdk.KeyError
	if !errors.As(err, &ke) || ke.Component != "user_id" {
		t.Errorf("period without user_id: %v", err)
	}
}

// The access_logs key hashes user_id: a bound on what follows needs it, and says why.
func TestHashedBoundsNameTheMissingComponent(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	for p := int32(201501); p <= 201512; p++ {
		must(t, logs.Put(ctx, sdk.AccessLogsKey{UserID: "dave", SystemID: "jericho", Period: p}, sdk.AccessLogsValues{Hits: sdk.Ptr(int64(p))}))
		must(t, logs.Put(ctx, sdk.AccessLogsKey{UserID: "eve", SystemID: "jericho", Period: p}, sdk.AccessLogsValues{Hits: sdk.Ptr(int64(p))}))
	}
	rows := ok(logs.Scan(ctx, sdk.AccessLogsKeys().UserID("dave").SystemID("jericho").PeriodBetween(201503, 201505), sdk.ScanOptions{}).All())
	var periods []int32
	for _, r := range rows {
		periods = append(periods, r.Key.Period)
	}
	if !reflect.DeepEqual(periods, []int32{201503, 201504, 201505}) {
		t.Errorf("dave 201503..201505: %v", periods)
	}
	_, err := logs.Scan(ctx, sdk.AccessLogsKeys().SystemID("jericho"), sdk.ScanOptions{}).All()
	var ke *sdk.KeyError
	if !errors.As(err, &ke) || ke.Component != "user_id" || !strings.Contains(err.Error(), "hash prefix") {
		t.Errorf("system without user: %v", err)
	}
	if _, err := sdk.AccessLogsKeys().UserIDBetween("a", "b").Range(); !errors.Is(err, sdk.ErrKeyEncoding) {
		t.Errorf("range on the hashed user_id: %v", err)
	}
}
