//! The simplified kernel computes the same values as D* alone, and never
//! needs more ops: on the corpus and on random programs.

#[path = "simplify_support/mod.rs"]
mod support;

#[path = "corpus_support/mod.rs"]
mod corpus_support;

use frontend::{ExprDag, NodeId};
use simplify::{chains, Simplifier};
use support::{close, random_case, Rng};

/// Relative tolerance of the issue: reassociation and factoring only round
/// differently.
const REL: f64 = 1e-12;

fn assert_same_values(
    name: &str,
    before: (&ExprDag, &[NodeId]),
    after: (&ExprDag, &[NodeId]),
    point: &[f64],
) {
    let expected = frontend::eval(before.0, before.1, point);
    let actual = frontend::eval(after.0, after.1, point);
    for (k, (e, a)) in expected.iter().zip(&actual).enumerate() {
        assert!(close(*e, *a, REL), "{name}: root {k}: {e} before, {a} after");
    }
}

/// The simplifiers under test: the whole pass, each half alone.
fn simplifiers() -> [(&'static str, Simplifier); 2] {
    let generous = 1 << 24;
    [
        ("pass", Simplifier::new().with_work_limit(generous)),
        ("egg only", Simplifier::new().with_work_limit(generous).with_chains(false).with_node_limit(5_000)),
    ]
}

fn check(name: &str, dag: &ExprDag, roots: &[NodeId], num_inputs: usize, point: &[f64]) {
    let before = dag.count_ops(roots);
    let (chained, chained_roots, _) = chains::rebuild(dag, roots, num_inputs, u64::MAX);
    assert_same_values(&format!("{name} (chains)"), (dag, roots), (&chained, &chained_roots), point);
    for (label, simplifier) in simplifiers() {
        let kernel = frontend::Kernel::new(dag.clone(), roots.to_vec(), num_inputs).unwrap();
        let (rewritten, report) = simplifier.run(&kernel);
        assert_eq!(report.ops_before, before);
        assert!(report.ops_after <= before, "{name} ({label}): {} ops became {}", before, report.ops_after);
        match rewritten {
            Some(r) => {
                assert_eq!(r.count_ops(), report.ops_after);
                assert!(report.ops_after < before);
                assert_same_values(&format!("{name} ({label})"), (dag, roots), (r.dag(), r.roots()), point);
            }
            None => assert_eq!(report.ops_after, before),
        }
    }
}

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
        assert!(close(*a, *b, REL), "{name} (run): entry {a} became {b}");
    }
}

#[test]
fn corpus_values_are_preserved() {
    let problems = corpus_support::corpus();
    assert!(!problems.is_empty());
    for (name, program) in problems {
        let point = program.point.clone().expect("corpus problems have a # @point");
        let jacobian = factor::jacobian(program.kernel().unwrap());
        if jacobian.jacobian_ops() > 6_000 && cfg!(debug_assertions) {
            continue; // the big ones are measured in release by the example
        }
        check(&name, jacobian.dag(), jacobian.kernel().roots(), jacobian.shape().1, &point);
        check_run(&name, &jacobian, &point);
    }
}

/// Largest intermediate magnitude of a random case that is checked: beyond
/// it, rounding differences are amplified (`cos` of a large argument, a
/// difference of large values) past any fixed tolerance. Such cases are
/// skipped, not loosened.
const MAX_MAGNITUDE: f64 = 1e3;

fn well_conditioned(dag: &ExprDag, roots: &[NodeId], point: &[f64]) -> bool {
    let reach = dag.reachable(roots);
    let values = frontend::eval_nodes(dag, roots, point);
    values.iter().zip(&reach).filter(|(_, r)| **r).all(|(v, _)| v.is_finite() && v.abs() <= MAX_MAGNITUDE)
}

fn random_programs(count: u64, ops: usize) {
    let mut checked = 0;
    for seed in 0..count {
        let mut rng = Rng::new(seed);
        let size = 5 + rng.below(ops);
        let case = random_case(&mut rng, 4, size);
        let jacobian = factor::jacobian(
            frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap(),
        );
        let roots = jacobian.kernel().roots().to_vec();
        if !well_conditioned(jacobian.dag(), &roots, &case.point) {
            continue;
        }
        check(&format!("seed {seed}"), jacobian.dag(), &roots, case.num_inputs, &case.point);
        check_run(&format!("seed {seed}"), &jacobian, &case.point);
        checked += 1;
    }
    assert!(checked * 2 >= count, "only {checked} of {count} random cases were well conditioned");
}

#[test]
fn random_program_values_are_preserved() {
    let long = std::env::var_os("DSTAR_LONG").is_some();
    random_programs(if long { 3_000 } else { 150 }, if long { 120 } else { 40 });
}
