//! Split keys for `create ... {NUMREGIONS => n, SPLITALGO => ...}`, computed as HBase's
//! `RegionSplitter` computes them, so a table pre-split here has HBase's boundaries.

/// `n` regions need `n - 1` split keys.
pub fn split_keys(algo: &str, n: i64) -> Result<Vec<Vec<u8>>, String> {
    if n < 2 {
        return Err("Number of regions must be greater than 1".into());
    }
    match algo {
        "HexStringSplit" | "org.apache.hadoop.hbase.util.RegionSplitter.HexStringSplit" => {
            hex_string(n)
        }
        "UniformSplit" | "org.apache.hadoop.hbase.util.RegionSplitter.UniformSplit" => {
            Ok(uniform(n))
        }
        "DecimalStringSplit" => Err(
            "SPLITALGO DecimalStringSplit is not supported (HexStringSplit, UniformSplit)".into(),
        ),
        other => Err(format!(
            "unknown SPLITALGO '{other}' (HexStringSplit, UniformSplit)"
        )),
    }
}

/// HexStringSplit: the range 00000000..=FFFFFFFF in `n` equal steps (the last region takes
/// the remainder), each boundary as 8 lower-case hex digits.
fn hex_string(n: i64) -> Result<Vec<Vec<u8>>, String> {
    let range: u64 = 1 << 32;
    let n = u64::try_from(n).map_err(|_| "NUMREGIONS out of range".to_string())?;
    if n > range {
        return Err(format!(
            "split granularity ({n}) is greater than the range ({range})"
        ));
    }
    let step = range / n;
    Ok((1..n)
        .map(|i| format!("{:08x}", step * i).into_bytes())
        .collect())
}

/// UniformSplit: 8-byte keys from 0x00.. to 0xFF..FF (inclusive) in `n` equal steps, as
/// HBase's `Bytes.split` of that range.
fn uniform(n: i64) -> Vec<Vec<u8>> {
    let range: u128 = 1 << 64;
    let n = n as u128;
    let step = range / n;
    (1..n)
        .map(|i| ((step * i) as u64).to_be_bytes().to_vec())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_string_split() {
        let k = split_keys("HexStringSplit", 4).unwrap();
        assert_eq!(
            k,
            vec![
                b"40000000".to_vec(),
                b"80000000".to_vec(),
                b"c0000000".to_vec()
            ]
        );
        let k = split_keys("HexStringSplit", 3).unwrap();
        assert_eq!(k, vec![b"55555555".to_vec(), b"aaaaaaaa".to_vec()]);
        assert_eq!(split_keys("HexStringSplit", 15).unwrap().len(), 14);
    }

    #[test]
    fn uniform_split() {
        let k = split_keys("UniformSplit", 2).unwrap();
        assert_eq!(k, vec![vec![0x80, 0, 0, 0, 0, 0, 0, 0]]);
        let k = split_keys("UniformSplit", 3).unwrap();
        assert_eq!(k[0], vec![0x55; 8]);
        assert_eq!(k[1], vec![0xaa; 8]);
    }

    #[test]
    fn bad_requests() {
        assert!(split_keys("HexStringSplit", 1).is_err());
        assert!(split_keys("Nope", 3).unwrap_err().contains("Nope"));
    }
}
