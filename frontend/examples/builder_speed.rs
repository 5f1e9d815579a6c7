//! Issue 27's target: building a DAG of 10^6 nodes through the [`Builder`]
//! (`Expr` handles and operators) against building the same nodes with
//! [`ExprDag`] calls directly. The two are timed in alternation, the
//! fastest of ROUNDS each, and the ratio printed.
//!
//! ```text
//! cargo run --release -p dstar-frontend --example builder_speed [NODES] [ROUNDS]
//! ```

use frontend::{Builder, ExprDag, Op};
use std::time::{Duration, Instant};

/// A residual-like program: `Σ_i (x_{i mod n} * c_i - sin(x_{(i+1) mod n}))^2`
/// in partial sums, about five nodes per term.
fn direct(terms: usize, n: usize) -> ExprDag {
    let mut dag = ExprDag::new();
    let x: Vec<_> = (0..n).map(|k| dag.input(k)).collect();
    let mut sum = dag.constant(0.0);
    for i in 0..terms {
        let c = dag.constant(1.0 + i as f64);
        let a = dag.mul(x[i % n], c);
        let s = dag.apply(Op::Sin, &[x[(i + 1) % n]]);
        let d = dag.sub(a, s);
        let two = dag.constant(2.0);
        let sq = dag.apply(Op::Pow, &[d, two]);
        sum = dag.add(sum, sq);
    }
    std::hint::black_box(sum);
    dag
}

fn built(terms: usize, n: usize) -> usize {
    let b = Builder::new();
    let x: Vec<_> = (0..n).map(|k| b.input(&format!("x{k}"))).collect();
    let mut sum = b.constant(0.0);
    for i in 0..terms {
        let d = x[i % n] * (1.0 + i as f64) - x[(i + 1) % n].sin();
        sum = sum + d.powi(2);
    }
    b.finish(&[("f", sum)]).expect("a valid program").dag.len()
}

fn timed(f: impl FnOnce() -> usize) -> (Duration, usize) {
    let start = Instant::now();
    let nodes = f();
    (start.elapsed(), nodes)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let nodes: usize = args.next().map_or(1_000_000, |s| s.parse().expect("NODES is a number"));
    let rounds: usize = args.next().map_or(5, |s| s.parse().expect("ROUNDS is a number"));
    let (terms, n) = (nodes / 5, 100);
    let mut best = [Duration::MAX; 2];
    let mut sizes = [0; 2];
    for _ in 0..rounds {
        let (t, size) = timed(|| direct(terms, n).len());
        best[0] = best[0].min(t);
        sizes[0] = size;
        let (t, size) = timed(|| built(terms, n));
        best[1] = best[1].min(t);
        sizes[1] = size;
    }
    assert_eq!(sizes[0], sizes[1], "the same DAG both ways");
    println!(
        "{} nodes: ExprDag {:.1} ms, Builder {:.1} ms, ratio {:.3} (fastest of {rounds})",
        sizes[0],
        best[0].as_secs_f64() * 1e3,
        best[1].as_secs_f64() * 1e3,
        best[1].as_secs_f64() / best[0].as_secs_f64()
    );
}
