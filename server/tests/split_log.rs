//! A region that cannot split (all its bytes in one row) is asked to split after every commit;
//! the warning must come once, not once per commit (it once logged 22,690 lines in 4 minutes).

use std::io::Write;
use std::sync::{Arc, Mutex};

use redbase::engine::*;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn an_unsplittable_region_warns_once() {
    let logs = Captured::default();
    let writer = logs.clone();
    tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .init();

    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 4 * 1024,
            ..Default::default()
        },
    )
    .unwrap();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f").max_versions(1000));
    e.create_table(d, &[]).unwrap();
    let value = vec![b'x'; 1024];
    for i in 0..40 {
        e.mutate_row(
            "t",
            RowMutation::new(b"one-row").with(Op::put_at(b"f", b"q", i + 1, &value)),
        )
        .unwrap();
        // Let the split thread answer each request before the next commit.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    e.close();
    let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    let warnings = text.matches("split skipped").count();
    assert_eq!(
        warnings, 1,
        "one warning for one unsplittable region:\n{text}"
    );
    assert!(text.contains("fewer than two rows"), "{text}");
    assert_eq!(e.regions("t").map(|r| r.len()).unwrap_or(1), 1);
}
