//! What can be wrong with a filter string. Every error names the byte offset (0-based) in the
//! filter string where the problem is, and says what the problem is.

use thiserror::Error;

/// A filter string that cannot be turned into a filter.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FilterError {
    #[error("at position 0: the filter string is empty")]
    Empty,
    #[error("at position {at}: unexpected {found}, expected {expected}")]
    Unexpected {
        at: usize,
        found: String,
        expected: &'static str,
    },
    #[error("at position {at}: the filter string ends here, expected {expected}")]
    UnexpectedEnd { at: usize, expected: &'static str },
    #[error("at position {at}: ')' closes no '('")]
    UnmatchedClose { at: usize },
    #[error("at position {at}: this '(' is never closed")]
    UnclosedParen { at: usize },
    #[error(
        "at position {at}: this quote is never closed (a quote inside a string is written '')"
    )]
    UnclosedQuote { at: usize },
    #[error("at position {at}: expressions nest deeper than {limit} levels")]
    TooDeep { at: usize, limit: usize },
    #[error("at position {at}: {operator} needs a filter {side}")]
    MissingOperand {
        at: usize,
        operator: &'static str,
        side: &'static str,
    },
    #[error("at position {at}: unknown filter {name:?} (filter names are case-sensitive; known: {known})")]
    UnknownFilter {
        at: usize,
        name: String,
        known: &'static str,
    },
    #[error("at position {at}: {filter} takes {expected} argument(s), got {got}")]
    ArgumentCount {
        at: usize,
        filter: &'static str,
        expected: &'static str,
        got: usize,
    },
    #[error("at position {at}: argument {index} of {filter} must be {expected}, got {found}")]
    ArgumentType {
        at: usize,
        filter: &'static str,
        index: usize,
        expected: &'static str,
        found: String,
    },
    #[error("at position {at}: {text:?} is not a valid {kind}: {reason}")]
    BadNumber {
        at: usize,
        text: String,
        kind: &'static str,
        reason: &'static str,
    },
    #[error("at position {at}: bad comparator: {reason}")]
    BadComparator { at: usize, reason: String },
    #[error(
        "at position {at}: the {comparator} comparator can only be used with = and !=, not {op}"
    )]
    ComparatorOperator {
        at: usize,
        comparator: &'static str,
        op: &'static str,
    },
    #[error("at position {at}: bad regular expression: {reason}")]
    BadRegex { at: usize, reason: String },
    #[error("at position {at}: {filter}: {reason}")]
    InvalidArgument {
        at: usize,
        filter: &'static str,
        reason: String,
    },
}

impl FilterError {
    /// The byte offset in the filter string the error points at.
    pub fn position(&self) -> usize {
        match self {
            FilterError::Empty => 0,
            FilterError::Unexpected { at, .. }
            | FilterError::UnexpectedEnd { at, .. }
            | FilterError::UnmatchedClose { at }
            | FilterError::UnclosedParen { at }
            | FilterError::UnclosedQuote { at }
            | FilterError::TooDeep { at, .. }
            | FilterError::MissingOperand { at, .. }
            | FilterError::UnknownFilter { at, .. }
            | FilterError::ArgumentCount { at, .. }
            | FilterError::ArgumentType { at, .. }
            | FilterError::BadNumber { at, .. }
            | FilterError::BadComparator { at, .. }
            | FilterError::ComparatorOperator { at, .. }
            | FilterError::BadRegex { at, .. }
            | FilterError::InvalidArgument { at, .. } => *at,
        }
    }
}
