//! FuzzyRowFilter (serialized filters only): rows whose key matches one of several
//! (key, mask) pairs, where the mask says which bytes are fixed and which may be anything.
//!
//! HBase preprocesses masks into a bit mask: a fixed byte becomes 0xFF (the row's byte must
//! equal the key's), a free byte 0x00 (and the key's byte there becomes 0). Clients send masks
//! as 0 = fixed, 1 = free, and HBase 2's client marks them `is_mask_v2`; a mask already in
//! HBase's processed form is taken as it is. With `is_mask_v2` (read as HBase 2.6 does) 0 and
//! 0xFF are fixed, 1 and 2 free. Without it (HBase 1's legacy form) a mask made only of 0 and
//! 0xFF counts as processed, so its 0s are free; otherwise 0 and 0xFF are fixed and 1 free.
//! Other mask bytes make HBase mask with stray bits (which shift between calls): refused.
//!
//! As in HBase on JVMs with unaligned Unsafe access (its hot path compares word by word over
//! the shorter of row and key), a longer row matches on its first key-length bytes, and a row
//! shorter than a key matches when its bytes match the key's fixed bytes (if the scan reaches
//! it: HBase's hints may jump over such rows). Rows that match no pair are dropped by key, with
//! HBase's next-candidate computation as a seek hint; reversed, with free bytes counted from
//! 0xFF down as HBASE-28634 fixed it (HBase 2.6.1 skips matching rows there). The scan ends
//! once no pair can match a later row.

use super::eval::{Code, HFilter};
use crate::engine::Cell;

/// One (key, mask) pair, preprocessed: `mask[i]` is 0xFF where the row's byte must equal
/// `key[i]`, 0 where any byte will do (and `key[i]` is 0 there).
#[derive(Clone)]
struct Rule {
    key: Vec<u8>,
    mask: Vec<u8>,
}

impl Rule {
    fn satisfied_by(&self, row: &[u8]) -> bool {
        row.iter()
            .zip(&self.mask)
            .zip(&self.key)
            .all(|((&r, &m), &k)| r & m == k)
    }

    /// HBase's `getNextForFuzzyRule`: the next row key in scan order, after `row`, that may
    /// match, or None when none can. Reversed, the returned key is a prefix every candidate
    /// row starts with.
    fn next_candidate(&self, row: &[u8], reversed: bool) -> Option<Vec<u8>> {
        let (key, mask) = (&self.key, &self.mask);
        let at = |i: usize| row.get(i).copied().unwrap_or(0);
        let (max, min) = if reversed { (0x00, 0xFF) } else { (0xFF, 0x00) };
        let mut result = key.clone();
        result.resize(row.len().max(key.len()), if reversed { 0xFF } else { 0 });
        if reversed {
            // Free bytes start at the top going down (HBase 2.6.1 leaves them 0 and so skips
            // matching rows in reversed scans; HBASE-28634 fixed it the same way).
            for (r, &m) in result.iter_mut().zip(mask) {
                if m == 0 {
                    *r = 0xFF;
                }
            }
        }
        let before = |a: u8, b: u8| if reversed { a > b } else { a < b };
        let mut to_inc: Option<usize> = None;
        let mut increased = false;
        for i in 0..result.len() {
            if i >= mask.len() || mask[i] == 0 {
                result[i] = at(i);
                if at(i) != max {
                    to_inc = Some(i);
                }
            } else if mask[i] == 0xFF {
                if before(at(i), key[i]) {
                    increased = true;
                    break;
                }
                if before(key[i], at(i)) {
                    break;
                }
            }
        }
        if !increased {
            let inc = to_inc?;
            result[inc] = if reversed {
                result[inc] - 1
            } else {
                result[inc] + 1
            };
            for i in inc + 1..result.len() {
                if i >= mask.len() || mask[i] == 0 {
                    result[i] = min;
                }
            }
        }
        // Free positions past the last fixed one (and past the incremented byte) are dropped.
        let last_fixed = mask[..mask.len().min(result.len())]
            .iter()
            .rposition(|&m| m != 0);
        let keep = match (last_fixed, to_inc) {
            (Some(f), Some(t)) => f.max(t) + 1,
            (Some(f), None) => f + 1,
            (None, Some(t)) => t + 1,
            (None, None) => 0,
        };
        result.truncate(keep);
        Some(result)
    }
}

/// HBase's FuzzyRowFilter.
#[derive(Clone)]
pub struct FuzzyRow {
    rules: Vec<Rule>,
    reversed: bool,
    filter_row: bool,
    done: bool,
    /// The seek target computed when the current row was dropped.
    hint: Option<Vec<u8>>,
}

impl FuzzyRow {
    /// Builds the filter from (key, mask) pairs as the wire carries them, with the mask form
    /// `is_mask_v2` names; the error says which pair is wrong.
    pub fn new(pairs: Vec<(Vec<u8>, Vec<u8>)>, mask_v2: bool) -> Result<FuzzyRow, String> {
        let mut rules = Vec::new();
        for (i, (mut key, raw)) in pairs.into_iter().enumerate() {
            if key.len() != raw.len() {
                return Err(format!(
                    "fuzzy pair {} has a key of {} bytes and a mask of {} bytes; they must be \
                     the same length",
                    i + 1,
                    key.len(),
                    raw.len()
                ));
            }
            // The legacy form's processed masks use 0 for a free byte.
            let legacy_processed = !mask_v2 && raw.iter().all(|&m| m == 0 || m == 0xFF);
            let mut mask = Vec::with_capacity(raw.len());
            for (j, &m) in raw.iter().enumerate() {
                let fixed = match m {
                    0 => !legacy_processed,
                    0xFF => true,
                    1 => false,
                    2 if mask_v2 => false,
                    other => {
                        return Err(format!(
                            "fuzzy pair {}: mask byte {} is {other:#04x}; a mask byte is 0 \
                             (fixed) or 1 (any byte){}",
                            i + 1,
                            j,
                            if mask_v2 {
                                ", or processed: 0xFF (fixed) or 2 (any byte)"
                            } else {
                                ""
                            }
                        ))
                    }
                };
                if fixed {
                    mask.push(0xFF);
                } else {
                    mask.push(0);
                    key[j] = 0;
                }
            }
            rules.push(Rule { key, mask });
        }
        Ok(FuzzyRow {
            rules,
            reversed: false,
            filter_row: false,
            done: false,
            hint: None,
        })
    }

    /// Where the scan may jump after `row`: `Err(())` when no rule can match a later row,
    /// `Ok(None)` when one may but no jump is safe. Forward, the nearest rule's candidate (the
    /// first row that may match). Reversed, each candidate is a prefix every such row starts
    /// with, so the rows below its successor are kept; the highest successor bounds them all.
    /// (HBase 2.6.1 seeks to the candidate itself and so can skip longer matching rows in a
    /// reversed scan, HBASE-28634.)
    fn next_row(&self, row: &[u8]) -> Result<Option<Vec<u8>>, ()> {
        let mut candidates = self
            .rules
            .iter()
            .filter_map(|r| r.next_candidate(row, self.reversed))
            .peekable();
        if candidates.peek().is_none() {
            return Err(());
        }
        if !self.reversed {
            return Ok(candidates.min());
        }
        let mut bound = Vec::new();
        for c in candidates {
            let succ = crate::engine::read::prefix_successor(&c);
            if succ.is_empty() {
                // A prefix of only 0xFF bytes: its rows reach the end of the key space.
                return Ok(None);
            }
            bound = bound.max(succ);
        }
        Ok(Some(bound))
    }
}

impl HFilter for FuzzyRow {
    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.done {
            return true;
        }
        if self.rules.iter().any(|r| r.satisfied_by(row)) {
            self.hint = None;
            return false;
        }
        self.filter_row = true;
        match self.next_row(row) {
            Ok(hint) => self.hint = hint,
            Err(()) => {
                self.hint = None;
                self.done = true;
            }
        }
        true
    }

    fn filter_cell(&mut self, _cell: &Cell) -> Code {
        if self.filter_row || self.done {
            Code::SeekNextUsingHint
        } else {
            Code::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row || self.done
    }

    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn row_hint(&self, row: &[u8]) -> Option<Vec<u8>> {
        super::eval::hint_past(self.hint.as_ref(), row, self.reversed)
    }

    fn reset(&mut self) {
        self.filter_row = false;
    }

    fn set_reversed(&mut self, reversed: bool) {
        self.reversed = reversed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(key: &[u8], mask: &[u8]) -> FuzzyRow {
        FuzzyRow::new(vec![(key.to_vec(), mask.to_vec())], true).unwrap()
    }

    #[test]
    fn masks_in_both_forms_mean_the_same() {
        let a = rule(b"??_99", &[1, 1, 0, 0, 0]);
        let b = rule(b"??_99", &[2, 2, 0xFF, 0xFF, 0xFF]);
        for f in [a, b] {
            assert!(f.rules[0].satisfied_by(b"ab_99"));
            assert!(f.rules[0].satisfied_by(b"zz_99tail"));
            assert!(!f.rules[0].satisfied_by(b"ab_98"));
            // Shorter rows match on the bytes they have, as in HBase.
            assert!(f.rules[0].satisfied_by(b"ab_"));
        }
        assert!(FuzzyRow::new(vec![(b"a".to_vec(), vec![5])], true).is_err());
        assert!(FuzzyRow::new(vec![(b"ab".to_vec(), vec![0])], true).is_err());
        // The legacy form: all 0s is a processed mask of free bytes; 2 is refused.
        let legacy = FuzzyRow::new(vec![(b"ab".to_vec(), vec![0, 0])], false).unwrap();
        assert!(legacy.rules[0].satisfied_by(b"zz"));
        let legacy = FuzzyRow::new(vec![(b"ab".to_vec(), vec![0, 1])], false).unwrap();
        assert!(legacy.rules[0].satisfied_by(b"az") && !legacy.rules[0].satisfied_by(b"zb"));
        assert!(FuzzyRow::new(vec![(b"a".to_vec(), vec![2])], false).is_err());
    }

    #[test]
    fn next_candidates_follow_hbase() {
        let f = rule(&[0, 0, 1, 0], &[1, 1, 0, 1]);
        // Worked by hand from HBase's getNextForFuzzyRule.
        let next = |row: &[u8]| f.rules[0].next_candidate(row, false);
        assert_eq!(next(&[0, 0, 0, 0]), Some(vec![0, 0, 1]));
        assert_eq!(next(&[0, 1, 2, 0]), Some(vec![0, 2, 1]));
        assert_eq!(next(&[0xFF, 0xFF, 2, 0]), None);
        let back = |row: &[u8]| f.rules[0].next_candidate(row, true);
        assert_eq!(back(&[0, 1, 0, 0]), Some(vec![0, 0, 1]));
        assert_eq!(back(&[0, 0, 0, 5]), None);
    }
}
