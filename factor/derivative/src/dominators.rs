//! Dominator trees of the derivative graph: per root (output) over the nodes
//! it reaches, and postdominator trees per leaf (input) over the nodes that
//! reach it.
//!
//! Both are one pass over a DAG in topological order: a node's immediate
//! (post)dominator is the nearest common ancestor, in the tree built so far,
//! of its predecessors (parents, for dominators; children, for
//! postdominators). Node ids are a topological order, so the nearest common
//! ancestor is found by walking the chain with the larger (or smaller) id up
//! until the two meet. petgraph's `simple_fast` is the reference in the tests;
//! it is correct here too, but iterates to a fixed point and needs a graph
//! conversion per root and per leaf.

use crate::graph::{DerivativeGraph, Marks};
use crate::subgraph::LeafMasks;
use frontend::NodeId;

const NONE: u32 = u32::MAX;

/// Immediate postdominators toward one leaf `l`: `ipdom(v)` is the first
/// node after `v` that every `v → l` path passes.
#[derive(Clone, Debug)]
pub struct PostDominatorTree {
    ipdom: Vec<u32>,
}

impl PostDominatorTree {
    /// An empty tree over node ids below `size`.
    pub fn new(size: usize) -> PostDominatorTree {
        PostDominatorTree { ipdom: vec![NONE; size] }
    }

    /// Computes the tree toward `leaf`, the node of bit `bit` in `masks`,
    /// over the nodes that reach it. Entries of other nodes are stale.
    pub fn compute(&mut self, graph: &DerivativeGraph, masks: &LeafMasks, bit: u64, leaf: NodeId) {
        self.ipdom[leaf.index()] = NONE;
        for index in leaf.index() + 1..graph.node_bound() {
            let v = NodeId::from_index(index);
            if masks.of(v) & bit == 0 {
                continue;
            }
            let mut nearest: Option<NodeId> = None;
            for e in graph.children(v) {
                if masks.of(e.child) & bit != 0 {
                    nearest = Some(match nearest {
                        None => e.child,
                        Some(n) => self.meet(n, e.child),
                    });
                }
            }
            let nearest = nearest.expect("a node that reaches the leaf has a child that does");
            self.ipdom[index] = nearest.index() as u32;
        }
    }

    /// `ipdom(v)`, or `None` for the leaf itself.
    pub fn immediate(&self, v: NodeId) -> Option<NodeId> {
        let p = self.ipdom[v.index()];
        (p != NONE).then(|| NodeId::from_index(p as usize))
    }

    /// The nearest common postdominator of `a` and `b` (each counted as its
    /// own): postdominators have smaller ids, so step the larger one down.
    fn meet(&self, mut a: NodeId, mut b: NodeId) -> NodeId {
        while a != b {
            if a > b {
                a = NodeId::from_index(self.ipdom[a.index()] as usize);
            } else {
                b = NodeId::from_index(self.ipdom[b.index()] as usize);
            }
        }
        a
    }
}

/// Immediate dominators from one root `r`: `idom(v)` is the last node before
/// `v` that every `r → v` path passes.
#[derive(Clone, Debug)]
pub struct DominatorTree {
    idom: Vec<u32>,
}

impl DominatorTree {
    /// An empty tree over node ids below `size`.
    pub fn new(size: usize) -> DominatorTree {
        DominatorTree { idom: vec![NONE; size] }
    }

    /// Computes the tree of the root `descendants[0]` over `descendants`
    /// (descending ids, also held by `members`). Entries of other nodes are
    /// stale.
    pub fn compute(&mut self, graph: &DerivativeGraph, descendants: &[NodeId], members: &Marks) {
        let Some((&root, rest)) = descendants.split_first() else { return };
        self.idom[root.index()] = NONE;
        for &v in rest {
            let mut nearest: Option<NodeId> = None;
            for &id in graph.parent_edges(v) {
                let p = graph.edge(id).parent;
                if members.contains(p) {
                    nearest = Some(match nearest {
                        None => p,
                        Some(n) => self.meet(n, p),
                    });
                }
            }
            let nearest = nearest.expect("a descendant of the root has a parent that is one");
            self.idom[v.index()] = nearest.index() as u32;
        }
    }

    /// `idom(v)`, or `None` for the root itself.
    pub fn immediate(&self, v: NodeId) -> Option<NodeId> {
        let d = self.idom[v.index()];
        (d != NONE).then(|| NodeId::from_index(d as usize))
    }

    /// The nearest common dominator: dominators have larger ids.
    fn meet(&self, mut a: NodeId, mut b: NodeId) -> NodeId {
        while a != b {
            if a < b {
                a = NodeId::from_index(self.idom[a.index()] as usize);
            } else {
                b = NodeId::from_index(self.idom[b.index()] as usize);
            }
        }
        a
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
            tree.compute(&graph, &masks, bit, leaf);
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
            tree.compute(&graph, &descendants, &marks);
            let expected = reference(&graph, &descendants, root, false);
            for &v in &descendants {
                assert_eq!(tree.immediate(v), expected.get(&v).copied(), "idom of {v:?} from {root:?}");
            }
        }
    }
}
