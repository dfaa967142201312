//! The reference for the order a salted scan returns rows in. A salted table is read with one
//! scanner per bucket; the SDK merges them by the key *without* the salt field, so a salted
//! design reads like its unsalted one: `limit = 3` on `[salt][metric][Long.MAX_VALUE - ts]` is
//! the three newest points of the metric across every bucket, and a range on a component is
//! that range in value order. Bucket order (bucket 0's rows, then bucket 1's, ...) stays
//! available as an explicit option. Every SDK must agree (sdks/vectors/merge.json); the rules
//! are in docs/schema.md ("Salted scans").

use crate::keys;
use crate::model::KeyDesign;

/// How many bytes the salt takes at the start of every key (the salt byte or character, and
/// the separator after it in the separated layout); 0 for an unsalted key.
pub fn salt_width(key: &KeyDesign) -> usize {
    if key.salt.is_none() {
        return 0;
    }
    keys::salt_field(key, 0).len()
}

/// The rows of `buckets` (each bucket's rows as its scanner returns them: ascending, or
/// descending when `reversed`) in the order a scan yields them, at most `limit`.
///
/// - Merged (the default): by the key after its first `salt_width` bytes, ascending, ties (the
///   same key body under two salts, which no SDK writes) in bucket order; reversed, exactly the
///   reverse of that order.
/// - `bucket_order`: bucket 0's rows, then bucket 1's, ... (reversed: the last bucket first).
pub fn merged(
    key: &KeyDesign,
    buckets: &[Vec<Vec<u8>>],
    reversed: bool,
    bucket_order: bool,
    limit: Option<usize>,
) -> Vec<Vec<u8>> {
    let width = salt_width(key);
    let mut rows: Vec<(usize, &Vec<u8>)> = buckets
        .iter()
        .enumerate()
        .flat_map(|(b, rows)| rows.iter().map(move |r| (b, r)))
        .collect();
    if bucket_order {
        if reversed {
            rows.sort_by_key(|(b, _)| std::cmp::Reverse(*b)); // stable: each bucket keeps its order
        }
    } else {
        rows.sort_by(|(ba, a), (bb, b)| {
            let body = |r: &[u8]| r.get(width..).unwrap_or(&[]).to_vec();
            body(a).cmp(&body(b)).then(ba.cmp(bb))
        });
        if reversed {
            rows.reverse();
        }
    }
    rows.into_iter()
        .take(limit.unwrap_or(usize::MAX))
        .map(|(_, r)| r.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Component, Layout, Salt, SaltForm};

    fn events() -> KeyDesign {
        KeyDesign {
            table: "events".into(),
            layout: Layout::Separated { separator: '-' },
            components: Vec::<Component>::new(),
            hash: None,
            salt: Some(Salt {
                buckets: 3,
                form: SaltForm::Char {
                    alphabet: "abc".into(),
                },
            }),
        }
    }

    fn rows(rs: &[&str]) -> Vec<Vec<u8>> {
        rs.iter().map(|r| r.as_bytes().to_vec()).collect()
    }

    #[test]
    fn merged_by_the_key_without_the_salt_ties_in_bucket_order() {
        let key = events();
        assert_eq!(salt_width(&key), 2);
        let buckets = [rows(&["a-2", "a-5"]), rows(&["b-1", "b-5"]), rows(&["c-3"])];
        let got = merged(&key, &buckets, false, false, None);
        assert_eq!(got, rows(&["b-1", "a-2", "c-3", "a-5", "b-5"]));
        let back: Vec<Vec<Vec<u8>>> = buckets
            .iter()
            .map(|b| b.iter().rev().cloned().collect())
            .collect();
        let got = merged(&key, &back, true, false, Some(3));
        assert_eq!(got, rows(&["b-5", "a-5", "c-3"]));
    }

    #[test]
    fn bucket_order_concatenates_the_buckets() {
        let key = events();
        let buckets = [rows(&["a-2", "a-5"]), rows(&["b-1"]), rows(&["c-3"])];
        let got = merged(&key, &buckets, false, true, Some(3));
        assert_eq!(got, rows(&["a-2", "a-5", "b-1"]));
        let back = [rows(&["a-5", "a-2"]), rows(&["b-1"]), rows(&["c-3"])];
        let got = merged(&key, &back, true, true, None);
        assert_eq!(got, rows(&["c-3", "b-1", "a-5", "a-2"]));
    }
}
