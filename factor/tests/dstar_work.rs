//! D*'s symbolic work stays proportional to the function plus the Jacobian
//! (issue 14) on the shape that made it cubic: many outputs, each a long
//! chain of sums over all inputs, plus a shared `sum(sin(x_i))`. Factoring
//! there visits one subgraph per chain link and entry; the plan drops such
//! a factored build once it passes a multiple of the plain sweep's work
//! (`plan::factored_dstar_budget`) and the first orientation when its
//! sweeps carry far more than the other's (`plan::FIRST_ORIENTATION_RATIO`).
//! Work is counted, so these are exact assertions, not timings.

use derivative::{factorize_within, DerivativeGraph, Limits, Orientation, Strategy};
use testkit::{eval_dual, Rng};

fn graph_of(program: &frontend::Program) -> DerivativeGraph {
    DerivativeGraph::new(&mut program.kernel().unwrap())
}

/// The work of `strategy` on `program`'s Jacobian, unlimited.
fn work(program: &frontend::Program, strategy: Strategy) -> u64 {
    let mut kernel = program.kernel().unwrap();
    let graph = DerivativeGraph::new(&mut kernel);
    let mut dag = kernel.dag().clone();
    let limits = Limits { work: &std::sync::atomic::AtomicU64::new(u64::MAX), nodes: usize::MAX };
    factorize_within(&mut dag, &graph, strategy, &|_, _| true, limits).expect("no limit").1
}

/// On every corpus problem and NLP, factored D* in either orientation stays
/// within the budget after the plain sweep, and in the orientation a graph
/// too large for both variants would build (fewer sweep components) within
/// the budget from the estimate: the guards never change their kernels.
#[test]
fn the_corpus_stays_within_both_budgets() {
    let programs =
        testkit::corpus().into_iter().map(|p| p.program).chain(testkit::nlp().into_iter().map(|p| p.program));
    for program in programs {
        let graph = graph_of(&program);
        let estimates =
            [Orientation::Forward, Orientation::Reverse].map(|o| factor::plan::sweep_work(&graph, o));
        for (orientation, estimate) in [Orientation::Forward, Orientation::Reverse].into_iter().zip(estimates)
        {
            let factored = work(&program, Strategy { orientation, factored: true });
            let plain = work(&program, Strategy { orientation, factored: false });
            assert!(
                factored <= factor::plan::factored_dstar_budget(plain),
                "{orientation:?}: {factored} vs plain {plain}"
            );
            if estimate == estimates.into_iter().min().unwrap() {
                assert!(
                    factored <= factor::plan::factored_dstar_budget(estimate),
                    "{orientation:?}: {factored} vs estimate {estimate}"
                );
            }
        }
    }
}

#[test]
fn chain_sums_cost_the_plain_sweep_and_factoring_is_dropped() {
    let mut rng = Rng::new(14);
    let reverse = |factored| Strategy { orientation: Orientation::Reverse, factored };
    for n in [8, 16, 32, 64] {
        let program = frontend::parse_program(&testkit::chain_sums(n, 14 + n as u64)).unwrap();
        let kernel = program.kernel().unwrap();
        let size = (kernel.count_ops() + n * n) as u64;
        let plain = work(&program, reverse(false));
        // About 4 per op and entry at every n (792 / 207 at 8, 52,914 / 12,293 at 64).
        assert!(plain <= 5 * size, "n = {n}: the plain sweep visits {plain} pairs for ops + nnz = {size}");
        // Factoring grows as n^3: 8, 14, 25, 46 pairs per op and entry, past
        // both budgets: after the plain sweep, and from the sweeps' estimate
        // (graphs too large to build both variants).
        let factored = work(&program, reverse(true));
        if n >= 32 {
            let budget = factor::plan::factored_dstar_budget(plain);
            assert!(factored > budget, "n = {n}: factoring ({factored}) is expected to pass {budget}");
        }
        if n >= 64 {
            let estimate = factor::plan::sweep_work(&graph_of(&program), Orientation::Reverse);
            let budget = factor::plan::factored_dstar_budget(estimate);
            assert!(factored > budget, "n = {n}: factoring ({factored}) is expected to pass {budget}");
        }

        // Whatever the plan builds is the Jacobian: every entry against dual numbers.
        let jacobian = factor::jacobian(kernel.clone());
        if n >= 32 {
            // Factored reverse D* gives the same kernel and would win the tie.
            assert_eq!(jacobian.method(), factor::Method::Dstar(reverse(false)), "n = {n}");
        }
        let x = rng.point(n, -2.0, 2.0);
        let values = frontend::eval(jacobian.dag(), jacobian.entry_nodes(), &x);
        let mut checked = 0;
        for (k, (row, col)) in jacobian.pattern().positions().enumerate() {
            let dual = eval_dual(kernel.dag(), kernel.roots(), &x, col);
            let want = dual.outputs[row].d;
            assert!((values[k] - want).abs() <= 1e-12 * want.abs().max(1.0), "n = {n}, ({row}, {col})");
            checked += 1;
        }
        assert_eq!(checked, n * n, "a dense Jacobian");
    }
}
