//! The reference encodings: the seeds' own keys, round trips and order preservation (proptest).

use std::path::PathBuf;

use proptest::prelude::*;
use redbase_codegen::cells::{decode_value, encode_value};
use redbase_codegen::keys::{decode_key, encode_key, prefixes, region_index};
use redbase_codegen::model::{load_sources, Table};
use redbase_codegen::{Model, Value};

fn examples() -> &'static Model {
    static MODEL: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    MODEL.get_or_init(load_examples)
}

fn load_examples() -> Model {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = redbase_codegen::example_schemas(&root).unwrap();
    let sources: Vec<_> = files
        .iter()
        .map(|f| (f.clone(), std::fs::read_to_string(f).unwrap()))
        .collect();
    load_sources(&sources, Some("redbase_examples")).unwrap()
}

fn table<'a>(m: &'a Model, id: &str) -> &'a Table {
    m.tables.iter().find(|t| t.id == id).unwrap()
}

fn s(x: &str) -> Value {
    Value::Str(x.to_string())
}

#[test]
fn seed_table_4_hashed_user_ids_and_their_regions() {
    let m = examples();
    let t = table(m, "access_logs");
    assert_eq!(t.splits.len(), 15, "SPLITS => ['1'..'f']");
    for (user, key, region) in [
        ("dave", "16108|jericho|201510", 1),
        ("elton", "d5fe7|jericho|201510", 13),
        ("fred", "570a9|jericho|201510", 5),
    ] {
        let k = encode_key(&t.key, &[s(user), s("jericho"), Value::Int(201510)]).unwrap();
        assert_eq!(k, key.as_bytes());
        assert_eq!(region_index(&t.splits, &k), region);
        let d = decode_key(&t.key, &k).unwrap();
        assert_eq!(d.hash.as_deref(), Some(&key.as_bytes()[..5]));
        assert_eq!(
            d.components,
            vec![
                ("system_id".into(), s("jericho")),
                ("period".into(), Value::Int(201510))
            ]
        );
    }
}

#[test]
fn seed_salted_rows_land_one_region_per_bucket() {
    let m = examples();
    let t = table(m, "events");
    assert_eq!(t.splits, vec![b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]);
    let mut regions = Vec::new();
    for n in 1..=4 {
        let k = encode_key(&t.key, &[s(&format!("foo{n:04}"))]).unwrap();
        assert_eq!(k[1], b'-');
        assert_eq!(&k[2..], format!("foo{n:04}").as_bytes());
        let d = decode_key(&t.key, &k).unwrap();
        assert_eq!(region_index(&t.splits, &k), d.salt.unwrap() as usize);
        regions.push(k[0]);
    }
    assert!(regions.iter().all(|r| b"abcd".contains(r)));
    let ps = prefixes(&t.key, &[]).unwrap();
    assert_eq!(
        ps,
        vec![
            b"a-".to_vec(),
            b"b-".to_vec(),
            b"c-".to_vec(),
            b"d-".to_vec()
        ]
    );
}

#[test]
fn reverse_timestamps_put_the_newest_first() {
    let m = examples();
    let t = table(m, "metrics");
    let k = |ts| encode_key(&t.key, &[s("cpu"), s("h1"), Value::Int(ts)]).unwrap();
    assert!(k(2000) < k(1000));
    assert_eq!(k(0), b"cpu|h1|9223372036854775807");
    assert!(encode_key(&t.key, &[s("cpu"), s("h1"), Value::Int(-1)]).is_err());
}

#[test]
fn reversed_domains_group_a_site() {
    let m = examples();
    let t = table(m, "web_pages");
    let k = encode_key(&t.key, &[s("www.example.com"), s("/a|b")]).unwrap();
    assert_eq!(k, b"com.example.www|/a\\|b");
    let d = decode_key(&t.key, &k).unwrap();
    assert_eq!(d.components[0].1, s("www.example.com"));
    assert_eq!(d.components[1].1, s("/a|b"));
}

#[test]
fn java_bytes_value_encodings() {
    use redbase_codegen::model::ScalarType as T;
    assert_eq!(
        encode_value(T::I64, &Value::Int(1)).unwrap(),
        [0, 0, 0, 0, 0, 0, 0, 1]
    );
    assert_eq!(encode_value(T::I32, &Value::Int(-1)).unwrap(), [0xFF; 4]);
    assert_eq!(encode_value(T::Bool, &Value::Bool(true)).unwrap(), [0xFF]);
    assert_eq!(encode_value(T::Bool, &Value::Bool(false)).unwrap(), [0x00]);
    assert_eq!(
        encode_value(T::F64, &Value::F64(1.5)).unwrap(),
        1.5f64.to_bits().to_be_bytes()
    );
    assert_eq!(
        decode_value(T::Counter, &[0, 0, 0, 0, 0, 0, 0, 100]).unwrap(),
        Value::Int(100)
    );
    assert!(
        decode_value(T::Counter, &[1, 2, 3]).is_err(),
        "counters are 8 bytes"
    );
    assert!(encode_value(T::I32, &Value::Int(1 << 40)).is_err());
}

fn key_for(t: &Table, vals: Vec<Value>) -> Option<Vec<u8>> {
    encode_key(&t.key, &vals).ok()
}

/// Values compared the way their binary encoding must order them.
fn total_cmp(a: &Value, b: &Value) -> std::cmp::Ordering {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::F32(x), Value::F32(y)) => x.total_cmp(y),
        (Value::F64(x), Value::F64(y)) => x.total_cmp(y),
        _ => std::cmp::Ordering::Equal,
    }
}

fn all_types_row() -> impl Strategy<Value = Vec<Value>> {
    (
        ".{0,6}",
        proptest::collection::vec(prop_oneof![Just(0u8), Just(0xFF), any::<u8>()], 0..5),
        any::<i32>(),
        any::<i64>(),
        any::<f32>().prop_filter("NaN has no order", |f| !f.is_nan()),
        any::<f64>().prop_filter("NaN has no order", |f| !f.is_nan()),
        any::<i64>(),
    )
        .prop_map(|(s, b, i, l, f, d, t)| {
            vec![
                Value::Str(s),
                Value::Bytes(b),
                Value::Int(i as i64),
                Value::Int(l),
                Value::F32(f),
                Value::F64(d),
                Value::Int(t),
            ]
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn binary_keys_round_trip_and_sort_like_their_values(a in all_types_row(), b in all_types_row()) {
        let m = examples();
        let t = table(m, "all_types");
        let ka = key_for(t, a.clone()).unwrap();
        let kb = key_for(t, b.clone()).unwrap();
        let da: Vec<Value> = decode_key(&t.key, &ka).unwrap().components.into_iter().map(|(_, v)| v).collect();
        prop_assert_eq!(da.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>(), a.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>());
        // Expected order: component by component, DESC ones (b, l, d) reversed.
        let desc = [false, true, false, true, false, true, false];
        let mut want = std::cmp::Ordering::Equal;
        for i in 0..a.len() {
            let o = total_cmp(&a[i], &b[i]);
            let o = if desc[i] { o.reverse() } else { o };
            if o != std::cmp::Ordering::Equal { want = o; break; }
        }
        prop_assert_eq!(ka.cmp(&kb), want);
    }

    #[test]
    fn separated_keys_round_trip_with_escapes(domain in "[a-z.|\\\\]{1,12}", path in "\\PC{0,10}") {
        let m = examples();
        let t = table(m, "web_pages");
        let k = encode_key(&t.key, &[s(&domain), s(&path)]).unwrap();
        let d = decode_key(&t.key, &k).unwrap();
        prop_assert_eq!(&d.components[0].1, &s(&domain));
        prop_assert_eq!(&d.components[1].1, &s(&path));
    }

    #[test]
    fn fixed_width_numbers_sort_and_round_trip(a in 0i64..10_000_000_000, b in 0i64..10_000_000_000, acct in 0i64..1_000_000) {
        let m = examples();
        let t = table(m, "fixed_orders");
        let ka = encode_key(&t.key, &[s("eu"), Value::Int(a), Value::Int(acct)]).unwrap();
        let kb = encode_key(&t.key, &[s("eu"), Value::Int(b), Value::Int(acct)]).unwrap();
        prop_assert_eq!(ka.cmp(&kb), b.cmp(&a), "order_no is descending");
        let d = decode_key(&t.key, &ka).unwrap();
        prop_assert_eq!(&d.components[1].1, &Value::Int(a));
        prop_assert_eq!(&d.components[2].1, &Value::Int(acct));
    }

    #[test]
    fn salted_keys_decode_and_match_their_bucket_region(dev in "\\PC{1,8}", seq in any::<i64>()) {
        let m = examples();
        let t = table(m, "device_events");
        let k = encode_key(&t.key, &[s(&dev), Value::Int(seq)]).unwrap();
        let d = decode_key(&t.key, &k).unwrap();
        prop_assert_eq!(region_index(&t.splits, &k), d.salt.unwrap() as usize);
        prop_assert_eq!(&d.components[0].1, &s(&dev));
        let ps = prefixes(&t.key, &[s(&dev)]).unwrap();
        prop_assert_eq!(ps.len(), 16);
        prop_assert!(ps.iter().filter(|p| k.starts_with(p)).count() == 1);
    }

    #[test]
    fn decoding_garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let m = examples();
        for t in &m.tables {
            let _ = decode_key(&t.key, &bytes);
        }
    }
}

/// Issue 21: `d41d8||201501` (an empty user) is refused, in keys and in prefixes, naming the
/// component; a component with `allow_empty = true` encodes an empty value exactly.
#[test]
fn empty_components_are_refused_unless_allowed() {
    let m = examples();
    let logs = table(m, "access_logs");
    let err = encode_key(&logs.key, &[s(""), s("jericho"), Value::Int(201501)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "component user_id: must not be empty in the access_logs key (the schema does not set allow_empty)"
    );
    let err = encode_key(&logs.key, &[s("dave"), s(""), Value::Int(201501)]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("component system_id: must not be empty"),
        "{err}"
    );
    assert!(prefixes(&logs.key, &[s("")]).is_err());
    assert!(prefixes(&logs.key, &[s("dave"), s("")]).is_err());

    let pages = table(m, "web_pages");
    let k = encode_key(&pages.key, &[s("www.example.com"), s("")]).unwrap();
    assert_eq!(k, b"com.example.www|");
    assert_eq!(decode_key(&pages.key, &k).unwrap().components[1].1, s(""));
    assert_eq!(
        prefixes(&pages.key, &[s("www.example.com"), s("")]).unwrap(),
        vec![b"com.example.www|".to_vec()]
    );
    assert!(encode_key(&pages.key, &[s(""), s("/")]).is_err());
    let all = table(m, "all_types");
    let k = encode_key(
        &all.key,
        &[
            s(""),
            Value::Bytes(vec![]),
            Value::Int(0),
            Value::Int(0),
            Value::F32(0.0),
            Value::F64(0.0),
            Value::Int(0),
        ],
    )
    .unwrap();
    assert_eq!(
        &k[..4],
        [0x00, 0x00, 0xff, 0xff],
        "\"\" then b\"\" descending"
    );
}
