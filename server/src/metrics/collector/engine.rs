//! The engine-wide families: commits, the page cache, the shared thread pools, splits and the
//! region bound, writes held back during rewrites and at a region's blocking size, redo logs,
//! write buffers and storage errors.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

use super::{family, EngineCollector, Labels};

impl EngineCollector {
    /// Commits, awaited writes, compactions and the page cache.
    pub(super) fn engine_work(&self, encoder: &mut DescriptorEncoder) -> std::fmt::Result {
        use prometheus_client::metrics::MetricType::{Counter as C, Gauge as G};
        let counter = |v: u64| ConstCounter::new(v);
        let e = &self.engine;
        let no_labels: Labels = Vec::new();
        family(
            encoder,
            "redbase_commits",
            "Region commits (write transactions, each carrying a group of writes)",
            None,
            [(no_labels.clone(), counter(e.commit_count()))],
            C,
        )?;
        family(
            encoder,
            "redbase_awaited_writes",
            "One-row writes whose call awaited the commit on its connection's task instead of a call thread",
            None,
            [(no_labels.clone(), counter(e.awaited_write_count()))],
            C,
        )?;
        family(
            encoder,
            "redbase_compactions",
            "Table compactions run (minor and major)",
            None,
            [(no_labels.clone(), counter(e.compaction_count()))],
            C,
        )?;
        let (cache_held, cache_files) = e.cache_held();
        for (name, help, value) in [
            (
                "redbase_cache_bytes",
                "Page cache given out to open region files (budget: redbase_cache_bytes_max)",
                cache_held,
            ),
            (
                "redbase_cache_bytes_max",
                "The page cache budget all region files share (--cache-size)",
                e.cache_budget(),
            ),
            (
                "redbase_cache_files",
                "Region files holding a part of the page cache budget",
                cache_files,
            ),
        ] {
            family(
                encoder,
                name,
                help,
                None,
                [(no_labels.clone(), ConstGauge::new(value as i64))],
                G,
            )?;
        }
        Ok(())
    }

    /// The committer and drain threads, splits and the region bound, write pressure during
    /// rewrites and at the blocking size, redo logs, write buffers and storage errors.
    pub(super) fn engine_state(&self, encoder: &mut DescriptorEncoder) -> std::fmt::Result {
        use prometheus_client::metrics::MetricType::{Counter as C, Gauge as G};
        let counter = |v: u64| ConstCounter::new(v);
        let e = &self.engine;
        let no_labels: Labels = Vec::new();
        let (live, cap) = e.commit_threads();
        family(
            encoder,
            "redbase_commit_threads",
            "Committer threads alive, shared by every region (cap: redbase_commit_threads_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(live as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_commit_threads_max",
            "The committer thread cap",
            None,
            [(no_labels.clone(), ConstGauge::new(cap as i64))],
            G,
        )?;
        let (live, cap, queued) = e.drain_threads();
        family(
            encoder,
            "redbase_write_buffer_drain_threads",
            "Background drain threads alive, shared by every region (cap: redbase_write_buffer_drain_threads_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(live as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_write_buffer_drain_threads_max",
            "The background drain thread cap",
            None,
            [(no_labels.clone(), ConstGauge::new(cap as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_write_buffer_drains_queued",
            "Background drains waiting for a thread (at most one per region)",
            None,
            [(no_labels.clone(), ConstGauge::new(queued as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_splits",
            "Region splits done",
            None,
            [(no_labels.clone(), counter(e.split_count()))],
            C,
        )?;
        family(
            encoder,
            "redbase_splits_at_tail",
            "Of the region splits, those made just past the region's greatest row because its writes appended there: nothing copied",
            None,
            [(no_labels.clone(), counter(e.tail_split_count()))],
            C,
        )?;
        family(
            encoder,
            "redbase_splits_queued",
            "Regions waiting for a size-triggered split or being split for size now",
            None,
            [(no_labels.clone(), ConstGauge::new(e.splits_queued() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_splits_skipped_at_limit",
            "Size-triggered splits not made because the server held --region-split-limit regions",
            None,
            [(no_labels.clone(), counter(e.splits_at_limit()))],
            C,
        )?;
        family(
            encoder,
            "redbase_region_split_limit",
            "Regions past which size-triggered splits stop (0: no limit)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.config().region_split_limit as i64),
            )],
            G,
        )?;
        family(
            encoder,
            "redbase_max_regions",
            "The most regions the server holds (--max-regions): tables and splits past it are refused",
            None,
            [(no_labels.clone(), ConstGauge::new(e.max_regions() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_regions_held",
            "Regions the server holds, over all tables",
            None,
            [(no_labels.clone(), ConstGauge::new(e.region_count() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_namespace_quota_refused",
            "Tables and splits refused by a namespace quota (hbase.namespace.quota.maxtables, maxregions) with --quota-enabled",
            None,
            [(no_labels.clone(), counter(e.quota_refused()))],
            C,
        )?;
        family(
            encoder,
            "redbase_regions_refused",
            "Table creations, truncations and splits refused because they would pass --max-regions",
            None,
            [(no_labels.clone(), counter(e.regions_refused()))],
            C,
        )?;
        let pressure = e.record_pressure();
        family(
            encoder,
            "redbase_rewrite_recorded_keys",
            "Keys written to regions during their split or major compaction, held for replay (bound per region: redbase_rewrite_recorded_keys_max)",
            None,
            [(no_labels.clone(), ConstGauge::new(pressure.held_keys as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_rewrite_recorded_keys_max",
            "The bound on a region's recorded keys; writers to the region wait at it",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(pressure.max_keys_per_region as i64),
            )],
            G,
        )?;
        family(
            encoder,
            "redbase_write_backpressure_waits",
            "Writes that waited because their region's rewrite held as many recorded keys as it may",
            None,
            [(no_labels.clone(), counter(pressure.waits))],
            C,
        )?;
        family(
            encoder,
            "redbase_write_backpressure_wait_seconds",
            "Seconds writes spent waiting at the recorded-key bound",
            None,
            [(
                no_labels.clone(),
                ConstCounter::new(pressure.waited.as_secs_f64()),
            )],
            C,
        )?;
        family(
            encoder,
            "redbase_region_blocking_size_bytes",
            "Stored bytes past which a region holds its writers while it splits (0: never)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(pressure.block_size as i64),
            )],
            G,
        )?;
        family(
            encoder,
            "redbase_write_size_holds",
            "Writes held because their region was over its blocking size while it split",
            None,
            [(no_labels.clone(), counter(pressure.size_waits))],
            C,
        )?;
        family(
            encoder,
            "redbase_write_size_hold_seconds",
            "Seconds writes spent held at a region's blocking size",
            None,
            [(
                no_labels.clone(),
                ConstCounter::new(pressure.size_waited.as_secs_f64()),
            )],
            C,
        )?;
        family(
            encoder,
            "redbase_write_size_refusals",
            "Writes refused (retryable, region too busy) after waiting at the blocking size",
            None,
            [(no_labels.clone(), counter(pressure.size_refused))],
            C,
        )?;
        family(
            encoder,
            "redbase_write_busy_refusals",
            "Writes refused (retryable, region too busy) after waiting the busy wait at the recorded-key bound",
            None,
            [(no_labels.clone(), counter(pressure.refused))],
            C,
        )?;
        family(
            encoder,
            "redbase_redo_log_syncs",
            "fdatasync calls of region redo logs, one per group commit holding a durable write",
            None,
            [(no_labels.clone(), counter(e.redo_log_syncs()))],
            C,
        )?;
        family(
            encoder,
            "redbase_redo_log_bytes",
            "Bytes the region redo log files take on disk (kept for reuse until a region is idle for a flush interval)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.redo_log_bytes() as i64),
            )],
            G,
        )?;
        family(
            encoder,
            "redbase_write_buffer_bytes",
            "Bytes of acknowledged writes held in region write buffers, not yet in the region files (bounded by --write-buffer-size)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.write_buffer_bytes() as i64),
            )],
            G,
        )?;
        family(
            encoder,
            "redbase_write_buffer_drains",
            "Moves of a region's write buffer into its file (at its bound, before a write that reads, at flushes, splits, compactions and backups)",
            None,
            [(no_labels.clone(), counter(e.write_buffer_drains()))],
            C,
        )?;
        family(
            encoder,
            "redbase_write_buffer_background_drains",
            "Moves of a region's write buffer into its file that did not hold its writes (past its soft bound, the first step of a flush)",
            None,
            [(
                no_labels.clone(),
                counter(e.write_buffer_background_drains()),
            )],
            C,
        )?;
        family(
            encoder,
            "redbase_redo_logs_open",
            "Region redo log files held open between batches (at most 256; the others are opened for each batch)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.redo_logs_open() as i64),
            )],
            G,
        )?;
        family(
            encoder,
            "redbase_region_storage_errors",
            "Storage I/O errors (a full disk, a failing device) that took a region down until its file was reopened; one per outage",
            None,
            [(no_labels.clone(), counter(e.storage_error_count()))],
            C,
        )?;
        family(
            encoder,
            "redbase_failed_regions",
            "Regions down now after a storage I/O error, retrying to reopen their file (/readyz answers 503 while this is not 0)",
            None,
            [(
                no_labels.clone(),
                ConstGauge::new(e.failed_regions().len() as i64),
            )],
            G,
        )?;
        Ok(())
    }
}
