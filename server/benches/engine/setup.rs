//! The run's settings (environment variables) and the data: keys, values, opening and loading
//! the engine and the raw redb baselines.

use super::*;

pub(crate) struct Settings {
    pub(crate) secs: f64,
    pub(crate) rounds: usize,
    pub(crate) rows: usize,
    pub(crate) split_rows: usize,
    pub(crate) split_writers: usize,
    pub(crate) only: Option<Vec<String>>,
    pub(crate) dir: Option<PathBuf>,
    pub(crate) profile: Option<String>,
}

pub(crate) fn env_num<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| {
            eprintln!("ignoring {name}={v:?}: not a number");
            default
        }),
        Err(_) => default,
    }
}

impl Settings {
    pub(crate) fn from_env() -> Settings {
        Settings {
            secs: env_num("REDBASE_BENCH_SECS", 3.0f64).max(0.05),
            rounds: env_num("REDBASE_BENCH_ROUNDS", 5usize).max(1),
            rows: env_num("REDBASE_BENCH_ROWS", 10_000usize).max(SCAN_ROWS + 1),
            split_rows: env_num("REDBASE_BENCH_SPLIT_ROWS", 50_000usize).max(2),
            split_writers: env_num("REDBASE_BENCH_SPLIT_WRITERS", 8usize).max(1),
            only: std::env::var("REDBASE_BENCH_ONLY").ok().map(|s| {
                s.split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect()
            }),
            dir: std::env::var_os("REDBASE_BENCH_DIR").map(PathBuf::from),
            profile: std::env::var("REDBASE_BENCH_PROFILE").ok(),
        }
    }

    pub(crate) fn wants(&self, section: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|s| s == section))
    }

    pub(crate) fn round(&self) -> Duration {
        Duration::from_secs_f64(self.secs / self.rounds as f64)
    }

    pub(crate) fn tempdir(&self) -> tempfile::TempDir {
        match &self.dir {
            Some(d) => {
                std::fs::create_dir_all(d).expect("create REDBASE_BENCH_DIR");
                tempfile::tempdir_in(d).expect("tempdir")
            }
            None => tempfile::tempdir().expect("tempdir"),
        }
    }
}

// Keys and data

/// A well-mixed 64-bit hash (splitmix64's finaliser): spreads sequence numbers over the key space.
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Row key of write number `seq`: 16 hex digits, uniformly spread (so pre-split regions share
/// the load evenly).
pub(crate) fn write_key(seq: u64) -> Vec<u8> {
    format!("{:016x}", mix(seq)).into_bytes()
}

/// Row key of loaded row `i`: consecutive rows sort consecutively.
pub(crate) fn row_key(i: usize) -> Vec<u8> {
    format!("r{i:09}").into_bytes()
}

pub(crate) fn value_for(i: u64) -> Vec<u8> {
    let mut v = vec![0u8; VALUE_LEN];
    let mut x = i;
    for chunk in v.chunks_mut(8) {
        x = mix(x);
        let b = x.to_le_bytes();
        chunk.copy_from_slice(&b[..chunk.len()]);
    }
    v
}

pub(crate) fn put_mutation(row: &[u8], value: &[u8]) -> RowMutation {
    RowMutation::new(row).with(Op::put(FAMILY, QUALIFIER, value))
}

pub(crate) fn open_engine(dir: &Path, split_keys: &[Vec<u8>]) -> Engine {
    let config = EngineConfig {
        // Splits happen only where the bench asks for them.
        region_max_size: 0,
        ..EngineConfig::default()
    };
    let engine = Engine::open(dir.join("engine"), config).expect("open engine");
    let desc = TableDescriptor::new(TableName::parse(TABLE).expect("table name"))
        .with_family(FamilyDescriptor::new(FAMILY));
    engine.create_table(desc, split_keys).expect("create table");
    engine
}

pub(crate) fn open_raw(dir: &Path, name: &str) -> Database {
    let db = Database::create(dir.join(name)).expect("create raw redb");
    let txn = db.begin_write().expect("begin_write");
    txn.open_table(RAW).expect("open table");
    txn.open_table(RAW_CELLS).expect("open table");
    txn.commit().expect("commit");
    db
}

pub(crate) fn raw_put(db: &Database, key: &[u8], value: &[u8]) {
    let txn = db.begin_write().expect("begin_write");
    {
        let mut t = txn.open_table(RAW).expect("open table");
        t.insert(key, value).expect("insert");
    }
    txn.commit().expect("commit");
}

/// Loads rows `0..n` with the same values into the engine, the raw table and the raw table in
/// the engine's format.
pub(crate) fn load(engine: &Engine, db: &Database, n: usize) {
    let ts = now_ms();
    for start in (0..n).step_by(LOAD_BATCH) {
        let end = (start + LOAD_BATCH).min(n);
        let batch: Vec<RowMutation> = (start..end)
            .map(|i| {
                RowMutation::new(&row_key(i)).with(Op::put_at(
                    FAMILY,
                    QUALIFIER,
                    ts,
                    &value_for(i as u64),
                ))
            })
            .collect();
        for r in engine.mutate_rows(TABLE, batch) {
            r.expect("load row");
        }
        let txn = db.begin_write().expect("begin_write");
        {
            let mut raw = txn.open_table(RAW).expect("open table");
            let mut cells = txn.open_table(RAW_CELLS).expect("open table");
            for i in start..end {
                let row = row_key(i);
                let value = value_for(i as u64);
                raw.insert(row.as_slice(), value.as_slice())
                    .expect("insert");
                let key = keys::encode(&row, keys::KIND_COLUMN, QUALIFIER, ts, CellType::Put);
                let stored = keys::encode_value(&value, None);
                cells
                    .insert(key.as_slice(), stored.as_slice())
                    .expect("insert");
            }
        }
        txn.commit().expect("commit");
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
