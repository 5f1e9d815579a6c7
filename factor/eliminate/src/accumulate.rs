//! Replaying an elimination on the [`ExprDag`]: every logged product becomes a
//! multiplication node (and an addition node where it updates an edge), and
//! the edges left from inputs to outputs are the Jacobian entries. Products
//! and sums are [`derivative::product()`] and [`derivative::sum()`], so that
//! selector partials select (the branch not taken contributes zero).

use crate::cost::Cost;
use crate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::pattern::{Pattern, Step};
use derivative::Entry;
use frontend::{ExprDag, NodeId};
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

/// Edge values `(from, to) → node`, starting from the graph's labels.
pub(crate) type EdgeValues = FxHashMap<(VertexId, VertexId), NodeId>;

/// The labels of `graph`'s edges.
pub(crate) fn initial_values(graph: &LinearizedGraph) -> EdgeValues {
    graph.edges().iter().map(|e| ((e.from, e.to), e.label)).collect()
}

/// Builds the nodes of `steps` in `dag`, updating `values`.
pub(crate) fn replay(dag: &mut ExprDag, values: &mut EdgeValues, steps: &[Step]) {
    for step in steps {
        let left = values[&(step.via, step.to)];
        let right = values[&(step.from, step.via)];
        let product = derivative::product(dag, left, right);
        let value =
            if step.fresh { product } else { derivative::sum(dag, values[&(step.from, step.to)], product) };
        values.insert((step.from, step.to), value);
    }
}

/// The Jacobian of a finished elimination of `graph` (built in `dag`), from
/// the logged steps of `pattern`.
pub(crate) fn finish(graph: &LinearizedGraph, mut dag: ExprDag, pattern: &Pattern) -> Accumulation {
    assert!(pattern.is_done(), "an accumulation eliminates every intermediate");
    let mut values = initial_values(graph);
    replay(&mut dag, &mut values, pattern.log());
    let entries = entries_of(graph, pattern, &values);
    let shape = (graph.num_outputs(), graph.num_inputs());
    Accumulation::new(dag, pattern.cost(), pattern.nonunit_edges(), entries, shape)
}

/// The edges `input → output` of a finished pattern as Jacobian entries.
pub(crate) fn entries_of(graph: &LinearizedGraph, pattern: &Pattern, values: &EdgeValues) -> Vec<Entry> {
    let mut entries = Vec::new();
    for row in 0..graph.num_outputs() {
        let Some(y) = graph.output(row) else { continue };
        for &x in pattern.preds(y).keys() {
            let VertexKind::Input(col) = pattern.kind(x) else {
                panic!("a finished elimination joins outputs to inputs only, not {x:?}")
            };
            entries.push(Entry { row, col, node: values[&(x, y)] });
        }
    }
    entries
}
