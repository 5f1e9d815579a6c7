//! Timing for the performance reports (examples and benches, never
//! assertions of tests): two functions timed under the same machine load.

use std::time::{Duration, Instant};

/// Calls per timed batch so that one batch of `f` lasts about 1 ms.
fn batch_size(mut f: impl FnMut()) -> u64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed() < Duration::from_millis(1) {
        f();
        calls += 1;
    }
    calls
}

/// ns per call of `f` and of `g`, timed in alternating batches over about
/// `budget` so both see the same machine load; the fastest batch of each
/// counts, as interference from other processes only ever adds time.
pub fn paired_ns_per_call(budget: Duration, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let (nf, ng) = (batch_size(&mut f), batch_size(&mut g));
    let (mut best_f, mut best_g) = (f64::INFINITY, f64::INFINITY);
    let start = Instant::now();
    while start.elapsed() < budget {
        let t = Instant::now();
        for _ in 0..nf {
            f();
        }
        best_f = best_f.min(t.elapsed().as_nanos() as f64 / nf as f64);
        let t = Instant::now();
        for _ in 0..ng {
            g();
        }
        best_g = best_g.min(t.elapsed().as_nanos() as f64 / ng as f64);
    }
    (best_f, best_g)
}

/// This process's peak resident set (`VmHWM` of `/proc/self/status`) in kB,
/// 0 where there is none: the memory column of the reports.
pub fn peak_resident_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
