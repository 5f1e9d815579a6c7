//! The [`Jacobian`]: shape, structural sparsity and one node per nonzero
//! entry, in the same DAG as the function.

use crate::method::Method;
use crate::plan;
use derivative::{factorize, DerivativeGraph, Entry, Strategy};
use eliminate::{accumulate_graph, costs, Elimination, LinearizedGraph};
use frontend::{ExprDag, NodeId, Program};
use rayon::prelude::*;
use simplify::{Simplifier, SimplifyReport};

/// The Jacobian of some outputs with respect to inputs `0..n`.
///
/// `dag` holds the function and the entries together, so a kernel that
/// computes both shares their common work. Entries absent from
/// [`Jacobian::entries`] are structural zeros: no path joins that output to
/// that input.
#[derive(Clone, Debug)]
pub struct Jacobian {
    /// The function's DAG, extended with the derivative nodes.
    pub dag: ExprDag,
    outputs: Vec<NodeId>,
    num_inputs: usize,
    entries: Vec<Entry>,
    method: Method,
}

/// The Jacobian of `program`'s outputs with respect to its inputs.
pub fn jacobian(program: &Program) -> Jacobian {
    jacobian_of(program.dag.clone(), &program.output_nodes(), program.inputs.len())
}

/// The Jacobian of `outputs` (nodes of `dag`) with respect to the inputs
/// `0..num_inputs`; `dag` is extended with the entries.
///
/// The cheapest accumulation wins, counted as the operations of the kernel
/// (function and entries together): D* in the variants
/// [`plan::dstar_candidates`] names, against the cheapest of
/// [`plan::elimination_candidates`]. D* wins ties.
pub fn jacobian_of(dag: ExprDag, outputs: &[NodeId], num_inputs: usize) -> Jacobian {
    let (dstar, elimination) = rayon::join(
        || dstar_jacobian(dag.clone(), outputs, num_inputs),
        || elimination_jacobian(&dag, outputs, num_inputs),
    );
    match elimination {
        Some(elimination) if elimination.jacobian_ops() < dstar.jacobian_ops() => elimination,
        _ => dstar,
    }
}

/// The Jacobian by the competing elimination with the fewest
/// multiplications and additions, or `None` when none competes.
fn elimination_jacobian(dag: &ExprDag, outputs: &[NodeId], num_inputs: usize) -> Option<Jacobian> {
    if !plan::eliminations_may_compete(dag.count_ops(outputs)) {
        return None;
    }
    let mut dag = dag.clone();
    let graph = LinearizedGraph::new(&mut dag, outputs, num_inputs);
    let elimination = cheapest_elimination(&graph, &dag)?;
    let accumulation = accumulate_graph(&graph, dag, elimination).ok()?;
    let (dag, entries) = accumulation.into_parts();
    let method = Method::Elimination(elimination);
    Some(Jacobian { dag, outputs: outputs.to_vec(), num_inputs, entries, method })
}

/// The competing elimination with the fewest multiplications plus
/// additions on `graph` (built in `dag`), earlier in candidate order on ties.
pub fn cheapest_elimination(graph: &LinearizedGraph, dag: &ExprDag) -> Option<Elimination> {
    plan::elimination_candidates(graph)
        .into_iter()
        .filter_map(|s| costs(graph, dag, s).ok().map(|(cost, _)| (s, cost.total())))
        .min_by_key(|&(_, ops)| ops)
        .map(|(s, _)| s)
}

/// Like [`jacobian_of`], by D* alone: the cheapest of its four variants.
pub fn dstar_jacobian(dag: ExprDag, outputs: &[NodeId], num_inputs: usize) -> Jacobian {
    jacobian_where(dag, outputs, num_inputs, &|_, _| true)
}

/// Like [`jacobian_of`], with the strategy fixed instead of chosen by cost.
pub fn jacobian_with(dag: ExprDag, outputs: &[NodeId], num_inputs: usize, strategy: Strategy) -> Jacobian {
    let mut dag = dag;
    let graph = DerivativeGraph::new(&mut dag, outputs, num_inputs);
    let entries = factorize(&mut dag, &graph, strategy, &|_, _| true);
    Jacobian { dag, outputs: outputs.to_vec(), num_inputs, entries, method: Method::Dstar(strategy) }
}

/// The entries `(row, col)` of the Jacobian that `keep` accepts; the others
/// are left out (not built at all), as for the upper triangle of a Hessian.
pub(crate) fn jacobian_where(
    dag: ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    keep: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Jacobian {
    let mut dag = dag;
    let graph = DerivativeGraph::new(&mut dag, outputs, num_inputs);
    let build = |mut dag: ExprDag, strategy| {
        let entries = factorize(&mut dag, &graph, strategy, keep);
        Jacobian { dag, outputs: outputs.to_vec(), num_inputs, entries, method: Method::Dstar(strategy) }
    };
    let mut candidates = plan::dstar_candidates(&graph);
    if candidates.len() == 1 {
        return build(dag, candidates.remove(0));
    }
    // The candidates are independent: built in parallel, compared in order,
    // the earlier one winning ties.
    candidates
        .into_par_iter()
        .map(|strategy| {
            let candidate = build(dag.clone(), strategy);
            (candidate.jacobian_ops(), candidate)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .min_by_key(|(ops, _)| *ops)
        .expect("two or four candidates were built")
        .1
}

impl Jacobian {
    /// `(outputs, inputs)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.outputs.len(), self.num_inputs)
    }

    /// The function's output nodes, one per row.
    pub fn outputs(&self) -> &[NodeId] {
        &self.outputs
    }

    /// The nonzero entries in CSR order: row-major, columns ascending.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The nodes of the nonzero entries, in CSR order.
    pub fn entry_nodes(&self) -> Vec<NodeId> {
        self.entries.iter().map(|e| e.node).collect()
    }

    /// What a kernel computes: the outputs, then the entries in CSR order.
    pub fn kernel_roots(&self) -> Vec<NodeId> {
        self.outputs.iter().copied().chain(self.entries.iter().map(|e| e.node)).collect()
    }

    /// Replaces the kernel by an equivalent one: `dag` and the nodes of the
    /// outputs then the entries, in [`Jacobian::kernel_roots`] order. Shape,
    /// pattern and method are unchanged.
    pub fn replace_kernel(&mut self, dag: ExprDag, roots: &[NodeId]) {
        assert_eq!(roots.len(), self.outputs.len() + self.entries.len(), "one node per kernel root");
        let (outputs, entries) = roots.split_at(self.outputs.len());
        self.outputs.copy_from_slice(outputs);
        for (entry, &node) in self.entries.iter_mut().zip(entries) {
            entry.node = node;
        }
        self.dag = dag;
    }

    /// Shares common subchains among the entries with `simplifier` (the
    /// function's own nodes stay as they are) when that saves operations.
    pub fn simplify(&mut self, simplifier: &Simplifier) -> SimplifyReport {
        let entries = self.entry_nodes();
        let (rewritten, report) = simplifier.run_frozen(&self.dag, &self.outputs, &entries, self.num_inputs);
        if let Some(r) = rewritten {
            self.replace_kernel(r.dag, &r.roots);
        }
        report
    }

    /// Number of structurally nonzero entries.
    pub fn nnz(&self) -> usize {
        self.entries.len()
    }

    /// The structurally nonzero positions `(row, col)`, in CSR order.
    pub fn pattern(&self) -> Vec<(usize, usize)> {
        self.entries.iter().map(|e| (e.row, e.col)).collect()
    }

    /// The node of entry `(row, col)`, or `None` for a structural zero.
    pub fn get(&self, row: usize, col: usize) -> Option<NodeId> {
        let at = self.entries.binary_search_by_key(&(row, col), |e| (e.row, e.col)).ok()?;
        Some(self.entries[at].node)
    }

    /// How the entries were accumulated.
    pub fn method(&self) -> Method {
        self.method
    }

    /// Operations the function alone needs.
    pub fn function_ops(&self) -> usize {
        self.dag.count_ops(&self.outputs)
    }

    /// Operations to compute the function and the Jacobian together.
    pub fn jacobian_ops(&self) -> usize {
        self.dag.count_ops(&self.kernel_roots())
    }

    /// The function's values and the dense Jacobian (one row per output) at
    /// `x`, by the reference interpreter.
    pub fn eval(&self, x: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let roots = self.kernel_roots();
        let values = frontend::eval(&self.dag, &roots, x);
        let (function, entries) = values.split_at(self.outputs.len());
        let mut dense = vec![vec![0.0; self.num_inputs]; self.outputs.len()];
        for (e, value) in self.entries.iter().zip(entries) {
            dense[e.row][e.col] = *value;
        }
        (function.to_vec(), dense)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::Op;

    #[test]
    fn square_has_derivative_two_x() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let square = dag.mul(x, x);
        let jacobian = jacobian_of(dag, &[square], 1);
        let (values, dense) = jacobian.eval(&[3.0]);
        assert_eq!(values, vec![9.0]);
        assert_eq!(dense, vec![vec![6.0]]);
    }

    #[test]
    fn power_tower_uses_both_edges() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let p = dag.apply(Op::Pow, &[x, x]);
        let jacobian = jacobian_of(dag, &[p], 1);
        let (_, dense) = jacobian.eval(&[1.7]);
        let exact = 1.7f64.powf(1.7) * (1.7f64.ln() + 1.0);
        assert!((dense[0][0] - exact).abs() < 1e-12 * exact);
    }

    #[test]
    fn structural_zeros_and_trivial_outputs() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let c = dag.constant(2.0);
        let s = dag.apply(Op::Sin, &[y]);
        let jacobian = jacobian_of(dag, &[x, c, s, x], 3);
        assert_eq!(jacobian.shape(), (4, 3));
        assert_eq!(jacobian.pattern(), vec![(0, 0), (2, 1), (3, 0)]);
        let (_, dense) = jacobian.eval(&[0.5, 0.25, 9.0]);
        assert_eq!(dense[0], vec![1.0, 0.0, 0.0]);
        assert_eq!(dense[2][1], 0.25f64.cos());
        assert!(jacobian.get(1, 0).is_none());
    }

    #[test]
    fn all_strategies_agree() {
        let program = frontend::parse_program("in x, y\na = x*y\nb = sin(a) + a*x\nout b*b\nout exp(b) - y")
            .expect("valid program");
        let point = [0.3, -0.8];
        let dense: Vec<Vec<Vec<f64>>> = Strategy::ALL
            .iter()
            .map(|&s| jacobian_with(program.dag.clone(), &program.output_nodes(), 2, s).eval(&point).1)
            .collect();
        for other in &dense[1..] {
            for (a, b) in dense[0].iter().flatten().zip(other.iter().flatten()) {
                assert!((a - b).abs() <= 1e-14 * (1.0 + a.abs()), "{a} vs {b}");
            }
        }
    }
}
