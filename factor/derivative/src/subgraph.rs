//! Factorable subgraphs and the reach masks that delimit them.
//!
//! The pair bookkeeping of D*: an edge serves the (output `r`, input `l`)
//! pair when it lies on an `r → l` path. Rather than storing a pair set per
//! edge, the factorization works one leaf at a time ([`LeafMasks`] tell which
//! nodes reach it) or one root at a time (the root's descendants), and every
//! factored subgraph is identified by its two ends alone: see
//! [`FactorableSubgraph`] for why that is exact.

use crate::graph::{DerivativeGraph, Marks};
use frontend::NodeId;

/// For each node, a bit per leaf of one batch of up to 64 leaves: whether the
/// node reaches that leaf along edges.
#[derive(Clone, Debug)]
pub struct LeafMasks {
    bits: Vec<u64>,
    /// The nodes whose bits may be nonzero (all of them after [`LeafMasks::new`]).
    touched: Vec<NodeId>,
}

impl LeafMasks {
    /// Masks over node ids below `size`, every bit clear: fill them with
    /// [`LeafMasks::fill`].
    pub fn empty(size: usize) -> LeafMasks {
        LeafMasks { bits: vec![0; size], touched: Vec::new() }
    }

    /// Sets the masks of the leaves `batch` (input indices; bit `j` is
    /// `batch[j]`), clearing the previous batch's, and returns the nodes that
    /// reach a leaf of the batch, ascending. The work is those nodes and
    /// their parent edges, not the whole graph: a batch of inputs that each
    /// feed a few outputs costs what their cones do.
    pub fn fill(&mut self, graph: &DerivativeGraph, batch: &[usize], marks: &mut Marks) -> &[NodeId] {
        assert!(batch.len() <= 64, "a batch holds at most 64 leaves");
        for v in self.touched.drain(..) {
            self.bits[v.index()] = 0;
        }
        marks.clear();
        let mut stack = Vec::new();
        for (j, &k) in batch.iter().enumerate() {
            if let Some(leaf) = graph.leaf(k) {
                self.bits[leaf.index()] |= 1 << j;
                if marks.insert(leaf) {
                    stack.push(leaf);
                }
            }
        }
        while let Some(v) = stack.pop() {
            self.touched.push(v);
            for &id in graph.parent_edges(v) {
                let parent = graph.edge(id).parent;
                if marks.insert(parent) {
                    stack.push(parent);
                }
            }
        }
        // Children have smaller ids: ascending, each node's bits are final
        // before they flow to its parents.
        self.touched.sort_unstable();
        for &v in &self.touched {
            let bits = self.bits[v.index()];
            for &id in graph.parent_edges(v) {
                self.bits[graph.edge(id).parent.index()] |= bits;
            }
        }
        &self.touched
    }

    /// Masks for the leaves `batch` (input indices); bit `j` is `batch[j]`.
    pub fn new(graph: &DerivativeGraph, size: usize, batch: &[usize]) -> LeafMasks {
        assert!(batch.len() <= 64, "a batch holds at most 64 leaves");
        let mut bits = vec![0u64; size];
        for (j, &k) in batch.iter().enumerate() {
            if let Some(leaf) = graph.leaf(k) {
                bits[leaf.index()] |= 1 << j;
            }
        }
        // Edges are sorted by parent, children have smaller ids: one pass.
        for e in graph.edges() {
            bits[e.parent.index()] |= bits[e.child.index()];
        }
        let touched = (0..size).map(NodeId::from_index).collect();
        LeafMasks { bits, touched }
    }

    /// The leaves of the batch that `v` reaches.
    pub fn of(&self, v: NodeId) -> u64 {
        self.bits[v.index()]
    }
}

/// The subgraph of all paths from `upper` down to `lower` in the derivative
/// graph, where `lower` postdominates `upper` toward some leaf or `upper`
/// dominates `lower` from some root. Its label, once factored, is the sum of
/// its path products `S(upper, lower)`.
///
/// Why two ends identify it exactly: the subgraph is *all* `upper → lower`
/// paths of the graph, not the paths that some pair happens to see. For a
/// pair (`r`, `l`) whose every path through `upper` continues through `lower`
/// (`lower` postdominates `upper` toward `l`), every `upper → lower` path is
/// part of an `r → l` path, and every `r → l` path that enters the subgraph
/// does so at `upper` and leaves at `lower`; so the pair's path sum is
/// `S(r, upper) · S(upper, lower) · S(lower, l)` on those paths, whichever
/// other pairs share the subgraph (dually for dominators). One reference edge
/// labeled `S(upper, lower)` therefore serves every pair that factors it, and
/// pairs that see different paths between two nodes factor different
/// subgraphs (different ends): they are never merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FactorableSubgraph {
    /// The upper end (closer to the outputs).
    pub upper: NodeId,
    /// The lower end (closer to the inputs).
    pub lower: NodeId,
}
