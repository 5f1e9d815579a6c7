//! Several functions timed under the same machine load.

use std::time::{Duration, Instant};

/// A timed function: makes as many calls as it is told and returns how
/// long they took in ns (measured where the calls run: in this process or
/// in a child that times itself).
pub type Timed<'a> = Box<dyn FnMut(u64) -> f64 + 'a>;

/// Calls per timed batch so that one batch of `f` lasts about 1 ms.
fn batch_size(f: &mut dyn FnMut(u64) -> f64) -> u64 {
    let mut calls = 1;
    loop {
        if f(calls) >= 1e6 || calls >= 1 << 40 {
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
    let mut timed: Vec<Timed<'_>> = fs
        .iter_mut()
        .map(|f| -> Timed<'_> {
            Box::new(move |calls| {
                let start = Instant::now();
                f(calls);
                start.elapsed().as_nanos() as f64
            })
        })
        .collect();
    alternating_timed(budget, &mut timed)
}

/// [`alternating_ns`] for functions that time themselves (kernels served
/// by child processes, each of which times its own batch).
pub fn alternating_timed(budget: Duration, fs: &mut [Timed<'_>]) -> Vec<f64> {
    let calls: Vec<u64> = fs.iter_mut().map(|f| batch_size(f.as_mut())).collect();
    let mut best = vec![f64::INFINITY; fs.len()];
    let start = Instant::now();
    while start.elapsed() < budget || best.iter().any(|b| b.is_infinite()) {
        for ((f, &n), best) in fs.iter_mut().zip(&calls).zip(&mut best) {
            *best = best.min(f(n) / n as f64);
        }
    }
    best
}
