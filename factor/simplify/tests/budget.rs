//! Limits are stop reasons, not errors or hangs, and the pass keeps to its
//! budget on large inputs.

mod kernels;

use kernels::{dstar_kernel, random_case};
use simplify::{Simplifier, StopReason};
use std::time::{Duration, Instant};
use testkit::Rng;

#[test]
fn tiny_limits_stop_cleanly() {
    let mut rng = Rng::new(7);
    let case = random_case(&mut rng, 3, 60);
    let jacobian = dstar_kernel(case.kernel());
    let (_, report) = Simplifier::new().with_chains(false).with_node_limit(1).run(&jacobian);
    assert!(matches!(report.stop_reason, StopReason::NodeLimit(_)), "{:?}", report.stop_reason);
    let (_, report) =
        Simplifier::new().with_iter_limit(1).with_time_limit(Duration::from_secs(5)).run(&jacobian);
    assert!(
        matches!(report.stop_reason, StopReason::IterationLimit(1) | StopReason::Saturated),
        "{:?}",
        report.stop_reason
    );
    assert!(report.ops_after <= report.ops_before);
}

/// A random 100,000-op program: the pass ends within its budget (plus the
/// linear flattening and emission it cannot interrupt) and says why.
/// Release only: `cargo test --release -p dstar-simplify --test budget -- --ignored`.
#[test]
#[ignore]
fn random_100k_program_keeps_its_budget() {
    let mut rng = Rng::new(100_000);
    let case = random_case(&mut rng, 8, 100_000);
    let start = Instant::now();
    let jacobian = dstar_kernel(case.kernel());
    let symbolic = start.elapsed();
    let (rewritten, report) = Simplifier::new().with_symbolic_time(symbolic).run(&jacobian);
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
