package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"testing"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"
)

type userRow struct {
	user, system string
	period       int32
}

func TestPrefixScansInKeyOrder(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsByUserTable(c))
	var rows []userRow
	for _, u := range []string{"dave", "elton", "fred", "dav"} {
		for _, s := range []string{"jericho", "anvil", "zeus"} {
			for _, p := range []int32{201512, 201510, 201511} {
				rows = append(rows, userRow{u, s, p})
			}
		}
	}
	for i, r := range rows {
		must(t, logs.Put(ctx, sdk.AccessLogsByUserKey{UserID: r.user, SystemID: r.system, Period: r.period},
			sdk.AccessLogsByUserValues{Hits: sdk.Ptr(int64(i))}))
	}
	scan := func(k sdk.AccessLogsByUserKeyBounds) []userRow {
		var out []userRow
		for _, r := range ok(logs.Scan(ctx, k, sdk.ScanOptions{}).All()) {
			out = append(out, userRow{r.Key.UserID, r.Key.SystemID, r.Key.Period})
		}
		return out
	}
	var want []userRow
	for _, r := range rows {
		if r.user == "dave" {
			want = append(want, r)
		}
	}
	sort.Slice(want, func(i, j int) bool {
		a, b := want[i], want[j]
		return a.system < b.system || (a.system == b.system && a.period < b.period)
	})
	if got := scan(sdk.AccessLogsByUserKeys().UserID("dave")); !reflect.DeepEqual(got, want) {
		t.Errorf("prefix dave: %v\nwant %v (a prefix is a whole component: no 'dav')", got, want)
	}
	got := scan(sdk.AccessLogsByUserKeys().UserID("elton").SystemID("zeus"))
	if !reflect.DeepEqual(got, []userRow{{"elton", "zeus", 201510}, {"elton", "zeus", 201511}, {"elton", "zeus", 201512}}) {
		t.Errorf("prefix elton|zeus: %v", got)
	}
	var keys [][]byte
	for _, r := range ok(logs.Scan(ctx, sdk.KeyRange{}, sdk.ScanOptions{Caching: 7}).All()) {
		keys = append(keys, r.RowKey)
	}
	if len(keys) != len(rows) || !sort.SliceIsSorted(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 }) {
		t.Errorf("full scan: %d rows, sorted %v", len(keys), keys)
	}
}

func TestRangeScansReversedWithLimit(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsByUserTable(c))
	for _, u := range []string{"a", "b", "c", "d", "e"} {
		for _, p := range []int32{201510, 201511} {
			must(t, logs.Put(ctx, sdk.AccessLogsByUserKey{UserID: u, SystemID: "s", Period: p}, sdk.AccessLogsByUserValues{Hits: sdk.Ptr(int64(1))}))
		}
	}
	prefix := func(u string) sdk.KeyRange { return ok(sdk.AccessLogsByUserKeys().UserID(u).Range()) }
	rng := ok(sdk.Between(prefix("b"), prefix("d")))
	list := func(keys sdk.KeyRange, opts sdk.ScanOptions) []string {
		var out []string
		for _, r := range ok(logs.Scan(ctx, keys, opts).All()) {
			out = append(out, fmt.Sprintf("%s/%d", r.Key.UserID, r.Key.Period))
		}
		return out
	}
	fwd := list(rng, sdk.ScanOptions{})
	if want := []string{"b/201510", "b/201511", "c/201510", "c/201511"}; !reflect.DeepEqual(fwd, want) {
		t.Errorf("range b..d: %v, want %v", fwd, want)
	}
	back := list(rng, sdk.ScanOptions{Reversed: true})
	if want := []string{"c/201511", "c/201510", "b/201511", "b/201510"}; !reflect.DeepEqual(back, want) {
		t.Errorf("reversed: %v, want %v", back, want)
	}
	if got := list(rng, sdk.ScanOptions{Reversed: true, Limit: 3}); !reflect.DeepEqual(got, back[:3]) {
		t.Errorf("reversed, limit 3: %v", got)
	}
	if got := list(sdk.KeyRange{}, sdk.ScanOptions{Limit: 2}); !reflect.DeepEqual(got, []string{"a/201510", "a/201511"}) {
		t.Errorf("limit 2: %v", got)
	}
	if got := list(prefix("e"), sdk.ScanOptions{Reversed: true}); !reflect.DeepEqual(got, []string{"e/201511", "e/201510"}) {
		t.Errorf("prefix e reversed: %v", got)
	}
	if got := list(prefix("zz"), sdk.ScanOptions{}); len(got) != 0 {
		t.Errorf("prefix zz: %v", got)
	}
}

func TestSaltedScansMergeBucketsByTheKeyWithoutTheSalt(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	events := fresh(t, ctx, sdk.NewEventsTable(c))
	var names []string
	for n := 1; n <= 40; n++ {
		name := fmt.Sprintf("foo%04d", n)
		names = append(names, name)
		must(t, events.Put(ctx, sdk.EventsKey{Event: name}, sdk.EventsValues{
			Payload: sdk.JSON(fmt.Sprintf(`{"n": %d}`, n-1)), At: sdk.Ptr(int64(n - 1)),
		}))
	}
	rows := ok(events.Scan(ctx, sdk.KeyRange{}, sdk.ScanOptions{Caching: 3}).All())
	var keys [][]byte
	salts := map[int]bool{}
	starts := ok(events.RegionStarts(ctx))
	for _, r := range rows {
		keys = append(keys, r.RowKey)
		salts[r.Key.Salt] = true
		if r.RowKey[0] != "abcd"[r.Key.Salt] {
			t.Errorf("%q has salt %d", r.RowKey, r.Key.Salt)
		}
		if region := redbase.RegionIndex(starts[1:], r.RowKey); region != r.Key.Salt {
			t.Errorf("%q in region %d, salt %d", r.RowKey, region, r.Key.Salt)
		}
	}
	eventsOf := func(keys sdk.Keys, opts sdk.ScanOptions) []string {
		var out []string
		for _, r := range ok(events.Scan(ctx, keys, opts).All()) {
			out = append(out, r.Key.Event)
		}
		return out
	}
	if got := eventsOf(sdk.KeyRange{}, sdk.ScanOptions{Caching: 3}); !reflect.DeepEqual(got, names) || len(salts) != 4 {
		t.Errorf("merged scan over 4 buckets not in the unsalted order: %v", got)
	}
	backward := make([]string, len(names))
	for i, n := range names {
		backward[len(names)-1-i] = n
	}
	if got := eventsOf(sdk.KeyRange{}, sdk.ScanOptions{Reversed: true}); !reflect.DeepEqual(got, backward) {
		t.Errorf("reversed: %v", got)
	}
	if got := eventsOf(sdk.KeyRange{}, sdk.ScanOptions{Limit: 5}); !reflect.DeepEqual(got, names[:5]) {
		t.Errorf("limit 5: %v", got)
	}
	if got := eventsOf(sdk.KeyRange{}, sdk.ScanOptions{Reversed: true, Limit: 3}); !reflect.DeepEqual(got, backward[:3]) {
		t.Errorf("reversed limit 3: %v", got)
	}
	if got := eventsOf(sdk.EventsKeys().EventBetween("foo0007", "foo0012"), sdk.ScanOptions{}); !reflect.DeepEqual(got, names[6:12]) {
		t.Errorf("range foo0007..foo0012: %v", got)
	}
	var byBucket [][]byte
	for _, r := range ok(events.Scan(ctx, sdk.KeyRange{}, sdk.ScanOptions{BucketOrder: true}).All()) {
		byBucket = append(byBucket, r.RowKey)
	}
	sorted := append([][]byte(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i], sorted[j]) < 0 })
	if !reflect.DeepEqual(byBucket, sorted) {
		t.Errorf("bucket order is not bucket a's rows, then b's, ...: %q", byBucket)
	}
	one := ok(events.Scan(ctx, sdk.EventsKeys().Event("foo0003"), sdk.ScanOptions{}).All())
	if len(one) != 1 || one[0].Key.Event != "foo0003" || string(one[0].Values.Payload) != `{"n":2}` {
		t.Errorf("prefix foo0003: %+v", one)
	}
}

func TestBinarySaltedKeysScanByDevice(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	dev := fresh(t, ctx, sdk.NewDeviceEventsTable(c))
	seqs := []int64{3, -1, 1 << 40, 0}
	for _, d := range []string{"d1", "d2", "d1x"} {
		for _, s := range seqs {
			k := sdk.DeviceEventsKey{Device: d, Seq: s}
			must(t, dev.Put(ctx, k, sdk.DeviceEventsValues{Kind: sdk.Ptr(fmt.Sprintf("%s:%d", d, s))}))
			ok(dev.IncrementCount(ctx, k, ((s%7)+7)%7))
		}
	}
	rows := ok(dev.Scan(ctx, sdk.DeviceEventsKeys().Device("d1"), sdk.ScanOptions{}).All())
	var got []int64
	for _, r := range rows {
		got = append(got, r.Key.Seq)
		if r.Key.Device != "d1" || *r.Values.Count != ((r.Key.Seq%7)+7)%7 {
			t.Errorf("row %+v", r)
		}
	}
	if !reflect.DeepEqual(got, []int64{-1, 0, 3, 1 << 40}) {
		t.Errorf("d1 seqs %v, want in seq order across the 16 buckets", got)
	}
}

func TestReverseTimestampsReadNewestFirst(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	metrics := fresh(t, ctx, sdk.NewMetricsTable(c))
	for _, ts := range []int64{1000, 3000, 2000} {
		must(t, metrics.Put(ctx, sdk.MetricsKey{Metric: "cpu", Host: "host|1", Ts: ts}, sdk.MetricsValues{Value: sdk.Ptr(float64(ts) / 10), Unit: sdk.Ptr("%")}))
	}
	must(t, metrics.Put(ctx, sdk.MetricsKey{Metric: "cpu", Host: "host|2", Ts: 5000}, sdk.MetricsValues{Value: sdk.Ptr(1.0)}))
	var got []int64
	for _, r := range ok(metrics.Scan(ctx, sdk.MetricsKeys().Metric("cpu").Host("host|1"), sdk.ScanOptions{}).All()) {
		got = append(got, r.Key.Ts)
	}
	if !reflect.DeepEqual(got, []int64{3000, 2000, 1000}) {
		t.Errorf("metrics %v, want newest first", got)
	}
	sensors := fresh(t, ctx, sdk.NewSensorReadingsTable(c))
	for _, ts := range []int64{10, 30, 20} {
		must(t, sensors.Put(ctx, sdk.SensorReadingsKey{Sensor: -7, Ts: ts}, sdk.SensorReadingsValues{Celsius: sdk.Ptr(float32(ts) + 0.5), Ok: sdk.Ptr(ts != 20)}))
	}
	rows := ok(sensors.Scan(ctx, sdk.SensorReadingsKeys().Sensor(-7), sdk.ScanOptions{Limit: 2}).All())
	if len(rows) != 2 || rows[0].Key.Ts != 30 || *rows[0].Values.Celsius != 30.5 || !*rows[0].Values.Ok ||
		rows[1].Key.Ts != 20 || *rows[1].Values.Ok {
		t.Errorf("sensor rows %+v", rows)
	}
}

func TestDescComponentsSortHighestFirst(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	board := fresh(t, ctx, sdk.NewLeaderboardTable(c))
	for _, p := range []struct {
		name  string
		score int64
	}{{"ann", 10}, {"bob", 300}, {"cy", -5}, {"dee", 300}} {
		player, _ := json.Marshal(map[string]string{"name": p.name})
		must(t, board.Put(ctx, sdk.LeaderboardKey{Game: "chess", Score: p.score, Name: p.name}, sdk.LeaderboardValues{Player: player}))
	}
	must(t, board.Put(ctx, sdk.LeaderboardKey{Game: "go", Score: 1, Name: "zed"}, sdk.LeaderboardValues{Player: sdk.JSON("null")}))
	var got []string
	for _, r := range ok(board.Scan(ctx, sdk.LeaderboardKeys().Game("chess"), sdk.ScanOptions{}).All()) {
		got = append(got, fmt.Sprintf("%d %s", r.Key.Score, r.Key.Name))
	}
	if !reflect.DeepEqual(got, []string{"300 bob", "300 dee", "10 ann", "-5 cy"}) {
		t.Errorf("leaderboard %v", got)
	}
	zed := ok(board.Get(ctx, sdk.LeaderboardKey{Game: "go", Score: 1, Name: "zed"}))
	if string(zed.Values.Player) != "null" {
		t.Errorf("a JSON null reads back as %q", zed.Values.Player)
	}
}

func TestEveryBinaryKeyTypeRoundTrips(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	all := fresh(t, ctx, sdk.NewAllTypesTable(c))
	keys := []sdk.AllTypesKey{
		{S: "a\x00b", B: []byte{0, 0xff}, I: math.MinInt32, L: math.MaxInt64, F: float32(math.Inf(-1)), D: math.Copysign(0, -1), T: -1},
		{S: "", B: []byte{}, I: 0, L: 0, F: 1.5, D: math.NaN(), T: 1_445_000_000_000},
		{S: "日本", B: []byte("x"), I: math.MaxInt32, L: math.MinInt64, F: float32(math.NaN()), D: math.Inf(1), T: 0},
	}
	for i, k := range keys {
		must(t, all.Put(ctx, k, sdk.AllTypesValues{Note: sdk.Ptr(fmt.Sprint(i))}))
		row := ok(all.Get(ctx, k))
		// NaN reads back as the canonical NaN; every other float keeps its bits (-0.0 too).
		sameF := math.Float32bits(row.Key.F) == math.Float32bits(k.F) || (k.F != k.F && row.Key.F != row.Key.F)
		sameD := math.Float64bits(row.Key.D) == math.Float64bits(k.D) || (k.D != k.D && row.Key.D != row.Key.D)
		same := row.Key.S == k.S && bytes.Equal(row.Key.B, k.B) && row.Key.I == k.I && row.Key.L == k.L && sameF && sameD
		if !same || row.Key.T != k.T || *row.Values.Note != fmt.Sprint(i) {
			t.Errorf("key %d read back as %+v", i, row.Key)
		}
	}
	if n := len(ok(all.Scan(ctx, sdk.KeyRange{}, sdk.ScanOptions{}).All())); n != len(keys) {
		t.Errorf("%d rows", n)
	}
}
