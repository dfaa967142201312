//! Values of command-line flags checked when the command line is parsed, so a mistyped address
//! or size is refused before anything starts, with what was expected: addresses as
//! `HOST:PORT`, sizes as a number with an optional unit (`512MiB`, `1GB`, `10g`). Every address
//! and size flag of every subcommand goes through these, so they all read the same way.

/// What `--help` says once per command about sizes.
pub const SIZE_HELP: &str = "Sizes are bytes, or a number with a unit (case-insensitive): \
KB, MB, GB, TB are powers of 1000; KiB, MiB, GiB, TiB and K, M, G, T powers of 1024 \
(e.g. 512MiB, 1GB, 10g, 1.5GiB).";

/// A listening or connecting address, `HOST:PORT`: HOST a name, an IPv4 address or a bracketed
/// IPv6 address (`[::1]:9090`), PORT a number up to 65535 (0 = any free port where the server
/// binds). The text is kept as given; only its shape is checked here (names resolve later).
pub fn address(s: &str) -> Result<String, String> {
    let t = s.trim();
    let expected = |why: &str| {
        let hint = if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            format!(
                " (a port alone: did you mean 127.0.0.1:{t}, or 0.0.0.0:{t} for every interface?)"
            )
        } else {
            String::new()
        };
        Err(format!(
            "expected HOST:PORT, e.g. 127.0.0.1:9090 or [::1]:9090, got {t:?}: {why}{hint}"
        ))
    };
    if t.contains("://") {
        return expected("no scheme (http://) here, only the host and port");
    }
    let Some((host, port)) = t.rsplit_once(':') else {
        return expected("no port");
    };
    if host.is_empty() {
        return expected("no host");
    }
    if let Some(inner) = host.strip_prefix('[') {
        match inner.strip_suffix(']') {
            Some(ip) if ip.parse::<std::net::Ipv6Addr>().is_ok() => {}
            _ => return expected("not an IPv6 address in brackets"),
        }
    } else if host.contains(':') {
        return expected("an IPv6 address needs brackets");
    } else if !host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
    {
        return expected("the host is not a name or an address");
    }
    if port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) || port.parse::<u16>().is_err()
    {
        return expected("the port must be a number from 0 to 65535");
    }
    Ok(t.to_string())
}

/// A size in bytes: a whole or decimal number with an optional unit (see [`SIZE_HELP`]);
/// fractions of a byte round down.
pub fn size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = |why: &str| {
        Err(format!(
            "invalid size {t:?}: {why}; expected bytes or a number with a unit: KB, MB, GB, TB \
             (powers of 1000), KiB, MiB, GiB, TiB or K, M, G, T (powers of 1024), e.g. 512MiB"
        ))
    };
    let digits_end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits_end);
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() || frac.contains('.') || (number.contains('.') && frac.is_empty()) {
        return bad("no number");
    }
    let multiplier: u128 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1000,
        "mb" => 1000_u128.pow(2),
        "gb" => 1000_u128.pow(3),
        "tb" => 1000_u128.pow(4),
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        _ => return bad("unknown unit"),
    };
    if frac.len() > 9 {
        return bad("more than 9 decimals");
    }
    let Ok(whole) = whole.parse::<u128>() else {
        return bad("too large");
    };
    let scale = 10_u128.pow(frac.len() as u32);
    let frac: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().unwrap_or(0)
    };
    let bytes = whole
        .checked_mul(multiplier)
        .and_then(|w| w.checked_add(frac * multiplier / scale));
    match bytes.and_then(|b| u64::try_from(b).ok()) {
        Some(b) => Ok(b),
        None => bad("too large"),
    }
}

/// [`size`] as a `usize`.
pub fn size_usize(s: &str) -> Result<usize, String> {
    let n = size(s)?;
    usize::try_from(n).map_err(|_| format!("invalid size {s:?}: too large for this machine"))
}

/// [`size`] within `min..=max` bytes.
pub fn size_within(min: u64, max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone {
    move |s: &str| {
        let n = size(s)?;
        if (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(format!(
                "{s:?} is {n} bytes; it must be from {min} to {max} bytes"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_units_in_any_case() {
        assert_eq!(size("1048576"), Ok(1 << 20));
        assert_eq!(size("1GB"), Ok(1_000_000_000));
        assert_eq!(size("1gb"), Ok(1_000_000_000));
        assert_eq!(size("10g"), Ok(10 << 30));
        assert_eq!(size("10G"), Ok(10 << 30));
        assert_eq!(size("512MiB"), Ok(512 << 20));
        assert_eq!(size("512 mib"), Ok(512 << 20));
        assert_eq!(size("64k"), Ok(64 << 10));
        assert_eq!(size("64KB"), Ok(64_000));
        assert_eq!(size("1.5GiB"), Ok(3 << 29));
        assert_eq!(size("2TB"), Ok(2_000_000_000_000));
        assert_eq!(size("0"), Ok(0));
        assert_eq!(size("7b"), Ok(7));
        assert_eq!(size(" 3 M "), Ok(3 << 20));
    }

    #[test]
    fn bad_sizes_say_what_is_expected() {
        for bad in [
            "",
            "GB",
            "1XB",
            "1.2.3MB",
            "-1",
            "1.",
            "99999999999999999999TB",
            "1e9",
        ] {
            let e = size(bad).unwrap_err();
            assert!(
                e.contains("KiB") && e.contains("invalid size"),
                "{bad}: {e}"
            );
        }
        assert!(size("20000000TiB").unwrap_err().contains("too large"));
        assert!(size_within(1, 1 << 30)("2GiB")
            .unwrap_err()
            .contains("from 1 to"));
        assert_eq!(size_within(1, 1 << 30)("1MiB"), Ok(1 << 20));
    }

    #[test]
    fn addresses_need_a_host_and_a_port() {
        for ok in [
            "127.0.0.1:9090",
            "0.0.0.0:0",
            "localhost:8080",
            "db-1.example.com:65535",
            "[::1]:9090",
            "[::]:16020",
        ] {
            assert_eq!(address(ok).as_deref(), Ok(ok));
        }
        let e = address("38390").unwrap_err();
        assert!(e.contains("expected HOST:PORT"), "{e}");
        assert!(e.contains("127.0.0.1:38390"), "{e}");
        for bad in [
            "",
            ":9090",
            "localhost",
            "localhost:",
            "localhost:http",
            "127.0.0.1:65536",
            "::1:9090",
            "[::1:9090",
            "[nope]:1",
            "host name:1",
            "http://localhost:8080",
        ] {
            let e = address(bad).unwrap_err();
            assert!(e.starts_with("expected HOST:PORT"), "{bad}: {e}");
        }
    }
}
