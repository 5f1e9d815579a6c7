//! D* factorization: every Jacobian entry as a product of factored
//! subgraph sums along a (post)dominator chain.
//!
//! Write `S(u, w)` for the sum of path products over all `u → w` paths of
//! the derivative graph; the entry `J[r, l]` is `S(r, l)`. If `q` is the
//! immediate postdominator of `v` toward leaf `l`, every `v → l` path passes
//! `q`, splits there uniquely, and every combination of halves is a path, so
//!
//! ```text
//! S(v, l) = S(v, q) · S(q, l),    S(v, q) = Σ_{edges v→c, c reaches l} label · S(c, q)
//! ```
//!
//! and the children that reach `l` are exactly those that reach `q` (any
//! `c → l` path passes `q`). Each `S(v, q)` is one factored subgraph
//! ([`FactorableSubgraph`]) replaced by one reference edge; it depends on its
//! ends only, so it is built once and shared by every output and input that
//! needs it, and nested subgraphs are factored first because the sum refers to
//! the children's own chains `S(c, q)`. The chain products `S(q, l)` are
//! suffixes shared by all outputs. Dually, with `d = idom(v)` from root `r`,
//! `S(r, v) = S(r, d) · S(d, v)` and `S(d, v) = Σ_{edges p→v} S(d, p) · label`
//! gives prefixes shared by all inputs. No edge is ever merged with another:
//! parallel edges (`x*x`) contribute one term each.
//!
//! Evaluation is iterative (an explicit stack), so deep graphs cannot
//! overflow the call stack.

use crate::dominators::{DominatorTree, PostDominatorTree};
use crate::graph::{ConeParents, DerivativeGraph, Marks};
use crate::subgraph::{FactorableSubgraph, LeafMasks};
use crate::term::{sum, Term};
use frontend::{ExprDag, NodeId};
use rustc_hash::FxHashMap;

/// Which end of the graph the shared sums hang from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// Link sums `S(v, w)` toward their lower end and chain products toward
    /// the input, `S(d_i, l)`: shared across outputs (forward-mode-like).
    Forward,
    /// Link sums `S(u, v)` from their upper end and chain products from the
    /// output, `S(r, d_i)`: shared across inputs (reverse-mode-like).
    Reverse,
}

/// How [`factorize`] accumulates: which trees it factors along, and whether
/// it factors at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Strategy {
    /// Postdominators per input or dominators per output.
    pub orientation: Orientation,
    /// Whether shared subgraphs are factored; without, the chains degenerate
    /// to plain forward (or reverse) accumulation, one edge at a time.
    pub factored: bool,
}

impl Strategy {
    /// `dstar_forward` or `dstar_reverse`, with `_plain` when nothing is
    /// factored (plain forward or reverse accumulation).
    pub fn name(self) -> &'static str {
        match (self.orientation, self.factored) {
            (Orientation::Forward, true) => "dstar_forward",
            (Orientation::Reverse, true) => "dstar_reverse",
            (Orientation::Forward, false) => "dstar_forward_plain",
            (Orientation::Reverse, false) => "dstar_reverse_plain",
        }
    }

    /// Every strategy, D* first.
    pub const ALL: [Strategy; 4] = [
        Strategy { orientation: Orientation::Forward, factored: true },
        Strategy { orientation: Orientation::Reverse, factored: true },
        Strategy { orientation: Orientation::Forward, factored: false },
        Strategy { orientation: Orientation::Reverse, factored: false },
    ];
}

/// One nonzero Jacobian entry: `∂ outputs[row] / ∂ input[col]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The output index.
    pub row: usize,
    /// The input index.
    pub col: usize,
    /// The node computing the entry, in the Jacobian's DAG.
    pub node: NodeId,
}

/// Factored subgraph sums `S(upper, lower)` already built, shared by all pairs.
struct PathSums {
    sums: FxHashMap<FactorableSubgraph, Term>,
    /// Whether each node reaches two or more leaves (is reached by two or
    /// more roots, for [`Orientation::Reverse`]). Factoring a subgraph pays
    /// one product per chain link and pays off only when its sum is reused;
    /// below a node that serves a single leaf (root), every subgraph it heads
    /// serves that one chain, so the plain sum over its edges is used instead
    /// (exactly forward- or reverse-mode accumulation there).
    shared: Vec<bool>,
}

/// For every node, whether two or more distinct `sources` reach it along
/// `edges` taken in `order` (sources propagate from parent to child, or from
/// child to parent when `upward`).
fn shared_nodes(graph: &DerivativeGraph, sources: &[NodeId], upward: bool) -> Vec<bool> {
    const NONE: u32 = u32::MAX;
    let size = graph.node_bound();
    let mut first = vec![NONE; size];
    let mut shared = vec![false; size];
    for &s in sources {
        if graph.contains(s) {
            let slot = &mut first[s.index()];
            if *slot != NONE && *slot != s.index() as u32 {
                shared[s.index()] = true;
            }
            *slot = s.index() as u32;
        }
    }
    let mut visit = |from: NodeId, to: NodeId| {
        let (f, t) = (from.index(), to.index());
        if first[f] == NONE {
            return;
        }
        if first[t] == NONE {
            first[t] = first[f];
        } else if first[t] != first[f] {
            shared[t] = true;
        }
        shared[t] |= shared[f];
    };
    if upward {
        graph.edges().iter().for_each(|e| visit(e.child, e.parent));
    } else {
        graph.edges().iter().rev().for_each(|e| visit(e.parent, e.child));
    }
    shared
}

/// Factors the Jacobian of `graph`'s roots with respect to its leaves into
/// nodes of `dag`, for the (row, col) pairs that `keep` accepts. Entries come
/// in CSR order (row-major, columns ascending).
pub fn factorize(
    dag: &mut ExprDag,
    graph: &DerivativeGraph,
    strategy: Strategy,
    keep: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Vec<Entry> {
    let size = graph.node_bound();
    let orientation = strategy.orientation;
    let shared = match orientation {
        _ if !strategy.factored => vec![false; size],
        Orientation::Forward => {
            let leaves: Vec<NodeId> = (0..graph.num_leaves()).filter_map(|k| graph.leaf(k)).collect();
            shared_nodes(graph, &leaves, true)
        }
        Orientation::Reverse => shared_nodes(graph, graph.roots(), false),
    };
    let mut sums = PathSums { sums: FxHashMap::default(), shared };
    let mut entries = Vec::new();
    let leaves: Vec<usize> = (0..graph.num_leaves()).collect();
    for batch in leaves.chunks(64) {
        let masks = LeafMasks::new(graph, size, batch);
        let reached = |root: NodeId| if graph.contains(root) { masks.of(root) } else { 0 };
        match orientation {
            Orientation::Forward => {
                let mut tree = PostDominatorTree::new(size);
                let mut marks = Marks::new(size);
                for (j, &col) in batch.iter().enumerate() {
                    let bit = 1u64 << j;
                    let Some(leaf) = graph.leaf(col) else { continue };
                    tree.compute(graph, &masks, bit, leaf, &mut marks);
                    for (row, &root) in graph.roots().iter().enumerate() {
                        if reached(root) & bit != 0 && keep(row, col) {
                            let term = sums.toward_leaf(dag, graph, &tree, &masks, bit, root, leaf);
                            entries.push(Entry { row, col, node: term.materialize(dag) });
                        }
                    }
                }
            }
            Orientation::Reverse => {
                let mut tree = DominatorTree::new(size);
                let mut marks = Marks::new(size);
                let mut parents = ConeParents::new(size);
                for (row, &root) in graph.roots().iter().enumerate() {
                    if reached(root) == 0 {
                        continue;
                    }
                    let descendants = graph.descendants(root, &mut marks);
                    tree.compute(graph, &descendants);
                    parents.compute(graph, &descendants);
                    for (j, &col) in batch.iter().enumerate() {
                        let Some(leaf) = graph.leaf(col) else { continue };
                        if reached(root) & (1 << j) != 0 && keep(row, col) {
                            let term = sums.down_from_root(dag, &tree, &parents, root, leaf);
                            entries.push(Entry { row, col, node: term.materialize(dag) });
                        }
                    }
                }
            }
        }
    }
    entries.sort_by_key(|e| (e.row, e.col));
    entries
}

/// Whether `v`'s edges toward the leaf are two parallel edges with unit
/// labels (`t + t`, `t - t`): summing them as `s + s` costs what `2 * s`
/// does, and matches the form that forward accumulation (and hash-consing
/// with other expressions) produces, so such a pair is not factored.
fn is_unit_pair(dag: &ExprDag, graph: &DerivativeGraph, v: NodeId, masks: &LeafMasks, bit: u64) -> bool {
    let mut edges = graph.children(v).iter().filter(|e| masks.of(e.child) & bit != 0);
    let is_unit = |e: &crate::graph::Edge| dag.as_const(e.label).is_some_and(|c| c.abs() == 1.0);
    match (edges.next(), edges.next(), edges.next()) {
        (Some(a), Some(b), None) => a.child == b.child && is_unit(a) && is_unit(b),
        _ => false,
    }
}

impl PathSums {
    /// `S(upper, lower)` if already built (`1` when the ends coincide).
    fn get(&self, dag: &mut ExprDag, upper: NodeId, lower: NodeId) -> Option<Term> {
        if upper == lower {
            return Some(Term::one(dag));
        }
        self.sums.get(&FactorableSubgraph { upper, lower }).copied()
    }

    fn insert(&mut self, upper: NodeId, lower: NodeId, term: Term) {
        self.sums.insert(FactorableSubgraph { upper, lower }, term);
    }

    /// `S(root, leaf)` by the postdominator chains toward `leaf`.
    #[allow(clippy::too_many_arguments)]
    fn toward_leaf(
        &mut self,
        dag: &mut ExprDag,
        graph: &DerivativeGraph,
        tree: &PostDominatorTree,
        masks: &LeafMasks,
        bit: u64,
        root: NodeId,
        leaf: NodeId,
    ) -> Term {
        let mut stack = vec![(root, leaf)];
        while let Some(&(v, w)) = stack.last() {
            if self.get(dag, v, w).is_some() {
                stack.pop();
                continue;
            }
            let q = tree.immediate(v).expect("only the leaf has no postdominator");
            // Unshared: sum over v's edges straight toward w (any node of the
            // chain is passed by all of v's paths, so the same children count).
            let q = if self.shared[v.index()] && !is_unit_pair(dag, graph, v, masks, bit) { q } else { w };
            if q != w {
                // S(v, w) = S(v, q) · S(q, w): q lies on w's chain below v.
                match (self.get(dag, v, q), self.get(dag, q, w)) {
                    (Some(head), Some(tail)) => {
                        let product = head.mul(tail, dag);
                        self.insert(v, w, product);
                        stack.pop();
                    }
                    (head, tail) => {
                        if head.is_none() {
                            stack.push((v, q));
                        }
                        if tail.is_none() {
                            stack.push((q, w));
                        }
                    }
                }
                continue;
            }
            // q == w: the subgraph (v, w) itself, over v's children toward w.
            let children = graph.children(v).iter().filter(|e| masks.of(e.child) & bit != 0);
            let missing: Vec<NodeId> =
                children.clone().map(|e| e.child).filter(|&c| self.get(dag, c, w).is_none()).collect();
            if !missing.is_empty() {
                stack.extend(missing.into_iter().map(|c| (c, w)));
                continue;
            }
            let terms: Vec<Term> = children
                .map(|e| {
                    let label = Term::of(dag, e.label);
                    let below = self.get(dag, e.child, w).expect("built above");
                    label.mul(below, dag)
                })
                .collect();
            let total = sum(dag, terms).expect("a node above the leaf has a child toward it");
            self.insert(v, w, total);
            stack.pop();
        }
        self.get(dag, root, leaf).expect("built by the loop")
    }

    /// `S(root, leaf)` by the dominator chains from `root`.
    fn down_from_root(
        &mut self,
        dag: &mut ExprDag,
        tree: &DominatorTree,
        cone_parents: &ConeParents,
        root: NodeId,
        leaf: NodeId,
    ) -> Term {
        let mut stack = vec![(root, leaf)];
        while let Some(&(d, v)) = stack.last() {
            if self.get(dag, d, v).is_some() {
                stack.pop();
                continue;
            }
            let i = tree.immediate(v).expect("only the root has no dominator");
            let i = if self.shared[v.index()] { i } else { d };
            if i != d {
                // S(d, v) = S(d, i) · S(i, v): i lies on v's chain below d.
                match (self.get(dag, d, i), self.get(dag, i, v)) {
                    (Some(head), Some(tail)) => {
                        let product = head.mul(tail, dag);
                        self.insert(d, v, product);
                        stack.pop();
                    }
                    (head, tail) => {
                        if head.is_none() {
                            stack.push((d, i));
                        }
                        if tail.is_none() {
                            stack.push((i, v));
                        }
                    }
                }
                continue;
            }
            // i == d: the subgraph (d, v) itself, over v's parents from d.
            // Parents in descending order, the order a reverse sweep meets them.
            let parents = cone_parents.of(v).iter();
            let missing: Vec<NodeId> =
                parents.clone().map(|e| e.parent).filter(|&p| self.get(dag, d, p).is_none()).collect();
            if !missing.is_empty() {
                stack.extend(missing.into_iter().map(|p| (d, p)));
                continue;
            }
            let terms: Vec<Term> = parents
                .map(|e| {
                    let above = self.get(dag, d, e.parent).expect("built above");
                    let label = Term::of(dag, e.label);
                    above.mul(label, dag)
                })
                .collect();
            let total = sum(dag, terms).expect("a node below the root has a parent from it");
            self.insert(d, v, total);
            stack.pop();
        }
        self.get(dag, root, leaf).expect("built by the loop")
    }
}
