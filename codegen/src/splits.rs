//! The splits stage: split keys derived from the key design, so pre-split regions line up with
//! where keys land. It runs on the validated model (see `load`).

use crate::model::{HashForm, KeyDesign, Model};

/// Gives every table whose schema has no split keys those of its key design.
pub fn derive_missing(model: &mut Model) {
    for t in model.tables.iter_mut().filter(|t| t.splits_derived) {
        t.splits = derive(&t.key);
    }
}

/// One region per salt bucket; else 16 regions on the first hex character (`'1'..='f'`) or the
/// first byte's high nibble (`0x10..=0xf0`) of a hash prefix; else none.
pub fn derive(key: &KeyDesign) -> Vec<Vec<u8>> {
    if let Some(s) = &key.salt {
        return (1..s.buckets)
            .map(|b| {
                let mut f = crate::keys::salt_field(key, b);
                f.truncate(1);
                f
            })
            .collect();
    }
    match key.hash.as_ref().map(|h| h.form) {
        Some(HashForm::HexChars(_)) => b"123456789abcdef".iter().map(|c| vec![*c]).collect(),
        Some(HashForm::Bytes(_)) => (1..16u8).map(|n| vec![n << 4]).collect(),
        None => Vec::new(),
    }
}
