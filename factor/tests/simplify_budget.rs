//! Limits are stop reasons, not errors or hangs, and the pass keeps to its
//! budget on large inputs.

use simplify::{Simplifier, StopReason};
use testkit::{random_algebra, Rng};

#[test]
fn tiny_limits_stop_cleanly() {
    let mut rng = Rng::new(7);
    let case = random_algebra(&mut rng, 3, 60);
    let jacobian =
        factor::jacobian(frontend::Kernel::new(case.dag, case.outputs.to_vec(), case.num_inputs).unwrap());
    let (_, report) = Simplifier::new().with_chains(false).with_node_limit(1).run(jacobian.kernel());
    assert!(matches!(report.stop_reason, StopReason::NodeLimit(_)), "{:?}", report.stop_reason);
    let (_, report) = Simplifier::new().with_iter_limit(1).with_work_limit(1 << 30).run(jacobian.kernel());
    assert!(
        matches!(report.stop_reason, StopReason::IterationLimit(1) | StopReason::Saturated),
        "{:?}",
        report.stop_reason
    );
    assert!(report.ops_after <= report.ops_before);
}

/// The pass spends at most its work budget, and the same kernel always
/// gives the same result: budgets count work, never time.
fn keeps_its_budget_and_is_deterministic(ops: usize) {
    let mut rng = Rng::new(ops as u64);
    let case = random_algebra(&mut rng, 8, ops);
    let jacobian =
        factor::jacobian(frontend::Kernel::new(case.dag, case.outputs.to_vec(), case.num_inputs).unwrap());
    let simplifier = factor::plan::simplifier();
    let (first, report) = simplifier.run(jacobian.kernel());
    assert!(report.ops_after <= report.ops_before);
    assert_eq!(first.is_some(), report.ops_after < report.ops_before);
    assert!(report.work_spent <= report.work_limit, "{report:?}");
    let (second, again) = simplifier.run(jacobian.kernel());
    assert_eq!(
        (again.ops_after, again.work_spent, again.iterations),
        (report.ops_after, report.work_spent, report.iterations)
    );
    if let (Some(a), Some(b)) = (first, second) {
        assert_eq!(format!("{:?}", a.dag()), format!("{:?}", b.dag()), "the same DAG, node for node");
        assert_eq!(a.roots(), b.roots());
    }
}

#[test]
fn a_random_program_keeps_its_budget_and_comes_out_the_same() {
    keeps_its_budget_and_is_deterministic(3_000);
}

/// Release only: `cargo test --release -p dstar-factor --test simplify_budget -- --ignored`.
#[test]
#[ignore]
fn random_100k_program_keeps_its_budget_and_comes_out_the_same() {
    keeps_its_budget_and_is_deterministic(100_000);
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

/// Over the e-graph's size limit the chains still run, and the e-graph does
/// not; at the limit it does. A generated least-squares kernel, whose
/// chains and e-graph both find sharing, at sizes on both sides.
#[test]
fn kernels_over_the_egraph_limit_get_the_chains_alone() {
    for points in [3, 40] {
        let mut source = String::from("in a, b, c\n");
        let terms: Vec<String> = (0..points)
            .map(|i| {
                let t = f64::from(i) / 7.0 + 0.5;
                format!("(a*exp(b*{t}) + c*{t}*{t} - {})^2", 1.0 + t)
            })
            .collect();
        source.push_str(&format!("out {}\n", terms.join(" + ")));
        let program = frontend::parse_program(&source).expect("valid");
        let jacobian = factor::jacobian(program.kernel().unwrap());
        let before = jacobian.jacobian_ops();
        let (_, chains) = Simplifier::new().with_egraph_max_ops(before - 1).run(jacobian.kernel());
        assert_eq!(chains.stop_reason.name(), "chains_only", "{points} points");
        assert_eq!(
            (chains.iterations, chains.egraph_nodes),
            (0, 0),
            "{points} points: the e-graph never ran"
        );
        let (_, full) = Simplifier::new().with_egraph_max_ops(before).run(jacobian.kernel());
        assert_ne!(full.stop_reason.name(), "chains_only", "{points} points");
        assert!(full.iterations > 0, "{points} points: the e-graph ran");
        assert!(full.ops_after <= chains.ops_after && chains.ops_after <= before, "{points} points");
        let mut simplified = factor::jacobian(program.kernel().unwrap());
        // (`simplify` counts the entries alone, the function's nodes frozen.)
        simplified.simplify(&Simplifier::new().with_egraph_max_ops(0));
        let fallback = simplified
            .ledger()
            .fallbacks()
            .iter()
            .any(|f| f.to_string().contains("e-graph rewriting skipped"));
        assert!(fallback, "{points} points: the ledger says what was skipped");
    }
}

/// The chains' pairing spends work in proportion to the kernel on every
/// shape of the zoo, at N and 8N, and keeps its values: a sum read twice or
/// more is one factor of each reader. Reverse sweeps over a chain read every
/// adjoint (such a sum) twice; expanded into both readers, the pairing had
/// to find the sharing again: 50 to 57 units of work per op on single
/// shooting at these sizes (62 and 1.7 s at 10^4 steps, for a kernel 25%
/// larger than it went in), where every shape now takes at most 2.7.
#[test]
fn pairing_work_stays_in_proportion_on_the_zoo() {
    use testkit::zoo::{Form, Zoo};
    let chains_only = Simplifier::new().with_egraph_max_ops(0);
    for zoo in Zoo::ALL {
        for form in [Form::Flat, Form::Functions] {
            let per_op: Vec<f64> = [40, 320]
                .into_iter()
                .map(|n| {
                    let program = frontend::parse_program(&zoo.generate(n, form)).expect("the zoo parses");
                    let jacobian = factor::jacobian(program.kernel().unwrap().inlined());
                    let (rewritten, report) = chains_only.run(jacobian.kernel());
                    assert!(report.ops_after <= report.ops_before);
                    if let Some(rewritten) = rewritten {
                        let x: Vec<f64> =
                            (0..rewritten.num_inputs()).map(|i| 0.3 + 0.01 * (i % 50) as f64).collect();
                        let (want, got) = (jacobian.kernel().eval(&x), rewritten.eval(&x));
                        for (w, g) in want.iter().zip(&got) {
                            assert!(
                                (w - g).abs() <= 1e-9 * (1.0 + w.abs()),
                                "{} at {n}: {g} for {w}",
                                zoo.name()
                            );
                        }
                    }
                    report.work_spent as f64 / report.ops_before.max(1) as f64
                })
                .collect();
            let name = format!("{} {}", zoo.name(), form.name());
            eprintln!("{name}: {per_op:?} units per op");
            assert!(per_op.iter().all(|&w| w <= 8.0), "{name}: {per_op:?} units of pairing per op");
        }
    }
}
