//! The guards on D* over the gradient only stop builds that lose. Of the
//! methods competing, the cheapest Lagrangian Hessian stops a D* build past
//! a multiple of edge
//! pushing's work (`plan::gradient_dstar_budget`) or once it has made as
//! many operations as edge pushing's whole Hessian. On the corpus, the
//! NLPs and the shape zoo on both sides of the dense Hessians' blow-up, it
//! must still have the operations of the best method built unguarded, and
//! the node guard must bind somewhere (single shooting: D* there made 1.0 M
//! nodes at 400 steps to lose to edge pushing's 0.4 M operations).
//! Counted, not timed.

use factor::{hessian_with, lagrangian_hessian, plan, HessianMethod, Weights};
use frontend::Kernel;
use testkit::zoo::{Form, Zoo};

/// Edge pushing, then D* on the gradient by each strategy the plan lets
/// compete on `kernel` (`plan::dstar_candidates`).
fn methods(kernel: &Kernel) -> Vec<HessianMethod> {
    let graph = derivative::DerivativeGraph::new(&mut kernel.clone());
    std::iter::once(HessianMethod::EdgePushing)
        .chain(plan::dstar_candidates(&graph).into_iter().map(HessianMethod::DstarOnGradient))
        .collect()
}

/// The cheapest Hessian's operations, the fewest of any competing method
/// built unguarded, and how many of its D* builds stopped at the node
/// guard.
fn guarded_and_best(kernel: &Kernel) -> (usize, usize, usize) {
    let cheapest = lagrangian_hessian(kernel.clone());
    let best = methods(kernel)
        .into_iter()
        .map(|method| hessian_with(kernel.clone(), Weights::Inputs, method).hessian_ops())
        .min()
        .expect("edge pushing at least");
    let stopped =
        cheapest.ledger().fallbacks().iter().filter(|f| f.stopped.contains("operations made")).count();
    (cheapest.hessian_ops(), best, stopped)
}

#[test]
fn the_guards_of_d_star_on_the_gradient_never_lose_the_fewest_operations() {
    let mut programs: Vec<(String, frontend::Program)> =
        testkit::corpus().into_iter().chain(testkit::nlp()).map(|p| (p.name.clone(), p.program)).collect();
    for zoo in Zoo::ALL {
        for form in [Form::Functions, Form::Flat] {
            for n in [5, 24, 60] {
                let name = format!("{} {} {n}", zoo.name(), form.name());
                programs
                    .push((name, frontend::parse_program(&zoo.generate(n, form)).expect("the zoo parses")));
            }
        }
    }
    let mut stopped = 0;
    let mut failures = Vec::new();
    for (name, program) in &programs {
        let kernel = program.kernel().expect("a kernel");
        let (guarded, best, stops) = guarded_and_best(&kernel);
        stopped += stops;
        if guarded != best {
            failures.push(format!(
                "{name}: the cheapest Hessian has {guarded} operations, the best method {best}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(stopped > 0, "the node guard never bound: the test no longer covers it");
}
