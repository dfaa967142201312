//! Errors, bytes written by HBase 2.6.1's own classes (tests/oracle/filterbytes), and fuzzing.

use super::*;
use redbase::filter::proto::SerializedFilterError;

#[test]
fn bad_filters_are_named_errors() {
    let unknown = pb::Filter {
        name: Some("com.example.MyFilter".into()),
        serialized_filter: None,
    };
    let m = err(&unknown);
    assert!(
        m.contains("com.example.MyFilter") && m.contains("PrefixFilter"),
        "{m}"
    );
    let m = err(&value_filter(
        Ct::Equal,
        pb::Comparator {
            name: Some(format!("{P}PrefixFilter")),
            serialized_comparator: None,
        },
    ));
    assert!(m.contains("unknown comparator class"), "{m}");
    let m = err(&f(
        "PageFilter",
        pb::PageFilter {
            page_size: Some(-1),
        },
    ));
    assert!(m.contains("must not be negative"), "{m}");
    let m = err(&f("PageFilter", pb::PageFilter { page_size: None }));
    assert!(m.contains("page_size"), "{m}");
    let m = err(&f(
        "MultipleColumnPrefixFilter",
        pb::MultipleColumnPrefixFilter {
            sorted_prefixes: vec![],
        },
    ));
    assert!(m.contains("no prefixes"), "{m}");
    let m = err(&value_filter(Ct::Equal, binary("x"))
        .clone()
        .tap_bytes(b"\xff\xff"));
    assert!(m.contains("cannot decode"), "{m}");
    // Bad UTF-8 in a class name.
    let mut raw = pb::Filter {
        name: Some("x".into()),
        serialized_filter: None,
    }
    .encode_to_vec();
    raw[2] = 0xff;
    let m = filter::from_serialized(&raw).err().unwrap();
    assert!(m.can_retry(), "{m}");
    // Nesting: 100 levels decode, 101 do not, 10,000 fail fast.
    let deep = |n| {
        let mut flt = prefix("a");
        for _ in 1..n {
            flt = list(true, vec![flt]);
        }
        flt.encode_to_vec()
    };
    assert!(filter::from_serialized(&deep(100)).is_ok());
    assert!(matches!(
        filter::from_serialized(&deep(101)),
        Err(SerializedFilterError::TooDeep { limit: 100 })
    ));
    let started = std::time::Instant::now();
    assert!(filter::from_serialized(&deep(10_000)).is_err());
    assert!(started.elapsed().as_secs() < 5);
}

/// Replaces a filter's serialized message with other bytes.
trait TapBytes {
    fn tap_bytes(self, b: &[u8]) -> Self;
}

impl TapBytes for pb::Filter {
    fn tap_bytes(mut self, b: &[u8]) -> Self {
        self.serialized_filter = Some(b.to_vec().into());
        self
    }
}

// ---------------------------------------------------------------------------------------------
// Bytes written by HBase 2.6.1's own classes (tests/oracle/filterbytes/filters.tsv)
// ---------------------------------------------------------------------------------------------

/// (what HBase's FilterBytes.java built, its toByteArray as hex).
const HBASE_BYTES: [(&str, &str); 8] = [
    (
        "PrefixFilter(k_ab)",
        "0a2b6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e50726566697846696c74657212060a046b5f6162",
    ),
    (
        "ColumnPaginationFilter(limit 2, column offset b)",
        "0a356f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e436f6c756d6e506167696e6174696f6e46696c746572120508021a0162",
    ),
    (
        "TimestampsFilter(5, 20)",
        "0a2f6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e54696d657374616d707346696c74657212060a0205141000",
    ),
    (
        "ValueFilter(=, regex dog.line2 DOTALL|CASE_INSENSITIVE)",
        "0a2a6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e56616c756546696c74657212580a56080212520a346f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e5265676578537472696e67436f6d70617261746f72121a0a09646f672e6c696e653210221a055554462d3822044a415641",
    ),
    (
        "ValueFilter(=, BitComparator XOR 0f)",
        "0a2a6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e56616c756546696c746572123d0a3b080212370a2c6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e426974436f6d70617261746f7212070a030a010f1003",
    ),
    (
        "SingleColumnValueFilter(cf:c > LongComparator 5)",
        "0a366f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e53696e676c65436f6c756d6e56616c756546696c746572124c0a0263661201631805223d0a2d6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e4c6f6e67436f6d70617261746f72120c0a0a0a08000000000000000528003001",
    ),
    (
        "MultiRowRangeFilter([k_, k_b), [r02, r03])",
        "0a326f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e4d756c7469526f7752616e676546696c746572121f0a0d0a026b5f10011a036b5f6220000a0e0a0372303210011a037230332001",
    ),
    (
        "FuzzyRowFilter(r0?, k_ab?)",
        "0a2d6f72672e6170616368652e6861646f6f702e68626173652e66696c7465722e46757a7a79526f7746696c746572121e0a0a0a0372303f12030000010a0e0a056b5f61623f120500000000011001",
    ),
];

#[test]
fn hbase_bytes_are_what_our_types_write() {
    let ours: [pb::Filter; 8] = [
        prefix("k_ab"),
        f(
            "ColumnPaginationFilter",
            pb::ColumnPaginationFilter {
                limit: Some(2),
                offset: None,
                column_offset: Some(b"b".to_vec().into()),
            },
        ),
        f(
            "TimestampsFilter",
            pb::TimestampsFilter {
                timestamps: vec![5, 20],
                can_hint: Some(false),
            },
        ),
        value_filter(Ct::Equal, regex("dog.line2", 0x22)),
        value_filter(Ct::Equal, bit(&[0x0f], pb::bit_comparator::BitwiseOp::Xor)),
        f("SingleColumnValueFilter", {
            let mut m = scvf("cf", "c", Ct::Greater, long(5));
            m.filter_if_missing = Some(false);
            m.latest_version_only = Some(true);
            m
        }),
        multi_range(vec![
            range("k_", true, "k_b", false),
            range("r02", true, "r03", true),
        ]),
        fuzzy(&[(b"r0?", &[0, 0, 1]), (b"k_ab?", &[0, 0, 0, 0, 1])], true),
    ];
    for ((what, h), mine) in HBASE_BYTES.iter().zip(ours) {
        assert_eq!(hex_of(&mine.encode_to_vec()), *h, "{what}");
        assert!(filter::from_serialized(&hex(h)).is_ok(), "{what}");
    }
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every line of the oracle's table decodes, except the ones it marks malformed, when the
/// table is there (it belongs to the HBase oracle suite).
#[test]
fn every_hbase_written_filter_decodes() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/filterbytes/filters.tsv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (what, h) = line.split_once('\t').unwrap();
        let r = filter::from_serialized(&hex(h.trim()));
        if what.starts_with("malformed") {
            assert!(r.is_err(), "{what} decoded");
        } else {
            assert!(r.is_ok(), "{what}: {}", r.err().unwrap());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzzing: any bytes decode or fail, and whatever decodes runs
// ---------------------------------------------------------------------------------------------

/// Valid encodings to mutate: one of each kind of filter and comparator.
fn corpus() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = HBASE_BYTES.iter().map(|(_, h)| hex(h)).collect();
    for flt in [
        list(
            false,
            vec![
                prefix("a"),
                value_filter(Ct::Less, long(3)),
                value_filter(Ct::Equal, null()),
            ],
        ),
        f(
            "SkipFilter",
            pb::SkipFilter {
                filter: Some(value_filter(Ct::NotEqual, substring("x"))),
            },
        ),
        fuzzy(&[(b"a?", &[0, 1])], true),
        multi_range(vec![range("a", true, "b", false)]),
        row_filter(Ct::Greater, regex("^b", 0x22)),
        f("RandomRowFilter", pb::RandomRowFilter { chance: Some(0.5) }),
        value_filter(
            Ct::Less,
            cmp(
                "BigDecimalComparator",
                pb::BigDecimalComparator {
                    comparable: comparable(&[0, 0, 0, 2, 0x96]),
                },
            ),
        ),
        row_filter(
            Ct::Equal,
            cmp(
                "BinaryComponentComparator",
                pb::BinaryComponentComparator {
                    value: Some(b"1".to_vec().into()),
                    offset: Some(1),
                },
            ),
        ),
    ] {
        out.push(flt.encode_to_vec());
    }
    out
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    fn check(e: &Engine, bytes: &[u8]) {
        if let Ok(flt) = filter::from_serialized(bytes) {
            let mut s = Scan::new();
            s.options.filter = Some(flt);
            let _ = e.scan("t", s).unwrap().count();
        }
    }

    fn runner() -> TestRunner {
        TestRunner::new(Config {
            cases: 1000,
            ..Config::default()
        })
    }

    #[test]
    fn any_bytes_decode_or_fail() {
        let (_d, e) = fixture();
        let bytes = proptest::collection::vec(any::<u8>(), 0..200);
        runner()
            .run(&bytes, |b| {
                check(&e, &b);
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn mutated_encodings_decode_or_fail_and_run() {
        let (_d, e) = fixture();
        let all = corpus();
        let edits = proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6);
        let input = (
            any::<prop::sample::Index>(),
            edits,
            any::<prop::sample::Index>(),
        );
        runner()
            .run(&input, |(pick, edits, cut)| {
                let mut bytes = all[pick.index(all.len())].clone();
                for (at, v) in edits {
                    let i = at.index(bytes.len());
                    bytes[i] = v;
                }
                check(&e, &bytes);
                check(&e, &bytes[..cut.index(bytes.len() + 1)]);
                Ok(())
            })
            .unwrap();
    }
}
