//! Hessians for optimization: the lower triangle of the Hessian of the
//! Lagrangian `L(x, w) = Σ_i w_i f_i(x)` of all outputs at once, with the
//! values and the gradient `wᵀJ` in the same kernel, each symmetric entry
//! built once, the pattern (the union over the outputs) found symbolically.
//!
//! Two accumulations compete, and the one with fewer operations in the
//! Hessian call wins (D* on ties, as for Jacobians): edge pushing
//! ([`derivative::edge_pushing()`]), a dedicated second-order reverse sweep,
//! and D* on the gradient graph (the gradient by a reverse sweep, then its
//! Jacobian's lower triangle by [`derivative::factorize()`]).

use crate::active::Active;
use crate::ledger::{Ledger, Stage};
use crate::plan;
use derivative::propagate::{adjoints, materialize};
use derivative::{
    edge_pushing, factorize_within, DerivativeGraph, Limits, Orientation, Stopped, Strategy, Term,
};
use frontend::{Block, ExprDag, Kernel, Layout, NodeId, SparsityPattern};
use rayon::prelude::*;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// How a [`Hessian`] was accumulated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HessianMethod {
    /// Edge pushing (Gower & Mello): one second-order reverse sweep.
    EdgePushing,
    /// The gradient by a reverse sweep, then D* on its graph.
    DstarOnGradient(Strategy),
}

impl HessianMethod {
    /// `edge_pushing`, or `gradient_` and the D* strategy's name.
    pub fn name(self) -> &'static str {
        match self {
            HessianMethod::EdgePushing => "edge_pushing",
            HessianMethod::DstarOnGradient(Strategy { orientation, factored }) => {
                match (orientation, factored) {
                    (Orientation::Forward, true) => "gradient_dstar_forward",
                    (Orientation::Reverse, true) => "gradient_dstar_reverse",
                    (Orientation::Forward, false) => "gradient_dstar_forward_plain",
                    (Orientation::Reverse, false) => "gradient_dstar_reverse_plain",
                }
            }
        }
    }
}

impl fmt::Display for HessianMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the outputs are weighted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weights {
    /// The weights are inputs `n..n+m` of the kernel: the Lagrangian.
    Inputs,
    /// Every output has weight 1 (one output: its own Hessian).
    Unit,
}

/// The Hessian of the Lagrangian of a function's outputs, with the values
/// and the gradient, in one kernel.
///
/// The kernel's inputs are `x` (the function's `n` inputs), then, for
/// [`Weights::Inputs`], the `m` weights `w`. Its outputs, in the order of
/// [`Hessian::layout`]: the `m` values, the nonzero entries of the gradient
/// `wᵀJ`, then the nonzero entries on or below the diagonal of
/// `Σ_i w_i ∇²f_i` in CSR order.
#[derive(Clone, Debug)]
pub struct Hessian {
    kernel: Kernel,
    num_outputs: usize,
    gradient: SparsityPattern,
    lower: SparsityPattern,
    method: HessianMethod,
    ledger: Ledger,
}

/// The Hessian of the Lagrangian `Σ_i w_i f_i` of `function`'s outputs, the
/// weights being inputs: the cheapest of the accumulations.
pub fn lagrangian_hessian(function: Kernel) -> Hessian {
    build(function, Weights::Inputs, None)
}

/// The Hessian of output `output` of `function` alone (weight 1). Panics if
/// `output` is not an output of `function`.
pub fn hessian(function: Kernel, output: usize) -> Hessian {
    let f = function.roots()[output];
    build(function.with_roots(vec![f]).expect("an output of a valid kernel"), Weights::Unit, None)
}

/// Like [`lagrangian_hessian`] (or, with [`Weights::Unit`], the Hessian of
/// the sum of the outputs), by `method` instead of the cheapest.
pub fn hessian_with(function: Kernel, weights: Weights, method: HessianMethod) -> Hessian {
    build(function, weights, Some(method))
}

/// On the active part of `function` ([`Active`]) where some output or
/// variable is inactive, renumbered back.
fn build(function: Kernel, weights: Weights, method: Option<HessianMethod>) -> Hessian {
    match Active::of(&function) {
        Some(active) => {
            build_all(active.kernel.clone(), weights, method).restored(&active, &function, weights)
        }
        None => build_all(function, weights, method),
    }
}

fn build_all(function: Kernel, weights: Weights, method: Option<HessianMethod>) -> Hessian {
    match method {
        Some(HessianMethod::EdgePushing) => by_edge_pushing(&function, weights),
        // A method asked for is built whatever it costs.
        Some(HessianMethod::DstarOnGradient(strategy)) => {
            let (hessian, _) = by_dstar_on_gradient(&Gradient::of(&function, weights), strategy, None);
            hessian.expect("an unguarded build")
        }
        None => cheapest(function, weights),
    }
}

/// Edge pushing, then the D* candidates on the gradient's graph within the
/// plan's guards, each within a multiple of edge pushing's work and as many
/// new nodes as its operations ([`Budget`]); the fewest operations win,
/// edge pushing on ties.
///
/// A finished build with more operations than the fewest known when it
/// finishes is dropped at once, not kept to the end: each holds a whole
/// DAG (a chain of 4,000 links: four builds kept, 59 MB). Which builds are
/// dropped depends on the order they finish; the one chosen does not (the
/// fewest are never dropped).
fn cheapest(function: Kernel, weights: Weights) -> Hessian {
    let edge = by_edge_pushing(&function, weights);
    // The gradient graph is the function's graph and its adjoint sweep: no
    // smaller than the function's, so its candidates are at least as many.
    let strategies = plan::dstar_candidates(&DerivativeGraph::new(&mut function.clone()));
    let edge_ops = edge.hessian_ops();
    let budget = Budget {
        work: plan::gradient_dstar_budget(edge.ledger.spent(Stage::EdgePushing)),
        nodes: plan::gradient_dstar_node_limit(edge_ops),
    };
    let gradient = Gradient::of(&function, weights);
    let fewest = AtomicUsize::new(edge_ops);
    let built: Vec<(Option<(usize, Hessian)>, Ledger)> = strategies
        .into_par_iter()
        .map(|strategy| {
            let (hessian, ledger) = by_dstar_on_gradient(&gradient, strategy, Some(budget));
            let kept = hessian
                .map(|h| (h.hessian_ops(), h))
                .filter(|&(ops, _)| ops <= fewest.fetch_min(ops, Ordering::Relaxed));
            (kept, ledger)
        })
        .collect();
    let mut ledger = edge.ledger.clone();
    ledger.spend(Stage::Graph, gradient.graph.edges().len() as u64);
    for (_, attempt) in &built {
        ledger.absorb(attempt);
    }
    let (_, mut hessian) = std::iter::once((edge_ops, edge))
        .chain(built.into_iter().filter_map(|(kept, _)| kept))
        .min_by_key(|(ops, h)| (*ops, h.method != HessianMethod::EdgePushing))
        .expect("edge pushing at least");
    hessian.ledger = ledger;
    hessian
}

/// The kernel with the weights as extra inputs, its graph with respect to
/// `x`, and the seeds of the reverse sweep.
fn prepare(function: &Kernel, weights: Weights) -> (Kernel, DerivativeGraph, Vec<(usize, Term)>) {
    let (n, total, m) = (function.num_variables(), function.num_inputs(), function.num_outputs());
    let (mut dag, roots) = function.clone().into_parts();
    let seeds: Vec<(usize, Term)> = (0..m)
        .map(|i| match weights {
            Weights::Inputs => (i, Term { node: dag.input(total + i), negated: false }),
            Weights::Unit => (i, Term::one(&mut dag)),
        })
        .collect();
    let extra = match weights {
        Weights::Inputs => m,
        Weights::Unit => 0,
    };
    let mut kernel = function.derived(dag, roots, extra).expect("the weights are the extra inputs");
    let graph = DerivativeGraph::with_respect_to(&mut kernel, n);
    (kernel, graph, seeds)
}

fn by_edge_pushing(function: &Kernel, weights: Weights) -> Hessian {
    let (kernel, graph, seeds) = prepare(function, weights);
    let num_inputs = kernel.num_inputs();
    let (mut dag, roots) = kernel.into_parts();
    let second = edge_pushing(&mut dag, &graph, &seeds);
    let mut ledger = Ledger::default();
    ledger.spend(Stage::Graph, graph.edges().len() as u64);
    ledger.spend(Stage::EdgePushing, second.work);
    let gradient: Vec<(usize, NodeId)> =
        second.gradient.iter().map(|&(k, t)| (k, t.materialize(&mut dag))).collect();
    let lower: Vec<((usize, usize), NodeId)> =
        second.lower.iter().map(|&(position, t)| (position, t.materialize(&mut dag))).collect();
    let mut hessian = Hessian::new(
        dag,
        &roots,
        num_inputs,
        function.num_variables(),
        &gradient,
        &lower,
        HessianMethod::EdgePushing,
    );
    hessian.ledger = ledger;
    hessian
}

/// What a D* build on the gradient may spend before it gives up: units of
/// work ([`plan::gradient_dstar_budget`]) and nodes added
/// ([`plan::gradient_dstar_node_limit`]).
#[derive(Clone, Copy, Debug)]
struct Budget {
    work: u64,
    nodes: usize,
}

/// The gradient `wᵀJ` of a function (or, with [`Weights::Unit`], of the sum
/// of its outputs) as a kernel of its own, and its graph with respect to
/// `x`: what every D* build on the gradient starts from, built once.
struct Gradient {
    /// The function's DAG with the gradient's nodes.
    dag: ExprDag,
    /// The function's outputs.
    values: Vec<NodeId>,
    /// The gradient's nonzero entries, `(input, node)`, ascending.
    entries: Vec<(usize, NodeId)>,
    /// The graph of the entries with respect to `x`.
    graph: DerivativeGraph,
    num_inputs: usize,
    n: usize,
}

impl Gradient {
    fn of(function: &Kernel, weights: Weights) -> Gradient {
        let n = function.num_variables();
        let (kernel, graph, seeds) = prepare(function, weights);
        let num_inputs = kernel.num_inputs();
        let (mut dag, values) = kernel.into_parts();
        let adjoint = adjoints(&mut dag, &graph, &seeds);
        let entries: Vec<(usize, NodeId)> = (0..n)
            .filter_map(|k| {
                let term = graph.leaf(k).and_then(|leaf| adjoint[leaf.index()])?;
                Some((k, materialize(&mut dag, Some(term))))
            })
            .collect();
        let nodes: Vec<NodeId> = entries.iter().map(|g| g.1).collect();
        let mut second =
            Kernel::new(dag, nodes, num_inputs).expect("the gradient reads x, p and w").with_variables(n);
        let graph = DerivativeGraph::with_respect_to(&mut second, n);
        Gradient { dag: second.into_parts().0, values, entries, graph, num_inputs, n }
    }
}

/// D* by `strategy` on `gradient`'s graph. With a `budget`, `None` when the
/// plan finds the graph too large for `strategy` or the build passes the
/// budget; with the ledger of the attempt either way.
fn by_dstar_on_gradient(
    gradient: &Gradient,
    strategy: Strategy,
    budget: Option<Budget>,
) -> (Option<Hessian>, Ledger) {
    let mut ledger = Ledger::default();
    let graph = &gradient.graph;
    if budget.is_some() && !plan::gradient_dstar_may_compete(graph, strategy) {
        let stopped = format!("{} over {} units", strategy.name(), plan::GRADIENT_DSTAR_WORK_LIMIT);
        ledger.fall_back(Stage::GradientDstar, stopped, "edge pushing");
        return (None, ledger);
    }
    // Row r of the gradient's Jacobian is ∂/∂x of gradient entry columns[r]:
    // only the entries on or below the diagonal are built.
    let columns: Vec<usize> = gradient.entries.iter().map(|g| g.0).collect();
    let keep = |row: usize, col: usize| col <= columns[row];
    let mut dag = gradient.dag.clone();
    let budget = budget.unwrap_or(Budget { work: u64::MAX, nodes: usize::MAX });
    let limits = Limits { work: &AtomicU64::new(budget.work), nodes: budget.nodes };
    let (entries, work) = match factorize_within(&mut dag, graph, strategy, &keep, limits) {
        Ok(built) => built,
        Err(stop) => {
            let name = strategy.name();
            let (work, stopped) = match stop {
                Stopped::Work => {
                    let ratio = plan::GRADIENT_DSTAR_WORK_RATIO;
                    (
                        budget.work,
                        format!("{name} over {} pairs ({ratio} times edge pushing's pushes)", budget.work),
                    )
                }
                Stopped::Nodes { work } => (
                    work,
                    format!("{name} over {} operations made (edge pushing's whole Hessian)", budget.nodes),
                ),
            };
            ledger.spend(Stage::GradientDstar, work);
            ledger.fall_back(Stage::GradientDstar, stopped, "the other candidates");
            return (None, ledger);
        }
    };
    ledger.spend(Stage::GradientDstar, work);
    let mut lower: Vec<((usize, usize), NodeId)> =
        entries.iter().map(|e| ((columns[e.row], e.col), e.node)).collect();
    lower.sort_by_key(|&(position, _)| position);
    let (values, num_inputs, n) = (&gradient.values, gradient.num_inputs, gradient.n);
    let method = HessianMethod::DstarOnGradient(strategy);
    (Some(Hessian::new(dag, values, num_inputs, n, &gradient.entries, &lower, method)), ledger)
}

impl Hessian {
    fn new(
        dag: ExprDag,
        values: &[NodeId],
        num_inputs: usize,
        n: usize,
        gradient: &[(usize, NodeId)],
        lower: &[((usize, usize), NodeId)],
        method: HessianMethod,
    ) -> Hessian {
        let gradient_pattern = SparsityPattern::new(1, n, gradient.iter().map(|&(k, _)| (0, k)));
        let lower_pattern = SparsityPattern::new(n, n, lower.iter().map(|&(position, _)| position));
        let roots = values
            .iter()
            .copied()
            .chain(gradient.iter().map(|g| g.1))
            .chain(lower.iter().map(|l| l.1))
            .collect();
        let kernel =
            Kernel::new(dag, roots, num_inputs).expect("derivatives read x, p and w").with_variables(n);
        Hessian {
            kernel,
            num_outputs: values.len(),
            gradient: gradient_pattern,
            lower: lower_pattern,
            method,
            ledger: Ledger::default(),
        }
    }

    /// This Hessian, of `active`'s kernel, as the Hessian of `function`:
    /// inputs renumbered back ([`Active::input`]), the inactive outputs'
    /// values imported, entries at the variables' own places (renumbering
    /// keeps their order).
    fn restored(self, active: &Active, function: &Kernel, weights: Weights) -> Hessian {
        let gradient: Vec<(usize, NodeId)> =
            self.gradient().map(|(k, node)| (active.variables[k], node)).collect();
        let lower: Vec<((usize, usize), NodeId)> = self
            .lower_entries()
            .map(|e| ((active.variables[e.row], active.variables[e.col]), e.node))
            .collect();
        let own_values = self.values().to_vec();
        let Hessian { kernel, method, ledger, .. } = self;
        let mut dag = kernel.into_parts().0.renumber_inputs(|k| active.input(function, k));
        let mut values = function.roots().to_vec();
        let inactive: Vec<usize> =
            (0..values.len()).filter(|o| active.outputs.binary_search(o).is_err()).collect();
        let roots: Vec<NodeId> = inactive.iter().map(|&o| values[o]).collect();
        for (&o, node) in inactive.iter().zip(dag.import(function.dag(), &roots, None)) {
            values[o] = node;
        }
        for (&o, node) in active.outputs.iter().zip(own_values) {
            values[o] = node;
        }
        let num_inputs = match weights {
            Weights::Inputs => function.num_inputs() + function.num_outputs(),
            Weights::Unit => function.num_inputs(),
        };
        let n = function.num_variables();
        let mut hessian = Hessian::new(dag, &values, num_inputs, n, &gradient, &lower, method);
        hessian.ledger = ledger;
        hessian
    }

    /// The kernel: values, gradient entries, lower-triangle entries.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The kernel computing only the lower triangle (an optimizer's Hessian
    /// call), over the same inputs.
    pub fn lower_kernel(&self) -> Kernel {
        let roots = self.lower_nodes().to_vec();
        self.kernel.clone().with_roots(roots).expect("the same inputs")
    }

    /// The kernel's output layout: the values, the sparse gradient, the
    /// lower triangle of the Hessian.
    pub fn layout(&self) -> Layout {
        Layout::new(vec![
            Block::Values(self.num_outputs),
            Block::Sparse(self.gradient.clone()),
            Block::Lower(self.lower.clone()),
        ])
    }

    /// The DAG holding function, gradient and Hessian.
    pub fn dag(&self) -> &ExprDag {
        self.kernel.dag()
    }

    /// How the Hessian was accumulated.
    pub fn method(&self) -> HessianMethod {
        self.method
    }

    /// The work each candidate's stages spent, and the fallbacks taken.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Number of variables `x` (not counting the parameters and the weights).
    pub fn num_variables(&self) -> usize {
        self.lower.num_cols
    }

    /// Number of the function's outputs (and of weights, for the Lagrangian).
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    /// The function's output nodes.
    pub fn values(&self) -> &[NodeId] {
        &self.kernel.roots()[..self.num_outputs]
    }

    /// The nonzero gradient entries `(col, node)`, columns ascending.
    pub fn gradient(&self) -> impl Iterator<Item = (usize, NodeId)> + '_ {
        let nodes = &self.kernel.roots()[self.num_outputs..self.num_outputs + self.gradient.nnz()];
        self.gradient.cols.iter().copied().zip(nodes.iter().copied())
    }

    /// The gradient's pattern, one row.
    pub fn gradient_pattern(&self) -> &SparsityPattern {
        &self.gradient
    }

    /// The nodes of the lower triangle's entries, in CSR order.
    pub fn lower_nodes(&self) -> &[NodeId] {
        &self.kernel.roots()[self.num_outputs + self.gradient.nnz()..]
    }

    /// The nonzero entries on or below the diagonal (`row >= col`), in CSR
    /// order; `(col, row)` holds the same value.
    pub fn lower_entries(&self) -> impl Iterator<Item = derivative::Entry> + '_ {
        self.lower.positions().zip(self.lower_nodes()).map(|((row, col), &node)| derivative::Entry {
            row,
            col,
            node,
        })
    }

    /// The lower triangle's pattern.
    pub fn lower_pattern(&self) -> &SparsityPattern {
        &self.lower
    }

    /// Number of structurally nonzero entries of the full symmetric matrix.
    pub fn nnz(&self) -> usize {
        self.lower.positions().map(|(row, col)| if row == col { 1 } else { 2 }).sum()
    }

    /// Operations of the whole kernel: values, gradient and Hessian.
    pub fn ops(&self) -> usize {
        self.kernel.count_ops()
    }

    /// Operations of the Hessian call alone (the lower triangle).
    pub fn hessian_ops(&self) -> usize {
        self.dag().count_ops(self.lower_nodes())
    }

    /// The values, the dense gradient and the dense symmetric Hessian at
    /// `input` (`x`, then the weights for the Lagrangian).
    pub fn eval(&self, input: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
        let out = self.kernel.eval(input);
        let layout = self.layout();
        let parts = layout.split(&out);
        let blocks = layout.blocks();
        let gradient = blocks[1].to_dense(parts[1]).swap_remove(0);
        (parts[0].to_vec(), gradient, blocks[2].to_dense(parts[2]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::Op;

    /// f = x*y + sin(x): H = [[-sin x, 1], [1, 0]], by every method.
    #[test]
    fn hessian_of_product_with_sine() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let xy = dag.mul(x, y);
        let s = dag.apply(Op::Sin, &[x]);
        let f = dag.add(xy, s);
        let function = Kernel::new(dag, vec![f], 2).unwrap();
        let methods = std::iter::once(HessianMethod::EdgePushing)
            .chain(Strategy::ALL.into_iter().map(HessianMethod::DstarOnGradient));
        for method in methods {
            let h = hessian_with(function.clone(), Weights::Unit, method);
            let (values, gradient, dense) = h.eval(&[0.5, 2.0]);
            assert_eq!(values, vec![1.0 + 0.5f64.sin()], "{method}");
            assert_eq!(gradient, vec![2.0 + 0.5f64.cos(), 0.5], "{method}");
            assert_eq!(dense, vec![vec![-(0.5f64.sin()), 1.0], vec![1.0, 0.0]], "{method}");
            assert_eq!(h.nnz(), 3, "{method}: H[1][1] is a structural zero");
        }
    }

    /// The known silent failure of the best public D* implementation:
    /// H of `exp(v1 - v2) * v2` (it returned H[2,2] about 9x too large).
    #[test]
    fn exp_of_difference_times_v2() {
        let program = frontend::parse_program("in v1, v2\nout exp(v1 - v2) * v2").unwrap();
        let (a, b): (f64, f64) = (0.7, 1.3);
        let e = (a - b).exp();
        // f = e·b: f_11 = e·b, f_12 = e - e·b = e(1-b), f_22 = -e + -e + e·b = e(b-2).
        let want = [[e * b, e * (1.0 - b)], [e * (1.0 - b), e * (b - 2.0)]];
        let methods = std::iter::once(HessianMethod::EdgePushing)
            .chain(Strategy::ALL.into_iter().map(HessianMethod::DstarOnGradient));
        for method in methods {
            let h = hessian_with(program.kernel().unwrap(), Weights::Unit, method);
            let (_, _, dense) = h.eval(&[a, b]);
            for i in 0..2 {
                for j in 0..2 {
                    assert!(
                        (dense[i][j] - want[i][j]).abs() <= 1e-15 * want[i][j].abs().max(1.0),
                        "{method}: H[{i}][{j}] = {} vs {}",
                        dense[i][j],
                        want[i][j]
                    );
                }
            }
        }
    }

    /// The Lagrangian weighs each output's Hessian.
    #[test]
    fn lagrangian_weighs_the_outputs() {
        let program = frontend::parse_program("in x, y\nout x*x*y\nout sin(x)\nout x + y").unwrap();
        let h = lagrangian_hessian(program.kernel().unwrap());
        assert_eq!(h.kernel().num_inputs(), 5, "x, y and three weights");
        let (x, y, w) = (0.3, -1.2, [2.0, 3.0, 5.0]);
        let (values, gradient, dense) = h.eval(&[x, y, w[0], w[1], w[2]]);
        assert_eq!(values.len(), 3);
        let g0 = w[0] * 2.0 * x * y + w[1] * x.cos() + w[2];
        assert!((gradient[0] - g0).abs() < 1e-14);
        let h00 = w[0] * 2.0 * y - w[1] * x.sin();
        assert!((dense[0][0] - h00).abs() < 1e-14, "{} vs {h00}", dense[0][0]);
        assert!((dense[1][0] - w[0] * 2.0 * x).abs() < 1e-14);
        assert_eq!(dense[1][1], 0.0);
        assert_eq!(h.lower_pattern().nnz(), 2, "H[1][1] is a structural zero");
    }
}
