//! Typed values as the reference implementation holds them, and their JSON form in the shared
//! test vectors (see docs/schema.md, "Test vectors").

use crate::model::ScalarType;
use serde_json::Value as Json;

/// One typed value: a key component, a column value or a qualifier part.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Bytes(Vec<u8>),
    /// i32, i64, timestamp-ms and counter.
    Int(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Json(Json),
}

impl Value {
    /// The vector form: strings as JSON strings, bytes as hex, i32 as a number, i64 /
    /// timestamp-ms / counter as a decimal string, floats as the hex of their IEEE-754 bits
    /// (big-endian), bools as JSON booleans, json as itself.
    pub fn to_json(&self, ty: ScalarType) -> Json {
        match self {
            Value::Str(s) => Json::String(s.clone()),
            Value::Bytes(b) => Json::String(crate::hex::encode(b)),
            Value::Int(i) if ty == ScalarType::I32 => Json::from(*i),
            Value::Int(i) => Json::String(i.to_string()),
            Value::F32(f) => Json::String(crate::hex::encode(&f.to_bits().to_be_bytes())),
            Value::F64(f) => Json::String(crate::hex::encode(&f.to_bits().to_be_bytes())),
            Value::Bool(b) => Json::Bool(*b),
            Value::Json(j) => j.clone(),
        }
    }

    /// Whether `self` is a value `ty` can hold (right variant, i32 range).
    pub fn fits(&self, ty: ScalarType) -> bool {
        match (self, ty) {
            (Value::Str(_), ScalarType::String) | (Value::Bytes(_), ScalarType::Bytes) => true,
            (Value::Int(i), ScalarType::I32) => i32::try_from(*i).is_ok(),
            (Value::Int(_), t) => t.is_integer(),
            (Value::F32(_), ScalarType::F32) | (Value::F64(_), ScalarType::F64) => true,
            (Value::Bool(_), ScalarType::Bool) | (Value::Json(_), ScalarType::Json) => true,
            _ => false,
        }
    }
}
