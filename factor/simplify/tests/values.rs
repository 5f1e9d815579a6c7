//! The simplified kernel computes the same values as D* alone, and never
//! needs more ops: on the corpus and on random programs. (That the
//! Jacobian's own `simplify` keeps the function bit for bit is
//! `factor/tests/jacobian_simplify.rs`.)

use derivative::{factorize, DerivativeGraph, Strategy};
use frontend::{ExprDag, Kernel, NodeId};
use simplify::{chains, Simplifier};
use testkit::{close, random_algebra, well_conditioned, Rng, Tol};

/// The function and its D* Jacobian entries, as one kernel: what the
/// simplifier gets from the plan.
fn dstar_kernel(mut function: Kernel) -> Kernel {
    let graph = DerivativeGraph::new(&mut function);
    let entries = factorize(function.dag_mut(), &graph, Strategy::ALL[0], &|_, _| true);
    let roots = function.roots().iter().copied().chain(entries.iter().map(|e| e.node)).collect();
    function.with_roots(roots).expect("entries are nodes of the same DAG")
}

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
        assert!(close(*e, *a, Tol::rel(REL)), "{name}: root {k}: {e} before, {a} after");
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

#[test]
fn corpus_values_are_preserved() {
    let problems = testkit::corpus();
    assert!(!problems.is_empty());
    for problem in problems {
        let (name, program) = (problem.name, problem.program);
        let point = program.point.clone().expect("corpus problems have a # @point");
        let jacobian = dstar_kernel(program.kernel().unwrap());
        if jacobian.count_ops() > 6_000 && cfg!(debug_assertions) {
            continue; // the big ones are measured in release by the example
        }
        check(&name, jacobian.dag(), jacobian.roots(), jacobian.num_inputs(), &point);
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
        let jacobian = dstar_kernel(case.kernel());
        let roots = jacobian.roots().to_vec();
        if !well_conditioned(jacobian.dag(), &roots, &case.point, MAX_MAGNITUDE) {
            continue;
        }
        check(&format!("seed {seed}"), jacobian.dag(), &roots, case.num_inputs, &case.point);
        checked += 1;
    }
    assert!(checked * 2 >= count, "only {checked} of {count} random cases were well conditioned");
}

#[test]
fn random_program_values_are_preserved() {
    random_programs(testkit::cases(150, 3_000) as u64, testkit::cases(40, 120));
}
