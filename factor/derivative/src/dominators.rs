//! Dominator trees of the derivative graph: per root (output) over the nodes
//! it reaches, and postdominator trees per leaf (input) over the nodes that
//! reach it.
//!
//! Both are one pass over a DAG in topological order, written once for
//! both orientations: a node's immediate (post)dominator is the nearest
//! common ancestor, in the tree built so far, of its predecessors (parents,
//! for dominators; children, for postdominators). Node ids are a
//! topological order, so the nearest common ancestor is found by walking the
//! chain with the larger (or smaller) id up until the two meet. petgraph's `simple_fast` is the reference in the tests;
//! it is correct here too, but iterates to a fixed point and needs a graph
//! conversion per root and per leaf.

use crate::graph::{DerivativeGraph, Marks};
use crate::subgraph::LeafMasks;
use frontend::NodeId;

const NONE: u32 = u32::MAX;

/// Which way a tree looks: from a root down toward the inputs (dominators;
/// a node's dominators have larger ids) or from a leaf up toward the outputs
/// (postdominators; smaller ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Toward {
    Inputs,
    Outputs,
}

/// Immediate (post)dominators of one source over its cone, computed in one
/// pass in topological order from the source: each member hands itself to
/// its successors in the cone, so a node's predecessors have all met by the
/// time it is reached, and the cost is the edges of the cone.
#[derive(Clone, Debug)]
struct Tree {
    parent: Vec<u32>,
    toward: Toward,
}

impl Tree {
    fn new(size: usize, toward: Toward) -> Tree {
        Tree { parent: vec![NONE; size], toward }
    }

    /// `cone` starts with the source and is ordered away from it;
    /// `successors(u)` lists `u`'s neighbours in the cone, away from it.
    fn compute<I: Iterator<Item = NodeId>>(&mut self, cone: &[NodeId], successors: impl Fn(NodeId) -> I) {
        let Some(&source) = cone.first() else { return };
        for v in cone {
            self.parent[v.index()] = NONE;
        }
        for &u in cone {
            for c in successors(u) {
                let meet = match self.immediate(c) {
                    None => u,
                    Some(d) => self.meet(d, u),
                };
                self.parent[c.index()] = meet.index() as u32;
            }
        }
        self.parent[source.index()] = NONE;
    }

    fn immediate(&self, v: NodeId) -> Option<NodeId> {
        let p = self.parent[v.index()];
        (p != NONE).then(|| NodeId::from_index(p as usize))
    }

    /// The nearest common ancestor of `a` and `b` (each counted as its own):
    /// step the one farther from the source up its chain until they meet.
    fn meet(&self, mut a: NodeId, mut b: NodeId) -> NodeId {
        while a != b {
            let a_farther = match self.toward {
                Toward::Inputs => a < b,
                Toward::Outputs => a > b,
            };
            let far = if a_farther { &mut a } else { &mut b };
            *far = NodeId::from_index(self.parent[far.index()] as usize);
        }
        a
    }
}

/// Immediate postdominators toward one leaf `l`: `ipdom(v)` is the first
/// node after `v` that every `v → l` path passes.
#[derive(Clone, Debug)]
pub struct PostDominatorTree(Tree);

impl PostDominatorTree {
    /// An empty tree over node ids below `size`.
    pub fn new(size: usize) -> PostDominatorTree {
        PostDominatorTree(Tree::new(size, Toward::Outputs))
    }

    /// Computes the tree toward `leaf`, the node of bit `bit` in `masks`,
    /// over the nodes that reach it (found through `marks`); returns them
    /// in ascending order, `leaf` first. Entries of other nodes are stale.
    pub fn compute(
        &mut self,
        graph: &DerivativeGraph,
        masks: &LeafMasks,
        bit: u64,
        leaf: NodeId,
        marks: &mut Marks,
    ) -> Vec<NodeId> {
        let cone = graph.ancestors(leaf, marks);
        let successors = |u: NodeId| {
            graph.parent_edges(u).iter().map(|&id| graph.edge(id).parent).filter(|&p| masks.of(p) & bit != 0)
        };
        self.0.compute(&cone, successors);
        cone
    }

    /// `ipdom(v)`, or `None` for the leaf itself.
    pub fn immediate(&self, v: NodeId) -> Option<NodeId> {
        self.0.immediate(v)
    }
}

/// Immediate dominators from one root `r`: `idom(v)` is the last node before
/// `v` that every `r → v` path passes.
#[derive(Clone, Debug)]
pub struct DominatorTree(Tree);

impl DominatorTree {
    /// An empty tree over node ids below `size`.
    pub fn new(size: usize) -> DominatorTree {
        DominatorTree(Tree::new(size, Toward::Inputs))
    }

    /// Computes the tree of the root `descendants[0]` over `descendants`
    /// (descending ids). Entries of other nodes are stale.
    pub fn compute(&mut self, graph: &DerivativeGraph, descendants: &[NodeId]) {
        self.0.compute(descendants, |u| graph.children(u).iter().map(|e| e.child));
    }

    /// `idom(v)`, or `None` for the root itself.
    pub fn immediate(&self, v: NodeId) -> Option<NodeId> {
        self.0.immediate(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::{ExprDag, Op};
    use petgraph::algo::dominators::simple_fast;
    use petgraph::graph::{DiGraph, NodeIndex};
    use std::collections::HashMap;

    /// r = sin(a*b) * (a + c) + pow(c, c) with a = x*y, b = exp(a), c = a*x:
    /// paths fan out, meet again in `a`, and jump straight to `x`.
    fn sample() -> (DerivativeGraph, NodeId) {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let a = dag.mul(x, y);
        let b = dag.apply(Op::Exp, &[a]);
        let ab = dag.mul(a, b);
        let s = dag.apply(Op::Sin, &[ab]);
        let c = dag.mul(a, x);
        let sum = dag.add(a, c);
        let prod = dag.mul(s, sum);
        let p = dag.apply(Op::Pow, &[c, c]);
        let r = dag.add(prod, p);
        let mut kernel = frontend::Kernel::new(dag, vec![r, s], 2).unwrap();
        (DerivativeGraph::new(&mut kernel), r)
    }

    /// Immediate dominators by petgraph, with edges reversed when `reverse`.
    fn reference(
        graph: &DerivativeGraph,
        nodes: &[NodeId],
        start: NodeId,
        reverse: bool,
    ) -> HashMap<NodeId, NodeId> {
        let mut g = DiGraph::<NodeId, ()>::new();
        let index: HashMap<NodeId, NodeIndex> = nodes.iter().map(|&v| (v, g.add_node(v))).collect();
        for &v in nodes {
            for e in graph.children(v) {
                if let Some(&c) = index.get(&e.child) {
                    let (from, to) = if reverse { (c, index[&v]) } else { (index[&v], c) };
                    g.add_edge(from, to, ());
                }
            }
        }
        let dominators = simple_fast(&g, index[&start]);
        nodes.iter().filter_map(|&v| Some((v, g[dominators.immediate_dominator(index[&v])?]))).collect()
    }

    #[test]
    fn trees_match_petgraph() {
        let (graph, _) = sample();
        let size = graph.node_bound();
        let masks = LeafMasks::new(&graph, size, &[0, 1]);
        for (bit, k) in [(1u64, 0usize), (2, 1)] {
            let leaf = graph.leaf(k).expect("both inputs are used");
            let mut tree = PostDominatorTree::new(size);
            tree.compute(&graph, &masks, bit, leaf, &mut Marks::new(size));
            let nodes: Vec<NodeId> =
                (0..size).map(NodeId::from_index).filter(|&v| masks.of(v) & bit != 0).collect();
            let expected = reference(&graph, &nodes, leaf, true);
            for &v in &nodes {
                assert_eq!(tree.immediate(v), expected.get(&v).copied(), "ipdom of {v:?} toward {leaf:?}");
            }
        }
        let mut marks = Marks::new(size);
        for &root in graph.roots() {
            let descendants = graph.descendants(root, &mut marks);
            let mut tree = DominatorTree::new(size);
            tree.compute(&graph, &descendants);
            let expected = reference(&graph, &descendants, root, false);
            for &v in &descendants {
                assert_eq!(tree.immediate(v), expected.get(&v).copied(), "idom of {v:?} from {root:?}");
            }
        }
    }
}
