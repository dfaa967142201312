package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/hbase2"
	"redbase.example/sdks/go/redbase"
)

func TestTablesAreCreatedWithTheirSplitKeys(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	want := [][]byte{{}}
	for _, ch := range "123456789abcdef" {
		want = append(want, []byte{byte(ch)})
	}
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	if got := ok(logs.RegionStarts(ctx)); !reflect.DeepEqual(got, want) {
		t.Errorf("access-logs regions %q, want SPLITS => ['1'..'f']", got)
	}
	events := fresh(t, ctx, sdk.NewEventsTable(c))
	if got := ok(events.RegionStarts(ctx)); !reflect.DeepEqual(got, [][]byte{{}, []byte("b"), []byte("c"), []byte("d")}) {
		t.Errorf("events regions %q, want one per salt character", got)
	}
	devices := fresh(t, ctx, sdk.NewDeviceEventsTable(c))
	want = [][]byte{{}}
	for b := 1; b < 16; b++ {
		want = append(want, []byte{byte(b)})
	}
	if got := ok(devices.RegionStarts(ctx)); !reflect.DeepEqual(got, want) {
		t.Errorf("device-events regions %x, want one per salt byte", got)
	}
	files := fresh(t, ctx, sdk.NewDriveFilesTable(c))
	if got := ok(files.RegionStarts(ctx)); !reflect.DeepEqual(got, [][]byte{{}, {0x40}, {0x80}, {0xc0}}) {
		t.Errorf("drive-files regions %x, want the explicit split keys", got)
	}
	pages := fresh(t, ctx, sdk.NewWebPagesTable(c))
	if !ok(pages.Exists(ctx)) {
		t.Error("web-pages (namespace crawl) does not exist after Create")
	}
}

func TestHashedKeysLandInTheSeedRegions(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	logs := fresh(t, ctx, sdk.NewAccessLogsTable(c))
	starts := ok(logs.RegionStarts(ctx))
	for user, region := range map[string]int{"dave": 1, "elton": 13, "fred": 5} {
		key := sdk.AccessLogsKey{UserID: user, SystemID: "jericho", Period: 201510}
		must(t, logs.Put(ctx, key, sdk.AccessLogsValues{LastSeen: sdk.Ptr(int64(1_445_000_000_000)), Hits: sdk.Ptr(int64(7))}))
		raw := ok(key.Encode())
		if got := redbase.RegionIndex(starts[1:], raw); got != region {
			t.Errorf("%s in region %d, want %d", user, got, region)
		}
		row := ok(logs.Get(ctx, key))
		if *row.Values.Hits != 7 || *row.Values.LastSeen != 1_445_000_000_000 {
			t.Errorf("%s values %+v", user, row.Values)
		}
		if row.Key.Hash != string(raw[:5]) || row.Key.SystemID != "jericho" || row.Key.Period != 201510 {
			t.Errorf("%s key parts %+v", user, row.Key)
		}
	}
}

func TestPutGetDeleteTypedValues(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	books := fresh(t, ctx, sdk.NewBooksTable(c))
	key := sdk.BooksKey{Isbn: "978-0-13-468599-1"}
	file := make([]byte, 256)
	for i := range file {
		file[i] = byte(i)
	}
	values := sdk.BooksValues{
		Title:   sdk.Ptr("HBase 实战"),
		Author:  sdk.Ptr("Dimiduk"),
		Date:    sdk.Ptr(int64(1_356_998_400)),
		Cover:   []byte("\x89PNG\r\n\x1a\n\x00\xff"),
		File:    file,
		Pages:   sdk.Ptr(int32(-1)),
		Rating:  sdk.Ptr(float32(4.5)),
		Price:   sdk.Ptr(39.99),
		InPrint: sdk.Ptr(true),
		Tags:    sdk.JSON(`{"topics": ["hbase", "nosql"], "level": 2, "ok": null}`),
		Added:   sdk.Ptr(int64(-5)),
	}
	must(t, books.Put(ctx, key, values))
	row := ok(books.Get(ctx, key))
	want := values
	want.Tags = sdk.JSON(`{"level":2,"ok":null,"topics":["hbase","nosql"]}`)
	if !reflect.DeepEqual(row.Values, want) {
		t.Errorf("read back %+v\nwant        %+v", row.Values, want)
	}
	if row.Key.Isbn != key.Isbn || !bytes.Equal(row.RowKey, ok(key.Encode())) {
		t.Errorf("key %+v %q", row.Key, row.RowKey)
	}
	must(t, books.Put(ctx, key, sdk.BooksValues{InPrint: sdk.Ptr(false)}))
	row = ok(books.Get(ctx, key))
	if *row.Values.InPrint || *row.Values.Title != "HBase 实战" {
		t.Errorf("after a partial put: %+v", row.Values)
	}
	must(t, books.Delete(ctx, key))
	if _, err := books.Get(ctx, key); !errors.Is(err, sdk.ErrNotFound) {
		t.Errorf("get after delete: %v, want ErrNotFound", err)
	}
}

func TestCheckAndPut(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	books := fresh(t, ctx, sdk.NewBooksTable(c))
	key := sdk.BooksKey{Isbn: "b1"}
	title := sdk.BooksColumns.Title
	steps := []struct {
		cond  sdk.Condition
		title string
		want  bool
	}{
		{title.IsAbsent(), "first", true},
		{title.IsAbsent(), "again", false},
		{title.Is("nope"), "x", false},
		{title.Is("first"), "second", true},
	}
	for i, s := range steps {
		got := ok(books.CheckAndPut(ctx, key, s.cond, sdk.BooksValues{Title: sdk.Ptr(s.title), Pages: sdk.Ptr(int32(i))}))
		if got != s.want {
			t.Errorf("step %d: CheckAndPut = %v, want %v", i, got, s.want)
		}
	}
	row := ok(books.Get(ctx, key))
	if *row.Values.Title != "second" || *row.Values.Pages != 3 {
		t.Errorf("after check-and-put: %+v", row.Values)
	}
}

func TestCountersAreExactUnderConcurrency(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	counters := fresh(t, ctx, sdk.NewCountersTable(c))
	key := sdk.CountersKey{Name: "rk1"}
	const workers, per = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if _, err := counters.IncrementSlots(ctx, key, 1, 1); err != nil {
					errs <- err
					return
				}
				if _, err := counters.IncrementSlots(ctx, key, 2, 100); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	row := ok(counters.Get(ctx, key))
	if want := map[int32]int64{1: workers * per, 2: workers * per * 100}; !reflect.DeepEqual(row.Values.Slots, want) {
		t.Errorf("slots %v, want %v", row.Values.Slots, want)
	}
	if n := ok(counters.IncrementSlots(ctx, key, 1, 0)); n != workers*per {
		t.Errorf("increment by 0 returned %d", n)
	}
}

func TestSocialUsagePeriodCounters(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	social := fresh(t, ctx, sdk.NewSocialUsageTable(c))
	key := sdk.SocialUsageKey{UserID: "jericho_user"}
	must(t, social.Put(ctx, key, sdk.SocialUsageValues{FbID: sdk.Ptr("fb123"), TwID: sdk.Ptr("@tw")}))
	for period, n := range map[int32]int{201510: 3, 201511: 5} {
		for i := 0; i < n; i++ {
			ok(social.IncrementFbUsage(ctx, key, period, 1))
			ok(social.IncrementFbTotal(ctx, key, 1))
		}
	}
	ok(social.IncrementTwUsage(ctx, key, 201510, 9))
	v := ok(social.Get(ctx, key)).Values
	if *v.FbID != "fb123" || *v.TwID != "@tw" || *v.FbTotal != 8 || v.TwTotal != nil {
		t.Errorf("values %+v", v)
	}
	if !reflect.DeepEqual(v.FbUsage, map[int32]int64{201510: 3, 201511: 5}) || !reflect.DeepEqual(v.TwUsage, map[int32]int64{201510: 9}) {
		t.Errorf("usage fb %v tw %v", v.FbUsage, v.TwUsage)
	}
}

func TestCloudDriveDirectoriesAndFiles(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	dirs := fresh(t, ctx, sdk.NewDriveDirectoriesTable(c))
	files := fresh(t, ctx, sdk.NewDriveFilesTable(c))
	fid := []byte{0x9f, 0x1c, 0x2a, 0x7e, 0x00, 0xff, 0x4b, 0x1d, 0x8a, 0x6b, 0x0c, 0x3d, 0x4e, 0x5f, 0x60, 0x71}
	must(t, files.Put(ctx, sdk.DriveFilesKey{FileID: fid}, sdk.DriveFilesValues{
		Content: []byte("%PDF"), Creator: sdk.Ptr("alice"), Size: sdk.Ptr(int64(4)), FileType: sdk.Ptr("pdf"),
	}))
	children := map[string]string{"d_photos": "", "f_cv.pdf": fmt.Sprintf("%x", fid)}
	must(t, dirs.Put(ctx, sdk.DriveDirectoriesKey{Path: "/home/alice"}, sdk.DriveDirectoriesValues{Children: children, Creator: sdk.Ptr("alice")}))
	must(t, dirs.Put(ctx, sdk.DriveDirectoriesKey{Path: "/home/alice|odd"}, sdk.DriveDirectoriesValues{Creator: sdk.Ptr("alice")}))
	row := ok(dirs.Get(ctx, sdk.DriveDirectoriesKey{Path: "/home/alice"}))
	if !reflect.DeepEqual(row.Values.Children, children) {
		t.Errorf("children %v", row.Values.Children)
	}
	f := ok(files.Get(ctx, sdk.DriveFilesKey{FileID: fid}))
	if *f.Values.Size != 4 || !bytes.Equal(f.Key.FileID, fid) {
		t.Errorf("file %+v", f)
	}
	var paths []string
	for _, r := range ok(dirs.Scan(ctx, sdk.KeyRange{}, sdk.ScanOptions{}).All()) {
		paths = append(paths, r.Key.Path)
	}
	if !reflect.DeepEqual(paths, []string{"/home/alice", "/home/alice|odd"}) {
		t.Errorf("paths %q", paths)
	}
	_, err := sdk.DriveFilesKey{FileID: []byte("short")}.Encode()
	var ke *sdk.KeyError
	if !errors.As(err, &ke) || !errors.Is(err, sdk.ErrKeyEncoding) || ke.Component != "file_id" {
		t.Errorf("short file id: %v, want a KeyError for file_id", err)
	}
}

// A zero-value key (the fields a caller forgot) is refused, not encoded as "d41d8||201510".
func TestZeroValueKeyComponentsAreRefused(t *testing.T) {
	_, err := sdk.AccessLogsKey{Period: 201510}.Encode()
	var ke *sdk.KeyError
	if !errors.As(err, &ke) || !errors.Is(err, sdk.ErrKeyEncoding) || ke.Component != "user_id" {
		t.Errorf("zero-value key: %v, want a KeyError for user_id", err)
	}
	if raw, err := (sdk.WebPagesKey{Domain: "www.example.com"}).Encode(); err != nil || string(raw) != "com.example.www|" {
		t.Errorf("allowed empty path: %q, %v", raw, err)
	}
}

func TestErrorsAreTyped(t *testing.T) {
	defer catch(t)
	ctx, c := connect(t)
	missing := sdk.NewMetricsTable(c)
	if ok(missing.Exists(ctx)) {
		must(t, missing.Drop(ctx))
	}
	_, err := missing.Get(ctx, sdk.MetricsKey{Metric: "cpu", Host: "h", Ts: 1})
	var se *sdk.ServerError
	var io *hbase2.TIOError
	if !errors.Is(err, sdk.ErrServer) || !errors.As(err, &se) || !errors.As(err, &io) || se.Op != "get" {
		t.Errorf("get on a missing table: %v (%T), want a ServerError wrapping TIOError", err, err)
	}
	books := fresh(t, ctx, sdk.NewBooksTable(c))
	err = books.Put(ctx, sdk.BooksKey{Isbn: "x"}, sdk.BooksValues{Tags: sdk.JSON(`{"a":`)})
	var ve *sdk.ValueError
	if !errors.As(err, &ve) || !errors.Is(err, sdk.ErrValueEncoding) || ve.Field != "tags" {
		t.Errorf("bad JSON: %v, want a ValueError for tags", err)
	}
	_, err = books.Get(ctx, sdk.BooksKey{Isbn: "bad\xff"})
	if !errors.Is(err, sdk.ErrKeyEncoding) {
		t.Errorf("invalid UTF-8 key: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := books.Get(cancelled, sdk.BooksKey{Isbn: "x"}); !errors.Is(err, context.Canceled) || !errors.Is(err, sdk.ErrServer) {
		t.Errorf("cancelled context: %v", err)
	}
	if ok(books.Exists(ctx)) != true {
		t.Error("the client is unusable after a cancelled call")
	}
}
