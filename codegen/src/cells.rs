//! The reference encodings of what a cell holds besides its row key (`keys`): the qualifier of a
//! pattern column, and values, identical to Java HBase's `org.apache.hadoop.hbase.util.Bytes`
//! so that cells written by existing Java applications read back correctly:
//! i32 4 bytes and i64 / timestamp-ms / counter 8 bytes, big-endian two's complement; f32 / f64
//! IEEE-754 big-endian; bool one byte 0xFF (true) or 0x00 (false), any non-zero byte reads as
//! true; string UTF-8; json compact UTF-8 JSON text; bytes as they are.

use crate::error::EncodeError;
use crate::model::{Qualifier, ScalarType};
use crate::typed_value::Value;

pub fn encode_value(ty: ScalarType, v: &Value) -> Result<Vec<u8>, EncodeError> {
    if !v.fits(ty) {
        return Err(EncodeError::invalid(
            "value",
            format!("{v:?} is not a {}", ty.name()),
        ));
    }
    Ok(match v {
        Value::Str(s) => s.as_bytes().to_vec(),
        Value::Bytes(b) => b.clone(),
        Value::Int(i) if ty == ScalarType::I32 => (*i as i32).to_be_bytes().to_vec(),
        Value::Int(i) => i.to_be_bytes().to_vec(),
        Value::F32(f) => f.to_bits().to_be_bytes().to_vec(),
        Value::F64(f) => f.to_bits().to_be_bytes().to_vec(),
        Value::Bool(b) => vec![if *b { 0xFF } else { 0x00 }],
        Value::Json(j) => j.to_string().into_bytes(),
    })
}

pub fn decode_value(ty: ScalarType, b: &[u8]) -> Result<Value, EncodeError> {
    let width = |n: usize| {
        if b.len() == n {
            Ok(())
        } else {
            Err(EncodeError::decode(format!(
                "a {} value is {n} bytes, got {}",
                ty.name(),
                b.len()
            )))
        }
    };
    Ok(match ty {
        ScalarType::String => {
            Value::Str(String::from_utf8(b.to_vec()).map_err(|_| EncodeError::decode("not UTF-8"))?)
        }
        ScalarType::Bytes => Value::Bytes(b.to_vec()),
        ScalarType::I32 => {
            width(4)?;
            Value::Int(i32::from_be_bytes([b[0], b[1], b[2], b[3]]) as i64)
        }
        ScalarType::I64 | ScalarType::TimestampMs | ScalarType::Counter => {
            width(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            Value::Int(i64::from_be_bytes(a))
        }
        ScalarType::F32 => {
            width(4)?;
            Value::F32(f32::from_bits(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
        }
        ScalarType::F64 => {
            width(8)?;
            let mut a = [0u8; 8];
            a.copy_from_slice(b);
            Value::F64(f64::from_bits(u64::from_be_bytes(a)))
        }
        ScalarType::Bool => {
            width(1)?;
            Value::Bool(b[0] != 0)
        }
        ScalarType::Json => Value::Json(
            serde_json::from_slice(b).map_err(|e| EncodeError::decode(format!("not JSON: {e}")))?,
        ),
    })
}

/// The qualifier of a pattern column for one part: `prefix` + part text + `suffix`, the part
/// as UTF-8 or as a decimal (zero-padded to `part_width`, which needs a non-negative value).
pub fn pattern_qualifier(q: &Qualifier, part: &Value) -> Result<Vec<u8>, EncodeError> {
    let Qualifier::Pattern {
        prefix,
        part_type,
        part_width,
        suffix,
        part_name,
    } = q
    else {
        return Err(EncodeError::invalid("qualifier", "not a pattern"));
    };
    let text = match (part, part_width) {
        (Value::Str(s), _) if *part_type == ScalarType::String => s.clone(),
        (Value::Int(i), None) if part.fits(*part_type) => i.to_string(),
        (Value::Int(i), Some(w)) if part.fits(*part_type) => {
            let t = format!("{:0width$}", i, width = *w as usize);
            if *i < 0 || t.len() > *w as usize {
                return Err(EncodeError::invalid(
                    part_name,
                    format!("{i} does not fit {w} zero-padded digits"),
                ));
            }
            t
        }
        _ => {
            return Err(EncodeError::invalid(
                part_name,
                format!("{part:?} is not a {}", part_type.name()),
            ))
        }
    };
    Ok(format!("{prefix}{text}{suffix}").into_bytes())
}
