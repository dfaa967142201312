//! A scanner model's `filter`: HBase's JSON filter form (`ScannerModel.FilterModel`, e.g.
//! `{"type":"PrefixFilter","value":"cm93"}`). HBase's REST server builds Java filter objects
//! from it; here each model becomes the serialized filter message of the same class (what a
//! Java client would send in Thrift2 `filterBytes`) and [`crate::filter::proto`] builds it, so
//! REST scans run the very filters (row ranges, fuzzy rows, random rows...) and constructor
//! checks the serialized path has, with no second parser.
//!
//! Fields follow HBase's `FilterModel.build`: bytes (prefixes, comparator values, families,
//! row ranges, fuzzy keys and masks) are base64; regex and substring comparator values are
//! plain text. A field HBase's constructor needs (it fails with a NullPointerException, 400)
//! is refused naming it; optional ones take HBase's defaults (a SingleColumnValueFilter reads
//! the latest version only unless `latestVersion` is false, a row range's start is inclusive
//! and its stop exclusive). `ColumnValueFilter`, which HBase's REST model lacks, is refused as
//! HBase refuses it, so a REST client that works here works on HBase too.

use bytes::Bytes;
use prost::Message;
use serde_json::{Map, Value};

use super::model::{opt_bool, opt_i64, opt_str, unb64};
use crate::engine::Filter;
use crate::filter::proto::{self, PACKAGE};
use crate::filter::wire as pb;

/// Deepest filter nesting read (bounds recursion on hostile input).
const MAX_DEPTH: usize = 32;

/// The filter types of HBase 2.6's `FilterModel`, for error messages.
const TYPES: &str = "ColumnCountGetFilter, ColumnPaginationFilter, ColumnPrefixFilter, \
    ColumnRangeFilter, DependentColumnFilter, FamilyFilter, FilterList, \
    FirstKeyOnlyFilter, FuzzyRowFilter, InclusiveStopFilter, KeyOnlyFilter, \
    MultipleColumnPrefixFilter, MultiRowRangeFilter, PageFilter, PrefixFilter, QualifierFilter, \
    RandomRowFilter, RowFilter, SingleColumnValueExcludeFilter, SingleColumnValueFilter, \
    SkipFilter, TimestampsFilter, ValueFilter, WhileMatchFilter";

/// The comparator types of HBase 2.6's `ByteArrayComparableModel`.
const COMPARATORS: &str = "BinaryComparator, BinaryPrefixComparator, BitComparator, \
    NullComparator, RegexStringComparator, SubstringComparator";

/// Builds the filter a JSON filter model describes.
pub fn from_json(text: &str) -> Result<Box<dyn Filter>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("malformed filter JSON: {e}"))?;
    let f = to_message(&v, 0)?;
    proto::from_bytes(&f.encode_to_vec()).map_err(|e| format!("invalid filter: {e}"))
}

type R<T> = Result<T, String>;

fn named(class: &str, body: impl Message) -> pb::Filter {
    pb::Filter {
        name: Some(format!("{PACKAGE}{class}")),
        serialized_filter: Some(Bytes::from(body.encode_to_vec())),
    }
}

fn b64_field(o: &Map<String, Value>, key: &str, what: &str) -> R<Bytes> {
    let s = opt_str(o, key)?.ok_or_else(|| format!("{what} needs {key}"))?;
    Ok(Bytes::from(unb64(key, s)?))
}

fn opt_b64_field(o: &Map<String, Value>, key: &str) -> R<Option<Bytes>> {
    opt_str(o, key)?
        .map(|s| unb64(key, s).map(Bytes::from))
        .transpose()
}

fn int32(o: &Map<String, Value>, key: &str, what: &str) -> R<i32> {
    let n = opt_i64(o, key)?.ok_or_else(|| format!("{what} needs {key}"))?;
    i32::try_from(n).map_err(|_| format!("{what}: {key} {n} is out of range for an int"))
}

fn flag(o: &Map<String, Value>, key: &str, what: &str) -> R<bool> {
    opt_bool(o, key)?.ok_or_else(|| format!("{what} needs {key} (true or false)"))
}

/// A list field of byte strings (base64), required.
fn b64_list(o: &Map<String, Value>, key: &str, what: &str) -> R<Vec<Bytes>> {
    let list = o
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{what} needs {key} (a list)"))?;
    list.iter()
        .map(|p| {
            let s = p
                .as_str()
                .ok_or_else(|| format!("each of {key} must be a base64 string"))?;
            unb64(key, s).map(Bytes::from)
        })
        .collect()
}

fn objects<'a>(o: &'a Map<String, Value>, key: &str, what: &str) -> R<Vec<&'a Map<String, Value>>> {
    let list = o
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{what} needs {key} (a list)"))?;
    list.iter()
        .map(|v| {
            v.as_object()
                .ok_or_else(|| format!("each of {what}'s {key} must be a JSON object"))
        })
        .collect()
}

/// `CompareOperator.valueOf`: the protobuf CompareType number.
fn compare_op(o: &Map<String, Value>, what: &str) -> R<i32> {
    let op = opt_str(o, "op")?.ok_or_else(|| format!("{what} needs op"))?;
    Ok(match op {
        "LESS" => pb::CompareType::Less,
        "LESS_OR_EQUAL" => pb::CompareType::LessOrEqual,
        "EQUAL" => pb::CompareType::Equal,
        "NOT_EQUAL" => pb::CompareType::NotEqual,
        "GREATER_OR_EQUAL" => pb::CompareType::GreaterOrEqual,
        "GREATER" => pb::CompareType::Greater,
        "NO_OP" => pb::CompareType::NoOp,
        other => {
            return Err(format!(
                "unknown compare operator {other:?} (LESS, LESS_OR_EQUAL, EQUAL, NOT_EQUAL, \
                 GREATER_OR_EQUAL, GREATER, NO_OP)"
            ))
        }
    } as i32)
}

fn comparable(value: Bytes) -> Option<pb::ByteArrayComparable> {
    Some(pb::ByteArrayComparable { value: Some(value) })
}

/// `ByteArrayComparableModel.build`: the comparator object of a filter model.
fn comparator(o: &Map<String, Value>, what: &str) -> R<pb::Comparator> {
    let c = o
        .get("comparator")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("{what} needs a comparator"))?;
    let kind = opt_str(c, "type")?.ok_or("the comparator needs a type")?;
    let text = |kind: &str| -> R<String> {
        Ok(opt_str(c, "value")?
            .ok_or_else(|| format!("{kind} needs value"))?
            .to_string())
    };
    let body = match kind {
        "BinaryComparator" => pb::BinaryComparator {
            comparable: comparable(b64_field(c, "value", kind)?),
        }
        .encode_to_vec(),
        "BinaryPrefixComparator" => pb::BinaryPrefixComparator {
            comparable: comparable(b64_field(c, "value", kind)?),
        }
        .encode_to_vec(),
        "BitComparator" => {
            let op = match opt_str(c, "op")?.ok_or("BitComparator needs op")? {
                "AND" => pb::bit_comparator::BitwiseOp::And,
                "OR" => pb::bit_comparator::BitwiseOp::Or,
                "XOR" => pb::bit_comparator::BitwiseOp::Xor,
                other => return Err(format!("unknown BitComparator op {other:?} (AND, OR, XOR)")),
            };
            pb::BitComparator {
                comparable: comparable(b64_field(c, "value", kind)?),
                bitwise_op: Some(op as i32),
            }
            .encode_to_vec()
        }
        "NullComparator" => pb::NullComparator {}.encode_to_vec(),
        "RegexStringComparator" => pb::RegexStringComparator {
            pattern: Some(text(kind)?),
            pattern_flags: Some(0),
            charset: Some("UTF-8".into()),
            engine: Some("JAVA".into()),
        }
        .encode_to_vec(),
        "SubstringComparator" => pb::SubstringComparator {
            substr: Some(text(kind)?),
        }
        .encode_to_vec(),
        other => {
            return Err(format!(
                "unknown comparator type {other:?} (HBase's REST filters have {COMPARATORS})"
            ))
        }
    };
    Ok(pb::Comparator {
        name: Some(format!("{PACKAGE}{kind}")),
        serialized_comparator: Some(Bytes::from(body)),
    })
}

fn compare_filter(o: &Map<String, Value>, what: &str) -> R<Option<pb::CompareFilter>> {
    Ok(Some(pb::CompareFilter {
        compare_op: Some(compare_op(o, what)?),
        comparator: Some(comparator(o, what)?),
    }))
}

/// SingleColumnValueFilter's message: `ifMissing` false and `latestVersion` true unless set,
/// as HBase's constructor leaves them.
fn single_column_value(o: &Map<String, Value>, what: &str) -> R<pb::SingleColumnValueFilter> {
    Ok(pb::SingleColumnValueFilter {
        column_family: Some(b64_field(o, "family", what)?),
        column_qualifier: opt_b64_field(o, "qualifier")?,
        compare_op: Some(compare_op(o, what)?),
        comparator: Some(comparator(o, what)?),
        filter_if_missing: Some(opt_bool(o, "ifMissing")?.unwrap_or(false)),
        latest_version_only: Some(opt_bool(o, "latestVersion")?.unwrap_or(true)),
    })
}

/// The first of a wrapper's `filters` (HBase's SkipFilter and WhileMatchFilter take the first).
fn wrapped(o: &Map<String, Value>, what: &str, depth: usize) -> R<Option<pb::Filter>> {
    let list = o
        .get("filters")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{what} needs filters (a list of one filter)"))?;
    let first = list
        .first()
        .ok_or_else(|| format!("{what} needs a filter in filters"))?;
    Ok(Some(to_message(first, depth + 1)?))
}

/// One filter model as HBase's serialized filter message.
fn to_message(v: &Value, depth: usize) -> R<pb::Filter> {
    if depth > MAX_DEPTH {
        return Err(format!("filters nested deeper than {MAX_DEPTH}"));
    }
    let o = v.as_object().ok_or("a filter must be a JSON object")?;
    let kind = opt_str(o, "type")?.ok_or("a filter needs a type")?;
    let k = kind;
    Ok(match kind {
        "ColumnCountGetFilter" => named(
            k,
            pb::ColumnCountGetFilter {
                limit: Some(int32(o, "limit", k)?),
            },
        ),
        "ColumnPaginationFilter" => named(
            k,
            pb::ColumnPaginationFilter {
                limit: Some(int32(o, "limit", k)?),
                offset: Some(int32(o, "offset", k)?),
                column_offset: None,
            },
        ),
        "ColumnPrefixFilter" => named(
            k,
            pb::ColumnPrefixFilter {
                prefix: Some(b64_field(o, "value", k)?),
            },
        ),
        "ColumnRangeFilter" => named(
            k,
            pb::ColumnRangeFilter {
                min_column: Some(b64_field(o, "minColumn", k)?),
                min_column_inclusive: Some(flag(o, "minColumnInclusive", k)?),
                max_column: Some(b64_field(o, "maxColumn", k)?),
                max_column_inclusive: Some(flag(o, "maxColumnInclusive", k)?),
            },
        ),
        "DependentColumnFilter" => named(
            k,
            pb::DependentColumnFilter {
                compare_filter: compare_filter(o, k)?,
                column_family: Some(b64_field(o, "family", k)?),
                column_qualifier: opt_b64_field(o, "qualifier")?,
                drop_dependent_column: Some(flag(o, "dropDependentColumn", k)?),
            },
        ),
        "FamilyFilter" => named(
            k,
            pb::FamilyFilter {
                compare_filter: compare_filter(o, k)?,
            },
        ),
        "QualifierFilter" => named(
            k,
            pb::QualifierFilter {
                compare_filter: compare_filter(o, k)?,
            },
        ),
        "RowFilter" => named(
            k,
            pb::RowFilter {
                compare_filter: compare_filter(o, k)?,
            },
        ),
        "ValueFilter" => named(
            k,
            pb::ValueFilter {
                compare_filter: compare_filter(o, k)?,
            },
        ),
        "FilterList" => {
            let operator = match opt_str(o, "op")?.ok_or("FilterList needs op")? {
                "MUST_PASS_ALL" => pb::filter_list::Operator::MustPassAll,
                "MUST_PASS_ONE" => pb::filter_list::Operator::MustPassOne,
                other => {
                    return Err(format!(
                        "unknown FilterList op {other:?} (MUST_PASS_ALL, MUST_PASS_ONE)"
                    ))
                }
            };
            let list = o
                .get("filters")
                .and_then(Value::as_array)
                .ok_or("FilterList needs filters (a list)")?;
            let filters = list
                .iter()
                .map(|f| to_message(f, depth + 1))
                .collect::<R<Vec<_>>>()?;
            named(
                k,
                pb::FilterList {
                    operator: Some(operator as i32),
                    filters,
                },
            )
        }
        "FirstKeyOnlyFilter" => named(k, pb::FirstKeyOnlyFilter {}),
        "KeyOnlyFilter" => named(
            k,
            pb::KeyOnlyFilter {
                len_as_val: Some(false),
            },
        ),
        "InclusiveStopFilter" => named(
            k,
            pb::InclusiveStopFilter {
                stop_row_key: Some(b64_field(o, "value", k)?),
            },
        ),
        "MultipleColumnPrefixFilter" => {
            let mut prefixes = b64_list(o, "prefixes", k)?;
            // HBase keeps them in a sorted set.
            prefixes.sort();
            prefixes.dedup();
            named(
                k,
                pb::MultipleColumnPrefixFilter {
                    sorted_prefixes: prefixes,
                },
            )
        }
        "MultiRowRangeFilter" => {
            let ranges = objects(o, "ranges", k)?
                .into_iter()
                .map(|r| {
                    Ok(pb::RowRange {
                        start_row: opt_b64_field(r, "startRow")?,
                        start_row_inclusive: Some(
                            opt_bool(r, "startRowInclusive")?.unwrap_or(true),
                        ),
                        stop_row: opt_b64_field(r, "stopRow")?,
                        stop_row_inclusive: Some(opt_bool(r, "stopRowInclusive")?.unwrap_or(false)),
                    })
                })
                .collect::<R<Vec<_>>>()?;
            named(
                k,
                pb::MultiRowRangeFilter {
                    row_range_list: ranges,
                },
            )
        }
        "FuzzyRowFilter" => {
            let keys = objects(o, "fuzzyKeys", k)?
                .into_iter()
                .map(|p| {
                    Ok(pb::BytesBytesPair {
                        first: Some(b64_field(p, "key", "each fuzzy key")?),
                        second: Some(b64_field(p, "mask", "each fuzzy key")?),
                    })
                })
                .collect::<R<Vec<_>>>()?;
            // HBase 2's constructor marks its masks as version 2 (0 fixed, 1 free).
            named(
                k,
                pb::FuzzyRowFilter {
                    fuzzy_keys_data: keys,
                    is_mask_v2: Some(true),
                },
            )
        }
        "PageFilter" => {
            let n = match o.get("value") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return Err("PageFilter needs value (a number)".into()),
            };
            let size = n
                .parse::<i64>()
                .map_err(|_| format!("PageFilter value must be a whole number: {n:?}"))?;
            named(
                k,
                pb::PageFilter {
                    page_size: Some(size),
                },
            )
        }
        "PrefixFilter" => named(
            k,
            pb::PrefixFilter {
                prefix: Some(b64_field(o, "value", k)?),
            },
        ),
        "RandomRowFilter" => {
            let chance = match o.get("chance") {
                Some(Value::Number(n)) => n.as_f64(),
                Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
                _ => return Err("RandomRowFilter needs chance (a number)".into()),
            }
            .ok_or("RandomRowFilter chance must be a number")?;
            named(
                k,
                pb::RandomRowFilter {
                    chance: Some(chance as f32),
                },
            )
        }
        "SingleColumnValueFilter" => named(k, single_column_value(o, k)?),
        "SingleColumnValueExcludeFilter" => named(
            k,
            pb::SingleColumnValueExcludeFilter {
                single_column_value_filter: Some(single_column_value(o, k)?),
            },
        ),
        "SkipFilter" => named(
            k,
            pb::SkipFilter {
                filter: wrapped(o, k, depth)?,
            },
        ),
        "WhileMatchFilter" => named(
            k,
            pb::WhileMatchFilter {
                filter: wrapped(o, k, depth)?,
            },
        ),
        "TimestampsFilter" => {
            let list = o
                .get("timestamps")
                .and_then(Value::as_array)
                .ok_or("TimestampsFilter needs timestamps (a list)")?;
            let mut timestamps = list
                .iter()
                .map(|t| match t {
                    Value::Number(n) => n.as_i64(),
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                })
                .collect::<Option<Vec<i64>>>()
                .ok_or("each timestamp must be a whole number")?;
            timestamps.sort_unstable();
            timestamps.dedup();
            named(
                k,
                pb::TimestampsFilter {
                    timestamps,
                    can_hint: Some(false),
                },
            )
        }
        other => {
            return Err(format!(
                "unknown filter type {other:?} (HBase's REST filters are {TYPES})"
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RowVerdict;

    fn builds(json: &str) -> Result<(), String> {
        from_json(json).map(|_| ())
    }

    #[test]
    fn every_type_of_hbase_filter_model_builds() {
        let cmp = r#""op":"EQUAL","comparator":{"type":"BinaryComparator","value":"eA=="}"#;
        for f in [
            r#"{"type":"ColumnCountGetFilter","limit":2}"#.to_string(),
            r#"{"type":"ColumnPaginationFilter","limit":2,"offset":1}"#.into(),
            r#"{"type":"ColumnPrefixFilter","value":"cQ=="}"#.into(),
            r#"{"type":"ColumnRangeFilter","minColumn":"YQ==","minColumnInclusive":true,"maxColumn":"eg==","maxColumnInclusive":false}"#.into(),
            format!(r#"{{"type":"DependentColumnFilter","family":"Y2Y=","qualifier":"cQ==","dropDependentColumn":false,{cmp}}}"#),
            format!(r#"{{"type":"FamilyFilter",{cmp}}}"#),
            r#"{"type":"FilterList","op":"MUST_PASS_ALL","filters":[]}"#.into(),
            r#"{"type":"FirstKeyOnlyFilter"}"#.into(),
            r#"{"type":"InclusiveStopFilter","value":"cg=="}"#.into(),
            r#"{"type":"KeyOnlyFilter"}"#.into(),
            r#"{"type":"MultipleColumnPrefixFilter","prefixes":["YQ==","Yg=="]}"#.into(),
            r#"{"type":"MultiRowRangeFilter","ranges":[{"startRow":"YQ==","stopRow":"Yw=="},{"startRow":"eA==","startRowInclusive":false,"stopRow":"eg==","stopRowInclusive":true}]}"#.into(),
            r#"{"type":"PageFilter","value":"3"}"#.into(),
            r#"{"type":"PrefixFilter","value":"cg=="}"#.into(),
            format!(r#"{{"type":"QualifierFilter",{cmp}}}"#),
            r#"{"type":"RandomRowFilter","chance":0.5}"#.into(),
            format!(r#"{{"type":"RowFilter",{cmp}}}"#),
            format!(r#"{{"type":"SingleColumnValueExcludeFilter","family":"Y2Y=","qualifier":"cQ==",{cmp}}}"#),
            format!(r#"{{"type":"SingleColumnValueFilter","family":"Y2Y=","qualifier":"cQ==","ifMissing":true,{cmp}}}"#),
            r#"{"type":"SkipFilter","filters":[{"type":"KeyOnlyFilter"}]}"#.into(),
            r#"{"type":"TimestampsFilter","timestamps":[5,1]}"#.into(),
            format!(r#"{{"type":"ValueFilter",{cmp}}}"#),
            r#"{"type":"WhileMatchFilter","filters":[{"type":"PrefixFilter","value":"cg=="}]}"#.into(),
            r#"{"type":"FuzzyRowFilter","fuzzyKeys":[{"key":"AAFh","mask":"AQEA"}]}"#.into(),
        ] {
            builds(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }

    #[test]
    fn every_comparator_of_hbase_model_builds() {
        for c in [
            r#"{"type":"BinaryComparator","value":"eA=="}"#,
            r#"{"type":"BinaryPrefixComparator","value":"eA=="}"#,
            r#"{"type":"BitComparator","value":"AQ==","op":"AND"}"#,
            r#"{"type":"BitComparator","value":"AQ==","op":"XOR"}"#,
            r#"{"type":"NullComparator"}"#,
            r#"{"type":"RegexStringComparator","value":"k[0-9]"}"#,
            r#"{"type":"SubstringComparator","value":"Ab"}"#,
        ] {
            let f = format!(r#"{{"type":"ValueFilter","op":"NOT_EQUAL","comparator":{c}}}"#);
            builds(&f).unwrap_or_else(|e| panic!("{f}: {e}"));
        }
    }

    #[test]
    fn bad_models_are_refused_naming_what_is_wrong() {
        for (f, says) in [
            (r#"{"type":"NoSuchFilter"}"#, "unknown filter type"),
            ("{", "malformed filter JSON"),
            (r#"{"type":"RandomRowFilter"}"#, "chance"),
            (r#"{"type":"PrefixFilter"}"#, "needs value"),
            (r#"{"type":"FilterList","filters":[]}"#, "needs op"),
            (r#"{"type":"PageFilter","value":"-1"}"#, "negative"),
            (
                r#"{"type":"MultiRowRangeFilter","ranges":[]}"#,
                "no row ranges",
            ),
            (
                r#"{"type":"MultiRowRangeFilter","ranges":[{"startRow":"eg==","stopRow":"YQ=="}]}"#,
                "invalid row range",
            ),
            (
                r#"{"type":"FuzzyRowFilter","fuzzyKeys":[{"key":"AAE="}]}"#,
                "mask",
            ),
            (
                r#"{"type":"ValueFilter","op":"EQUAL","comparator":{"type":"LongComparator","value":"AA=="}}"#,
                "unknown comparator",
            ),
            (
                r#"{"type":"ValueFilter","op":"EQUAL","comparator":{"type":"BitComparator","value":"AA==","op":"NAND"}}"#,
                "BitComparator op",
            ),
            (
                r#"{"type":"ValueFilter","op":"SAME","comparator":{"type":"NullComparator"}}"#,
                "compare operator",
            ),
            (
                r#"{"type":"ColumnRangeFilter","minColumn":"YQ==","maxColumn":"eg=="}"#,
                "minColumnInclusive",
            ),
        ] {
            let e = builds(f).expect_err(f);
            assert!(e.contains(says), "{f}: {e}");
        }
    }

    /// The models run: row ranges and fuzzy keys pick rows by key; a random chance of 0 keeps
    /// none, 1 keeps all.
    #[test]
    fn row_filters_pick_the_rows_they_describe() {
        let rows: [&[u8]; 5] = [b"a1", b"a2", b"b1", b"b2", b"c1"];
        let kept = |json: &str| -> Vec<String> {
            let mut f = from_json(json).unwrap();
            rows.iter()
                .filter(|r| {
                    f.reset();
                    f.row_key(r) == RowVerdict::Include
                })
                .map(|r| String::from_utf8_lossy(r).into_owned())
                .collect()
        };
        // [a2, b2): "YTI=" is a2, "YjI=" b2.
        assert_eq!(
            kept(
                r#"{"type":"MultiRowRangeFilter","ranges":[{"startRow":"YTI=","stopRow":"YjI="}]}"#
            ),
            ["a2", "b1"]
        );
        // Any first byte, then "1": key "\x001" ("ADE="), mask [1, 0] ("AQA=").
        assert_eq!(
            kept(r#"{"type":"FuzzyRowFilter","fuzzyKeys":[{"key":"ADE=","mask":"AQA="}]}"#),
            ["a1", "b1", "c1"]
        );
        assert!(kept(r#"{"type":"RandomRowFilter","chance":0}"#).is_empty());
        assert_eq!(kept(r#"{"type":"RandomRowFilter","chance":1}"#).len(), 5);
    }
}

/// Hostile request bodies: every decoder answers, none panics.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use crate::rest::meta::{NamespacePropsM, TableSchemaM};
    use crate::rest::model::{CellSet, ScannerM};

    fn json_like() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "{",
                "}",
                "[",
                "]",
                ",",
                ":",
                "\"Row\"",
                "\"Cell\"",
                "\"key\"",
                "\"$\"",
                "\"column\"",
                "\"type\"",
                "\"filters\"",
                "\"FilterList\"",
                "\"op\"",
                "null",
                "\"AAAA\"",
                "\"!!\"",
                "1",
                "-9223372036854775808",
                "true",
                "\"value\"",
            ]),
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), text in json_like()) {
            let _ = crate::rest::xml::parse(&bytes);
            let _ = CellSet::from_pb(&bytes);
            let _ = ScannerM::from_pb(&bytes);
            let _ = TableSchemaM::from_pb(&bytes);
            let _ = NamespacePropsM::from_pb(&bytes);
            let _ = super::from_json(&text);
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                let _ = CellSet::from_json(&v);
                let _ = ScannerM::from_json(&v);
                let _ = TableSchemaM::from_json(&v);
                let _ = NamespacePropsM::from_json(&v);
            }
            if let Ok(e) = crate::rest::xml::parse(text.as_bytes()) {
                let _ = CellSet::from_xml(&e);
                let _ = ScannerM::from_xml(&e);
                let _ = TableSchemaM::from_xml(&e);
            }
        }
    }
}
