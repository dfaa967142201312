package e2e

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"
	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/hbase2"
	"redbase.example/sdks/go/redbase"
)

// admin is a plain Thrift2 client for making drift behind the SDK's back.
func admin(t *testing.T) *hbase2.THBaseServiceClient {
	t.Helper()
	sock := thrift.NewTSocketConf(target, &thrift.TConfiguration{})
	var tr thrift.TTransport = thrift.NewTBufferedTransport(sock, 8192)
	if options.Transport == sdk.Framed {
		tr = thrift.NewTFramedTransportConf(sock, &thrift.TConfiguration{})
	}
	if err := tr.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	f := thrift.NewTBinaryProtocolFactoryConf(&thrift.TConfiguration{})
	return hbase2.NewTHBaseServiceClientFactory(tr, f)
}

func tableName(def *redbase.TableDef, prefix string) *hbase2.TTableName {
	return &hbase2.TTableName{Ns: []byte(def.Namespace), Qualifier: []byte(prefix + def.Name)}
}

func liveFamily(t *testing.T, ctx context.Context, a *hbase2.THBaseServiceClient, name *hbase2.TTableName, family string) *hbase2.TColumnFamilyDescriptor {
	t.Helper()
	d, err := a.GetTableDescriptor(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Columns {
		if string(c.Name) == family {
			return c
		}
	}
	return nil
}

// missing drops the table if it exists (and after the test) without creating it.
func missing[T table](t *testing.T, ctx context.Context, tb T) T {
	t.Helper()
	if ok, err := tb.Exists(ctx); err != nil {
		t.Fatal(err)
	} else if ok {
		must(t, tb.Drop(ctx))
	}
	t.Cleanup(func() {
		if ok, _ := tb.Exists(context.Background()); ok {
			_ = tb.Drop(context.Background())
		}
	})
	return tb
}

func TestEnsureCreatesSetsAndAddsButNeverDrops(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	a := admin(t)
	social := missing(t, ctx, sdk.NewSocialUsageTable(c))
	def := sdk.Tables["social_usage"].Def
	shown := def.Namespace + ":" + options.TablePrefix + def.Name
	changed, err := social.Ensure(ctx)
	must(t, err)
	if want := []string{shown + ": created the table with its families and split keys"}; !reflect.DeepEqual(changed, want) {
		t.Errorf("first Ensure: %q", changed)
	}
	if changed := ok(social.Ensure(ctx)); len(changed) != 0 {
		t.Errorf("second Ensure changed %q", changed)
	}
	name := tableName(def, options.TablePrefix)
	fb := liveFamily(t, ctx, a, name, "fb")
	seven, sixty := int32(7), int32(60)
	fb.MaxVersions, fb.TimeToLive, fb.Attributes = &seven, &sixty, nil
	must(t, a.ModifyColumnFamily(ctx, name, fb))
	must(t, a.DeleteColumnFamily(ctx, name, []byte("tw")))
	want := []string{
		shown + ": family fb: VERSIONS was 7, set to 1",
		shown + ": family fb: TTL was 60, set to FOREVER",
		shown + ": added family tw",
	}
	if changed := ok(social.Ensure(ctx)); !reflect.DeepEqual(changed, want) {
		t.Errorf("Ensure after drift: %q, want %q", changed, want)
	}
	if fb := liveFamily(t, ctx, a, name, "fb"); *fb.MaxVersions != 1 || *fb.TimeToLive != 1<<31-1 {
		t.Errorf("fb after Ensure: versions %d, ttl %d", *fb.MaxVersions, *fb.TimeToLive)
	}

	must(t, a.AddColumnFamily(ctx, name, &hbase2.TColumnFamilyDescriptor{Name: []byte("x")}))
	_, err = social.Ensure(ctx)
	var drift *sdk.SchemaDriftError
	if !errors.Is(err, sdk.ErrSchemaDrift) || !errors.As(err, &drift) ||
		!reflect.DeepEqual(drift.Drifts, []string{"extra family x (not in the schema)"}) {
		t.Fatalf("Ensure with an extra family: %v", err)
	}
	if liveFamily(t, ctx, a, name, "x") == nil {
		t.Error("Ensure deleted the extra family")
	}
}

func TestEnsureRefusesOtherSplitPoints(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	a := admin(t)
	events := missing(t, ctx, sdk.NewEventsTable(c))
	def := sdk.Tables["events"].Def
	desc := &hbase2.TTableDescriptor{TableName: tableName(def, options.TablePrefix),
		Columns: []*hbase2.TColumnFamilyDescriptor{{Name: []byte("e")}}}
	must(t, a.CreateTable(ctx, desc, [][]byte{[]byte("m")}))
	_, err := events.Ensure(ctx)
	var drift *sdk.SchemaDriftError
	if !errors.As(err, &drift) || !reflect.DeepEqual(drift.Drifts, []string{"split points are ['m'], the schema says ['b', 'c', 'd']"}) {
		t.Fatalf("Ensure with other split points: %v", err)
	}
}
