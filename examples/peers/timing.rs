//! Several functions timed under the same machine load.

use std::time::{Duration, Instant};

/// Calls per timed batch so that one batch of `f` lasts about 1 ms.
fn batch_size(f: &mut dyn FnMut(u64)) -> u64 {
    let mut calls = 1;
    loop {
        let start = Instant::now();
        f(calls);
        if start.elapsed() >= Duration::from_millis(1) || calls >= 1 << 40 {
            return calls;
        }
        calls *= 2;
    }
}

/// ns per call of each `f` (which makes as many calls as it is told), timed
/// in alternating batches of about 1 ms over about `budget`; the fastest
/// batch of each counts, as interference from other processes only ever
/// adds time.
pub fn alternating_ns(budget: Duration, fs: &mut [Box<dyn FnMut(u64) + '_>]) -> Vec<f64> {
    let calls: Vec<u64> = fs.iter_mut().map(|f| batch_size(f.as_mut())).collect();
    let mut best = vec![f64::INFINITY; fs.len()];
    let start = Instant::now();
    while start.elapsed() < budget || best.iter().any(|b| b.is_infinite()) {
        for ((f, &n), best) in fs.iter_mut().zip(&calls).zip(&mut best) {
            let t = Instant::now();
            f(n);
            *best = best.min(t.elapsed().as_nanos() as f64 / n as f64);
        }
    }
    best
}
