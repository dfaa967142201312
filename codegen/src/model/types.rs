//! The scalar types of columns, qualifier parts and key components.

use serde::{Serialize, Serializer};

/// A column or key type, named in schemas as shown by `name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    String,
    Bytes,
    I32,
    I64,
    F32,
    F64,
    Bool,
    Json,
    TimestampMs,
    Counter,
}

impl ScalarType {
    pub const ALL: [ScalarType; 10] = [
        ScalarType::String,
        ScalarType::Bytes,
        ScalarType::I32,
        ScalarType::I64,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::Bool,
        ScalarType::Json,
        ScalarType::TimestampMs,
        ScalarType::Counter,
    ];

    /// The schema spelling.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::String => "string",
            ScalarType::Bytes => "bytes",
            ScalarType::I32 => "i32",
            ScalarType::I64 => "i64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
            ScalarType::Bool => "bool",
            ScalarType::Json => "json",
            ScalarType::TimestampMs => "timestamp-ms",
            ScalarType::Counter => "counter",
        }
    }

    pub fn parse(s: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|t| t.name() == s)
    }

    /// Integer-valued types (held as i64 in the reference implementation).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            ScalarType::I32 | ScalarType::I64 | ScalarType::TimestampMs | ScalarType::Counter
        )
    }
}

impl Serialize for ScalarType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}
