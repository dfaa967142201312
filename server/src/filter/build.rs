//! Turns a syntax tree into filters: checks each filter's name, argument count and argument
//! types as HBase's `createFilterFromArguments` methods do, naming the position of whatever is
//! wrong.

use std::collections::BTreeSet;

use super::ast::{Arg, ArgValue, Call, Expr};
use super::columns::{
    CellCompare, ColumnCountGet, ColumnPagination, ColumnPrefix, ColumnRange, MultipleColumnPrefix,
    Part, Timestamps,
};
use super::compare::{comparator, Comparator, ComparatorError, CompareOp};
use super::error::FilterError;
use super::eval::HFilter;
use super::list::{List, Skip, While};
use super::rows::{FirstKeyOnly, InclusiveStop, KeyOnly, Page, Prefix, RowCompare};
use super::values::{ColumnValue, DependentColumn, SingleColumnValue};

/// The filters the language knows, as HBase's ParseFilter registers them.
pub const FILTER_NAMES: [&str; 19] = [
    "KeyOnlyFilter",
    "FirstKeyOnlyFilter",
    "PrefixFilter",
    "ColumnPrefixFilter",
    "MultipleColumnPrefixFilter",
    "ColumnCountGetFilter",
    "PageFilter",
    "ColumnPaginationFilter",
    "InclusiveStopFilter",
    "TimestampsFilter",
    "RowFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ValueFilter",
    "ColumnRangeFilter",
    "SingleColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "DependentColumnFilter",
    "ColumnValueFilter",
];

pub const KNOWN_FILTERS: &str =
    "KeyOnlyFilter, FirstKeyOnlyFilter, PrefixFilter, ColumnPrefixFilter, \
    MultipleColumnPrefixFilter, ColumnCountGetFilter, PageFilter, ColumnPaginationFilter, \
    InclusiveStopFilter, TimestampsFilter, RowFilter, FamilyFilter, QualifierFilter, \
    ValueFilter, ColumnRangeFilter, SingleColumnValueFilter, SingleColumnValueExcludeFilter, \
    DependentColumnFilter, ColumnValueFilter";

/// Builds the filter a syntax tree describes.
pub fn build(e: &Expr) -> Result<Box<dyn HFilter>, FilterError> {
    Ok(match e {
        Expr::Call(c) => call(c)?,
        Expr::And(items) | Expr::Or(items) => {
            let filters = items.iter().map(build).collect::<Result<Vec<_>, _>>()?;
            Box::new(List::new(matches!(e, Expr::And(_)), filters))
        }
        Expr::Skip(inner) => Box::new(Skip::new(build(inner)?)),
        Expr::While(inner) => Box::new(While::new(build(inner)?)),
    })
}

fn call(c: &Call) -> Result<Box<dyn HFilter>, FilterError> {
    let Some(&name) = FILTER_NAMES.iter().find(|n| **n == c.name) else {
        return Err(FilterError::UnknownFilter {
            at: c.at,
            name: c.name.clone(),
            known: KNOWN_FILTERS,
        });
    };
    let a = Args { call: c, name };
    Ok(match name {
        "KeyOnlyFilter" => {
            a.count(&[0, 1], "0 or 1")?;
            let len_as_value = if a.len() == 1 { a.boolean(0)? } else { false };
            Box::new(KeyOnly { len_as_value })
        }
        "FirstKeyOnlyFilter" => {
            a.count(&[0], "no")?;
            Box::new(FirstKeyOnly::default())
        }
        "PrefixFilter" => {
            a.count(&[1], "1")?;
            Box::new(Prefix::new(a.quoted(0)?))
        }
        "ColumnPrefixFilter" => {
            a.count(&[1], "1")?;
            Box::new(ColumnPrefix {
                prefix: a.quoted(0)?,
            })
        }
        "MultipleColumnPrefixFilter" => {
            if a.len() == 0 {
                return Err(a.count_error("1 or more"));
            }
            let prefixes = (0..a.len())
                .map(|i| a.quoted(i))
                .collect::<Result<BTreeSet<_>, _>>()?;
            Box::new(MultipleColumnPrefix { prefixes })
        }
        "ColumnCountGetFilter" => {
            a.count(&[1], "1")?;
            Box::new(ColumnCountGet {
                limit: a.non_negative(0, Width::Int, "the limit")?,
                count: 0,
            })
        }
        "PageFilter" => {
            a.count(&[1], "1")?;
            Box::new(Page::new(a.non_negative(
                0,
                Width::Long,
                "the page size",
            )?))
        }
        "ColumnPaginationFilter" => {
            a.count(&[2], "2")?;
            Box::new(ColumnPagination {
                limit: a.non_negative(0, Width::Int, "the limit")?,
                offset: a.non_negative(1, Width::Int, "the offset")?,
                count: 0,
            })
        }
        "InclusiveStopFilter" => {
            a.count(&[1], "1")?;
            Box::new(InclusiveStop::new(a.quoted(0)?))
        }
        "TimestampsFilter" => {
            let timestamps = (0..a.len())
                .map(|i| a.non_negative(i, Width::Long, "a timestamp"))
                .collect::<Result<BTreeSet<_>, _>>()?;
            Box::new(Timestamps { timestamps })
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            a.count(&[2], "2")?;
            let (op, cmp) = a.op_comparator(0, true)?;
            match name {
                "RowFilter" => Box::new(RowCompare::new(op, cmp)),
                _ => Box::new(CellCompare {
                    part: match name {
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
            a.count(&[4], "4")?;
            let bound = |i| a.quoted(i).map(|b| (!b.is_empty()).then_some(b));
            Box::new(ColumnRange {
                min: bound(0)?,
                min_inclusive: a.boolean(1)?,
                max: bound(2)?,
                max_inclusive: a.boolean(3)?,
            })
        }
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            a.count(&[4, 6], "4 or 6")?;
            let (op, cmp) = a.op_comparator(2, true)?;
            let mut f = SingleColumnValue::new(a.quoted(0)?, a.quoted(1)?, op, cmp);
            if a.len() == 6 {
                f.filter_if_missing = a.boolean(4)?;
                f.latest_version_only = a.boolean(5)?;
            }
            f.exclude = name == "SingleColumnValueExcludeFilter";
            Box::new(f)
        }
        "DependentColumnFilter" => {
            a.count(&[2, 3, 5], "2, 3 or 5")?;
            let drop = if a.len() >= 3 { a.boolean(2)? } else { false };
            // HBase does not restrict the operator of this filter's comparator.
            let test = if a.len() == 5 {
                Some(a.op_comparator(3, false)?)
            } else {
                None
            };
            Box::new(DependentColumn::new(a.quoted(0)?, a.quoted(1)?, drop, test))
        }
        "ColumnValueFilter" => {
            a.count(&[4], "4")?;
            let (op, cmp) = a.op_comparator(2, true)?;
            Box::new(ColumnValue::new(a.quoted(0)?, a.quoted(1)?, op, cmp))
        }
        _ => unreachable!("every registered name is handled"),
    })
}

#[derive(Clone, Copy)]
enum Width {
    Int,
    Long,
}

struct Args<'a> {
    call: &'a Call,
    name: &'static str,
}

impl Args<'_> {
    fn len(&self) -> usize {
        self.call.args.len()
    }

    fn arg(&self, i: usize) -> &Arg {
        &self.call.args[i]
    }

    fn count_error(&self, expected: &'static str) -> FilterError {
        FilterError::ArgumentCount {
            at: self.call.at,
            filter: self.name,
            expected,
            got: self.len(),
        }
    }

    fn count(&self, allowed: &[usize], expected: &'static str) -> Result<(), FilterError> {
        if allowed.contains(&self.len()) {
            Ok(())
        } else {
            Err(self.count_error(expected))
        }
    }

    fn type_error(&self, i: usize, expected: &'static str) -> FilterError {
        FilterError::ArgumentType {
            at: self.arg(i).at,
            filter: self.name,
            index: i + 1,
            expected,
            found: self.arg(i).value.describe(),
        }
    }

    fn quoted(&self, i: usize) -> Result<Vec<u8>, FilterError> {
        match &self.arg(i).value {
            ArgValue::Quoted(b) => Ok(b.clone()),
            ArgValue::Bare(_) => Err(self.type_error(i, "a quoted string")),
        }
    }

    fn bare(&self, i: usize, expected: &'static str) -> Result<&str, FilterError> {
        match &self.arg(i).value {
            ArgValue::Bare(w) => Ok(w),
            ArgValue::Quoted(_) => Err(self.type_error(i, expected)),
        }
    }

    fn boolean(&self, i: usize) -> Result<bool, FilterError> {
        let w = self.bare(i, "true or false (unquoted)")?;
        if w.eq_ignore_ascii_case("true") {
            Ok(true)
        } else if w.eq_ignore_ascii_case("false") {
            Ok(false)
        } else {
            Err(self.type_error(i, "true or false"))
        }
    }

    /// An integer as HBase reads one: an optional '-' and decimal digits.
    fn number(&self, i: usize, width: Width) -> Result<i64, FilterError> {
        let w = self.bare(i, "an unquoted integer")?;
        let (kind, max) = match width {
            Width::Int => ("32-bit integer", i32::MAX as i64),
            Width::Long => ("64-bit integer", i64::MAX),
        };
        let bad = |reason| FilterError::BadNumber {
            at: self.arg(i).at,
            text: w.to_string(),
            kind,
            reason,
        };
        let (neg, digits) = match w.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, w),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("only an optional '-' and decimal digits are allowed"));
        }
        let mut v: i64 = 0;
        for d in digits.bytes() {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add((d - b'0') as i64))
                .ok_or_else(|| bad("out of range"))?;
        }
        // i32::MIN has one more unit below zero than i32::MAX above it.
        if v > max + i64::from(neg && max == i32::MAX as i64) {
            return Err(bad("out of range"));
        }
        Ok(if neg { -v } else { v })
    }

    fn non_negative(&self, i: usize, width: Width, what: &str) -> Result<i64, FilterError> {
        let v = self.number(i, width)?;
        if v < 0 {
            return Err(FilterError::InvalidArgument {
                at: self.arg(i).at,
                filter: self.name,
                reason: format!("{what} must not be negative (got {v})"),
            });
        }
        Ok(v)
    }

    fn op(&self, i: usize) -> Result<CompareOp, FilterError> {
        let expected = "a compare operator (<, <=, =, !=, >=, >), unquoted";
        let w = self.bare(i, expected)?;
        CompareOp::parse(w).ok_or_else(|| self.type_error(i, expected))
    }

    fn comparator(&self, i: usize) -> Result<Comparator, FilterError> {
        let spec = match &self.arg(i).value {
            ArgValue::Quoted(b) => b,
            ArgValue::Bare(_) => {
                return Err(self.type_error(i, "a quoted comparator like 'binary:abc'"))
            }
        };
        let at = self.arg(i).at;
        comparator(spec).map_err(|e| match e {
            ComparatorError::Syntax(reason) => FilterError::BadComparator { at, reason },
            ComparatorError::Regex(reason) => FilterError::BadRegex { at, reason },
        })
    }

    /// An operator at `i` and a comparator at `i + 1`; `restrict` refuses regex and substring
    /// comparators with anything but = and != (as HBase's compare filters do).
    fn op_comparator(
        &self,
        i: usize,
        restrict: bool,
    ) -> Result<(CompareOp, Comparator), FilterError> {
        let op = self.op(i)?;
        let cmp = self.comparator(i + 1)?;
        if restrict && cmp.equality_only() && !matches!(op, CompareOp::Equal | CompareOp::NotEqual)
        {
            return Err(FilterError::ComparatorOperator {
                at: self.arg(i).at,
                comparator: cmp.kind(),
                op: op.symbol(),
            });
        }
        Ok((op, cmp))
    }
}
