package e2e

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	rx "redbase.example/sdks/go"
)

// example is docs/sdks.md's ten-line Go example, with its prints collected.
// opts is nil in the docs; the suite passes its own (a table prefix on a shared cluster).
func example(ctx context.Context, addr string, opts *rx.Options) ([]string, error) {
	var out []string
	client, err := rx.Dial(ctx, addr, opts) // a pool: safe for concurrent use
	if err != nil {
		return nil, err
	}
	defer client.Close()
	logs := rx.NewAccessLogsTable(client)
	if err := logs.Create(ctx); err != nil { // family t, split keys '1'..'f': 16 regions
		return nil, err
	}
	key := rx.AccessLogsKey{UserID: "dave", SystemID: "jericho", Period: 201510}
	raw, _ := key.Encode() // "16108|jericho|201510": MD5("dave")[:5], the user id dropped
	out = append(out, string(raw))
	if err := logs.Put(ctx, key, rx.AccessLogsValues{LastSeen: rx.Ptr(int64(1_445_000_000_000))}); err != nil {
		return nil, err
	}
	if _, err := logs.IncrementHits(ctx, key, 3); err != nil { // atomic, 8-byte longs
		return nil, err
	}
	row, err := logs.Get(ctx, key) // RowKey, Key (decoded), Values; ErrNotFound if absent
	if err != nil {
		return nil, err
	}
	out = append(out, fmt.Sprint(row.Key.Hash, " ", row.Key.SystemID, " ", *row.Values.Hits)) // 16108 jericho 3
	rows := logs.Scan(ctx, rx.AccessLogsKeys().UserID("dave"), rx.ScanOptions{Limit: 10})     // every row of user dave
	for rows.Next() {
		out = append(out, fmt.Sprint(rows.Row().Key.Period, " ", *rows.Row().Values.LastSeen))
	}
	return out, rows.Err()
}

func TestDocsExample(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := rx.NewAccessLogsTable(c)
	if ok(logs.Exists(ctx)) {
		must(t, logs.Drop(ctx))
	}
	t.Cleanup(func() { _ = logs.Drop(context.Background()) })
	got := ok(example(ctx, target, options))
	if want := []string{"16108|jericho|201510", "16108 jericho 3", "201510 1445000000000"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the docs example printed %q, want %q", got, want)
	}
}

// TestFramedTransport: the same calls over the framed transport (HBase's `thrift2 -f`);
// redbase detects the transport per connection.
func TestFramedTransport(t *testing.T) {
	defer catch(t)
	ctx, _ := connect(t)
	c, err := rx.Dial(ctx, target, &rx.Options{Transport: rx.Framed, TablePrefix: options.TablePrefix})
	must(t, err)
	t.Cleanup(func() { c.Close() }) // after the table's drop (cleanups run last first)
	books := fresh(t, ctx, rx.NewBooksTable(c))
	key := rx.BooksKey{Isbn: "framed"}
	must(t, books.Put(ctx, key, rx.BooksValues{Title: rx.Ptr("over frames")}))
	if row := ok(books.Get(ctx, key)); *row.Values.Title != "over frames" {
		t.Errorf("read back %+v", row.Values)
	}
}
