//! Scans with typed filters, column selection, caching and batch size against the real
//! gateway: the filter is rendered to HBase's filter language and evaluated by the server.

use redbase_examples::*;
use sdk_rust_tests::{all, connect, fresh, serial};

fn logs_with_rows(conn: &mut Connection) -> AccessLogsTable<'_> {
    let mut logs: AccessLogsTable = fresh(conn);
    let rows = [
        ("dave", "jericho", 201510, 7, 1_445_000_000_000),
        ("dave", "jericho", 201511, 2, 1_446_000_000_000),
        ("dave", "web_01", 201510, 39, 1_445_500_000_000),
        ("elton", "jericho", 201510, 5, 1_445_100_000_000),
        ("fred", "web_01", 201512, 1, 1_448_000_000_000),
    ];
    let keys: Vec<(AccessLogsKey, AccessLogsValues)> = rows
        .iter()
        .map(|(u, s, p, h, l)| {
            (
                AccessLogsKey::new(*u, *s, *p),
                AccessLogsValues {
                    hits: Some(*h),
                    last_seen: Some(*l),
                },
            )
        })
        .collect();
    logs.put_many(keys.iter().map(|(k, v)| (k, v))).unwrap();
    logs
}

/// (user hash, system, period, hits) of the rows a scan returned.
fn seen(rows: &[AccessLogsRow]) -> Vec<(String, String, i32, Option<i64>)> {
    let mut out: Vec<_> = rows
        .iter()
        .map(|r| {
            (
                r.key.hash.clone(),
                r.key.system_id.clone(),
                r.key.period,
                r.values.hits,
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn value_prefix_and_combined_filters() {
    let _g = serial();
    let mut conn = connect();
    let mut logs = logs_with_rows(&mut conn);
    let hits = AccessLogsColumns::HITS;
    let every = AccessLogsKey::all();

    let rows = all(logs.scan(&every, ScanOptions::new().filter(hits.ge(5))));
    let got: Vec<i64> = seen(&rows).iter().filter_map(|r| r.3).collect();
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.iter().all(|h| *h >= 5));

    // 39 encodes with a `'` byte: the literal doubles it and the server still matches.
    let rows = all(logs.scan(&every, ScanOptions::new().filter(hits.equals(39))));
    assert_eq!(
        seen(&rows),
        [("16108".into(), "web_01".into(), 201510, Some(39))]
    );

    let dave = AccessLogsKey::prefix().user_id("dave");
    let rows = all(logs.scan(&every, ScanOptions::new().filter(dave.filter())));
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.key.hash == "16108"));

    let f = dave.filter() & hits.lt(5);
    let rows = all(logs.scan(&every, ScanOptions::new().filter(f)));
    assert_eq!(
        seen(&rows),
        [("16108".into(), "jericho".into(), 201511, Some(2))]
    );

    let elton = AccessLogsKey::prefix().user_id("elton");
    let f = Filter::any([elton.filter(), Filter::all([dave.filter(), hits.gt(10)])]);
    let rows = all(logs.scan(&every, ScanOptions::new().filter(f)));
    let systems: Vec<(i64, String)> = rows
        .iter()
        .map(|r| (r.values.hits.unwrap(), r.key.system_id.clone()))
        .collect();
    assert_eq!(systems.len(), 2, "{systems:?}");
    assert!(systems.contains(&(39, "web_01".into())) && systems.contains(&(5, "jericho".into())));

    let since = AccessLogsColumns::LAST_SEEN.ge(1_446_000_000_000_i64);
    assert_eq!(
        all(logs.scan(&every, ScanOptions::new().filter(since))).len(),
        2
    );
}

#[test]
fn invalid_filters_fail_before_anything_is_sent() {
    let _g = serial();
    let mut conn = connect();
    let mut logs = logs_with_rows(&mut conn);
    let every = AccessLogsKey::all();
    for (f, want) in [
        (Filter::all([]), "all-of needs at least one filter"),
        (Filter::page(-1), "negative"),
        (Filter::timestamps([]), "at least one"),
        (
            AccessLogsKey::prefix().period(201510).filter(),
            "user_id must be given",
        ),
        (
            AccessLogsKey::prefix().user_id("").filter(),
            "must not be empty",
        ),
    ] {
        let mut scan = logs.scan(&every, ScanOptions::new().filter(f));
        match scan.next() {
            Some(Err(e)) => assert!(e.to_string().contains(want), "{e} lacks {want:?}"),
            other => panic!("expected an error with {want:?}, got {other:?}"),
        }
        assert!(scan.next().is_none(), "the scan ends after its error");
    }
    // The connection is still usable.
    assert_eq!(all(logs.scan(&every, ScanOptions::new())).len(), 5);
}

#[test]
fn columns_key_only_first_key_only_page_and_column_prefix() {
    let _g = serial();
    let mut conn = connect();
    let mut books: BooksTable = fresh(&mut conn);
    let rows: Vec<(BooksKey, BooksValues)> = (0..6)
        .map(|i| {
            (
                BooksKey::new(format!("isbn-{i}")),
                BooksValues {
                    title: Some(format!("O'Reilly {i}")),
                    author: Some(format!("author {i}")),
                    pages: Some(100 * i),
                    in_print: Some(i % 2 == 0),
                    added: Some(1_700_000_000_000 + i as i64),
                    ..Default::default()
                },
            )
        })
        .collect();
    books.put_many(rows.iter().map(|(k, v)| (k, v))).unwrap();
    let every = BooksKey::all();

    let only_title = all(books.scan(&every, ScanOptions::new().column(BooksColumns::TITLE)));
    assert_eq!(only_title.len(), 6);
    for r in &only_title {
        assert!(r.values.title.is_some());
        assert_eq!((r.values.author.as_ref(), r.values.pages), (None, None));
    }
    let family = all(books.scan(&every, ScanOptions::new().family("b").limit(1)));
    assert_eq!(family[0].values, rows[0].1);

    let quoted = BooksColumns::TITLE.equals("O'Reilly 3");
    let found = all(books.scan(&every, ScanOptions::new().filter(quoted)));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].key.isbn, "isbn-3");

    let big = BooksColumns::PAGES.ge(300) & BooksColumns::IN_PRINT.equals(true);
    let found = all(books.scan(&every, ScanOptions::new().filter(big)));
    let isbns: Vec<&str> = found.iter().map(|r| r.key.isbn.as_str()).collect();
    assert_eq!(isbns, ["isbn-4"]);

    // Key only: the cells come back without values; typed values stay unset, the cells say
    // which columns the row has.
    let keys = all(books.scan(&every, ScanOptions::new().filter(Filter::key_only())));
    assert_eq!(keys.len(), 6);
    for r in &keys {
        assert_eq!(r.values, BooksValues::default());
        assert_eq!(r.cells.len(), 5, "title, author, pages, in_print, added");
        assert!(r.cells.iter().all(|c| c.value.is_empty()));
    }
    let both = Filter::key_only() & BooksColumns::PAGES.ge(400);
    assert_eq!(
        all(books.scan(&every, ScanOptions::new().filter(both))).len(),
        2
    );

    let first = all(books.scan(&every, ScanOptions::new().filter(Filter::first_key_only())));
    assert_eq!(first.len(), 6);
    assert!(first.iter().all(|r| r.cells.len() == 1));

    // One region: the page filter's bound is exact.
    let page = all(books.scan(&every, ScanOptions::new().filter(Filter::page(2))));
    assert_eq!(page.len(), 2);

    // Qualifiers starting with "a": author ("a") and added ("added").
    let a = all(books.scan(
        &every,
        ScanOptions::new().filter(Filter::column_prefix("a")),
    ));
    for r in &a {
        let mut quals: Vec<&[u8]> = r.cells.iter().map(|c| c.qualifier.as_slice()).collect();
        quals.sort();
        assert_eq!(quals, [&b"a"[..], b"added"]);
    }
}

#[test]
fn caching_batch_size_and_reversed_limit() {
    let _g = serial();
    let mut conn = connect();
    let mut books: BooksTable = fresh(&mut conn);
    let rows: Vec<(BooksKey, BooksValues)> = (0..5)
        .map(|i| {
            (
                BooksKey::new(format!("k{i}")),
                BooksValues {
                    title: Some(format!("t{i}")),
                    author: Some(format!("a{i}")),
                    pages: Some(i),
                    ..Default::default()
                },
            )
        })
        .collect();
    books.put_many(rows.iter().map(|(k, v)| (k, v))).unwrap();
    let every = BooksKey::all();
    let back = all(books.scan(&every, ScanOptions::new().caching(1).reversed().limit(3)));
    let keys: Vec<&str> = back.iter().map(|r| r.key.isbn.as_str()).collect();
    assert_eq!(keys, ["k4", "k3", "k2"]);
    // batch_size(1): every result carries one cell; the scan joins a row's three parts back,
    // also when they arrive in different round trips (caching(1)).
    for caching in [1, 100] {
        let options = ScanOptions::new().batch_size(1).caching(caching);
        let back = all(books.scan(&every, options));
        assert_eq!(back.len(), 5, "{back:?}");
        for (r, (k, v)) in back.iter().zip(&rows) {
            assert_eq!((&r.key.isbn, &r.values), (&k.isbn, v));
            assert_eq!(r.cells.len(), 3);
        }
    }
}

/// A whole key given by value is exactly that row, not every key it is a byte prefix of
/// (`dave` is a prefix of `dave0`); a range's low above its high and a range on an escaped
/// string are refused before anything is sent.
#[test]
fn whole_keys_and_refused_ranges() {
    let _g = serial();
    let mut conn = connect();
    let mut by_period: AccessLogsByPeriodTable = fresh(&mut conn);
    let keys: Vec<AccessLogsByPeriodKey> = ["dave", "dave0", "davey", "dave_2"]
        .iter()
        .map(|u| AccessLogsByPeriodKey::new(201510, "jericho", *u))
        .collect();
    let one = AccessLogsByPeriodValues {
        hits: Some(1),
        ..Default::default()
    };
    by_period.put_many(keys.iter().map(|k| (k, &one))).unwrap();
    let jericho = AccessLogsByPeriodKey::prefix()
        .period(201510)
        .system_id("jericho");
    let users = |r: &KeyRange, t: &mut AccessLogsByPeriodTable| -> Vec<String> {
        all(t.scan(r, ScanOptions::new()))
            .into_iter()
            .map(|r| r.key.user_id)
            .collect()
    };
    let dave = jericho.clone().user_id("dave").range().unwrap();
    assert_eq!(users(&dave, &mut by_period), ["dave"]);
    let range = jericho.user_id_between("dave", "dave0").unwrap();
    assert_eq!(users(&range, &mut by_period), ["dave", "dave0"]);
    assert_eq!(users(&jericho.range().unwrap(), &mut by_period).len(), 4);

    let e = jericho.user_id_between("davey", "dave").unwrap_err();
    assert!(
        e.to_string()
            .contains("component user_id: the range's low \"davey\" is above its high"),
        "{e}"
    );
    let e = CountersKey::prefix().name_between("a", "b").unwrap_err();
    assert!(
        e.to_string()
            .contains("component name: the counters key escapes '|'"),
        "{e}"
    );
}

#[test]
fn range_bounds_on_one_component() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let mut rows = Vec::new();
    for period in (201501..=201512).chain([201601]) {
        rows.push(AccessLogsKey::new("dave", "jericho", period));
    }
    rows.push(AccessLogsKey::new("dave", "web_01", 201505));
    rows.push(AccessLogsKey::new("dave", "jericho_2", 201505));
    rows.push(AccessLogsKey::new("elton", "jericho", 201505));
    let v = AccessLogsValues {
        hits: Some(1),
        ..Default::default()
    };
    logs.put_many(rows.iter().map(|k| (k, &v))).unwrap();

    let dave = AccessLogsKey::prefix().user_id("dave");
    let range = dave
        .clone()
        .system_id("jericho")
        .period_between(201503, 201506)
        .unwrap();
    let got: Vec<i32> = all(logs.scan(&range, ScanOptions::new()))
        .iter()
        .map(|r| r.key.period)
        .collect();
    assert_eq!(got, [201503, 201504, 201505, 201506]);

    // Both ends inclusive, across the year.
    let range = dave
        .clone()
        .system_id("jericho")
        .period_between(201512, 201601)
        .unwrap();
    assert_eq!(all(logs.scan(&range, ScanOptions::new())).len(), 2);

    // A text component followed by others does not sort by value ("jericho_2" < "jericho|"):
    // refused. The last text component of another table does.
    let e = dave.system_id_between("a", "z").unwrap_err();
    assert!(e.to_string().contains("more components follow it"), "{e}");
    let mut by_period: AccessLogsByPeriodTable = fresh(&mut conn);
    let users = ["dave", "dave_2", "davey", "elton", "fred"];
    let keys: Vec<AccessLogsByPeriodKey> = users
        .iter()
        .map(|u| AccessLogsByPeriodKey::new(201510, "jericho", *u))
        .collect();
    let one = AccessLogsByPeriodValues {
        hits: Some(1),
        ..Default::default()
    };
    by_period.put_many(keys.iter().map(|k| (k, &one))).unwrap();
    let range = AccessLogsByPeriodKey::prefix()
        .period(201510)
        .system_id("jericho")
        .user_id_between("dave_2", "elton")
        .unwrap();
    let got: Vec<String> = all(by_period.scan(&range, ScanOptions::new()))
        .into_iter()
        .map(|r| r.key.user_id)
        .collect();
    assert_eq!(got, ["dave_2", "davey", "elton"]);

    for (r, want) in [
        (
            AccessLogsKey::prefix().period_between(201501, 201502),
            "component user_id must be given: the access_logs key's hash prefix is computed from it",
        ),
        (
            AccessLogsKey::prefix().user_id_between("a", "b"),
            "component user_id: is hashed in the access_logs key",
        ),
        (
            AccessLogsKey::prefix()
                .user_id("dave")
                .period(201501)
                .system_id_between("a", "b"),
            "component period: only the last component given may be a range (system_id is one)",
        ),
    ] {
        let e = r.unwrap_err();
        assert!(e.to_string().contains(want), "{e} lacks {want:?}");
    }
}
