//! The [`Tidier`]: rewrites an expression into the form a person would
//! write (`60 * x^2` rather than `20 * (3 * x^2)`) for printing, with like
//! terms collected ([`collect`]), the rules of [`print_rules`] and an
//! extraction that
//! prices what reads badly: operations, negative exponents, constants with
//! many digits. Sharing is kept: a subexpression used twice is extracted
//! once, and the printer binds it to a name.

use crate::analysis::OpGraph;
use crate::collect;
use crate::convert::to_egraph;
use crate::extract::DagExtractor;
use crate::language::OpNode;
use crate::print_rules;
use crate::simplifier::StopReason;
use egg::{BackoffScheduler, Runner};
use frontend::{ExprDag, Kernel, NodeId, Op};
use std::sync::OnceLock;
use std::time::Duration;

/// What one run of the [`Tidier`] did.
#[derive(Clone, Debug)]
pub struct TidyReport {
    /// The printing cost of the input (see [`print_cost`]).
    pub cost_before: f64,
    /// The printing cost of the result; equal to `cost_before` when the
    /// input was kept.
    pub cost_after: f64,
    /// Why the rewriting stopped.
    pub stop_reason: StopReason,
    /// Rewrite iterations run.
    pub iterations: usize,
    /// E-nodes in the final e-graph.
    pub egraph_nodes: usize,
}

/// Rewrites a kernel for printing within limits counted in work (e-nodes
/// and iterations), never time, so a kernel always prints the same way.
///
/// ```
/// let program = frontend::parse_expr("20 * (3 * x^2) + x*x")?;
/// let (tidy, _) = simplify::Tidier::new().run(&program.kernel()?);
/// assert_eq!(frontend::print_expr(tidy.dag(), tidy.roots()[0], &program.inputs), "61 * x^2");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Tidier {
    max_ops: usize,
    node_limit: Option<usize>,
    iter_limit: usize,
}

impl Default for Tidier {
    fn default() -> Tidier {
        Tidier { max_ops: DEFAULT_MAX_OPS, node_limit: None, iter_limit: DEFAULT_ITER_LIMIT }
    }
}

/// Kernels of more ops are printed as they are: the commutative and
/// associative rules would fill any e-graph limit before reaching terms far
/// apart, and nobody reads such a derivative term by term.
pub const DEFAULT_MAX_OPS: usize = 2_000;
/// Iterations unless limited otherwise: enough for a constant to travel
/// through a product of a dozen factors and fold.
const DEFAULT_ITER_LIMIT: usize = 12;

/// The default e-node limit for an input of `nodes` e-nodes: the work of
/// a run is about rules × e-nodes × iterations, so the limit is scaled to
/// the input (20 e-nodes per input e-node, at least 300), which is enough
/// for the rewrites a short expression needs (`-362880 / x^10`, `60 * x^2`)
/// and lets it stop within a millisecond instead of filling thousands of
/// e-nodes with sums reordered. The commutative and associative rules grow
/// an e-graph by a factor per iteration whatever its size, so the limit
/// also shrinks as a large input grows (2,500 from 160 e-nodes).
fn default_node_limit(nodes: usize) -> usize {
    let scaled = (NODES_PER_INPUT_NODE * nodes).max(MIN_NODE_LIMIT);
    scaled.min((400_000 / nodes.max(1)).clamp(2_500, 8_000))
}

/// E-nodes of the default limit per e-node of the input.
const NODES_PER_INPUT_NODE: usize = 20;
/// The default e-node limit of the smallest inputs.
const MIN_NODE_LIMIT: usize = 300;

/// The rewrites, built once: parsing their patterns costs more than
/// tidying a small expression.
fn rules() -> &'static [print_rules::PrintRewrite] {
    static RULES: OnceLock<Vec<print_rules::PrintRewrite>> = OnceLock::new();
    RULES.get_or_init(print_rules::all)
}

impl Tidier {
    /// A tidier with the default limits.
    pub fn new() -> Tidier {
        Tidier::default()
    }

    /// Leaves kernels of more than `ops` ops as they are.
    pub fn with_max_ops(mut self, ops: usize) -> Tidier {
        self.max_ops = ops;
        self
    }

    /// Stops rewriting when the e-graph holds `limit` e-nodes.
    pub fn with_node_limit(mut self, limit: usize) -> Tidier {
        self.node_limit = Some(limit);
        self
    }

    /// Stops rewriting after `limit` iterations.
    pub fn with_iter_limit(mut self, limit: usize) -> Tidier {
        self.iter_limit = limit;
        self
    }

    /// The kernel rewritten for printing (the same inputs and outputs, in a
    /// fresh DAG), or a copy of it when no rewriting prints better.
    pub fn run(&self, kernel: &Kernel) -> (Kernel, TidyReport) {
        let (dag, roots) = (kernel.dag(), kernel.roots());
        let cost_before = print_cost(dag, roots);
        let mut report = TidyReport {
            cost_before,
            cost_after: cost_before,
            stop_reason: StopReason::Saturated,
            iterations: 0,
            egraph_nodes: 0,
        };
        let ops = kernel.count_ops();
        if kernel.has_calls() {
            report.stop_reason = StopReason::Other("not run: the kernel calls functions".into());
            return (kernel.clone(), report);
        }
        if ops > self.max_ops {
            report.stop_reason = StopReason::TooLarge(ops);
            return (kernel.clone(), report);
        }
        // The like terms collected (`collect`) are an alternative of each
        // node they rewrite, in the same e-class from the start.
        let (extended, pairs) = collect::alternatives(dag, roots);
        let paired = pairs.iter().flat_map(|&(original, collected)| [original, collected]);
        let (mut egraph, classes) =
            to_egraph(&extended, &roots.iter().copied().chain(paired).collect::<Vec<_>>());
        for pair in classes[roots.len()..].chunks(2) {
            egraph.union(pair[0], pair[1]);
        }
        egraph.rebuild();
        let classes = &classes[..roots.len()];
        let node_limit =
            self.node_limit.unwrap_or_else(|| default_node_limit(egraph.total_number_of_nodes()));
        let mut runner = Runner::default()
            .with_egraph(egraph)
            .with_scheduler(BackoffScheduler::default())
            .with_node_limit(node_limit)
            .with_iter_limit(self.iter_limit)
            // Out of reach: the node and iteration limits bound the run.
            .with_time_limit(Duration::from_secs(1 << 32))
            .run(rules());
        report.stop_reason = runner.stop_reason.take().map_or(StopReason::Saturated, StopReason::from);
        report.iterations = runner.iterations.len();
        let mut egraph = runner.egraph;
        egraph.rebuild();
        report.egraph_nodes = egraph.total_number_of_nodes();
        let classes: Vec<_> = classes.iter().map(|c| egraph.find(*c)).collect();
        let graph = &egraph;
        let extractor =
            DagExtractor::with_cost(graph, Box::new(move |node: &OpNode| enode_cost(graph, node)));
        let mut selection = extractor.extract(&extractor.egraph_uses());
        let (mut dag, mut roots) = selection.to_dag(&egraph, &classes, kernel.num_inputs());
        let mut cost = print_cost(&dag, &roots);
        // Rounds re-estimate sharing from the previous selection while the
        // exact cost improves.
        for _ in 0..EXTRACTION_ROUNDS {
            selection = extractor.extract(&extractor.selection_uses(&selection, &classes));
            let (next_dag, next_roots) = selection.to_dag(&egraph, &classes, kernel.num_inputs());
            let next_cost = print_cost(&next_dag, &next_roots);
            if next_cost >= cost {
                break;
            }
            (dag, roots, cost) = (next_dag, next_roots, next_cost);
        }
        if cost >= cost_before {
            return (kernel.clone(), report);
        }
        report.cost_after = cost;
        let (dag, roots) = lean(&dag, &roots);
        let tidied = Kernel::new(dag, roots, kernel.num_inputs()).expect("rewriting keeps the inputs");
        (tidied.with_variables(kernel.num_variables()), report)
    }
}

/// Constant factors lean left, `c * (a * b)` and `a * (c * b)` becoming
/// `(c * a) * b`, which print without parentheses (`2 * x * y`,
/// `-4 * exp(x) * sin(x)`); the constant goes with a sum if there is one
/// (`-4 * (cos(x) + sin(x)) * exp(x)`). A product used elsewhere too stays
/// as it is, shared.
fn lean(dag: &ExprDag, roots: &[NodeId]) -> (ExprDag, Vec<NodeId>) {
    let uses = dag.use_counts(roots);
    let reach = dag.reachable(roots);
    let mut out = ExprDag::new();
    let mut map = vec![None; dag.len()];
    let is_sum = |a: NodeId| matches!(dag.op(a), Op::Add | Op::Sub);
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let node = dag.node(id);
        let args: Vec<NodeId> =
            node.args().iter().map(|a| map[a.index()].expect("arguments first")).collect();
        // Argument `i` as a product used only here: its two factors.
        let product = |i: usize| {
            let a = node.args()[i];
            (dag.op(a) == Op::Mul && uses[a.index()] == 1).then(|| [dag.args(a)[0], dag.args(a)[1]])
        };
        let constant = |a: NodeId| dag.as_const(a).is_some();
        // A constant and the two other factors of the product `node`.
        let factors = match (node.op, node.args()) {
            (Op::Mul, &[c, m]) | (Op::Mul, &[m, c]) if constant(c) && !constant(m) => {
                let i = usize::from(node.args()[1] == m);
                product(i).filter(|[p, q]| !constant(*p) && !constant(*q)).map(|[p, q]| (c, p, q))
            }
            (Op::Mul, &[a, b]) if !constant(a) && !constant(b) => {
                let scaled = |i: usize, other: NodeId| {
                    product(i).and_then(|[p, q]| match (constant(p), constant(q)) {
                        (true, false) => Some((p, q, other)),
                        (false, true) => Some((q, p, other)),
                        _ => None,
                    })
                };
                scaled(1, a).or_else(|| scaled(0, b))
            }
            _ => None,
        };
        let mapped = |a: NodeId| map[a.index()].expect("arguments first");
        map[id.index()] = Some(match factors {
            Some((c, p, q)) => {
                let (with, other) = if is_sum(q) && !is_sum(p) { (q, p) } else { (p, q) };
                let left = out.mul(mapped(c), mapped(with));
                out.mul(left, mapped(other))
            }
            None => out.apply(node.op, &args),
        });
    }
    let roots = roots.iter().map(|r| map[r.index()].expect("reached")).collect();
    (out, roots)
}

/// Extraction rounds after the first, each re-estimating sharing from the
/// previous selection, while they improve.
const EXTRACTION_ROUNDS: usize = 3;

/// What a constant costs to read: a little per character, so that `x / 6`
/// reads better than `0.16666666666666666 * x`.
fn constant_cost(value: f64) -> f64 {
    0.01 * frontend::print::format_number(value).0.len() as f64
}

/// What an operation costs to read, given its exponent when it is a power
/// with a constant one and whether its operands are one expression: one
/// per operation, a little less for a power (`x^2` reads better than
/// `x * x`), more for a negative exponent (`1 / x^2` reads better than
/// `x^-2`) and for a sum of a term with itself (`2 * t1`, not `t1 + t1`).
fn op_cost(op: Op, exponent: Option<f64>, twice: bool) -> f64 {
    match op {
        Op::Const(c) => constant_cost(c.get()),
        Op::Input(_) => 0.0,
        Op::Pow if exponent.is_some_and(|e| e < 0.0) => 2.5,
        Op::Pow if exponent.is_some() => 0.9,
        Op::Add if twice => 1.5,
        _ => 1.0,
    }
}

fn enode_cost(egraph: &OpGraph, node: &OpNode) -> f64 {
    use egg::Language;
    let exponent = match node.op() {
        Op::Pow => egraph[node.children()[1]].data.map(|c| c.get()),
        _ => None,
    };
    let twice =
        node.children().len() == 2 && egraph.find(node.children()[0]) == egraph.find(node.children()[1]);
    op_cost(node.op(), exponent, twice)
}

/// The printing cost of the nodes `roots` reach: each operation (and
/// constant) once, however often it is used.
pub fn print_cost(dag: &ExprDag, roots: &[NodeId]) -> f64 {
    let reach = dag.reachable(roots);
    dag.ids()
        .filter(|id| reach[id.index()])
        .map(|id| {
            let exponent = match dag.op(id) {
                Op::Pow => dag.as_const(dag.args(id)[1]),
                _ => None,
            };
            let twice = matches!(dag.args(id), [a, b] if a == b);
            op_cost(dag.op(id), exponent, twice)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tidy(source: &str) -> String {
        let program = frontend::parse_expr(source).expect("valid");
        let (kernel, _) = Tidier::new().run(&program.kernel().expect("valid"));
        frontend::print_expr(kernel.dag(), kernel.roots()[0], &program.inputs)
    }

    #[test]
    fn collects_folds_and_cancels() {
        assert_eq!(tidy("20 * (3 * x^2)"), "60 * x^2");
        assert_eq!(tidy("x^5 / x"), "x^4");
        assert_eq!(tidy("x * 2 + 3 * x"), "5 * x");
        assert_eq!(tidy("-(x * (x * sin(x * y)))"), "-(x^2 * sin(x * y))");
        assert_eq!(tidy("y * (2 * x) + (-1)"), "2 * x * y - 1");
        assert_eq!(tidy("x / 6"), "x / 6");
    }

    /// The default limit scales with the input; a long chain of constants
    /// and quotients needs a larger one to fold completely.
    #[test]
    fn a_larger_limit_reaches_further() {
        let program = frontend::parse_expr("-(9 * (-(8 * (1/x)/x))/x)/x").expect("valid");
        let kernel = program.kernel().expect("valid");
        let print = |k: &Kernel| frontend::print_expr(k.dag(), k.roots()[0], &program.inputs);
        let (small, _) = Tidier::new().run(&kernel);
        let (large, _) = Tidier::new().with_node_limit(8_000).run(&kernel);
        assert_eq!(print(&large), "72 / x^4");
        assert!(print_cost(large.dag(), large.roots()) <= print_cost(small.dag(), small.roots()));
    }
}
