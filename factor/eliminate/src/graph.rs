//! The linearized computational graph: vertices are the inputs, intermediates
//! and outputs of an [`ExprDag`], edges carry the local partials of
//! [`derivative::partials::partials`] as nodes of the same DAG.

use derivative::DerivativeGraph;
use frontend::{ExprDag, Kernel, NodeId, Op};
use std::collections::BTreeMap;
use std::fmt;

/// Index of a vertex of a [`LinearizedGraph`]. Every edge goes from a lower
/// to a higher id, so ascending ids are a topological order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VertexId(u32);

impl VertexId {
    /// The id as an index into per-vertex arrays.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id of the vertex at `index`.
    pub fn from_index(index: usize) -> VertexId {
        VertexId(u32::try_from(index).expect("a linearized graph holds at most 2^32 - 1 vertices"))
    }
}

impl fmt::Debug for VertexId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// The role of a vertex: only intermediates are ever eliminated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexKind {
    /// The independent variable of the given Jacobian column; no in-edges.
    Input(usize),
    /// A value on some input → output path that is neither.
    Intermediate,
    /// The dependent variable of the given Jacobian row; no out-edges.
    Output(usize),
}

/// An edge `from → to` labeled with the local partial `∂to/∂from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearizedEdge {
    /// The argument (closer to the inputs).
    pub from: VertexId,
    /// The operation using it (closer to the outputs).
    pub to: VertexId,
    /// The local partial, a node of the DAG the graph was built in.
    pub label: NodeId,
    /// Whether the label is the constant `1` or `-1`: products with it are free.
    pub unit: bool,
}

/// The linearized computational graph `G = (V, E)` of the elimination
/// literature (Griewank & Walther, Naumann).
///
/// Built from [`DerivativeGraph`], so only vertices on input → output paths
/// are present and every label comes from the derivative rules table. Two
/// deliberate differences from the D* graph:
///
/// - Parallel edges (both operands of `x*x`, `pow(t, t)`) are summed into one
///   local partial `c_ji = Σ slots`, here `x + x`. The sum is the exact local
///   derivative of the operation (doubling is exact in IEEE arithmetic), it is
///   part of linearizing the operation, and it is not counted as an
///   accumulation cost, as in the literature where `c_ji` is `∂φ_i/∂v_j`.
/// - Outputs must be sinks and inputs sources. An output node that is also
///   used by other nodes, an input that is an output, and an output listed
///   twice each get a fresh output vertex joined to the node by a unit edge,
///   so the node itself stays an eliminable intermediate (or input); the unit
///   edge costs no multiplication.
#[derive(Clone, Debug)]
pub struct LinearizedGraph {
    kinds: Vec<VertexKind>,
    nodes: Vec<NodeId>,
    /// Edges sorted by `(to, from)`.
    edges: Vec<LinearizedEdge>,
    inputs: Vec<Option<VertexId>>,
    outputs: Vec<Option<VertexId>>,
}

impl LinearizedGraph {
    /// The linearized graph of the kernel's outputs with respect to its
    /// variables; the local partials are added to its DAG.
    pub fn new(kernel: &mut Kernel) -> LinearizedGraph {
        let graph = DerivativeGraph::new(kernel);
        let (outputs, num_inputs) = (&kernel.roots().to_vec(), kernel.num_variables());
        let dag = kernel.dag_mut();
        let bound = graph.node_bound();
        // How many rows each node is the output of.
        let mut rows_of = vec![0u32; bound];
        for v in outputs.iter().filter(|v| graph.contains(**v)) {
            rows_of[v.index()] += 1;
        }
        // Claim each output node as its own output vertex where allowed.
        let mut own_row = vec![None; bound];
        let mut copies = Vec::new();
        for (row, &v) in outputs.iter().enumerate() {
            if !graph.contains(v) {
                continue;
            }
            // A node listed twice keeps no row: both rows get copies.
            let is_sink = graph.parent_edges(v).is_empty() && !matches!(dag.op(v), Op::Input(_));
            if is_sink && rows_of[v.index()] == 1 {
                own_row[v.index()] = Some(row);
            } else {
                copies.push((row, v));
            }
        }
        let mut kinds = Vec::new();
        let mut nodes = Vec::new();
        let mut vertex_of = vec![None; bound];
        let mut inputs = vec![None; num_inputs];
        let mut output_vertices = vec![None; outputs.len()];
        for index in 0..bound {
            let v = NodeId::from_index(index);
            if !graph.contains(v) {
                continue;
            }
            let id = VertexId::from_index(kinds.len());
            let kind = match (dag.op(v), own_row[index]) {
                (Op::Input(k), _) => {
                    inputs[k as usize] = Some(id);
                    VertexKind::Input(k as usize)
                }
                (_, Some(row)) => {
                    output_vertices[row] = Some(id);
                    VertexKind::Output(row)
                }
                _ => {
                    debug_assert!(rows_of[index] > 0 || !graph.parent_edges(v).is_empty());
                    VertexKind::Intermediate
                }
            };
            vertex_of[index] = Some(id);
            kinds.push(kind);
            nodes.push(v);
        }
        let mut sums: BTreeMap<(VertexId, VertexId), NodeId> = BTreeMap::new();
        for e in graph.edges() {
            let key = (
                vertex_of[e.child.index()].expect("edge ends lie on paths"),
                vertex_of[e.parent.index()].expect("edge ends lie on paths"),
            );
            let label = match sums.get(&key) {
                Some(&earlier) => derivative::sum(dag, earlier, e.label),
                None => e.label,
            };
            sums.insert(key, label);
        }
        let one = dag.constant(1.0);
        for (row, v) in copies {
            let id = VertexId::from_index(kinds.len());
            kinds.push(VertexKind::Output(row));
            nodes.push(v);
            output_vertices[row] = Some(id);
            sums.insert((vertex_of[v.index()].expect("copied outputs lie on paths"), id), one);
        }
        let edges = sums.into_iter().map(|((from, to), label)| LinearizedEdge {
            from,
            to,
            label,
            unit: is_unit(dag, label),
        });
        LinearizedGraph::from_parts(kinds, nodes, edges.collect(), inputs, output_vertices)
    }

    /// Assembles a graph; `edges` in any order, each `from < to`.
    pub(crate) fn from_parts(
        kinds: Vec<VertexKind>,
        nodes: Vec<NodeId>,
        mut edges: Vec<LinearizedEdge>,
        inputs: Vec<Option<VertexId>>,
        outputs: Vec<Option<VertexId>>,
    ) -> LinearizedGraph {
        edges.sort_by_key(|e| (e.to, e.from));
        debug_assert!(edges.iter().all(|e| e.from < e.to), "ids are a topological order");
        LinearizedGraph { kinds, nodes, edges, inputs, outputs }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.kinds.len()
    }

    /// All vertex ids, in topological order.
    pub fn vertices(&self) -> impl DoubleEndedIterator<Item = VertexId> + ExactSizeIterator {
        (0..self.kinds.len()).map(VertexId::from_index)
    }

    /// The role of `v`.
    pub fn kind(&self, v: VertexId) -> VertexKind {
        self.kinds[v.index()]
    }

    /// The roles of all vertices, by id.
    pub fn kinds(&self) -> &[VertexKind] {
        &self.kinds
    }

    /// The DAG node whose value `v` is (for an output copy, the copied node).
    pub fn node(&self, v: VertexId) -> NodeId {
        self.nodes[v.index()]
    }

    /// The intermediate vertices, in topological order.
    pub fn intermediates(&self) -> impl Iterator<Item = VertexId> + '_ {
        self.vertices().filter(|&v| self.kind(v) == VertexKind::Intermediate)
    }

    /// Every edge, sorted by `(to, from)`.
    pub fn edges(&self) -> &[LinearizedEdge] {
        &self.edges
    }

    /// The vertex of input `col`, if it lies on a path.
    pub fn input(&self, col: usize) -> Option<VertexId> {
        self.inputs[col]
    }

    /// The vertex of output `row`, if it lies on a path.
    pub fn output(&self, row: usize) -> Option<VertexId> {
        self.outputs[row]
    }

    /// Number of Jacobian columns.
    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Number of Jacobian rows.
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Number of edges whose label is not `±1`.
    pub fn nonunit_edges(&self) -> usize {
        self.edges.iter().filter(|e| !e.unit).count()
    }

    /// How many nonzero components forward and reverse sweeps carry over
    /// the edges, `(forward, reverse)`: the estimate D* uses to pick its
    /// orientations, counted the same way.
    pub fn sweep_components(&self) -> (u64, u64) {
        let sources = (0..self.num_inputs()).filter_map(|col| self.input(col).map(|v| (v.index(), col)));
        let sinks = (0..self.num_outputs()).filter_map(|row| self.output(row).map(|v| (v.index(), row)));
        // Edges are sorted by head, and every tail comes before its head.
        let edges = self.edges.iter().map(|e| (e.from.index(), e.to.index()));
        derivative::sweep_components(self.num_vertices(), sources, sinks, edges)
    }

    /// The exact number of components forward and reverse sweeps carry,
    /// each counted up to `limit` (see [`derivative::exact_sweep_components`]).
    pub fn exact_sweep_components(&self, limit: u64) -> (u64, u64) {
        let sources: Vec<_> =
            (0..self.num_inputs()).filter_map(|col| Some((self.input(col)?.index(), col))).collect();
        let sinks: Vec<_> =
            (0..self.num_outputs()).filter_map(|row| Some((self.output(row)?.index(), row))).collect();
        let edges = self.edges.iter().map(|e| (e.from.index(), e.to.index()));
        derivative::exact_sweep_components(self.num_vertices(), &sources, &sinks, edges, limit)
    }

    /// Whether every intermediate has exactly one successor: the
    /// single-expression-use graphs of Naumann's optimal vertex elimination.
    pub fn is_single_expression_use(&self) -> bool {
        let mut out_degree = vec![0usize; self.num_vertices()];
        for e in &self.edges {
            out_degree[e.from.index()] += 1;
        }
        self.intermediates().all(|v| out_degree[v.index()] == 1)
    }
}

/// Whether `label` is the constant `1` or `-1`.
pub fn is_unit(dag: &ExprDag, label: NodeId) -> bool {
    matches!(dag.as_const(label), Some(c) if c == 1.0 || c == -1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_edges_are_summed_and_outputs_are_sinks() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let square = dag.mul(x, x);
        let s = dag.apply(Op::Sin, &[square]);
        // `square` is an output used by `s`, and `x` is an output too.
        let graph = {
            let mut kernel = frontend::Kernel::new(std::mem::take(&mut dag), vec![square, s, x], 1).unwrap();
            let graph = LinearizedGraph::new(&mut kernel);
            dag = kernel.into_parts().0;
            graph
        };
        assert_eq!(graph.num_vertices(), 5, "x, x*x, sin (its own output), copies for x*x and x");
        let square_vertex = graph.vertices().find(|&v| graph.node(v) == square).expect("present");
        assert_eq!(graph.kind(square_vertex), VertexKind::Intermediate);
        let into_square: Vec<_> = graph.edges().iter().filter(|e| e.to == square_vertex).collect();
        assert_eq!(into_square.len(), 1, "x*x has one summed edge");
        assert_eq!(frontend::eval(&dag, &[into_square[0].label], &[3.0])[0], 6.0);
        for row in 0..3 {
            let y = graph.output(row).expect("on a path");
            assert_eq!(graph.kind(y), VertexKind::Output(row));
            assert!(graph.edges().iter().all(|e| e.from != y));
        }
        assert_eq!(graph.edges().iter().filter(|e| e.unit).count(), 2, "the copies of x*x and x");
    }
}
