//! The engine's settings ([`EngineConfig`]) and their defaults.

use std::time::Duration;

use super::{cache, region_bound, StorageFaults};

/// Engine settings a deployment may change.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// A region whose stored bytes pass this splits in two (0 = never split by size).
    pub region_max_size: u64,
    /// Size-triggered splits stop while the engine holds this many regions (0 = no limit), as
    /// HBase's `hbase.regionserver.regionSplitLimit` (also 1,000) stops them: every region is
    /// an open file with a floor of cache ([`cache::MIN_SHARE`]), so the count needs a bound.
    /// Splits asked for by hand are not limited.
    pub region_split_limit: usize,
    /// The most regions the engine holds ([`region_bound`]): a table that would take it past
    /// this is refused, and no split makes more. Regions already on disk always open.
    pub max_regions: usize,
    /// Enforce namespace quotas (HBase's `hbase.quota.enabled`, off by default there too):
    /// see [`namespace_quota`](super::namespace_quota).
    pub quota_enabled: bool,
    /// The largest value one cell may hold.
    pub max_value_size: usize,
    /// Threads that commit writes, shared by every region (a region holds none of its own).
    pub commit_threads: usize,
    /// For tests: a switch that makes region files' writes fail as on a full disk.
    pub storage_faults: Option<StorageFaults>,
    /// Bytes of page cache shared by every region file ([`cache`]).
    pub cache_size: usize,
    /// How often a region with non-durable (`ASYNC_WAL`, `SKIP_WAL`) commits since its last
    /// durable one gets a durable commit: the most such writes a power loss can take
    /// ([`redo`](super::store::redo)). A process crash loses none of them whatever this is.
    pub async_flush: Duration,
    /// Catch-up rounds a split or major compaction runs with writes going freely before it
    /// holds writers back in short slices (`regions::catch_up`); 0 throttles at once (tests).
    pub catch_up_free_rounds: usize,
    /// Keys written during a split or major compaction that its region may hold for replay
    /// before writers to the region wait ([`recorder`](super::writes::recorder)): the bound on a rewrite's memory.
    pub max_recorded_keys: usize,
    /// How long a writer waits at that bound before its write is refused (retryable).
    pub write_busy_wait: Duration,
    /// A region over `region_block_factor x region_max_size` bytes holds its writers while it
    /// splits (0 = never): a load faster than a split copies then slows to the split's pace
    /// instead of growing the region without limit, as HBase blocks updates to a region over
    /// `hbase.hregion.memstore.block.multiplier` times its flush size.
    pub region_block_factor: u64,
    /// How long a writer waits at the blocking size before its write is refused (retryable);
    /// long, since a split of a large region takes a while and a Thrift client cannot retry
    /// by itself the way HBase's own client does.
    pub region_block_wait: Duration,
    /// Bytes of logged writes all regions may hold in their write buffers before redb takes
    /// them ([`memtable`](super::store::memtable)); None: a quarter of `cache_size`, 4 to 128 MiB.
    pub write_buffer_size: Option<usize>,
}

impl EngineConfig {
    /// The bound on every region's write buffer together.
    pub fn write_buffer_bytes(&self) -> u64 {
        self.write_buffer_size
            .unwrap_or((self.cache_size / 4).clamp(4 << 20, 128 << 20)) as u64
    }

    /// The stored bytes past which a region being split holds its writers (0 = never).
    pub fn region_block_size(&self) -> u64 {
        self.region_max_size
            .saturating_mul(self.region_block_factor)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            region_max_size: 256 * 1024 * 1024,
            region_split_limit: 1000,
            max_regions: region_bound::DEFAULT_MAX_REGIONS,
            quota_enabled: false,
            max_value_size: 10 * 1024 * 1024,
            commit_threads: 16,
            storage_faults: None,
            cache_size: cache::default_budget(),
            async_flush: Duration::from_secs(1),
            catch_up_free_rounds: 4,
            max_recorded_keys: 256 * 1024,
            write_busy_wait: Duration::from_secs(10),
            region_block_factor: 4,
            region_block_wait: Duration::from_secs(60),
            write_buffer_size: None,
        }
    }
}
