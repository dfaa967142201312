//! Tables and their regions: each table's region count, and each region's size, reads, writes
//! and commits, labelled by table, encoded region name and a bounded start key.

use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Unit;

use super::{family, EngineCollector, Labels};

impl EngineCollector {
    /// The tables of the catalog and every region's figures.
    pub(super) fn table_families(&self, encoder: &mut DescriptorEncoder) -> std::fmt::Result {
        use prometheus_client::metrics::MetricType::{Counter as C, Gauge as G};
        let counter = |v: u64| ConstCounter::new(v);
        let e = &self.engine;
        let no_labels: Labels = Vec::new();
        let mut tables = Vec::new();
        let mut regions = Vec::new();
        for name in e.list_tables() {
            let table = name.to_string();
            // An offline table has no regions to report; it counts as a table with none.
            let rs = e.regions(&table).unwrap_or_default();
            tables.push((
                vec![("table", table.clone())],
                ConstGauge::new(rs.len() as i64),
            ));
            for r in rs {
                // The start key says which part of the table the region holds, as a bounded
                // label (a region's key may be kilobytes long).
                let start_key = crate::http::status::printable_bounded(
                    &r.meta.start,
                    crate::http::status::KEY_LABEL_CHARS,
                );
                regions.push((
                    vec![
                        ("table", table.clone()),
                        ("region", r.meta.encoded_name()),
                        ("start_key", start_key),
                    ],
                    r,
                ));
            }
        }
        family(
            encoder,
            "redbase_tables",
            "Tables in the catalog",
            None,
            [(no_labels, ConstGauge::new(tables.len() as i64))],
            G,
        )?;
        family(
            encoder,
            "redbase_regions",
            "Regions of each table",
            None,
            tables,
            G,
        )?;
        let per_region = |f: fn(&crate::engine::RegionInfo) -> u64| {
            regions
                .iter()
                .map(move |(l, r)| (l.clone(), counter(f(r))))
                .collect::<Vec<_>>()
        };
        family(
            encoder,
            "redbase_region_size",
            "Bytes of keys and values stored in each region",
            Some(&Unit::Bytes),
            regions
                .iter()
                .map(|(l, r)| (l.clone(), ConstGauge::new(r.size as i64))),
            G,
        )?;
        for (name, help, f) in [
            (
                "redbase_region_reads",
                "Rows read from each region (gets and scanned rows)",
                (|r: &crate::engine::RegionInfo| r.reads) as fn(&crate::engine::RegionInfo) -> u64,
            ),
            (
                "redbase_region_writes",
                "Rows written to each region (a multi-row call counts each row)",
                |r| r.writes,
            ),
            (
                "redbase_region_read_bytes",
                "Bytes read from each region",
                |r| r.read_bytes,
            ),
            (
                "redbase_region_write_bytes",
                "Bytes written to each region",
                |r| r.write_bytes,
            ),
            ("redbase_region_commits", "Commits of each region", |r| {
                r.commits
            }),
        ] {
            family(encoder, name, help, None, per_region(f), C)?;
        }
        Ok(())
    }
}
