//! Measures the simplifier on every corpus problem (and generated spherical
//! harmonics): ops before and after, work spent and its budget, pass time,
//! D* time and their ratio.
//!
//! `cargo run --release -p dstar-factor --example simplify_measure [FILTER]`; with
//! `WORK_PER_OP=256` the budget is that many units per op instead of the
//! plan's (`WORK_PER_OP=max` for no limit).

use frontend::{ExprDag, NodeId};
use simplify::Simplifier;
use std::time::{Duration, Instant};

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    println!(
        "{:16} {:>7} {:>7} {:>7} {:>7} {:>9} {:>9} {:>6} {:>10} {:>10}  stop",
        "problem", "fn ops", "D* ops", "after", "saved", "D* ms", "pass ms", "ratio", "work", "budget"
    );
    let mut problems: Vec<(String, ExprDag, Vec<NodeId>, usize)> = Vec::new();
    for problem in testkit::corpus() {
        let (name, program) = (problem.name, problem.program);
        let outputs = program.output_nodes();
        problems.push((name, std::sync::Arc::unwrap_or_clone(program.dag), outputs, program.inputs.len()));
    }
    // The corpus' spherical harmonics, for orders the corpus does not hold.
    for order in [10, 15, 20, 25] {
        let (dag, outputs) = testkit::spherical_harmonics(order);
        problems.push((format!("gen_sh_{order}"), dag, outputs, 3));
    }
    for (name, dag, outputs, num_inputs) in problems {
        if !name.contains(&filter) {
            continue;
        }
        // Best of a few runs, to measure the code rather than the machine.
        let mut dstar = Duration::MAX;
        let mut jacobian = None;
        for _ in 0..5 {
            let start = Instant::now();
            let j =
                factor::jacobian(frontend::Kernel::new(dag.clone(), outputs.to_vec(), num_inputs).unwrap());
            dstar = dstar.min(start.elapsed());
            jacobian = Some(j);
        }
        let jacobian = jacobian.expect("ran");
        let simplifier = match std::env::var("WORK_PER_OP").as_deref() {
            Ok("max") => Simplifier::new().with_work_limit(u64::MAX),
            Ok(units) => factor::plan::simplifier().with_work_per_op(
                units.parse().expect("WORK_PER_OP in units"),
                factor::plan::SIMPLIFY_WORK_BASE,
            ),
            Err(_) => factor::plan::simplifier(),
        };
        let mut best = None;
        for _ in 0..3 {
            let (_, report) = simplifier.run(jacobian.kernel());
            if best.as_ref().is_none_or(|b: &simplify::SimplifyReport| report.elapsed < b.elapsed) {
                best = Some(report);
            }
        }
        let r = best.expect("ran");
        println!(
            "{:16} {:>7} {:>7} {:>7} {:>6.1}% {:>9.3} {:>9.3} {:>6.2} {:>10} {:>10}  {:?} ({} it, {} nodes)",
            name,
            jacobian.function_ops(),
            r.ops_before,
            r.ops_after,
            100.0 * (r.ops_before - r.ops_after) as f64 / r.ops_before as f64,
            dstar.as_secs_f64() * 1e3,
            r.elapsed.as_secs_f64() * 1e3,
            r.elapsed.as_secs_f64() / dstar.as_secs_f64(),
            r.work_spent,
            r.work_limit,
            r.stop_reason,
            r.iterations,
            r.egraph_nodes,
        );
    }
}
