//! The [`Jacobian`]: a kernel computing the function and its structurally
//! nonzero entries together, and their sparsity pattern.

use crate::ledger::{Ledger, Stage};
use crate::method::Method;
use crate::plan;
use derivative::{factorize, factorize_within, DerivativeGraph, Entry, Limits, Orientation, Strategy};
use eliminate::{accumulate_graph, costs, Elimination, LinearizedGraph};
use frontend::{Block, ExprDag, Kernel, Layout, NodeId, SparsityPattern};
use rayon::prelude::*;
use simplify::{Simplifier, SimplifyReport, StopReason};
use std::sync::atomic::{AtomicU64, Ordering};

/// The Jacobian of a function's outputs with respect to its inputs.
///
/// Its [`Kernel`] computes the `m` outputs, then the nonzero entries in CSR
/// order (see [`Jacobian::layout`]), in the function's own DAG, so that
/// compiling it shares the common work. Entries absent from the pattern are
/// structural zeros: no path joins that output to that input.
#[derive(Clone, Debug)]
pub struct Jacobian {
    kernel: Kernel,
    pattern: SparsityPattern,
    method: Method,
    ledger: Ledger,
}

/// The Jacobian of `function` by the cheapest accumulation, counted as the
/// operations of the kernel (function and entries together): D* in the
/// variants [`plan::dstar_candidates`] names, against the cheapest of
/// [`plan::elimination_candidates`]. D* wins ties. Its [`Ledger`] holds
/// the work of every candidate.
pub fn jacobian(function: Kernel) -> Jacobian {
    let (mut dstar, (elimination, attempt)) =
        rayon::join(|| dstar_jacobian(function.clone()), || eliminations(&function));
    match elimination {
        Some(mut elimination) if elimination.jacobian_ops() < dstar.jacobian_ops() => {
            elimination.ledger.absorb(&dstar.ledger);
            elimination
        }
        Some(elimination) => {
            dstar.ledger.absorb(&elimination.ledger);
            dstar
        }
        None => {
            dstar.ledger.absorb(&attempt);
            dstar
        }
    }
}

/// The Jacobian by the competing elimination with the fewest
/// multiplications and additions, or `None` when none competes: what
/// [`jacobian`] weighs against [`dstar_jacobian`].
pub fn elimination_jacobian(function: &Kernel) -> Option<Jacobian> {
    eliminations(function).0
}

/// [`elimination_jacobian`], and when it is `None`, the ledger of the
/// attempt (the Jacobian carries its own otherwise).
fn eliminations(function: &Kernel) -> (Option<Jacobian>, Ledger) {
    let mut ledger = Ledger::default();
    let ops = function.count_ops();
    if !plan::eliminations_may_compete(ops) {
        let stopped =
            format!("the eliminations skipped at {ops} ops (over {})", 2 * plan::ELIMINATION_EDGE_LIMIT);
        ledger.fall_back(Stage::Eliminations, stopped, "D* alone");
        return (None, ledger);
    }
    if let Some(edges) = plan::linearized_edges(function).filter(|&e| e > plan::ELIMINATION_EDGE_LIMIT) {
        let stopped =
            format!("the eliminations skipped at {edges} edges (over {})", plan::ELIMINATION_EDGE_LIMIT);
        ledger.fall_back(Stage::Eliminations, stopped, "D* alone");
        return (None, ledger);
    }
    let mut kernel = function.clone();
    let graph = LinearizedGraph::new(&mut kernel);
    ledger.spend(Stage::Graph, graph.edges().len() as u64);
    if graph.edges().len() > plan::ELIMINATION_EDGE_LIMIT {
        let stopped = format!(
            "the eliminations skipped at {} edges (over {})",
            graph.edges().len(),
            plan::ELIMINATION_EDGE_LIMIT
        );
        ledger.fall_back(Stage::Eliminations, stopped, "D* alone");
        return (None, ledger);
    }
    let Some((elimination, work)) = cheapest_with_work(&graph, kernel.dag()) else { return (None, ledger) };
    ledger.spend(Stage::Eliminations, work);
    let Ok(done) = accumulate_graph(&graph, kernel.into_parts().0, elimination) else {
        return (None, ledger);
    };
    let (dag, entries) = done.into_parts();
    let mut jacobian = Jacobian::new(function, dag, entries, Method::Elimination(elimination));
    jacobian.ledger = ledger;
    (Some(jacobian), Ledger::default())
}

/// The competing elimination with the fewest multiplications plus
/// additions on `graph` (built in `dag`), earlier in candidate order on ties.
pub fn cheapest_elimination(graph: &LinearizedGraph, dag: &ExprDag) -> Option<Elimination> {
    cheapest_with_work(graph, dag).map(|(s, _)| s)
}

/// [`cheapest_elimination`], and the operations of every candidate planned
/// together: the work of planning them.
fn cheapest_with_work(graph: &LinearizedGraph, dag: &ExprDag) -> Option<(Elimination, u64)> {
    let costed: Vec<(Elimination, usize)> = plan::elimination_candidates(graph)
        .into_iter()
        .filter_map(|s| costs(graph, dag, s).ok().map(|(cost, _)| (s, cost.total())))
        .collect();
    let work = costed.iter().map(|&(_, ops)| ops as u64).sum();
    costed.into_iter().min_by_key(|&(_, ops)| ops).map(|(s, _)| (s, work))
}

/// Like [`jacobian`], by D* alone: the cheapest of its variants.
pub fn dstar_jacobian(function: Kernel) -> Jacobian {
    jacobian_where(function, &|_, _| true)
}

/// Like [`jacobian`], by D* with the strategy fixed instead of chosen by cost.
pub fn jacobian_with(function: Kernel, strategy: Strategy) -> Jacobian {
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let mut dag = kernel.into_parts().0;
    let entries = factorize(&mut dag, &graph, strategy, &|_, _| true);
    Jacobian::new(&function, dag, entries, Method::Dstar(strategy))
}

/// A D* build that finished within its budget, and the work it spent.
type Built = (Jacobian, u64);

/// The entries `(row, col)` of the Jacobian that `keep` accepts; the others
/// are left out (not built at all), as for the upper triangle of a Hessian.
pub(crate) fn jacobian_where(function: Kernel, keep: &(dyn Fn(usize, usize) -> bool + Sync)) -> Jacobian {
    let mut kernel = function.clone();
    let graph = DerivativeGraph::new(&mut kernel);
    let dag = kernel.into_parts().0;
    let mut ledger = Ledger::default();
    ledger.spend(Stage::Graph, graph.edges().len() as u64);
    let build = |mut dag: ExprDag, strategy, budget: &AtomicU64| {
        let limits = Limits { work: budget, nodes: usize::MAX };
        let (entries, work) = factorize_within(&mut dag, &graph, strategy, keep, limits).ok()?;
        Some((Jacobian::new(&function, dag, entries, Method::Dstar(strategy)), work))
    };
    let mut candidates = plan::dstar_candidates(&graph);
    if candidates.len() == 1 {
        // Too large to build both variants: the factored one within a budget
        // from its orientation's sweeps, else the plain sweep.
        let strategy = candidates.remove(0);
        let budget = plan::factored_dstar_budget(plan::sweep_work(&graph, strategy.orientation));
        let (mut jacobian, work) = match build(dag.clone(), strategy, &AtomicU64::new(budget)) {
            Some(built) => built,
            None => {
                ledger.spend(Stage::Dstar, budget);
                ledger.fall_back(
                    Stage::Dstar,
                    format!("{} over {budget} pairs", strategy.name()),
                    "the plain sweep",
                );
                let plain = Strategy { factored: false, ..strategy };
                build(dag, plain, &AtomicU64::new(u64::MAX)).expect("an unlimited budget")
            }
        };
        ledger.spend(Stage::Dstar, work);
        jacobian.ledger = ledger;
        return jacobian;
    }
    // Every candidate is built in parallel, the plain sweeps first. A
    // factored build may spend only a multiple of its orientation's plain
    // sweep's work (plan::factored_dstar_budget): where factoring would
    // visit far more pairs than the sweep (long chains shared by many
    // entries), it is dropped instead of dominating the symbolic time. The
    // budget is published when the sweep finishes, stopping a runaway
    // factored build early, and checked again below, so the choice does not
    // depend on which build finished first.
    let budgets = [AtomicU64::new(u64::MAX), AtomicU64::new(u64::MAX)];
    let budget_of = |s: Strategy| &budgets[usize::from(s.orientation == Orientation::Reverse)];
    let mut order: Vec<(usize, Strategy)> = candidates.iter().copied().enumerate().collect();
    order.sort_by_key(|(index, s)| (s.factored, *index));
    let built: Vec<(usize, Strategy, Option<Built>)> = order
        .into_par_iter()
        .map(|(index, strategy)| {
            let built = if strategy.factored {
                build(dag.clone(), strategy, budget_of(strategy))
            } else {
                let built =
                    build(dag.clone(), strategy, &AtomicU64::new(u64::MAX)).expect("an unlimited budget");
                budget_of(strategy).store(plan::factored_dstar_budget(built.1), Ordering::Relaxed);
                Some(built)
            };
            (index, strategy, built)
        })
        .collect();
    let mut kept: Vec<(usize, Jacobian)> = Vec::new();
    for (index, strategy, built) in built {
        // A build over its budget counts as the budget, however far it got
        // before the budget was published: the ledger does not depend on
        // the threads' timing either.
        let budget = budget_of(strategy).load(Ordering::Relaxed);
        match built {
            Some((jacobian, work)) if work <= budget => {
                ledger.spend(Stage::Dstar, work);
                kept.push((index, jacobian));
            }
            _ => {
                ledger.spend(Stage::Dstar, budget);
                ledger.fall_back(
                    Stage::Dstar,
                    format!("{} over {budget} pairs", strategy.name()),
                    "the other variants",
                );
            }
        }
    }
    // Compared in candidate order, the earlier one winning ties.
    kept.sort_by_key(|(index, _)| *index);
    let mut jacobian = kept
        .into_iter()
        .min_by_key(|(_, jacobian)| jacobian.jacobian_ops())
        .expect("every plain sweep is built")
        .1;
    jacobian.ledger = ledger;
    jacobian
}

impl Jacobian {
    /// The Jacobian of `function` whose `entries` (in CSR order) are nodes
    /// of `dag`, an extension of the function's DAG.
    fn new(function: &Kernel, dag: ExprDag, entries: Vec<Entry>, method: Method) -> Jacobian {
        let (m, n) = (function.num_outputs(), function.num_variables());
        let pattern = SparsityPattern::new(m, n, entries.iter().map(|e| (e.row, e.col)));
        let roots = function.roots().iter().copied().chain(entries.iter().map(|e| e.node)).collect();
        let kernel = function.derived(dag, roots, 0).expect("entries are built from the function's inputs");
        Jacobian { kernel, pattern, method, ledger: Ledger::default() }
    }

    /// The kernel: the `m` function outputs, then the nonzero entries in CSR
    /// order.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The kernel, for compiling or emitting.
    pub fn into_kernel(self) -> Kernel {
        self.kernel
    }

    /// The kernel's output layout: the `m` values, then the sparse Jacobian.
    pub fn layout(&self) -> Layout {
        Layout::new(vec![Block::Values(self.pattern.num_rows()), Block::Sparse(self.pattern.clone())])
    }

    /// The DAG holding the function and the entries.
    pub fn dag(&self) -> &ExprDag {
        self.kernel.dag()
    }

    /// `(outputs, inputs)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.pattern.num_rows(), self.pattern.num_cols)
    }

    /// The function's output nodes, one per row.
    pub fn outputs(&self) -> &[NodeId] {
        &self.kernel.roots()[..self.pattern.num_rows()]
    }

    /// The nodes of the nonzero entries, in CSR order.
    pub fn entry_nodes(&self) -> &[NodeId] {
        &self.kernel.roots()[self.pattern.num_rows()..]
    }

    /// The nonzero entries in CSR order: row-major, columns ascending.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Entry> + '_ {
        self.pattern.positions().zip(self.entry_nodes()).map(|((row, col), &node)| Entry { row, col, node })
    }

    /// The structural sparsity pattern.
    pub fn pattern(&self) -> &SparsityPattern {
        &self.pattern
    }

    /// Number of structurally nonzero entries.
    pub fn nnz(&self) -> usize {
        self.pattern.nnz()
    }

    /// The node of entry `(row, col)`, or `None` for a structural zero.
    pub fn get(&self, row: usize, col: usize) -> Option<NodeId> {
        Some(self.entry_nodes()[self.pattern.find(row, col)?])
    }

    /// How the entries were accumulated.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The work each stage spent building this Jacobian, and the
    /// fallbacks it took.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Operations the function alone needs.
    pub fn function_ops(&self) -> usize {
        self.dag().count_ops(self.outputs())
    }

    /// Operations to compute the function and the Jacobian together.
    pub fn jacobian_ops(&self) -> usize {
        self.kernel.count_ops()
    }

    /// Shares common subchains among the entries with `simplifier` (the
    /// function's own nodes stay as they are) when that saves operations.
    pub fn simplify(&mut self, simplifier: &Simplifier) -> SimplifyReport {
        let (rewritten, report) = simplifier.run_frozen(&self.kernel, self.pattern.num_rows());
        self.replace(rewritten, &report);
        report
    }

    /// [`simplify`](Self::simplify), running `alongside` on the Jacobian
    /// as it was before, at the same time (on another thread where one is
    /// free): work that only needs the function, which simplification
    /// keeps, such as compiling it.
    pub fn simplify_alongside<R: Send>(
        &mut self,
        simplifier: &Simplifier,
        alongside: impl FnOnce(&Jacobian) -> R + Send,
    ) -> (SimplifyReport, R) {
        let this = &*self;
        let ((rewritten, report), along) =
            rayon::join(|| simplifier.run_frozen(&this.kernel, this.pattern.num_rows()), || alongside(this));
        self.replace(rewritten, &report);
        (report, along)
    }

    fn replace(&mut self, rewritten: Option<Kernel>, report: &SimplifyReport) {
        if let Some(kernel) = rewritten {
            self.kernel = kernel;
        }
        self.ledger.spend(Stage::Simplify, report.work_spent);
        let stopped = match report.stop_reason {
            StopReason::WorkLimit(limit) => format!("the subchain search over {limit} units"),
            StopReason::TooLarge(ops) => format!("the subchain pass skipped at {ops} ops"),
            StopReason::ChainsOnly(ops) => format!("the e-graph rewriting skipped at {ops} ops"),
            _ => return,
        };
        let instead = if report.ops_after < report.ops_before {
            "the subchains found by then"
        } else {
            "the kernel as accumulated"
        };
        self.ledger.fall_back(Stage::Simplify, stopped, instead);
    }

    /// The function's values and the dense Jacobian (one row per output) at
    /// `x`, by the reference interpreter.
    pub fn eval(&self, x: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let out = self.kernel.eval(x);
        let layout = self.layout();
        let parts = layout.split(&out);
        (parts[0].to_vec(), layout.blocks()[1].to_dense(parts[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::Op;

    fn kernel(dag: ExprDag, roots: &[NodeId], n: usize) -> Kernel {
        Kernel::new(dag, roots.to_vec(), n).expect("a valid kernel")
    }

    #[test]
    fn square_has_derivative_two_x() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let square = dag.mul(x, x);
        let jacobian = jacobian(kernel(dag, &[square], 1));
        let (values, dense) = jacobian.eval(&[3.0]);
        assert_eq!(values, vec![9.0]);
        assert_eq!(dense, vec![vec![6.0]]);
    }

    #[test]
    fn power_tower_uses_both_edges() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let p = dag.apply(Op::Pow, &[x, x]);
        let jacobian = jacobian(kernel(dag, &[p], 1));
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
        let jacobian = jacobian(kernel(dag, &[x, c, s, x], 3));
        assert_eq!(jacobian.shape(), (4, 3));
        assert_eq!(jacobian.pattern().positions().collect::<Vec<_>>(), vec![(0, 0), (2, 1), (3, 0)]);
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
            .map(|&s| jacobian_with(program.kernel().expect("valid"), s).eval(&point).1)
            .collect();
        for other in &dense[1..] {
            for (a, b) in dense[0].iter().flatten().zip(other.iter().flatten()) {
                assert!((a - b).abs() <= 1e-14 * (1.0 + a.abs()), "{a} vs {b}");
            }
        }
    }
}
