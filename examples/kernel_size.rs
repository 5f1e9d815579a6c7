//! Per-call time of JIT kernels against their number of operations: the
//! curve behind issue 14's "huge kernels" (straight-line code stops fitting
//! in the caches somewhere past 1e5 operations).
//!
//! ```text
//! cargo run --release --example kernel_size                 # 1e3 .. 1e6 operations
//! cargo run --release --example kernel_size -- 10000000     # up to 1e7 (minutes, GBs)
//! ```
//!
//! The programs are `testkit::scaling_program`: mostly
//! arithmetic (as Jacobians are), one operation in eight an elementary
//! function, operands mostly among the last 64 nodes. Each size is timed as
//! the fastest of several batches of calls, so load from other processes
//! only ever adds time.

use std::hint::black_box;
use std::time::{Duration, Instant};

fn main() {
    let largest: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 1_000_000,
        Some(Ok(ops)) => ops,
        Some(Err(_)) => {
            eprintln!("usage: kernel_size [LARGEST_OPS]   (a whole number, 1000000 unless given)");
            std::process::exit(2)
        }
    };
    let compiler = dstar::JitCompiler::new().expect("a supported host");
    println!(
        "{:>10} {:>8} {:>10} {:>12} {:>8} {:>14}",
        "ops", "chunks", "compile s", "ns/call", "ns/op", "two-point ns/op"
    );
    let mut ops = 1000;
    while ops <= largest {
        let (dag, outputs, n) = testkit::scaling_program(ops, 7);
        let kernel = dstar::Kernel::new(dag, outputs, n).expect("a valid kernel");
        let start = Instant::now();
        let jit = compiler.compile(&kernel).expect("compiles");
        let compile = start.elapsed().as_secs_f64();
        let x: Vec<f64> = (0..n).map(|i| 0.5 + 0.01 * i as f64).collect();
        let mut out = vec![0.0; jit.num_outputs()];
        let ns = fastest_ns(|| jit.eval(black_box(&x), black_box(&mut out)).expect("lengths"));
        let xs: Vec<f64> = [x.clone(), x.iter().map(|v| v * 1.01).collect()].concat();
        let mut outs = vec![0.0; 2 * jit.num_outputs()];
        compiler.compile_two_points(&kernel, &jit).expect("compiles");
        let pair_ns = fastest_ns(|| jit.eval_points(black_box(&xs), black_box(&mut outs)).expect("shapes"));
        println!(
            "{ops:>10} {:>8} {compile:>10.2} {ns:>12.0} {:>8.2} {:>14.2}",
            ops.div_ceil(dstar::JitCompiler::DEFAULT_CHUNK_SIZE),
            ns / ops as f64,
            pair_ns / 2.0 / ops as f64
        );
        ops *= 10;
    }
}

/// ns per call of `f`, the fastest of batches lasting about 20 ms each over about 0.5 s.
fn fastest_ns(mut f: impl FnMut()) -> f64 {
    let mut calls = 1u64;
    loop {
        let start = Instant::now();
        for _ in 0..calls {
            f();
        }
        if start.elapsed() >= Duration::from_millis(20) {
            break;
        }
        calls *= 2;
    }
    let mut best = f64::INFINITY;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(500) {
        let t = Instant::now();
        for _ in 0..calls {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / calls as f64);
    }
    best
}
