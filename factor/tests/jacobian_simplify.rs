//! A Jacobian's `simplify` keeps its function bit for bit, its entries to
//! `REL`, and never adds ops: on the corpus and on random programs. (That
//! the simplifier itself preserves values is `factor/simplify/tests/values.rs`.)

use simplify::Simplifier;
use testkit::{close, random_algebra, well_conditioned, Rng, Tol};

/// Relative tolerance of the issue: reassociation and factoring only round
/// differently.
const REL: f64 = 1e-12;

/// The default path, `Simplifier::run`: the function is frozen, so its values
/// stay bit for bit; the entries agree to `REL`; ops never increase.
fn check_run(name: &str, jacobian: &factor::Jacobian, point: &[f64]) {
    let mut simplified = jacobian.clone();
    let report = simplified.simplify(&Simplifier::new().with_work_limit(1 << 24));
    assert_eq!(report.ops_before, jacobian.jacobian_ops());
    assert_eq!(report.ops_after, simplified.jacobian_ops());
    assert!(report.ops_after <= report.ops_before, "{name}: {report:?}");
    let (values, dense) = jacobian.eval(point);
    let (new_values, new_dense) = simplified.eval(point);
    for (a, b) in values.iter().zip(&new_values) {
        assert!(a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(), "{name}: function {a} became {b}");
    }
    for (a, b) in dense.iter().flatten().zip(new_dense.iter().flatten()) {
        assert!(close(*a, *b, Tol::rel(REL)), "{name} (run): entry {a} became {b}");
    }
}

#[test]
fn corpus_jacobians_keep_their_values_when_simplified() {
    let problems = testkit::corpus();
    assert!(!problems.is_empty());
    for problem in problems {
        let (name, program) = (problem.name, problem.program);
        let point = program.point.clone().expect("corpus problems have a # @point");
        let jacobian = factor::jacobian(program.kernel().unwrap());
        if jacobian.jacobian_ops() > 6_000 && cfg!(debug_assertions) {
            continue; // the big ones are measured in release by the example
        }
        check_run(&name, &jacobian, &point);
    }
}

/// Largest intermediate magnitude of a random case that is checked: beyond
/// it, rounding differences are amplified (`cos` of a large argument, a
/// difference of large values) past any fixed tolerance. Such cases are
/// skipped, not loosened.
const MAX_MAGNITUDE: f64 = 1e3;

fn random_programs(count: u64, ops: usize) {
    let mut checked = 0;
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let size = 5 + rng.below(ops);
        let case = random_algebra(&mut rng, 4, size);
        let jacobian = factor::jacobian(case.kernel());
        let roots = jacobian.kernel().roots().to_vec();
        if !well_conditioned(jacobian.dag(), &roots, &case.point, MAX_MAGNITUDE) {
            continue;
        }
        check_run(&format!("seed {seed}"), &jacobian, &case.point);
        checked += 1;
    }
    assert!(checked * 2 >= count, "only {checked} of {count} random cases were well conditioned");
}

#[test]
fn random_jacobians_keep_their_values_when_simplified() {
    random_programs(testkit::cases(150, 3_000) as u64, testkit::cases(40, 120));
}
