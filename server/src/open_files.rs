//! The process's open-file limit. Every region holds a file open, so the server raises its soft
//! limit to the hard one at start (as HBase's start scripts ask operators to raise `ulimit -n`)
//! and derives its region bound from what it got (`engine::region_bound`).

use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};

/// The limit before and after [`raise`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFiles {
    pub before: u64,
    pub now: u64,
}

/// Linux's ceiling for a process's open files when the hard limit is unlimited.
fn nr_open() -> u64 {
    std::fs::read_to_string("/proc/sys/fs/nr_open")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1 << 20)
}

/// Raises the soft limit on open files to the hard limit. Returns the limits before and
/// after; when the raise is refused, both are the old soft limit.
pub fn raise() -> OpenFiles {
    let lim = getrlimit(Resource::Nofile);
    let before = lim.current.unwrap_or_else(nr_open);
    let hard = lim.maximum.unwrap_or_else(nr_open);
    if hard <= before {
        return OpenFiles {
            before,
            now: before,
        };
    }
    let wanted = Rlimit {
        current: Some(hard),
        maximum: lim.maximum,
    };
    match setrlimit(Resource::Nofile, wanted) {
        Ok(()) => OpenFiles { before, now: hard },
        Err(_) => OpenFiles {
            before,
            now: before,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_reaches_the_hard_one() {
        let got = raise();
        let lim = getrlimit(Resource::Nofile);
        assert_eq!(lim.current, Some(got.now));
        assert!(got.now >= got.before);
        assert_eq!(got.now, lim.maximum.unwrap_or_else(nr_open));
    }
}
