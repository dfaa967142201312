package e2e

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	sdk "redbase.example/sdks/go"
)

// The seeds' key designs end to end: seed 003's OpenTSDB-style
// [salt][metric][Long.MAX_VALUE - ts][host] (sdks/schemas/opentsdb.toml), read newest first
// across its 8 salt buckets; seed 004's cloud-drive directory table keyed by the full (escaped)
// path (sdks/schemas/cloud_drive.toml), read a subtree at a time.

const tsdbNow = int64(1_700_000_000_000)

// tsdbAges are the seconds before tsdbNow of each cpu.load point (hosts web0..web2 in turn).
var tsdbAges = []int64{15, 31, 35, 4, 2, 9, 21, 50, 1, 12, 27, 44, 7, 3}

// tsdbPoints writes the points and returns the cpu.load timestamps newest first.
func tsdbPoints(t *testing.T, tsdb *sdk.TsdbTable) []int64 {
	ctx, _ := connect(t)
	var puts []sdk.TsdbPut
	var newest []int64
	for i, a := range tsdbAges {
		ts := tsdbNow - a*1000
		newest = append(newest, ts)
		puts = append(puts, sdk.TsdbPut{
			Key:    sdk.TsdbKey{Metric: "cpu.load", Ts: ts, Host: fmt.Sprintf("web%d", i%3)},
			Values: sdk.TsdbValues{Value: sdk.Ptr(float64(a))},
		})
	}
	for _, a := range []int64{0, 5} {
		puts = append(puts, sdk.TsdbPut{Key: sdk.TsdbKey{Metric: "mem.used", Ts: tsdbNow - a*1000, Host: "web0"}, Values: sdk.TsdbValues{Value: sdk.Ptr(-1.0)}})
	}
	puts = append(puts, sdk.TsdbPut{Key: sdk.TsdbKey{Metric: "cpu.loadx", Ts: tsdbNow, Host: "web0"}, Values: sdk.TsdbValues{Value: sdk.Ptr(-2.0)}})
	must(t, tsdb.PutMany(ctx, puts))
	sort.Slice(newest, func(i, j int) bool { return newest[i] > newest[j] })
	return newest
}

func TestTheNewestPointsOfAMetricAcrossEveryBucket(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	tsdb := fresh(t, ctx, sdk.NewTsdbTable(c))
	newest := tsdbPoints(t, tsdb)
	scan := func(keys sdk.Keys, opts sdk.ScanOptions) (ts []int64, salts map[int]bool) {
		salts = map[int]bool{}
		for _, r := range ok(tsdb.Scan(ctx, keys, opts).All()) {
			ts = append(ts, r.Key.Ts)
			salts[r.Key.Salt] = true
		}
		return ts, salts
	}
	cpu := sdk.TsdbKeys().Metric("cpu.load")
	every, salts := scan(cpu, sdk.ScanOptions{})
	if !reflect.DeepEqual(every, newest) || len(salts) < 2 {
		t.Errorf("every cpu.load point: %v over %d buckets, want %v over several", every, len(salts), newest)
	}
	three := ok(tsdb.Scan(ctx, cpu, sdk.ScanOptions{Limit: 3}).All())
	want := []int64{tsdbNow - 1000, tsdbNow - 2000, tsdbNow - 3000}
	for i, r := range three {
		if r.Key.Ts != want[i] || *r.Values.Value != float64(i+1) {
			t.Errorf("newest %d: %+v, want ts %d", i, r.Key, want[i])
		}
	}
	if len(three) != 3 {
		t.Errorf("limit 3 gave %d rows", len(three))
	}
	window, _ := scan(sdk.TsdbKeys().Metric("cpu.load").TsBetween(tsdbNow-10_000, tsdbNow), sdk.ScanOptions{})
	var inWindow []int64
	for _, ts := range newest {
		if ts >= tsdbNow-10_000 {
			inWindow = append(inWindow, ts)
		}
	}
	if !reflect.DeepEqual(window, inWindow) {
		t.Errorf("ts in (now-10s, now): %v, want %v", window, inWindow)
	}
	if oldest, _ := scan(cpu, sdk.ScanOptions{Reversed: true, Limit: 2}); !reflect.DeepEqual(oldest, []int64{tsdbNow - 50_000, tsdbNow - 44_000}) {
		t.Errorf("oldest two: %v", oldest)
	}
}

func TestBucketOrderIsAnExplicitOption(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	tsdb := fresh(t, ctx, sdk.NewTsdbTable(c))
	newest := tsdbPoints(t, tsdb)
	cpu := sdk.TsdbKeys().Metric("cpu.load")
	rows := ok(tsdb.Scan(ctx, cpu, sdk.ScanOptions{BucketOrder: true}).All())
	var all []int64
	for i, r := range rows {
		all = append(all, r.Key.Ts)
		if i > 0 {
			prev := rows[i-1].Key
			if prev.Salt > r.Key.Salt || (prev.Salt == r.Key.Salt && prev.Ts < r.Key.Ts) {
				t.Errorf("row %d %+v after %+v: not bucket by bucket, newest first in each", i, r.Key, prev)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] > all[j] })
	if !reflect.DeepEqual(all, newest) {
		t.Errorf("bucket order lost or added points: %v", all)
	}
	one := ok(tsdb.Scan(ctx, cpu, sdk.ScanOptions{BucketOrder: true, Limit: 1}).All())
	if len(one) != 1 || one[0].Key.Salt != rows[0].Key.Salt {
		t.Errorf("bucket order, limit 1: %+v", one)
	}
}

func TestAMetricPrefixAcrossEveryBucket(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	tsdb := fresh(t, ctx, sdk.NewTsdbTable(c))
	newest := tsdbPoints(t, tsdb)
	cpu := sdk.TsdbKeys().MetricStartsWith("cpu.")
	var got []string
	for _, r := range ok(tsdb.Scan(ctx, cpu, sdk.ScanOptions{}).All()) {
		got = append(got, fmt.Sprintf("%s@%d", r.Key.Metric, r.Key.Ts))
	}
	var want []string
	for _, ts := range newest {
		want = append(want, fmt.Sprintf("cpu.load@%d", ts))
	}
	want = append(want, fmt.Sprintf("cpu.loadx@%d", tsdbNow))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("metrics starting with cpu.: %v, want %v", got, want)
	}
	filtered := ok(tsdb.Scan(ctx, sdk.KeyRange{}, sdk.ScanOptions{Filter: cpu.PrefixFilter()}).All())
	if len(filtered) != len(want) {
		t.Errorf("the same rows as a PrefixFilter: %d rows, want %d", len(filtered), len(want))
	}
}

// drivePaths are seed 004's directories; `|` is the key's separator and `\` its escape, so
// both are escaped in the keys, and /dir10 shares the text /dir1 without being under it.
var drivePaths = []string{"/", "/dir1", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3", "/dir1/a|b", "/dir10", "/dir1|odd", `/dir1\x`, "/dir2"}

// under is the paths starting with prefix, in key order (escaped bytes).
func under(t *testing.T, prefix string) []string {
	var out []string
	for _, p := range drivePaths {
		if strings.HasPrefix(p, prefix) {
			out = append(out, p)
		}
	}
	key := func(p string) []byte { return ok(sdk.DriveDirectoriesKey{Path: p}.Encode()) }
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(key(out[i]), key(out[j])) < 0 })
	return out
}

func TestASubtreeOfEscapedPaths(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	dirs := fresh(t, ctx, sdk.NewDriveDirectoriesTable(c))
	var puts []sdk.DriveDirectoriesPut
	for i, p := range drivePaths {
		puts = append(puts, sdk.DriveDirectoriesPut{
			Key:    sdk.DriveDirectoriesKey{Path: p},
			Values: sdk.DriveDirectoriesValues{Creator: sdk.Ptr("tom"), Children: map[string]string{fmt.Sprintf("d_%d", i): "1"}},
		})
	}
	must(t, dirs.PutMany(ctx, puts))
	paths := func(keys sdk.Keys, opts sdk.ScanOptions) []string {
		var out []string
		for _, r := range ok(dirs.Scan(ctx, keys, opts).All()) {
			out = append(out, r.Key.Path)
		}
		return out
	}
	sub := paths(sdk.DriveDirectoriesKeys().PathStartsWith("/dir1/"), sdk.ScanOptions{})
	if want := []string{"/dir1/a|b", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3"}; !reflect.DeepEqual(sub, want) || !reflect.DeepEqual(under(t, "/dir1/"), want) {
		t.Errorf("subtree /dir1/: %q, want %q", sub, want)
	}
	for _, prefix := range []string{"/dir1", "/dir1|", `/dir1\`, "/dir1/dir2", "/", "", "/nothing"} {
		if got, want := paths(sdk.DriveDirectoriesKeys().PathStartsWith(prefix), sdk.ScanOptions{}), under(t, prefix); !reflect.DeepEqual(got, want) {
			t.Errorf("starts with %q: %q, want %q", prefix, got, want)
		}
	}
	last := paths(sdk.DriveDirectoriesKeys().PathStartsWith("/dir1/"), sdk.ScanOptions{Reversed: true, Limit: 2})
	if want := []string{"/dir1/dir3", "/dir1/dir2/dir4"}; !reflect.DeepEqual(last, want) {
		t.Errorf("reversed, limit 2: %q, want %q", last, want)
	}
	filter := sdk.DriveDirectoriesKeys().PathStartsWith("/dir1/").PrefixFilter()
	if got := paths(sdk.KeyRange{}, sdk.ScanOptions{Filter: filter}); !reflect.DeepEqual(got, sub) {
		t.Errorf("the subtree as a PrefixFilter: %q, want %q", got, sub)
	}
	odd := ok(dirs.Scan(ctx, sdk.DriveDirectoriesKeys().PathStartsWith("/dir1|"), sdk.ScanOptions{}).All())
	if len(odd) != 1 || odd[0].Key.Path != "/dir1|odd" || *odd[0].Values.Creator != "tom" {
		t.Errorf("starts with /dir1|: %+v", odd)
	}
}
