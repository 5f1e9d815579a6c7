//! Measurements for the report, not assertions on time: operation counts
//! and symbolic time on the corpus, on generated spherical harmonics and on
//! large random programs.
//!
//! `cargo run --release -p dstar-factor --example measure [corpus|sh|random_100k|random_1m]`
//! (no argument: all four).

use std::time::Instant;
use testkit::Rng;

fn corpus_operation_counts() {
    println!(
        "{:<16} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>6} {:>9} {:>8}",
        "problem", "n", "m", "function", "jacobian", "forward", "reverse", "ratio", "symbolic", "orient"
    );
    for problem in testkit::corpus() {
        let start = Instant::now();
        let program = frontend::parse_program(&problem.source).expect("parses");
        let jacobian = factor::jacobian(program.kernel().unwrap());
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let outputs = program.output_nodes();
        let forward = factor::forward_mode_ops(
            &frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), program.inputs.len()).unwrap(),
            usize::MAX,
        )
        .expect("no limit");
        let reverse = factor::reverse_mode_ops(
            &frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), program.inputs.len()).unwrap(),
            usize::MAX,
        )
        .expect("no limit");
        let name = problem.name;
        println!(
            "{:<16} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>6.3} {:>9.2} {:>8}",
            name,
            program.inputs.len(),
            outputs.len(),
            jacobian.function_ops(),
            jacobian.jacobian_ops(),
            forward,
            reverse,
            jacobian.jacobian_ops() as f64 / forward.min(reverse) as f64,
            ms,
            jacobian.method().name(),
        );
    }
}

fn spherical_harmonics_cost_and_time() {
    for order in [10, 20, 25] {
        let (dag, outputs) = testkit::spherical_harmonics(order);
        let start = Instant::now();
        let jacobian = factor::jacobian(frontend::Kernel::new(dag.clone(), outputs.to_vec(), 3).unwrap());
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let ratio = jacobian.jacobian_ops() as f64 / jacobian.function_ops() as f64;
        println!(
            "sh order {order}: function {} jacobian {} ({ratio:.3}x), forward {}, reverse {}, symbolic {ms:.2} ms",
            jacobian.function_ops(),
            jacobian.jacobian_ops(),
            factor::forward_mode_ops(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), 3).unwrap(), usize::MAX).expect("no limit"),
            factor::reverse_mode_ops(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), 3).unwrap(), usize::MAX).expect("no limit"),
        );
    }
}

/// A random program of `ops` operations, all reached by its 10 outputs (the
/// last 10 nodes): each node applies a random operation to the previous node
/// and a random earlier one. Only the symbolic work is measured, so values
/// need not stay finite.
fn large_random(ops: usize) {
    use frontend::{ExprDag, Op};
    let mut rng = Rng::new(7);
    let mut dag = ExprDag::new();
    let mut pool: Vec<frontend::NodeId> = (0..10).map(|k| dag.input(k)).collect();
    let table = [Op::Add, Op::Sub, Op::Mul, Op::Mul, Op::Div, Op::Sin, Op::Exp, Op::Tanh, Op::Hypot, Op::Max];
    loop {
        let a = pool[pool.len() - 1];
        let b = pool[rng.below(pool.len())];
        let op = table[rng.below(table.len())];
        let node = if op.arity() == 1 {
            let t = dag.apply(op, &[a]);
            dag.mul(t, b)
        } else {
            dag.apply(op, &[a, b])
        };
        pool.push(node);
        if pool.len() % 10_000 == 0 && dag.count_ops(&pool[pool.len() - 10..]) >= ops {
            break;
        }
    }
    let outputs: Vec<frontend::NodeId> = pool[pool.len() - 10..].to_vec();
    let function_ops = dag.count_ops(&outputs);
    let start = Instant::now();
    let jacobian = factor::jacobian(frontend::Kernel::new(dag, outputs.to_vec(), 10).unwrap());
    let seconds = start.elapsed().as_secs_f64();
    let max_rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM")).map(str::to_owned))
        .unwrap_or_default();
    println!(
        "random: function {function_ops} ops, jacobian {} ops ({} nnz, {:?}), symbolic {seconds:.2} s, dag {} nodes, {max_rss}",
        jacobian.jacobian_ops(),
        jacobian.nnz(),
        jacobian.method(),
        jacobian.dag().len()
    );
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    if which.is_empty() || which == "corpus" {
        corpus_operation_counts();
    }
    if which.is_empty() || which == "sh" {
        spherical_harmonics_cost_and_time();
    }
    if which.is_empty() || which == "random_100k" {
        large_random(100_000);
    }
    if which.is_empty() || which == "random_1m" {
        large_random(1_000_000);
    }
}
