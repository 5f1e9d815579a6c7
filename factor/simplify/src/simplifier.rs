//! The [`Simplifier`]: DAG → e-graph → rewrites under limits → DAG-aware
//! extraction → DAG, kept only if it has fewer ops.

use crate::chains;
use crate::convert::{to_egraph, Selection};
use crate::extract::DagExtractor;
use crate::rules;
use egg::{
    Analysis, EGraph, Language, Rewrite, RewriteScheduler, Runner, RunnerLimits, RunnerResult, SearchMatches,
};
use frontend::{ExprDag, Kernel, Node, NodeId};
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Why the rewriting stopped. Limits are normal outcomes, not errors: the
/// best result found so far is still extracted.
#[derive(Clone, Debug, PartialEq)]
pub enum StopReason {
    /// No rewrite adds anything new.
    Saturated,
    /// The iteration limit (the value) was reached.
    IterationLimit(usize),
    /// The e-graph grew past the node limit, to the value.
    NodeLimit(usize),
    /// The work budget (the value, in units of work) ran out.
    WorkLimit(u64),
    /// The kernel had more ops (the value) than the pass takes on: its
    /// stages that a time limit cannot interrupt would overrun the budget.
    TooLarge(usize),
    /// The kernel had more ops (the value) than the e-graph half takes on:
    /// the chains alone ran.
    ChainsOnly(usize),
    /// egg stopped for another reason, named by the text.
    Other(String),
}

impl StopReason {
    /// A short machine-readable name: `saturated`, `iteration_limit`,
    /// `node_limit`, `work_limit`, `too_large`, `chains_only` or `other`.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::Saturated => "saturated",
            StopReason::IterationLimit(_) => "iteration_limit",
            StopReason::NodeLimit(_) => "node_limit",
            StopReason::WorkLimit(_) => "work_limit",
            StopReason::TooLarge(_) => "too_large",
            StopReason::ChainsOnly(_) => "chains_only",
            StopReason::Other(_) => "other",
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Saturated => write!(f, "saturated"),
            StopReason::IterationLimit(n) => write!(f, "the iteration limit ({n})"),
            StopReason::NodeLimit(n) => write!(f, "the node limit (e-graph at {n} nodes)"),
            StopReason::WorkLimit(w) => write!(f, "the work limit ({w} units)"),
            StopReason::TooLarge(ops) => write!(f, "not run: {ops} ops is over the pass's size limit"),
            StopReason::ChainsOnly(ops) => {
                write!(f, "chains only: {ops} ops is over the e-graph's size limit")
            }
            StopReason::Other(text) => write!(f, "{text}"),
        }
    }
}

impl From<egg::StopReason> for StopReason {
    fn from(reason: egg::StopReason) -> StopReason {
        match reason {
            egg::StopReason::Saturated => StopReason::Saturated,
            egg::StopReason::IterationLimit(n) => StopReason::IterationLimit(n),
            egg::StopReason::NodeLimit(n) => StopReason::NodeLimit(n),
            // The runner's time limit is set out of reach: work budgets bound the pass.
            egg::StopReason::TimeLimit(s) => StopReason::Other(format!("egg's time limit ({s} s)")),
            egg::StopReason::Other(text) => StopReason::Other(text),
        }
    }
}

/// What one run of the [`Simplifier`] did.
#[derive(Clone, Debug)]
pub struct SimplifyReport {
    /// Ops of the outputs and entries before, as `ExprDag::count_ops` counts.
    pub ops_before: usize,
    /// Ops after; equal to `ops_before` when the input was kept.
    pub ops_after: usize,
    /// Why the rewriting stopped.
    pub stop_reason: StopReason,
    /// Rewrite iterations run.
    pub iterations: usize,
    /// E-nodes in the final e-graph.
    pub egraph_nodes: usize,
    /// The work budget the pass ran under: pair-count updates of the
    /// chains, then e-nodes searched per rule and rewrites applied.
    pub work_limit: u64,
    /// Work spent, at most `work_limit`.
    pub work_spent: u64,
    /// Wall time of the whole pass, for reports; it never decides anything.
    pub elapsed: Duration,
}

/// A rewritten DAG and the new node of each root, in the order the roots
/// were given.
struct Rewritten {
    dag: ExprDag,
    roots: Vec<NodeId>,
}

/// Rewrites a Jacobian kernel (function outputs and entries together) in an
/// e-graph to expose common subchains, then extracts the cheapest DAG found.
///
/// Every limit counts work (operations, e-nodes, iterations, pair updates,
/// rewrite applications), never time, so the same kernel always gives the
/// same result, on any machine and under any load; time is bounded as a
/// consequence. Limits default to budgets proportional to the input.
#[derive(Clone, Debug)]
pub struct Simplifier {
    max_ops: usize,
    egraph_max_ops: usize,
    node_limit: Option<usize>,
    iter_limit: Option<usize>,
    work_limit: Option<u64>,
    work_per_op: (u64, u64),
    skip_chains: bool,
}

impl Default for Simplifier {
    fn default() -> Simplifier {
        Simplifier {
            max_ops: DEFAULT_MAX_OPS,
            egraph_max_ops: DEFAULT_MAX_OPS,
            node_limit: None,
            iter_limit: None,
            work_limit: None,
            work_per_op: (WORK_PER_OP, WORK_BASE),
            skip_chains: false,
        }
    }
}

/// Iterations run unless limited otherwise. The chains pass before the
/// e-graph already shares most subchains, and constants fold as e-nodes are
/// added, so later iterations mostly grow the e-graph: on the corpus, two
/// iterations give the same ops as twelve or fewer on 16 of 17 problems
/// (nbody_acc_20: 0.5% more) in half the time.
const DEFAULT_ITER_LIMIT: usize = 2;
/// Default e-node limit per input e-node, on top of [`NODE_LIMIT_BASE`].
const NODE_LIMIT_PER_NODE: usize = 6;
const NODE_LIMIT_BASE: usize = 2_000;
/// Default work per input op, on top of [`WORK_BASE`]: what the chains'
/// pairing and the e-graph's rewrites may spend together.
pub const WORK_PER_OP: u64 = 256;
/// Work every kernel may spend however small: enough for small kernels to
/// reach a fixed point.
pub const WORK_BASE: u64 = 20_000;
/// Kernels above this many ops are left alone by default: flattening,
/// rebuilding and loading them cost more than the accumulation did.
pub const DEFAULT_MAX_OPS: usize = 500_000;

impl Simplifier {
    /// A simplifier with the default budget.
    pub fn new() -> Simplifier {
        Simplifier::default()
    }

    /// Leaves kernels of more than `ops` ops alone (the report says
    /// [`StopReason::TooLarge`]); [`DEFAULT_MAX_OPS`] unless set.
    pub fn with_max_ops(mut self, ops: usize) -> Simplifier {
        self.max_ops = ops;
        self
    }

    /// Runs the chains alone on kernels of more than `ops` ops (the report
    /// says [`StopReason::ChainsOnly`]); [`DEFAULT_MAX_OPS`] unless set.
    pub fn with_egraph_max_ops(mut self, ops: usize) -> Simplifier {
        self.egraph_max_ops = ops;
        self
    }

    /// Stops rewriting when the e-graph holds `limit` e-nodes.
    pub fn with_node_limit(mut self, limit: usize) -> Simplifier {
        self.node_limit = Some(limit);
        self
    }

    /// Stops rewriting after `limit` iterations.
    pub fn with_iter_limit(mut self, limit: usize) -> Simplifier {
        self.iter_limit = Some(limit);
        self
    }

    /// Bounds the pass to `units` of work: pair-count updates of the chains,
    /// then rewrite applications of the e-graph. Unless set, the budget
    /// scales with the input (see [`Simplifier::with_work_per_op`]).
    pub fn with_work_limit(mut self, units: u64) -> Simplifier {
        self.work_limit = Some(units);
        self
    }

    /// Bounds the pass to `per_op` units of work per input op plus `base`;
    /// [`WORK_PER_OP`] and [`WORK_BASE`] unless set.
    pub fn with_work_per_op(mut self, per_op: u64, base: u64) -> Simplifier {
        self.work_per_op = (per_op, base);
        self
    }

    /// Whether the chain pass ([`crate::chains`]) runs before the e-graph
    /// (it does by default); off, the e-graph alone rewrites.
    pub fn with_chains(mut self, on: bool) -> Simplifier {
        self.skip_chains = !on;
        self
    }

    /// Simplifies `kernel`. Returns the rewritten kernel (a fresh DAG, the
    /// same inputs and outputs) only if it needs fewer ops.
    pub fn run(&self, kernel: &Kernel) -> (Option<Kernel>, SimplifyReport) {
        if kernel.has_calls() {
            // The results of calls are the leaves of what is rewritten.
            return self.run_frozen(kernel, 0);
        }
        let (rewritten, report) = self.run_roots(kernel.dag(), kernel.roots(), kernel.num_inputs());
        let rewritten = rewritten.map(|r| {
            let rewritten =
                Kernel::new(r.dag, r.roots, kernel.num_inputs()).expect("rewriting keeps the inputs");
            rewritten.with_variables(kernel.num_variables())
        });
        (rewritten, report)
    }

    /// The work budget for a kernel of `ops` operations.
    fn work_limit(&self, ops: usize) -> u64 {
        let (per_op, base) = self.work_per_op;
        self.work_limit.unwrap_or(per_op.saturating_mul(ops as u64).saturating_add(base))
    }

    /// Simplifies the kernel `roots` of `dag` (inputs `0..num_inputs`).
    fn run_roots(
        &self,
        dag: &ExprDag,
        roots: &[NodeId],
        num_inputs: usize,
    ) -> (Option<Rewritten>, SimplifyReport) {
        let start = Instant::now();
        let ops_before = dag.count_ops(roots);
        let work_limit = self.work_limit(ops_before);
        if ops_before > self.max_ops {
            return (None, too_large(ops_before, start, work_limit));
        }
        let mut report = SimplifyReport {
            ops_before,
            ops_after: ops_before,
            stop_reason: StopReason::Saturated,
            iterations: 0,
            egraph_nodes: 0,
            work_limit,
            work_spent: 0,
            elapsed: Duration::ZERO,
        };
        let mut best: Option<Rewritten> = None;
        // Chains first: linear but for the pairing, which stops at its share
        // of the budget, and where most of the sharing is.
        if !self.skip_chains {
            let (chained, chained_roots, spent) = chains::rebuild(dag, roots, num_inputs, work_limit / 2);
            report.work_spent = spent;
            let ops = chained.count_ops(&chained_roots);
            if ops < report.ops_after {
                report.ops_after = ops;
                best = Some(Rewritten { dag: chained, roots: chained_roots });
            }
        }
        if ops_before > self.egraph_max_ops {
            report.stop_reason = StopReason::ChainsOnly(ops_before);
            report.elapsed = start.elapsed();
            return (best, report);
        }
        let (input_dag, input_roots) = best.as_ref().map_or((dag, roots), |b| (&b.dag, &b.roots[..]));
        if let Some(found) = self.rewrite(input_dag, input_roots, num_inputs, &mut report) {
            best = Some(found);
        }
        report.elapsed = start.elapsed();
        (best, report)
    }

    /// The e-graph half: load, rewrite under the limits, extract. Returns a
    /// kernel only if it has fewer ops than `report.ops_after`, and updates
    /// the report.
    fn rewrite(
        &self,
        dag: &ExprDag,
        roots: &[NodeId],
        num_inputs: usize,
        report: &mut SimplifyReport,
    ) -> Option<Rewritten> {
        let (egraph, root_classes) = to_egraph(dag, roots);
        let node_limit =
            self.node_limit.unwrap_or(NODE_LIMIT_PER_NODE * egraph.total_number_of_nodes() + NODE_LIMIT_BASE);
        let spent = Rc::new(Cell::new(0));
        let scheduler =
            BudgetScheduler { remaining: report.work_limit - report.work_spent, spent: Rc::clone(&spent) };
        let mut runner = Runner::default()
            .with_egraph(egraph)
            .with_scheduler(scheduler)
            .with_node_limit(node_limit)
            .with_iter_limit(self.iter_limit.unwrap_or(DEFAULT_ITER_LIMIT))
            // Out of reach: the work budget and the node and iteration limits bound the run.
            .with_time_limit(Duration::from_secs(1 << 32))
            .run(&rules::all());
        let stop = runner.stop_reason.take();
        report.stop_reason = match stop {
            Some(egg::StopReason::Other(text)) if text == BudgetScheduler::EXHAUSTED => {
                StopReason::WorkLimit(report.work_limit)
            }
            other => other.map_or(StopReason::Saturated, StopReason::from),
        };
        report.work_spent += spent.get();
        report.iterations = runner.iterations.len();
        let applied = runner.iterations.iter().any(|i| i.applied.values().any(|n| *n > 0));
        let mut egraph = runner.egraph;
        egraph.rebuild();
        report.egraph_nodes = egraph.total_number_of_nodes();
        if !applied {
            return None; // the e-graph is the input: nothing to extract
        }
        let root_classes: Vec<_> = root_classes.iter().map(|r| egraph.find(*r)).collect();
        let extractor = DagExtractor::new(&egraph);
        let mut best: Selection = extractor.extract(&extractor.egraph_uses());
        let mut best_ops = best.count_ops(&egraph, &root_classes);
        for _ in 0..EXTRACTION_ROUNDS {
            let next = extractor.extract(&extractor.selection_uses(&best, &root_classes));
            let ops = next.count_ops(&egraph, &root_classes);
            if ops >= best_ops {
                break;
            }
            (best, best_ops) = (next, ops);
        }
        if best_ops >= report.ops_after {
            return None;
        }
        let (new_dag, new_roots) = best.to_dag(&egraph, &root_classes, num_inputs);
        // `apply` may fold a little further; never accept more ops.
        let ops = new_dag.count_ops(&new_roots);
        if ops >= report.ops_after {
            return None;
        }
        report.ops_after = ops;
        Some(Rewritten { dag: new_dag, roots: new_roots })
    }

    /// Simplifies the roots of `kernel` after the first `frozen` (the
    /// function's outputs, computed by the nodes they reach) when that saves
    /// operations; hitting a limit is a [`StopReason`] in the report, never
    /// an error. Returns the kernel, with the same first `frozen` roots, in a
    /// copy of its DAG.
    ///
    /// The function's own nodes are frozen: the other roots see each function
    /// node they read as an extra input, so rewriting can share work among
    /// them but never changes how the function is computed, and its values
    /// stay bit for bit those of the plain function.
    pub fn run_frozen(&self, kernel: &Kernel, frozen: usize) -> (Option<Kernel>, SimplifyReport) {
        let (dag, num_inputs) = (kernel.dag(), kernel.num_inputs());
        let (function, entries) = kernel.roots().split_at(frozen);
        let before = kernel.count_ops();
        if before > self.max_ops {
            return (None, too_large(before, Instant::now(), self.work_limit(before)));
        }
        let (part, roots, frozen) = entries_over_frozen(dag, function, entries, num_inputs);
        let (rewritten, mut report) = self.run_roots(&part, &roots, num_inputs + frozen.len());
        report.ops_before = before;
        report.ops_after = before;
        let mut result = None;
        if let Some(r) = rewritten {
            let mut dag = dag.clone();
            let inputs: Vec<NodeId> =
                (0..num_inputs).map(|k| dag.input(k)).chain(frozen.iter().copied()).collect();
            let mut roots = function.to_vec();
            roots.extend(dag.import(&r.dag, &r.roots, Some(&inputs)));
            let ops = dag.count_ops(&roots);
            if ops < before {
                report.ops_after = ops;
                let kernel_of = Kernel::new(dag, roots, num_inputs).expect("rewriting keeps the inputs");
                result = Some(kernel_of.with_variables(kernel.num_variables()));
            }
        }
        (result, report)
    }
}

/// The report of a pass that did not start: `ops` is over the size limit.
fn too_large(ops: usize, start: Instant, work_limit: u64) -> SimplifyReport {
    SimplifyReport {
        ops_before: ops,
        ops_after: ops,
        stop_reason: StopReason::TooLarge(ops),
        iterations: 0,
        egraph_nodes: 0,
        work_limit,
        work_spent: 0,
        elapsed: start.elapsed(),
    }
}

/// Runs every rewrite, like egg's `SimpleScheduler`, within a work budget:
/// each iteration's search costs one unit per e-node and rule, each
/// substitution applied one more (in egg's deterministic match order); the
/// runner stops when the budget is spent.
struct BudgetScheduler {
    remaining: u64,
    /// Shared with the caller: the runner owns its scheduler.
    spent: Rc<Cell<u64>>,
}

impl BudgetScheduler {
    /// The stop reason that reports an exhausted budget.
    const EXHAUSTED: &'static str = "work budget exhausted";
}

impl<L: Language, N: Analysis<L>> RewriteScheduler<L, N> for BudgetScheduler {
    fn search_rewrites<'a>(
        &mut self,
        iteration: usize,
        egraph: &EGraph<L, N>,
        rewrites: &[&'a Rewrite<L, N>],
        limits: &RunnerLimits,
    ) -> RunnerResult<Vec<Vec<SearchMatches<'a, L>>>> {
        let search = (egraph.total_number_of_nodes() * rewrites.len()) as u64;
        if self.remaining <= search {
            self.spent.set(self.spent.get() + self.remaining);
            self.remaining = 0;
            return Err(egg::StopReason::Other(BudgetScheduler::EXHAUSTED.to_string()));
        }
        self.remaining -= search;
        self.spent.set(self.spent.get() + search);
        let mut all = Vec::with_capacity(rewrites.len());
        for rw in rewrites {
            let mut matches = rw.search(egraph);
            for m in &mut matches {
                let take = (m.substs.len() as u64).min(self.remaining);
                m.substs.truncate(take as usize);
                self.remaining -= take;
                self.spent.set(self.spent.get() + take);
            }
            all.push(matches);
            limits.check_limits(iteration, egraph)?;
        }
        Ok(all)
    }
}

/// The `entries` as a DAG of their own whose inputs are the function's
/// inputs `0..n`, then one extra input per `function` node or call result
/// the entries read (`frozen[j]` is input `n + j`); and the entries' roots.
fn entries_over_frozen(
    dag: &ExprDag,
    function: &[NodeId],
    entries: &[NodeId],
    n: usize,
) -> (ExprDag, Vec<NodeId>, Vec<NodeId>) {
    let function = dag.reachable(function);
    let is_frozen = |id: NodeId| {
        (function[id.index()] && !dag.op(id).is_leaf()) || matches!(dag.op(id), frontend::Op::Call(_))
    };
    // What the entries read, not looking inside frozen nodes.
    let mut needed = vec![false; dag.len()];
    for e in entries {
        needed[e.index()] = true;
    }
    for id in dag.ids().rev() {
        if needed[id.index()] && !is_frozen(id) {
            for a in dag.args(id) {
                needed[a.index()] = true;
            }
        }
    }
    let mut part = ExprDag::new();
    let mut frozen = Vec::new();
    let mut map: Vec<Option<NodeId>> = vec![None; dag.len()];
    for id in dag.ids().filter(|id| needed[id.index()]) {
        let node = dag.node(id);
        map[id.index()] = Some(if is_frozen(id) {
            frozen.push(id);
            part.input(n + frozen.len() - 1)
        } else {
            let args: Vec<NodeId> =
                node.args().iter().map(|a| map[a.index()].expect("arguments come first")).collect();
            part.intern(Node::new(node.op, &args))
        });
    }
    let roots = entries.iter().map(|e| map[e.index()].expect("entries are needed")).collect();
    (part, roots, frozen)
}

/// Extraction rounds after the first, each re-estimating sharing from the
/// previous selection, while they improve.
const EXTRACTION_ROUNDS: usize = 3;
