//! Serialized filters: the protobuf `Filter` that HBase's own Thrift2 client (ThriftConnection)
//! sends in `TGet.filterBytes` / `TScan.filterBytes`, decoded into the same filters the filter
//! language builds.
//!
//! A filter is a Java class name plus that class's message ([`super::wire`]); comparators
//! likewise. Each class is read as its `parseFrom` reads it, with the checks its constructor
//! makes: a negative page size, an empty fuzzy mask pair of unequal lengths or an invalid row
//! range is refused. Where HBase would accept a filter and then fail while scanning (a
//! SingleColumnValueFilter with NO_OP, a compare filter without a comparator, an
//! InclusiveStopFilter without a stop row, a MultipleColumnPrefixFilter without prefixes) the
//! filter is refused here instead. Where HBase fails on one cell only (a BigDecimalComparator
//! on a cell too short to be a decimal, a BinaryComponentComparator whose component runs past
//! the cell), that cell passes no operator ([`Comparator`]): filters cannot fail a read here. An unknown class, bytes that do not decode, a missing
//! required field and nesting deeper than [`MAX_DEPTH`] are errors, never ignored.
//!
//! Unlike the filter language, HBase's constructors do not restrict regex and substring
//! comparators to `=` and `!=`, so neither does this path.

use bytes::Bytes;
use prost::Message;
use thiserror::Error;

use super::columns::{
    CellCompare, ColumnCountGet, ColumnPagination, ColumnPrefix, ColumnRange, MultipleColumnPrefix,
    Part, Timestamps,
};
use super::compare::{java_regex, BitOp, Charset, Comparator, ComparatorError, CompareOp, Decimal};
use super::eval::{Compiled, HFilter};
use super::fuzzy::FuzzyRow;
use super::list::{List, Skip, While};
use super::row_ranges::{MultiRowRange, RowRange};
use super::rows::{FirstKeyOnly, InclusiveStop, KeyOnly, Page, Prefix, RowCompare};
use super::serialized_only::{
    ColumnPaginationFrom, DropAll, HintingTimestamps, PassAll, RandomRow,
};
use super::values::{ColumnValue, DependentColumn, SingleColumnValue};
use super::wire as pb;
use crate::engine::Filter;

/// How deep filters may nest (FilterList, SkipFilter, WhileMatchFilter, FilterWrapper): each
/// level is a separately encoded message, so protobuf's own recursion limit does not apply.
pub const MAX_DEPTH: usize = 100;

/// The Java package every supported class lives in.
pub const PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

/// The filter classes decoded, by simple name (all in [`PACKAGE`]).
pub const FILTER_CLASSES: &str = "ColumnCountGetFilter, ColumnPaginationFilter, \
    ColumnPrefixFilter, ColumnRangeFilter, ColumnValueFilter, DependentColumnFilter, \
    FamilyFilter, FilterList, FilterWrapper, FirstKeyOnlyFilter, FuzzyRowFilter, \
    InclusiveStopFilter, KeyOnlyFilter, MultiRowRangeFilter, MultipleColumnPrefixFilter, \
    PageFilter, PrefixFilter, QualifierFilter, RandomRowFilter, RowFilter, \
    SingleColumnValueExcludeFilter, SingleColumnValueFilter, SkipFilter, TimestampsFilter, \
    ValueFilter, WhileMatchFilter";

/// The comparator classes decoded, by simple name (all in [`PACKAGE`]).
pub const COMPARATOR_CLASSES: &str = "BigDecimalComparator, BinaryComparator, \
    BinaryComponentComparator, BinaryPrefixComparator, BitComparator, LongComparator, \
    NullComparator, RegexStringComparator, SubstringComparator";

/// Why serialized filter bytes cannot become a filter.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SerializedFilterError {
    #[error("cannot decode {what}: {reason}")]
    Malformed { what: String, reason: String },
    #[error("unknown filter class {name:?} (supported, in {PACKAGE}: {FILTER_CLASSES})")]
    UnknownFilter { name: String },
    #[error("unknown comparator class {name:?} (supported, in {PACKAGE}: {COMPARATOR_CLASSES})")]
    UnknownComparator { name: String },
    #[error("{class} is not supported by redbase: {reason}")]
    Unsupported { class: String, reason: &'static str },
    #[error("{message} lacks its required field {field}")]
    MissingField {
        message: &'static str,
        field: &'static str,
    },
    #[error("{class}: {reason}")]
    Invalid { class: &'static str, reason: String },
    #[error("filters nest deeper than {limit} levels")]
    TooDeep { limit: usize },
}

impl SerializedFilterError {
    /// HBase's Thrift2 server answers a TIOError whose canRetry is false for everything but
    /// bytes that are not a `Filter` message at all (its InvalidProtocolBufferException is no
    /// DoNotRetryIOException).
    pub fn can_retry(&self) -> bool {
        matches!(self, SerializedFilterError::Malformed { what, .. } if what == OUTER)
    }
}

type Result<T> = std::result::Result<T, SerializedFilterError>;
use SerializedFilterError as E;

const OUTER: &str = "the Filter message";

/// Decodes serialized filter bytes into the engine's filter.
pub fn from_bytes(bytes: &[u8]) -> Result<Box<dyn Filter>> {
    Ok(Box::new(Compiled::new(decode(bytes)?)))
}

/// Decodes serialized filter bytes into the filter tree.
pub fn decode(bytes: &[u8]) -> Result<Box<dyn HFilter>> {
    // One copy up front; nested messages are then slices of it, not copies at every level.
    let f: pb::Filter = message(Bytes::copy_from_slice(bytes), OUTER)?;
    if f.name.is_none() {
        // HBase's parser refuses the outer message itself (a missing required field).
        return Err(E::Malformed {
            what: OUTER.into(),
            reason: "its required field name is missing".into(),
        });
    }
    filter(&f, 1)
}

fn message<M: Message + Default>(bytes: Bytes, what: &str) -> Result<M> {
    M::decode(bytes).map_err(|e| E::Malformed {
        what: what.to_string(),
        reason: e.to_string(),
    })
}

fn required<T>(v: Option<T>, message: &'static str, field: &'static str) -> Result<T> {
    v.ok_or(E::MissingField { message, field })
}

fn invalid(class: &'static str, reason: impl Into<String>) -> E {
    E::Invalid {
        class,
        reason: reason.into(),
    }
}

/// A non-negative count, as HBase's constructors check them.
fn non_negative(v: i64, class: &'static str, what: &str) -> Result<i64> {
    if v < 0 {
        return Err(invalid(
            class,
            format!("{what} must not be negative (got {v})"),
        ));
    }
    Ok(v)
}

/// One filter and what it nests. Kept small: it recurses once per level, and the per-class
/// work (big frames in debug builds) happens in [`leaf`], which does not.
fn filter(f: &pb::Filter, depth: usize) -> Result<Box<dyn HFilter>> {
    if depth > MAX_DEPTH {
        return Err(E::TooDeep { limit: MAX_DEPTH });
    }
    let name = required(f.name.as_deref(), "Filter", "name")?;
    let body = f.serialized_filter.clone().unwrap_or_default();
    let Some(class) = name.strip_prefix(PACKAGE) else {
        return Err(E::UnknownFilter { name: name.into() });
    };
    let what = || format!("a {name}");
    let nested = |f: Option<pb::Filter>, class: &'static str| -> Result<Box<dyn HFilter>> {
        filter(&required(f, class, "filter")?, depth + 1)
    };
    Ok(match class {
        "FilterList" => {
            let m: pb::FilterList = message(body, &what())?;
            let and = match required(m.operator, "FilterList", "operator")? {
                1 => true,
                2 => false,
                other => {
                    return Err(invalid(
                        "FilterList",
                        format!("unknown operator {other} (MUST_PASS_ALL = 1, MUST_PASS_ONE = 2)"),
                    ))
                }
            };
            if m.filters.is_empty() {
                // HBase's empty list lets everything through, whichever its operator.
                return Ok(Box::new(PassAll));
            }
            let filters = m
                .filters
                .iter()
                .map(|f| filter(f, depth + 1))
                .collect::<Result<Vec<_>>>()?;
            Box::new(List::new(and, filters))
        }
        "SkipFilter" => {
            let m: pb::SkipFilter = message(body, &what())?;
            Box::new(Skip::new(nested(m.filter, "SkipFilter")?))
        }
        "WhileMatchFilter" => {
            let m: pb::WhileMatchFilter = message(body, &what())?;
            Box::new(While::new(nested(m.filter, "WhileMatchFilter")?))
        }
        // HBase's server-side wrapper adds nothing a client can see.
        "FilterWrapper" => {
            let m: pb::FilterWrapper = message(body, &what())?;
            nested(m.filter, "FilterWrapper")?
        }
        _ => leaf(name, class, body)?,
    })
}

/// A filter that nests no other filter.
#[inline(never)]
fn leaf(name: &str, class: &str, body: Bytes) -> Result<Box<dyn HFilter>> {
    // The message of a class, decoded; errors name the class.
    macro_rules! msg {
        ($ty:ident) => {
            message::<pb::$ty>(body, &format!("a {name}"))?
        };
    }
    Ok(match class {
        "KeyOnlyFilter" => {
            let m = msg!(KeyOnlyFilter);
            Box::new(KeyOnly {
                len_as_value: required(m.len_as_val, "KeyOnlyFilter", "len_as_val")?,
            })
        }
        "FirstKeyOnlyFilter" => {
            msg!(FirstKeyOnlyFilter);
            Box::new(FirstKeyOnly::default())
        }
        "PrefixFilter" => match msg!(PrefixFilter).prefix {
            Some(p) => Box::new(Prefix::new(p.to_vec())),
            // HBase's PrefixFilter(null) drops every row.
            None => Box::new(DropAll),
        },
        "ColumnPrefixFilter" => {
            let m = msg!(ColumnPrefixFilter);
            Box::new(ColumnPrefix {
                prefix: required(m.prefix, "ColumnPrefixFilter", "prefix")?.to_vec(),
            })
        }
        "MultipleColumnPrefixFilter" => {
            let m = msg!(MultipleColumnPrefixFilter);
            if m.sorted_prefixes.is_empty() {
                return Err(invalid(
                    "MultipleColumnPrefixFilter",
                    "no prefixes (HBase fails on the first cell)",
                ));
            }
            Box::new(MultipleColumnPrefix {
                prefixes: m.sorted_prefixes.iter().map(|p| p.to_vec()).collect(),
            })
        }
        "ColumnCountGetFilter" => {
            let m = msg!(ColumnCountGetFilter);
            let limit = required(m.limit, "ColumnCountGetFilter", "limit")?;
            Box::new(ColumnCountGet {
                limit: non_negative(limit.into(), "ColumnCountGetFilter", "the limit")?,
                count: 0,
            })
        }
        "PageFilter" => {
            let m = msg!(PageFilter);
            let size = required(m.page_size, "PageFilter", "page_size")?;
            Box::new(Page::new(non_negative(
                size,
                "PageFilter",
                "the page size",
            )?))
        }
        "ColumnPaginationFilter" => {
            let m = msg!(ColumnPaginationFilter);
            let c = "ColumnPaginationFilter";
            let limit = non_negative(required(m.limit, c, "limit")?.into(), c, "the limit")?;
            match m.column_offset {
                Some(from) => Box::new(ColumnPaginationFrom::new(limit, from.to_vec())),
                None => Box::new(ColumnPagination {
                    limit,
                    offset: non_negative(m.offset.unwrap_or(0).into(), c, "the offset")?,
                    count: 0,
                }),
            }
        }
        "InclusiveStopFilter" => match msg!(InclusiveStopFilter).stop_row_key {
            Some(stop) => Box::new(InclusiveStop::new(stop.to_vec())),
            None => {
                return Err(invalid(
                    "InclusiveStopFilter",
                    "no stop_row_key (HBase fails on the first row)",
                ))
            }
        },
        "TimestampsFilter" => {
            let m = msg!(TimestampsFilter);
            if let Some(t) = m.timestamps.iter().find(|t| **t < 0) {
                return Err(invalid(
                    "TimestampsFilter",
                    format!("timestamps must not be negative (got {t})"),
                ));
            }
            let t = Timestamps {
                timestamps: m.timestamps.into_iter().collect(),
            };
            if m.can_hint == Some(true) {
                Box::new(HintingTimestamps(t))
            } else {
                Box::new(t)
            }
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            let (class, cf) = match class {
                "RowFilter" => ("RowFilter", msg!(RowFilter).compare_filter),
                "FamilyFilter" => ("FamilyFilter", msg!(FamilyFilter).compare_filter),
                "QualifierFilter" => ("QualifierFilter", msg!(QualifierFilter).compare_filter),
                _ => ("ValueFilter", msg!(ValueFilter).compare_filter),
            };
            let cf = required(cf, class, "compare_filter")?;
            let op = compare_op(cf.compare_op, "CompareFilter")?;
            let cmp = match cf.comparator {
                Some(c) => comparator(&c)?,
                // NO_OP never consults the comparator; anything else would fail on a cell.
                None if op == CompareOp::NoOp => Comparator::Null,
                None => {
                    return Err(invalid(
                        class,
                        "no comparator (HBase fails on the first cell)",
                    ))
                }
            };
            match class {
                "RowFilter" => Box::new(RowCompare::new(op, cmp)),
                _ => Box::new(CellCompare {
                    part: match class {
                        "FamilyFilter" => Part::Family,
                        "QualifierFilter" => Part::Qualifier,
                        _ => Part::Value,
                    },
                    op,
                    cmp,
                }),
            }
        }
        "ColumnRangeFilter" => {
            let m = msg!(ColumnRangeFilter);
            Box::new(ColumnRange {
                min: m.min_column.map(|b| b.to_vec()),
                min_inclusive: m.min_column_inclusive.unwrap_or(false),
                max: m.max_column.map(|b| b.to_vec()),
                max_inclusive: m.max_column_inclusive.unwrap_or(false),
            })
        }
        "SingleColumnValueFilter" => Box::new(single_column_value(
            msg!(SingleColumnValueFilter),
            "SingleColumnValueFilter",
        )?),
        "SingleColumnValueExcludeFilter" => {
            let m = msg!(SingleColumnValueExcludeFilter);
            let c = "SingleColumnValueExcludeFilter";
            let inner = required(
                m.single_column_value_filter,
                c,
                "single_column_value_filter",
            )?;
            let mut f = single_column_value(inner, c)?;
            f.exclude = true;
            Box::new(f)
        }
        "DependentColumnFilter" => {
            let m = msg!(DependentColumnFilter);
            let cf = required(m.compare_filter, "DependentColumnFilter", "compare_filter")?;
            let op = compare_op(cf.compare_op, "CompareFilter")?;
            // Without a comparator there is no value test, whatever the operator.
            let test = match cf.comparator {
                Some(c) => Some((op, comparator(&c)?)),
                None => None,
            };
            Box::new(DependentColumn::new(
                bytes_or_empty(m.column_family),
                bytes_or_empty(m.column_qualifier),
                m.drop_dependent_column.unwrap_or(false),
                test,
            ))
        }
        "ColumnValueFilter" => {
            let m = msg!(ColumnValueFilter);
            let c = "ColumnValueFilter";
            Box::new(ColumnValue::new(
                required(m.family, c, "family")?.to_vec(),
                required(m.qualifier, c, "qualifier")?.to_vec(),
                compare_op(m.compare_op, c)?,
                comparator(&required(m.comparator, c, "comparator")?)?,
            ))
        }
        "MultiRowRangeFilter" => {
            let m = msg!(MultiRowRangeFilter);
            let ranges = m
                .row_range_list
                .iter()
                .map(|r| {
                    RowRange::new(
                        r.start_row.as_deref().unwrap_or_default(),
                        r.start_row_inclusive.unwrap_or(false),
                        r.stop_row.as_deref().unwrap_or_default(),
                        r.stop_row_inclusive.unwrap_or(false),
                    )
                })
                .collect();
            Box::new(MultiRowRange::new(ranges).map_err(|r| invalid("MultiRowRangeFilter", r))?)
        }
        "FuzzyRowFilter" => {
            let m = msg!(FuzzyRowFilter);
            let pairs = m
                .fuzzy_keys_data
                .iter()
                .cloned()
                .map(|p| {
                    Ok((
                        required(p.first, "BytesBytesPair", "first")?.to_vec(),
                        required(p.second, "BytesBytesPair", "second")?.to_vec(),
                    ))
                })
                .collect::<Result<Vec<_>>>()?;
            let v2 = m.is_mask_v2.unwrap_or(false);
            Box::new(FuzzyRow::new(pairs, v2).map_err(|r| invalid("FuzzyRowFilter", r))?)
        }
        "RandomRowFilter" => {
            let m = msg!(RandomRowFilter);
            Box::new(RandomRow::new(required(
                m.chance,
                "RandomRowFilter",
                "chance",
            )?))
        }
        _ => return Err(E::UnknownFilter { name: name.into() }),
    })
}

fn bytes_or_empty(b: Option<Bytes>) -> Vec<u8> {
    b.map(|b| b.to_vec()).unwrap_or_default()
}

/// SingleColumnValueFilter's message (also inside SingleColumnValueExcludeFilter's). Unset
/// flags are false, as HBase reads them from the wire.
fn single_column_value(
    m: pb::SingleColumnValueFilter,
    class: &'static str,
) -> Result<SingleColumnValue> {
    let op = compare_op(m.compare_op, "SingleColumnValueFilter")?;
    if op == CompareOp::NoOp {
        return Err(invalid(
            class,
            "the NO_OP operator cannot test a value (HBase fails on the tested column)",
        ));
    }
    let cmp = comparator(&required(
        m.comparator,
        "SingleColumnValueFilter",
        "comparator",
    )?)?;
    let mut f = SingleColumnValue::new(
        bytes_or_empty(m.column_family),
        bytes_or_empty(m.column_qualifier),
        op,
        cmp,
    );
    f.filter_if_missing = m.filter_if_missing.unwrap_or(false);
    f.latest_version_only = m.latest_version_only.unwrap_or(false);
    Ok(f)
}

fn compare_op(v: Option<i32>, message: &'static str) -> Result<CompareOp> {
    let v = required(v, message, "compare_op")?;
    Ok(match pb::CompareType::try_from(v) {
        Ok(pb::CompareType::Less) => CompareOp::Less,
        Ok(pb::CompareType::LessOrEqual) => CompareOp::LessOrEqual,
        Ok(pb::CompareType::Equal) => CompareOp::Equal,
        Ok(pb::CompareType::NotEqual) => CompareOp::NotEqual,
        Ok(pb::CompareType::GreaterOrEqual) => CompareOp::GreaterOrEqual,
        Ok(pb::CompareType::Greater) => CompareOp::Greater,
        Ok(pb::CompareType::NoOp) => CompareOp::NoOp,
        Err(_) => {
            return Err(E::Malformed {
                what: format!("the compare_op of a {message}"),
                reason: format!("{v} is no compare operator (LESS = 0 ... NO_OP = 6)"),
            })
        }
    })
}

/// The value of a ByteArrayComparable (required by every comparator that has one).
fn comparable(c: Option<pb::ByteArrayComparable>, message: &'static str) -> Result<Vec<u8>> {
    Ok(bytes_or_empty(required(c, message, "comparable")?.value))
}

fn regex_error(e: ComparatorError) -> E {
    let reason = match e {
        ComparatorError::Syntax(r) | ComparatorError::Regex(r) => r,
    };
    invalid("RegexStringComparator", reason)
}

fn comparator(c: &pb::Comparator) -> Result<Comparator> {
    let name = required(c.name.as_deref(), "Comparator", "name")?;
    let body = c.serialized_comparator.clone().unwrap_or_default();
    let Some(class) = name.strip_prefix(PACKAGE) else {
        return Err(E::UnknownComparator { name: name.into() });
    };
    macro_rules! msg {
        ($ty:ident) => {
            message::<pb::$ty>(body, &format!("a {name}"))?
        };
    }
    Ok(match class {
        "BinaryComparator" => Comparator::Binary(comparable(
            msg!(BinaryComparator).comparable,
            "BinaryComparator",
        )?),
        "BinaryPrefixComparator" => Comparator::BinaryPrefix(comparable(
            msg!(BinaryPrefixComparator).comparable,
            "BinaryPrefixComparator",
        )?),
        "SubstringComparator" => {
            let m = msg!(SubstringComparator);
            let s = required(m.substr, "SubstringComparator", "substr")?;
            Comparator::Substring(s.to_lowercase())
        }
        "NullComparator" => {
            msg!(NullComparator);
            Comparator::Null
        }
        "LongComparator" => {
            let v = comparable(msg!(LongComparator).comparable, "LongComparator")?;
            // HBase reads the first 8 bytes; fewer is an error.
            let Some(b) = v.get(..8) else {
                return Err(invalid(
                    "LongComparator",
                    format!("the value has {} bytes; a long needs 8", v.len()),
                ));
            };
            Comparator::Long(i64::from_be_bytes(b.try_into().expect("8 bytes")))
        }
        "BitComparator" => {
            let m = msg!(BitComparator);
            let value = comparable(m.comparable, "BitComparator")?;
            let op = match required(m.bitwise_op, "BitComparator", "bitwise_op")? {
                1 => BitOp::And,
                2 => BitOp::Or,
                3 => BitOp::Xor,
                other => {
                    return Err(invalid(
                        "BitComparator",
                        format!("unknown bitwise_op {other} (AND = 1, OR = 2, XOR = 3)"),
                    ))
                }
            };
            Comparator::Bit(value, op)
        }
        "RegexStringComparator" => {
            let m = msg!(RegexStringComparator);
            let c = "RegexStringComparator";
            let pattern = required(m.pattern, c, "pattern")?;
            let mut flags = required(m.pattern_flags, c, "pattern_flags")?;
            let charset = required(m.charset, c, "charset")?;
            match m.engine.as_deref() {
                None | Some("JAVA") => {}
                // Joni honours only these three of Java's flags and ignores the rest.
                Some("JONI") => flags &= 0x02 | 0x08 | 0x20,
                Some(other) => {
                    return Err(invalid(
                        c,
                        format!("unknown engine {other:?} (JAVA or JONI)"),
                    ))
                }
            }
            let re = Box::new(java_regex(&pattern, flags).map_err(regex_error)?);
            match regex_charset(&charset)? {
                Charset::Utf8 => Comparator::Regex(re),
                other => Comparator::RegexIn(re, other),
            }
        }
        "BigDecimalComparator" => {
            let v = comparable(
                msg!(BigDecimalComparator).comparable,
                "BigDecimalComparator",
            )?;
            // HBase decodes the value to a BigDecimal when it builds the comparator; fewer than
            // 5 bytes decode to null and the constructor fails.
            let Some(d) = Decimal::from_hbase_bytes(&v) else {
                return Err(invalid(
                    "BigDecimalComparator",
                    format!(
                        "the value has {} bytes; a BigDecimal needs at least 5 (a 4-byte scale \
                         and the unscaled value)",
                        v.len()
                    ),
                ));
            };
            Comparator::BigDecimal(d)
        }
        "BinaryComponentComparator" => {
            let m = msg!(BinaryComponentComparator);
            let c = "BinaryComponentComparator";
            let value = required(m.value, c, "value")?.to_vec();
            // Java reads the uint32 into an int: above 2^31 - 1 it is negative.
            let offset = required(m.offset, c, "offset")? as i32;
            Comparator::Component(value, offset)
        }
        _ => return Err(E::UnknownComparator { name: name.into() }),
    })
}

/// The charset of a RegexStringComparator. Empty is UTF-8. A name Java calls illegal is
/// logged and ignored by HBase (UTF-8 stays); a legal name of a charset not supported here is
/// refused.
fn regex_charset(name: &str) -> Result<Charset> {
    if name.is_empty() {
        return Ok(Charset::Utf8);
    }
    if let Some(c) = Charset::from_java_name(name) {
        return Ok(c);
    }
    let legal = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-+:_.".contains(c));
    if !legal {
        tracing::warn!(
            charset = name,
            "illegal regex charset name ignored, using UTF-8"
        );
        return Ok(Charset::Utf8);
    }
    Err(invalid(
        "RegexStringComparator",
        format!("charset {name:?} is not supported (UTF-8, ISO-8859-1 or US-ASCII)"),
    ))
}
