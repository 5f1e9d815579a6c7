//! Dominator trees of the derivative graph: per root (output) over the nodes
//! it reaches, and postdominator trees per leaf (input) over the nodes that
//! reach it.
//!
//! Both are one pass over a DAG in topological order, written once for
//! both orientations: a node's immediate (post)dominator is the nearest
//! common ancestor, in the tree built so far, of its predecessors (parents,
//! for dominators; children, for postdominators). Node ids are a
//! topological order, so a node's dominators are settled before it is
//! reached, and nearest common ancestors are found by jump pointers. petgraph's `simple_fast` is the reference in the tests;
//! it is correct here too, but iterates to a fixed point and needs a graph
//! conversion per root and per leaf.

use crate::graph::{DerivativeGraph, Marks};
use crate::subgraph::LeafMasks;
use frontend::NodeId;

const NONE: u32 = u32::MAX;

/// Immediate (post)dominators of one source over its cone, computed in one
/// pass in topological order from the source: each member hands itself to
/// its successors in the cone, so a node's predecessors have all met by the
/// time it is reached. A node's place in the tree is final when it is
/// reached; it then gets its depth and a skew-binary jump pointer (Myers
/// 1983), so that each meeting of two nodes costs O(log depth) and the pass
/// costs the cone's edges times that, also on chains a million deep.
#[derive(Clone, Debug)]
struct Tree {
    parent: Vec<u32>,
    depth: Vec<u32>,
    jump: Vec<u32>,
}

impl Tree {
    fn new(size: usize) -> Tree {
        Tree { parent: vec![NONE; size], depth: vec![0; size], jump: vec![NONE; size] }
    }

    /// `cone` starts with the source and is ordered away from it;
    /// `successors(u)` lists `u`'s neighbours in the cone, away from it.
    fn compute<I: Iterator<Item = NodeId>>(&mut self, cone: &[NodeId], successors: impl Fn(NodeId) -> I) {
        let Some(&source) = cone.first() else { return };
        for v in cone {
            self.parent[v.index()] = NONE;
        }
        for &u in cone {
            self.settle(u, source);
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

    /// Fixes `u`'s depth and jump pointer once all its predecessors met.
    fn settle(&mut self, u: NodeId, source: NodeId) {
        let i = u.index();
        if u == source {
            self.parent[i] = NONE;
            (self.depth[i], self.jump[i]) = (0, i as u32);
            return;
        }
        let p = self.parent[i] as usize;
        let j = self.jump[p] as usize;
        let jj = self.jump[j] as usize;
        self.depth[i] = self.depth[p] + 1;
        // Skew-binary: jump twice as far when the two jumps above are as long.
        self.jump[i] =
            if self.depth[p] - self.depth[j] == self.depth[j] - self.depth[jj] { jj } else { p } as u32;
    }

    fn immediate(&self, v: NodeId) -> Option<NodeId> {
        let p = self.parent[v.index()];
        (p != NONE).then(|| NodeId::from_index(p as usize))
    }

    /// The nearest common ancestor of the settled nodes `a` and `b` (each
    /// counted as its own).
    fn meet(&self, a: NodeId, b: NodeId) -> NodeId {
        let (mut a, mut b) = (a.index(), b.index());
        if self.depth[a] < self.depth[b] {
            std::mem::swap(&mut a, &mut b);
        }
        let target = self.depth[b];
        while self.depth[a] > target {
            let j = self.jump[a] as usize;
            a = if self.depth[j] >= target { j } else { self.parent[a] as usize };
        }
        // Equal depths have equal jump structures: jump both or step both.
        while a != b {
            let (ja, jb) = (self.jump[a] as usize, self.jump[b] as usize);
            if ja != jb {
                (a, b) = (ja, jb);
            } else {
                (a, b) = (self.parent[a] as usize, self.parent[b] as usize);
            }
        }
        NodeId::from_index(a)
    }
}

/// Immediate postdominators toward one leaf `l`: `ipdom(v)` is the first
/// node after `v` that every `v → l` path passes.
#[derive(Clone, Debug)]
pub struct PostDominatorTree(Tree);

impl PostDominatorTree {
    /// An empty tree over node ids below `size`.
    pub fn new(size: usize) -> PostDominatorTree {
        PostDominatorTree(Tree::new(size))
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
        DominatorTree(Tree::new(size))
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
        check_against_petgraph(&graph);
    }

    /// Random DAGs of products and sums, deep chains and wide fans among
    /// them: every tree of every root and leaf against petgraph.
    #[test]
    fn trees_match_petgraph_on_random_graphs() {
        let mut rng = testkit::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: usize| rng.below(n);
        for _ in 0..200 {
            let mut dag = ExprDag::new();
            let inputs = 1 + next(4);
            let mut pool: Vec<NodeId> = (0..inputs).map(|k| dag.input(k)).collect();
            for _ in 0..5 + next(40) {
                // Recent nodes more often: long chains as well as fans.
                let a = pool[pool.len() - 1 - next(pool.len().min(3))];
                let b = pool[next(pool.len())];
                let v = match next(3) {
                    0 => dag.mul(a, b),
                    1 => dag.add(a, b),
                    _ => dag.apply(Op::Sin, &[a]),
                };
                pool.push(v);
            }
            let roots: Vec<NodeId> =
                (0..1 + next(3)).map(|_| pool[pool.len() - 1 - next(pool.len().min(6))]).collect();
            let mut kernel = frontend::Kernel::new(dag, roots, inputs).unwrap();
            check_against_petgraph(&DerivativeGraph::new(&mut kernel));
        }
    }

    fn check_against_petgraph(graph: &DerivativeGraph) {
        let size = graph.node_bound();
        let leaves: Vec<usize> = (0..graph.num_leaves()).collect();
        let masks = LeafMasks::new(graph, size, &leaves);
        for k in leaves {
            let bit = 1u64 << k;
            let Some(leaf) = graph.leaf(k) else { continue };
            let mut tree = PostDominatorTree::new(size);
            tree.compute(graph, &masks, bit, leaf, &mut Marks::new(size));
            let nodes: Vec<NodeId> =
                (0..size).map(NodeId::from_index).filter(|&v| masks.of(v) & bit != 0).collect();
            let expected = reference(graph, &nodes, leaf, true);
            for &v in &nodes {
                assert_eq!(tree.immediate(v), expected.get(&v).copied(), "ipdom of {v:?} toward {leaf:?}");
            }
        }
        let mut marks = Marks::new(size);
        for &root in graph.roots().iter().filter(|&&r| graph.contains(r)) {
            let descendants = graph.descendants(root, &mut marks);
            let mut tree = DominatorTree::new(size);
            tree.compute(graph, &descendants);
            let expected = reference(graph, &descendants, root, false);
            for &v in &descendants {
                assert_eq!(tree.immediate(v), expected.get(&v).copied(), "idom of {v:?} from {root:?}");
            }
        }
    }
}
