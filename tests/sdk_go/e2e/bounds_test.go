package e2e

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	sdk "redbase.example/sdks/go"
)

// A text range on the last component of a separated key includes the high value itself and
// not the longer values starting with it ("k0" is above "k"), and a whole key given by value
// is that row alone.
func TestTextRangeOnTheLastComponentStopsAtTheHighValue(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsByPeriodTable(c)) // period|system_id|user_id
	for _, u := range []string{"i", "j", "k", "k0", "k_", "ka", "l"} {
		must(t, logs.Put(ctx, sdk.AccessLogsByPeriodKey{Period: 201501, SystemID: "s", UserID: u}, sdk.AccessLogsByPeriodValues{Hits: sdk.Ptr(int64(1))}))
	}
	users := func(keys sdk.Keys) []string {
		var out []string
		for _, r := range ok(logs.Scan(ctx, keys, sdk.ScanOptions{}).All()) {
			out = append(out, r.Key.UserID)
		}
		return out
	}
	keys := sdk.AccessLogsByPeriodKeys
	if got := users(keys().Period(201501).SystemID("s").UserIDBetween("j", "k")); !reflect.DeepEqual(got, []string{"j", "k"}) {
		t.Errorf("user_id j..k: %v, want [j k]", got)
	}
	if got := users(keys().Period(201501).SystemID("s").UserID("k")); !reflect.DeepEqual(got, []string{"k"}) {
		t.Errorf("the whole key with user_id k: %v, want [k]", got)
	}
}

// Ranges are refused where the key's byte order is not the component's value order, with a
// KeyError naming the component: otherwise start and stop rows select the wrong rows.
func TestRangesRefusedWhereKeyOrderIsNotValueOrder(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsByUserTable(c)) // user_id|system_id|period
	for _, u := range []string{"j", "k", "k0", "l"} {
		must(t, logs.Put(ctx, sdk.AccessLogsByUserKey{UserID: u, SystemID: "s", Period: 201501}, sdk.AccessLogsByUserValues{Hits: sdk.Ptr(int64(1))}))
	}
	var order []string
	for _, r := range ok(logs.Scan(ctx, nil, sdk.ScanOptions{}).All()) {
		order = append(order, r.Key.UserID)
	}
	if !reflect.DeepEqual(order, []string{"j", "k0", "k", "l"}) {
		t.Fatalf("key order %v: 'k0|' sorts before 'k|'", order)
	}
	refused := func(what string, component string, keys sdk.Keys, why string) {
		t.Helper()
		r, err := keys.Resolve()
		var ke *sdk.KeyError
		if !errors.As(err, &ke) || ke.Component != component || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: want a KeyError on %s saying %q, got %v (range %v)", what, component, why, err, r)
		}
	}
	refused("user_id k..l", "user_id", sdk.AccessLogsByUserKeys().UserIDBetween("k", "l"), "value order")
	refused("system_id a..z", "system_id", sdk.AccessLogsByUserKeys().UserID("k").SystemIDBetween("a", "z"), "value order")
	refused("reversed domain", "domain", sdk.WebPagesKeys().DomainBetween("a.com", "b.com"), "reversed")
	refused("escaped name", "name", sdk.CountersKeys().NameBetween("a]", "a~"), "escape")
	if got := ok(logs.Scan(ctx, sdk.AccessLogsByUserKeys().UserID("k").SystemID("s").PeriodBetween(201501, 201501), sdk.ScanOptions{}).All()); len(got) != 1 {
		t.Errorf("a range on a number with a width still works: %v", got)
	}
}
