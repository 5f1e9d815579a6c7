//! Replaying an elimination on the [`ExprDag`]: every logged product becomes a
//! multiplication node (and an addition node where it updates an edge), and
//! the edges left from inputs to outputs are the Jacobian entries. Edge
//! values are signed [`Term`]s, whose products and sums are
//! [`derivative::product()`]'s and [`derivative::sum()`]'s, so that selector
//! partials select (the branch not taken contributes zero), and a sign is a
//! flag, not a `neg`: a product with a `-1` edge is free, as the plan counts
//! it, and `a + (-b)` is `a - b`.

use crate::cost::Cost;
use crate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::pattern::{Pattern, Step};
use derivative::{Entry, Term};
use frontend::{ExprDag, NodeId, Op};
use rustc_hash::FxHashMap;

/// A Jacobian accumulated by an elimination strategy, with its cost.
#[derive(Clone, Debug)]
pub struct Accumulation {
    /// The function's DAG, extended with the partials and the entries.
    pub dag: ExprDag,
    /// Operations the elimination spent (unit products free).
    pub cost: Cost,
    /// Nonunit edges of the final (bipartite) graph.
    pub nonunit_edges: usize,
    entries: Vec<Entry>,
    shape: (usize, usize),
}

impl Accumulation {
    /// Assembles an accumulation; `entries` are sorted into CSR order.
    pub(crate) fn new(
        dag: ExprDag,
        cost: Cost,
        nonunit_edges: usize,
        mut entries: Vec<Entry>,
        shape: (usize, usize),
    ) -> Self {
        entries.sort_by_key(|e| (e.row, e.col));
        Accumulation { dag, cost, nonunit_edges, entries, shape }
    }

    /// The structurally nonzero entries in CSR order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The DAG and the entries (CSR order).
    pub fn into_parts(self) -> (ExprDag, Vec<Entry>) {
        (self.dag, self.entries)
    }

    /// `(outputs, inputs)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The dense Jacobian at `x`, by the reference interpreter.
    pub fn eval(&self, x: &[f64]) -> Vec<Vec<f64>> {
        let roots: Vec<NodeId> = self.entries.iter().map(|e| e.node).collect();
        let values = frontend::eval(&self.dag, &roots, x);
        let mut dense = vec![vec![0.0; self.shape.1]; self.shape.0];
        for (e, value) in self.entries.iter().zip(values) {
            dense[e.row][e.col] = value;
        }
        dense
    }
}

/// Edge values `(from, to) → term`, starting from the graph's labels.
pub(crate) type EdgeValues = FxHashMap<(VertexId, VertexId), Term>;

/// The labels of `graph`'s edges (built in `dag`), their signs as flags.
pub(crate) fn initial_values(graph: &LinearizedGraph, dag: &mut ExprDag) -> EdgeValues {
    graph.edges().iter().map(|e| ((e.from, e.to), Term::of(dag, e.label))).collect()
}

/// Builds the nodes of `steps` in `dag`, updating `values`.
pub(crate) fn replay(dag: &mut ExprDag, values: &mut EdgeValues, steps: &[Step]) {
    for step in steps {
        let left = values[&(step.via, step.to)];
        let right = values[&(step.from, step.via)];
        let product = left.mul(right, dag);
        let value = if step.fresh { product } else { values[&(step.from, step.to)].add(product, dag) };
        values.insert((step.from, step.to), value);
    }
}

/// The Jacobian of a finished elimination of `graph` (built in `dag`), from
/// the logged steps of `pattern`.
pub(crate) fn finish(graph: &LinearizedGraph, mut dag: ExprDag, pattern: &Pattern) -> Accumulation {
    assert!(pattern.is_done(), "an accumulation eliminates every intermediate");
    let mut values = initial_values(graph, &mut dag);
    replay(&mut dag, &mut values, pattern.log());
    let entries = entries_of(graph, pattern, &values, &mut dag);
    let shape = (graph.num_outputs(), graph.num_inputs());
    Accumulation::new(dag, pattern.cost(), pattern.nonunit_edges(), entries, shape)
}

/// The edges `input → output` of a finished pattern as Jacobian entries.
pub(crate) fn entries_of(
    graph: &LinearizedGraph,
    pattern: &Pattern,
    values: &EdgeValues,
    dag: &mut ExprDag,
) -> Vec<Entry> {
    let mut entries = Vec::new();
    for row in 0..graph.num_outputs() {
        let Some(y) = graph.output(row) else { continue };
        for &x in pattern.preds(y).keys() {
            let VertexKind::Input(col) = pattern.kind(x) else {
                panic!("a finished elimination joins outputs to inputs only, not {x:?}")
            };
            entries.push((row, col, values[&(x, y)]));
        }
    }
    let kept: Vec<NodeId> =
        (0..graph.num_outputs()).filter_map(|r| graph.output(r)).map(|y| graph.node(y)).collect();
    materialize(dag, entries, &kept)
}

/// The entries `(row, col, term)` as nodes, beside the function's outputs
/// `kept`. A sign left over costs a `neg`, but no more than once per shared
/// factor: products that are negated together, share a factor and serve
/// nothing else (`-(x·t)`, `-(y·t)`) take the negated factor (`x·(-t)`,
/// `y·(-t)`, one `neg`), and a constant factor takes the sign for free.
/// (Every sign that a product with a `-1` edge made stays a flag until
/// here; before, each became a `neg` where it arose.)
pub(crate) fn materialize(
    dag: &mut ExprDag,
    entries: Vec<(usize, usize, Term)>,
    kept: &[NodeId],
) -> Vec<Entry> {
    let roots: Vec<NodeId> = kept.iter().copied().chain(entries.iter().map(|e| e.2.node)).collect();
    let uses = dag.use_counts(&roots);
    // A negated product whose node nothing else uses: rebuilding it costs nothing.
    let factors = |dag: &ExprDag, t: Term| match dag.op(t.node) {
        Op::Mul if t.negated && uses[t.node.index()] == 1 => Some([dag.args(t.node)[0], dag.args(t.node)[1]]),
        _ => None,
    };
    let mut shared: FxHashMap<NodeId, usize> = FxHashMap::default();
    for &(_, _, t) in &entries {
        if let Some([a, b]) = factors(dag, t) {
            *shared.entry(a).or_default() += 1;
            if b != a {
                *shared.entry(b).or_default() += 1;
            }
        }
    }
    entries
        .into_iter()
        .map(|(row, col, t)| {
            let node = match factors(dag, t) {
                Some([a, b]) => {
                    // The constant, else the factor more negated products share.
                    let weight = |f: NodeId| if dag.as_const(f).is_some() { usize::MAX } else { shared[&f] };
                    let (f, other) = if weight(b) > weight(a) { (b, a) } else { (a, b) };
                    if weight(f) >= 2 {
                        let negated = dag.neg(f);
                        dag.mul(other, negated)
                    } else {
                        t.materialize(dag)
                    }
                }
                None => t.materialize(dag),
            };
            Entry { row, col, node }
        })
        .collect()
}
