//! Limits are stop reasons, not errors or hangs, and the pass keeps to its
//! budget on large inputs.

use simplify::{Simplifier, StopReason};
use std::time::{Duration, Instant};
use testkit::{generate, Case, Rng, Shape};

/// A random program of about `ops` operations over 1 to `max_inputs`
/// inputs, in the simplifier's mix.
fn random_case(rng: &mut Rng, max_inputs: usize, ops: usize) -> Case {
    let shape = Shape::algebra(1 + rng.below(max_inputs), 1 + rng.below(4), ops);
    generate(rng, &shape)
}

#[test]
fn tiny_limits_stop_cleanly() {
    let mut rng = Rng::new(7);
    let case = random_case(&mut rng, 3, 60);
    let jacobian =
        factor::jacobian(frontend::Kernel::new(case.dag, case.outputs.to_vec(), case.num_inputs).unwrap());
    let (_, report) = Simplifier::new().with_chains(false).with_node_limit(1).run(jacobian.kernel());
    assert!(matches!(report.stop_reason, StopReason::NodeLimit(_)), "{:?}", report.stop_reason);
    let (_, report) =
        Simplifier::new().with_iter_limit(1).with_time_limit(Duration::from_secs(5)).run(jacobian.kernel());
    assert!(
        matches!(report.stop_reason, StopReason::IterationLimit(1) | StopReason::Saturated),
        "{:?}",
        report.stop_reason
    );
    assert!(report.ops_after <= report.ops_before);
}

/// A random 100,000-op program: the pass ends within its budget (plus the
/// linear flattening and emission it cannot interrupt) and says why.
/// Release only: `cargo test --release -p dstar-factor --test simplify_budget -- --ignored`.
#[test]
#[ignore]
fn random_100k_program_keeps_its_budget() {
    let mut rng = Rng::new(100_000);
    let case = random_case(&mut rng, 8, 100_000);
    let start = Instant::now();
    let jacobian =
        factor::jacobian(frontend::Kernel::new(case.dag, case.outputs.to_vec(), case.num_inputs).unwrap());
    let symbolic = start.elapsed();
    let (rewritten, report) = Simplifier::new().with_symbolic_time(symbolic).run(jacobian.kernel());
    eprintln!("D* {symbolic:?}, {report:?}");
    assert!(report.ops_after <= report.ops_before);
    assert_eq!(rewritten.is_some(), report.ops_after < report.ops_before);
    assert!(
        report.elapsed <= report.time_limit * 3 / 2,
        "{:?} over a budget of {:?}",
        report.elapsed,
        report.time_limit
    );
}

#[test]
fn kernels_over_the_size_limit_are_left_alone() {
    let program = frontend::parse_program("in x, y\nt = x*y\nout sin(t)*t + 3*t*x").expect("valid");
    let mut jacobian = factor::jacobian(program.kernel().unwrap());
    let before = jacobian.jacobian_ops();
    let report = jacobian.simplify(&Simplifier::new().with_max_ops(before - 1));
    assert_eq!(report.stop_reason.name(), "too_large");
    assert_eq!((report.ops_before, report.ops_after), (before, before));
    assert_eq!(jacobian.jacobian_ops(), before);
}
