//! Timing kernels: the median of many short batches, robust to noise.

use std::time::{Duration, Instant};

/// Median nanoseconds per call of `f`, over batches lasting at least 0.2 s in
/// all, after a warm-up.
pub fn median_ns(mut f: impl FnMut()) -> f64 {
    let warm = Instant::now();
    let mut calls_per_batch = 1usize;
    while warm.elapsed() < Duration::from_millis(20) {
        for _ in 0..calls_per_batch {
            f();
        }
        calls_per_batch *= 2;
    }
    // Batches of about 1 ms each, so timer overhead is negligible.
    let per_call = warm.elapsed().as_secs_f64() / (2 * calls_per_batch - 1) as f64;
    let batch = ((1e-3 / per_call.max(1e-9)) as usize).max(1);
    let mut samples = vec![];
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(200) || samples.len() < 11 {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        samples.push(t.elapsed().as_secs_f64() * 1e9 / batch as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
