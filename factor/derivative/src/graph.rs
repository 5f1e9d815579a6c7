//! The derivative graph of the D* paper: the function's DAG restricted to the
//! nodes on input → output paths, each argument use an edge labeled by its
//! local partial.

use crate::partials;
use frontend::{ExprDag, Kernel, NodeId, Op};
use std::fmt;
use std::ops::Range;

/// Index of an edge in a [`DerivativeGraph`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EdgeId(u32);

impl EdgeId {
    /// The id as an index into per-edge arrays.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    fn from_index(index: usize) -> EdgeId {
        EdgeId(u32::try_from(index).expect("a derivative graph holds at most 2^32 - 1 edges"))
    }
}

impl fmt::Debug for EdgeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

/// One use of `child` as an argument of `parent`, with `∂parent/∂child` for
/// that argument slot as its label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The node using the argument (closer to the outputs).
    pub parent: NodeId,
    /// The argument (closer to the inputs).
    pub child: NodeId,
    /// The local partial, a node of the same [`ExprDag`].
    pub label: NodeId,
}

/// The derivative graph of some outputs (roots) with respect to the inputs
/// `0..num_inputs` (leaves).
///
/// Invariants: every edge has its own [`EdgeId`], so `x*x` has two edges from
/// the product to `x` and they are never merged; an edge with a structurally
/// zero partial is absent; a node is present only if it lies on a path of
/// edges from a root down to a leaf. Node ids are those of the [`ExprDag`],
/// so ascending ids remain a topological order (children first).
#[derive(Clone, Debug)]
pub struct DerivativeGraph {
    roots: Vec<NodeId>,
    leaves: Vec<Option<NodeId>>,
    /// Edges sorted by parent; `child_edges[v]` is the range of `v`'s edges.
    edges: Vec<Edge>,
    child_start: Vec<u32>,
    /// Edge ids sorted by child; `parent_start[v]..parent_start[v+1]` are
    /// the edges entering `v` from its parents.
    parent_edges: Vec<EdgeId>,
    parent_start: Vec<u32>,
    on_path: Vec<bool>,
}

impl DerivativeGraph {
    /// Builds the derivative graph of the kernel's roots with respect to its
    /// variables ([`Kernel::num_variables`]), adding the partials to its DAG.
    pub fn new(kernel: &mut Kernel) -> DerivativeGraph {
        let n = kernel.num_variables();
        DerivativeGraph::with_respect_to(kernel, n)
    }

    /// Builds the derivative graph of the kernel's roots with respect to its
    /// first `num_inputs` inputs only; the others (weights, directions) are
    /// parameters, constant as far as the derivatives go. Panics if the
    /// kernel has fewer inputs.
    pub fn with_respect_to(kernel: &mut Kernel, num_inputs: usize) -> DerivativeGraph {
        assert!(num_inputs <= kernel.num_inputs(), "differentiating by inputs the kernel has");
        let roots = &kernel.roots().to_vec();
        let dag = kernel.dag_mut();
        let size = dag.len();
        let reach = dag.reachable(roots);
        let is_leaf =
            |dag: &ExprDag, v: NodeId| matches!(dag.op(v), Op::Input(k) if (k as usize) < num_inputs);
        // A superset of the path nodes, so partials are built only where they may be needed.
        let reaches_leaf = dag.reads_inputs_below(num_inputs);
        let mut candidates = Vec::new();
        for index in 0..size {
            let v = NodeId::from_index(index);
            if !reach[index] || !reaches_leaf[index] || dag.op(v).is_leaf() {
                continue;
            }
            let partials = partials::partials(dag, v);
            for (slot, label) in partials.iter().enumerate() {
                let child = dag.args(v).get(slot).copied();
                if let (Some(label), Some(child)) = (*label, child) {
                    if reaches_leaf[child.index()] {
                        candidates.push(Edge { parent: v, child, label });
                    }
                }
            }
        }
        // Zero partials removed edges: recompute reachability over edges only.
        let mut down = vec![false; size];
        for v in 0..size {
            down[v] = is_leaf(dag, NodeId::from_index(v));
        }
        for e in &candidates {
            down[e.parent.index()] |= down[e.child.index()];
        }
        let mut up = vec![false; size];
        for r in roots {
            up[r.index()] = true;
        }
        for e in candidates.iter().rev() {
            up[e.child.index()] |= up[e.parent.index()];
        }
        let on_path: Vec<bool> = (0..size).map(|v| down[v] && up[v]).collect();
        let edges: Vec<Edge> = candidates
            .into_iter()
            .filter(|e| on_path[e.parent.index()] && on_path[e.child.index()])
            .collect();
        let leaves = (0..num_inputs)
            .map(|k| {
                let input = dag.find(&frontend::Node::new(Op::Input(k as u32), &[]))?;
                (input.index() < size && on_path[input.index()]).then_some(input)
            })
            .collect();
        DerivativeGraph::from_edges(roots, leaves, edges, on_path)
    }

    fn from_edges(
        roots: &[NodeId],
        leaves: Vec<Option<NodeId>>,
        edges: Vec<Edge>,
        on_path: Vec<bool>,
    ) -> Self {
        let size = on_path.len();
        let mut child_start = vec![0u32; size + 1];
        let mut parent_start = vec![0u32; size + 1];
        for e in &edges {
            child_start[e.parent.index() + 1] += 1;
            parent_start[e.child.index() + 1] += 1;
        }
        for v in 0..size {
            child_start[v + 1] += child_start[v];
            parent_start[v + 1] += parent_start[v];
        }
        let mut fill = parent_start.clone();
        let mut parent_edges = vec![EdgeId(0); edges.len()];
        for (index, e) in edges.iter().enumerate() {
            let slot = &mut fill[e.child.index()];
            parent_edges[*slot as usize] = EdgeId::from_index(index);
            *slot += 1;
        }
        DerivativeGraph {
            roots: roots.to_vec(),
            leaves,
            edges,
            child_start,
            parent_edges,
            parent_start,
            on_path,
        }
    }

    /// The roots (outputs), in order, including those with no path.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// The node of input `k`, if it lies on some path.
    pub fn leaf(&self, k: usize) -> Option<NodeId> {
        self.leaves[k]
    }

    /// For every node below [`DerivativeGraph::node_bound`], the input it
    /// is the leaf of, if any.
    pub fn leaf_inputs(&self) -> Vec<Option<usize>> {
        let mut input = vec![None; self.node_bound()];
        for (k, leaf) in self.leaves.iter().enumerate() {
            if let Some(leaf) = leaf {
                input[leaf.index()] = Some(k);
            }
        }
        input
    }

    /// One past the largest node id the graph may hold: the size of per-node arrays.
    pub fn node_bound(&self) -> usize {
        self.on_path.len()
    }

    /// Number of leaves (inputs), present or not.
    pub fn num_leaves(&self) -> usize {
        self.leaves.len()
    }

    /// Whether `v` lies on a root → leaf path.
    pub fn contains(&self, v: NodeId) -> bool {
        self.on_path.get(v.index()).copied().unwrap_or(false)
    }

    /// Every edge.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The edge `e`.
    pub fn edge(&self, e: EdgeId) -> &Edge {
        &self.edges[e.index()]
    }

    /// The ids of the edges from `v` down to its arguments, in slot order.
    pub fn child_edges(&self, v: NodeId) -> impl Iterator<Item = EdgeId> + '_ {
        self.child_range(v).map(EdgeId::from_index)
    }

    /// The edges from `v` down to its arguments, in slot order.
    pub fn children(&self, v: NodeId) -> &[Edge] {
        &self.edges[self.child_range(v)]
    }

    /// The ids of the edges entering `v` from its parents.
    pub fn parent_edges(&self, v: NodeId) -> &[EdgeId] {
        match self.on_path.get(v.index()) {
            Some(true) => {
                &self.parent_edges
                    [self.parent_start[v.index()] as usize..self.parent_start[v.index() + 1] as usize]
            }
            _ => &[],
        }
    }

    /// The nodes reachable from `root` along edges, in descending id order
    /// (`root` first). Empty if `root` is not in the graph.
    pub fn descendants(&self, root: NodeId, mark: &mut Marks) -> Vec<NodeId> {
        let mut found = Vec::new();
        if !self.contains(root) {
            return found;
        }
        mark.clear();
        mark.insert(root);
        let mut stack = vec![root];
        while let Some(v) = stack.pop() {
            found.push(v);
            for e in self.children(v) {
                if mark.insert(e.child) {
                    stack.push(e.child);
                }
            }
        }
        found.sort_unstable_by(|a, b| b.cmp(a));
        found
    }

    /// The nodes that reach `leaf` along edges, in ascending id order
    /// (`leaf` first). Empty if `leaf` is not in the graph.
    pub fn ancestors(&self, leaf: NodeId, mark: &mut Marks) -> Vec<NodeId> {
        let mut found = Vec::new();
        if !self.contains(leaf) {
            return found;
        }
        mark.clear();
        mark.insert(leaf);
        let mut stack = vec![leaf];
        while let Some(v) = stack.pop() {
            found.push(v);
            for &id in self.parent_edges(v) {
                let p = self.edge(id).parent;
                if mark.insert(p) {
                    stack.push(p);
                }
            }
        }
        found.sort_unstable();
        found
    }

    fn child_range(&self, v: NodeId) -> Range<usize> {
        match self.on_path.get(v.index()) {
            Some(true) => self.child_start[v.index()] as usize..self.child_start[v.index() + 1] as usize,
            _ => 0..0,
        }
    }
}

/// The parent edges of each node of one root's cone that come from the cone
/// itself, found in one pass over the cone's edges: a node with many
/// parents outside the cone (an input used by every output) costs only its
/// parents inside it.
#[derive(Clone, Debug)]
pub struct ConeParents {
    offset: Vec<u32>,
    count: Vec<u32>,
    edges: Vec<Edge>,
}

impl ConeParents {
    /// Empty lists over node ids below `size`.
    pub fn new(size: usize) -> ConeParents {
        ConeParents { offset: vec![0; size], count: vec![0; size], edges: Vec::new() }
    }

    /// Lists, for each node of `cone` (a root's descendants, descending,
    /// as [`DerivativeGraph::descendants`] gives them), its parent edges from
    /// the cone: parents descending, a parent's parallel edges last slot
    /// first, the order in which a reverse sweep meets them. Lists of other
    /// nodes are stale.
    pub fn compute(&mut self, graph: &DerivativeGraph, cone: &[NodeId]) {
        for v in cone {
            self.count[v.index()] = 0;
        }
        for &u in cone {
            for e in graph.children(u) {
                self.count[e.child.index()] += 1;
            }
        }
        let mut total = 0u32;
        for v in cone {
            self.offset[v.index()] = total;
            total += std::mem::take(&mut self.count[v.index()]);
        }
        self.edges.clear();
        self.edges.resize(total as usize, Edge { parent: cone[0], child: cone[0], label: cone[0] });
        for &u in cone {
            for e in graph.children(u).iter().rev() {
                let c = e.child.index();
                self.edges[(self.offset[c] + self.count[c]) as usize] = *e;
                self.count[c] += 1;
            }
        }
    }

    /// The parent edges of `v` from the cone.
    pub fn of(&self, v: NodeId) -> &[Edge] {
        let start = self.offset[v.index()] as usize;
        &self.edges[start..start + self.count[v.index()] as usize]
    }
}

/// A set of nodes that clears in O(1): a node is in the set when its stamp
/// equals the current epoch.
#[derive(Clone, Debug)]
pub struct Marks {
    stamps: Vec<u32>,
    epoch: u32,
}

impl Marks {
    /// An empty set over node ids below `size`.
    pub fn new(size: usize) -> Marks {
        Marks { stamps: vec![0; size], epoch: 1 }
    }

    /// Empties the set.
    pub fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
    }

    /// Adds `v`; returns whether it was absent.
    pub fn insert(&mut self, v: NodeId) -> bool {
        let stamp = &mut self.stamps[v.index()];
        let absent = *stamp != self.epoch;
        *stamp = self.epoch;
        absent
    }

    /// Whether `v` is in the set.
    pub fn contains(&self, v: NodeId) -> bool {
        self.stamps[v.index()] == self.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_operands_keep_distinct_edges() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let square = dag.mul(x, x);
        let s = dag.apply(Op::Sin, &[x]);
        let s2 = dag.mul(s, s);
        let p = dag.apply(Op::Pow, &[x, x]);
        let mut kernel = Kernel::new(dag, vec![square, s2, p], 1).unwrap();
        let graph = DerivativeGraph::new(&mut kernel);
        for (node, child) in [(square, x), (s2, s), (p, x)] {
            let edges: Vec<&Edge> = graph.children(node).iter().filter(|e| e.child == child).collect();
            assert_eq!(edges.len(), 2, "{node:?}");
        }
        assert_eq!(graph.parent_edges(x).len(), 5, "two from x*x, two from pow, one from sin");
    }

    #[test]
    fn zero_partials_and_dead_nodes_are_absent() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let f = dag.apply(Op::Floor, &[x]);
        let g = dag.mul(f, y);
        let two = dag.constant(2.0);
        let h = dag.mul(g, two);
        let mut kernel = Kernel::new(dag, vec![h], 2).unwrap();
        let graph = DerivativeGraph::new(&mut kernel);
        assert!(!graph.contains(f), "floor has no edge, so nothing below it is on a path");
        assert!(!graph.contains(x));
        assert!(graph.contains(y) && graph.contains(g) && graph.contains(h));
        assert!(!graph.contains(two));
        assert_eq!(graph.edges().len(), 2);
        assert_eq!(graph.leaf(0), None);
        assert_eq!(graph.leaf(1), Some(y));
    }
}
