//! The split pause: writers running through a split of the region they write to.

use super::*;

/// Latencies of every put a writer run made: (start offset from the run's start, latency).
pub(crate) fn timed_writers(
    engine: &Engine,
    writers: usize,
    rows: usize,
    seq: &AtomicU64,
    d: Duration,
    during: impl FnOnce(Instant),
) -> (Vec<(Duration, Duration)>, Duration) {
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(writers + 1);
    let samples = Mutex::new(Vec::new());
    let value = value_for(3);
    let start = std::thread::scope(|s| {
        for _ in 0..writers {
            let (stop, barrier, samples, value) = (&stop, &barrier, &samples, &value);
            s.spawn(move || {
                barrier.wait();
                let begin = Instant::now();
                let mut mine = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let i = mix(seq.fetch_add(1, Ordering::Relaxed)) % rows as u64;
                    let row = row_key(i as usize);
                    let t0 = Instant::now();
                    engine
                        .mutate_row(TABLE, put_mutation(&row, value))
                        .expect("put");
                    mine.push((t0 - begin, t0.elapsed()));
                }
                samples.lock().expect("samples").append(&mut mine);
            });
        }
        barrier.wait();
        let start = Instant::now();
        during(start);
        let left = d.saturating_sub(start.elapsed());
        std::thread::sleep(left);
        stop.store(true, Ordering::Relaxed);
        start
    });
    (samples.into_inner().expect("samples"), start.elapsed())
}

pub(crate) fn latency_summary(samples: &[(Duration, Duration)]) -> (Duration, Duration, Duration) {
    let mut l: Vec<Duration> = samples.iter().map(|s| s.1).collect();
    l.sort();
    let at = |q: f64| {
        l.get(((l.len() as f64 * q) as usize).min(l.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    (at(0.5), at(0.99), l.last().copied().unwrap_or_default())
}

pub(crate) fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Split pause: writers run through a split of the region they write to.
pub(crate) fn bench_split(settings: &Settings, report: &mut Report) {
    let dir = settings.tempdir();
    let engine = open_engine(dir.path(), &[]);
    // `load` fills a raw redb file too; the split needs only the engine side.
    let db = open_raw(dir.path(), "raw.redb");
    let n = settings.split_rows;
    println!("loading {n} rows for the split");
    load(&engine, &db, n);
    drop(db);
    let size = engine.regions(TABLE).expect("regions")[0].size;
    let writers = settings.split_writers;
    let d = Duration::from_secs_f64(settings.secs);
    let seq = AtomicU64::new(0);

    println!("writers without a split");
    let (base, base_took) = timed_writers(&engine, writers, n, &seq, d, |_| {});
    println!("writers through a split");
    let window = Mutex::new((Duration::ZERO, Duration::ZERO, Duration::ZERO));
    let (split, split_took) = timed_writers(&engine, writers, n, &seq, d, |start| {
        std::thread::sleep(d / 4);
        let t0 = start.elapsed();
        let pause = engine
            .split_region(TABLE, &row_key(n / 2), None)
            .expect("split");
        *window.lock().expect("window") = (t0, start.elapsed(), pause);
    });
    let (w0, w1, pause) = window.into_inner().expect("window");
    let regions = engine.regions(TABLE).expect("regions").len();
    // Puts that were in flight at any time while the split ran.
    let overlapping: Vec<(Duration, Duration)> = split
        .iter()
        .copied()
        .filter(|(at, lat)| *at < w1 && *at + *lat > w0)
        .collect();
    let (b50, b99, bmax) = latency_summary(&base);
    let (s50, s99, smax) = latency_summary(&split);
    let (_, o99, omax) = latency_summary(&overlapping);
    let pauses: Vec<String> = engine.split_pauses().into_iter().map(ms).collect();
    report.note(format!(
        "split: region of {n} rows ({:.1} MB stored) split into {regions} regions with \
         {writers} writers running; split_region took {} end to end; \
         engine.split_pauses() = [{}] (returned pause {})",
        size as f64 / 1e6,
        ms(w1 - w0),
        pauses.join(", "),
        ms(pause)
    ));
    report.note(format!(
        "split: write latency without split p50 {} / p99 {} / worst {} ({:.0} puts/s); \
         run with split p50 {} / p99 {} / worst {} ({:.0} puts/s); \
         puts in flight during the split: {} (p99 {}, worst {})",
        ms(b50),
        ms(b99),
        ms(bmax),
        base.len() as f64 / base_took.as_secs_f64(),
        ms(s50),
        ms(s99),
        ms(smax),
        split.len() as f64 / split_took.as_secs_f64(),
        overlapping.len(),
        ms(o99),
        ms(omax),
    ));
    engine.close();
}
