//! Issue 12: derivatives of every operation, up to the third order (the
//! second for two-argument operations), at extreme arguments (±1e-300,
//! ±1e-8, ±1, ±20, ±400, ±1e150, ±1e300, the edges of each domain) against
//! mpmath references at 50 digits (`extreme_arguments/references.py`).
//!
//! Each derivative is built as the rules and D* build it, order after order
//! (the Jacobian of the previous order's kernel), and must be finite wherever
//! the true value is finite and representable, infinite (with its sign)
//! where it overflows, and accurate to a tolerance that grows with the
//! order (see [`tolerance`]). Below the normal range any value within
//! `f64::MIN_POSITIVE` of the truth is accepted: there, underflow is the
//! format's, not the formulation's.

#[path = "extreme_arguments/references.rs"]
mod references;

use derivative::{factorize, DerivativeGraph, Strategy};
use frontend::{Kernel, NodeId};
use references::REFERENCES;

/// One point of one operation: derivatives by multi-index (`[0, 1]` is
/// `∂²f/∂a∂b`), absent where the truth is undefined.
#[derive(Debug)]
pub struct Reference {
    /// The expression, in `a` (and `b`).
    pub source: &'static str,
    /// The point: exact doubles.
    pub args: &'static [f64],
    /// `(multi-index, the double nearest the true derivative)`.
    pub derivatives: &'static [(&'static [usize], f64)],
}

/// The kernel of `source` over inputs `a` (and `b`).
fn kernel_of(source: &str, arity: usize) -> Kernel {
    let inputs = if arity == 1 { "a" } else { "a, b" };
    let program = frontend::parse_program(&format!("in {inputs}\nout {source}\n")).expect("parses");
    program.kernel().expect("valid")
}

/// The nodes of all derivatives of order `order` by `strategy`, keyed by
/// multi-index, with the kernel holding them. Structural zeros are absent.
fn derivatives(function: Kernel, order: usize, strategy: Strategy) -> (Kernel, Vec<(Vec<usize>, NodeId)>) {
    let n = function.num_inputs();
    let mut kernel = function;
    let mut indices: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..order {
        let graph = DerivativeGraph::new(&mut kernel);
        let (mut dag, _) = kernel.into_parts();
        let entries = factorize(&mut dag, &graph, strategy, &|_, _| true);
        let next: Vec<(Vec<usize>, NodeId)> = entries
            .iter()
            .map(|e| {
                let mut index = indices[e.row].clone();
                index.push(e.col);
                (index, e.node)
            })
            .collect();
        let roots =
            if next.is_empty() { vec![dag.constant(0.0)] } else { next.iter().map(|p| p.1).collect() };
        kernel = Kernel::new(dag, roots, n).expect("derivatives of a kernel");
        indices = next.iter().map(|p| p.0.clone()).collect();
        if next.is_empty() {
            return (kernel, Vec::new());
        }
    }
    let nodes = indices.into_iter().zip(kernel.roots().iter().copied()).collect();
    (kernel, nodes)
}

/// Relative tolerance of an order-`order` derivative: a few ulp for the
/// first derivative, more per order, as each order adds roundings.
fn tolerance(order: usize) -> f64 {
    match order {
        1 => 4.0 * f64::EPSILON,
        2 => 16.0 * f64::EPSILON,
        _ => 64.0 * f64::EPSILON,
    }
}

/// The cancellation-free magnitude of `root` at `x`: the value it would
/// have if no sum cancelled (absolute values through `+ - * /` and
/// selects; any other operation starts afresh from its own |value|). A
/// chain-rule derivative is a sum of path products, and where the true
/// value is far below this magnitude, rounding of the terms (a few ulp of
/// the magnitude) is all any formulation that sums them can promise.
fn magnitude(dag: &frontend::ExprDag, root: NodeId, x: &[f64]) -> f64 {
    use frontend::Op;
    let values = frontend::eval_nodes(dag, &[root], x);
    let mut m = vec![0.0f64; dag.len()];
    for id in dag.ids().filter(|id| id.index() <= root.index()) {
        let args: Vec<usize> = dag.args(id).iter().map(|a| a.index()).collect();
        m[id.index()] = match dag.op(id) {
            Op::Add | Op::Sub => m[args[0]] + m[args[1]],
            Op::Mul => m[args[0]] * m[args[1]],
            Op::Div => m[args[0]] / values[args[1]].abs(),
            Op::Neg => m[args[0]],
            Op::Select(cmp) => {
                if cmp.holds(values[args[0]], values[args[1]]) {
                    m[args[2]]
                } else {
                    m[args[3]]
                }
            }
            _ => values[id.index()].abs(),
        };
    }
    m[root.index()]
}

#[test]
fn issue_12_derivatives_at_extreme_arguments_match_mpmath() {
    let mut failures = Vec::new();
    let mut cancelled = Vec::new();
    let mut checked = 0;
    for reference in REFERENCES {
        let arity = reference.args.len();
        let max_order = reference.derivatives.iter().map(|(index, _)| index.len()).max().unwrap_or(0);
        for strategy in Strategy::ALL {
            for order in 1..=max_order {
                let (kernel, nodes) = derivatives(kernel_of(reference.source, arity), order, strategy);
                for &(index, truth) in reference.derivatives.iter().filter(|(index, _)| index.len() == order)
                {
                    // Mixed partials come in both orders; the reference lists a ≤ b.
                    let node = nodes.iter().find(|(p, _)| {
                        let mut sorted = p.clone();
                        sorted.sort_unstable();
                        sorted == index
                    });
                    let (value, size) = match node {
                        Some(&(_, node)) => (
                            frontend::eval(kernel.dag(), &[node], reference.args)[0],
                            magnitude(kernel.dag(), node, reference.args),
                        ),
                        None => (0.0, 0.0),
                    };
                    checked += 1;
                    let error = (value - truth).abs();
                    let ok = if truth.is_infinite() {
                        // An overflowing truth: any overflow, but not the wrong sign.
                        value.is_nan() || value == truth
                    } else if truth.abs() < f64::MIN_POSITIVE {
                        error <= f64::MIN_POSITIVE
                    } else {
                        error <= tolerance(order) * truth.abs()
                    };
                    let describe = || {
                        format!(
                            "{} at {:?}, {} {index:?}: {value:e} vs {truth:e} ({:.1} eps, magnitude {size:e})",
                            reference.source,
                            reference.args,
                            strategy.name(),
                            error / truth.abs() / f64::EPSILON,
                        )
                    };
                    if ok {
                        continue;
                    }
                    if value.is_finite() && error <= tolerance(order) * size {
                        cancelled.push(describe());
                    } else {
                        failures.push(describe());
                    }
                }
            }
        }
    }
    eprintln!("{checked} checks; within the rounding of cancelling terms only:\n{}", cancelled.join("\n"));
    assert!(checked > 1000, "only {checked} checks");
    assert!(failures.is_empty(), "{} of {checked} wrong:\n{}", failures.len(), failures.join("\n"));
}
