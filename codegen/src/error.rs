//! Errors: every schema problem names the file, the line and column, and the field path, so a
//! user can jump straight to it.

use std::fmt;
use std::path::PathBuf;

/// A schema that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The schema file.
    pub file: PathBuf,
    /// 1-based line (0 when the problem has no position, e.g. an unreadable file).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The field, as a path like `tables.access_logs.key.components[1].hash`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SchemaError {}

/// Everything `redbase codegen` can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CodegenError {
    /// One or more schema errors (all of them, not just the first).
    #[error("{}", join_errors(.0))]
    Schema(Vec<SchemaError>),
    /// A template failed to render (a bug in a template or its context).
    #[error("template {template}: {message}")]
    Template { template: String, message: String },
    /// Reading or writing files.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Invalid options (unknown language, conflicting package names).
    #[error("{0}")]
    Usage(String),
}

fn join_errors(errors: &[SchemaError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A value that cannot be encoded or decoded under a table's key or column rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The value does not fit the declared rule (width, charset, sign, ...).
    #[error("component {component}: {message}")]
    Invalid { component: String, message: String },
    /// The bytes are not a key (or value) of this shape.
    #[error("cannot decode: {0}")]
    Decode(String),
}

impl EncodeError {
    pub(crate) fn invalid(component: &str, message: impl Into<String>) -> Self {
        EncodeError::Invalid {
            component: component.to_string(),
            message: message.into(),
        }
    }
    pub(crate) fn decode(message: impl Into<String>) -> Self {
        EncodeError::Decode(message.into())
    }
}
