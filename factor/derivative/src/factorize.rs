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
use std::sync::atomic::{AtomicU64, Ordering};

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
struct PathSums<'a> {
    sums: FxHashMap<FactorableSubgraph, Term>,
    /// Whether each node reaches two or more leaves (is reached by two or
    /// more roots, for [`Orientation::Reverse`]). Factoring a subgraph pays
    /// one product per chain link and pays off only when its sum is reused;
    /// below a node that serves a single leaf (root), every subgraph it heads
    /// serves that one chain, so the plain sum over its edges is used instead
    /// (exactly forward- or reverse-mode accumulation there).
    shared: Vec<bool>,
    /// Pairs visited so far (see [`factorize_within`]).
    work: u64,
    /// Pairs that may be visited before the build gives up; another thread
    /// may lower it while the build runs.
    budget: &'a AtomicU64,
    /// The DAG's length past which the build gives up ([`Limits::nodes`]).
    node_limit: usize,
}

/// How far a [`factorize_within`] build may go before it gives up.
#[derive(Clone, Copy, Debug)]
pub struct Limits<'a> {
    /// Units of work: pairs visited and (post)dominator tree nodes built.
    /// Another thread may lower it while the build runs.
    pub work: &'a AtomicU64,
    /// Nodes the build may add to the DAG. Every node it adds is a product
    /// or a sum of its entries, so a build past a competitor's whole
    /// operation count cannot end with fewer operations.
    pub nodes: usize,
}

/// Why a [`factorize_within`] build gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// Its work passed [`Limits::work`] (all of it spent).
    Work,
    /// It added more than [`Limits::nodes`] nodes, after `work` units.
    Nodes {
        /// The work spent when it stopped.
        work: u64,
    },
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
    let limits = Limits { work: &AtomicU64::new(u64::MAX), nodes: usize::MAX };
    factorize_within(dag, graph, strategy, keep, limits).expect("unlimited").0
}

/// [`factorize`] within `limits`: units of work (the pairs its path sums
/// visit, and the nodes of each (post)dominator tree it builds) and nodes
/// added to `dag`. Returns the entries and the work spent, or why it
/// stopped (with `dag` holding unused nodes). Counted, not timed, so the
/// outcome is the same on every machine for limits fixed before the call. A
/// work budget lowered while the build runs (by a concurrent build that
/// learns it) only stops early a build whose work passes its final value:
/// a caller that checks the returned work against that final value decides
/// the same way whatever the timing.
pub fn factorize_within(
    dag: &mut ExprDag,
    graph: &DerivativeGraph,
    strategy: Strategy,
    keep: &(dyn Fn(usize, usize) -> bool + Sync),
    limits: Limits<'_>,
) -> Result<(Vec<Entry>, u64), Stopped> {
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
    let node_limit = dag.len().saturating_add(limits.nodes);
    let mut sums = PathSums { sums: FxHashMap::default(), shared, work: 0, budget: limits.work, node_limit };
    let mut entries = Vec::new();
    let leaves: Vec<usize> = (0..graph.num_leaves()).collect();
    match orientation {
        Orientation::Forward => {
            // Per batch of 64 leaves, the masks over the nodes reaching
            // them; per leaf, its postdominator tree over its cone and the
            // roots in that cone: no pass over the whole graph or over
            // every root per leaf.
            let mut tree = PostDominatorTree::new(size);
            let mut marks = Marks::new(size);
            let mut masks = LeafMasks::empty(size);
            let rows = RootRows::new(graph);
            for batch in leaves.chunks(64) {
                let reached = masks.fill(graph, batch, &mut marks);
                let edges: usize = reached.iter().map(|&v| graph.parent_edges(v).len()).sum();
                sums.spend((reached.len() + edges) as u64)?;
                for (j, &col) in batch.iter().enumerate() {
                    let bit = 1u64 << j;
                    let Some(leaf) = graph.leaf(col) else { continue };
                    let cone = tree.compute(graph, &masks, bit, leaf, &mut marks);
                    sums.spend(cone.len() as u64)?;
                    let mut in_cone: Vec<usize> = cone
                        .iter()
                        .flat_map(|&v| rows.of(v))
                        .copied()
                        .filter(|&row| keep(row, col))
                        .collect();
                    in_cone.sort_unstable();
                    for row in in_cone {
                        let walk = Walk::TowardLeaf { graph, tree: &tree, masks: &masks, bit };
                        let term = sums.path_sum(dag, &walk, graph.roots()[row], leaf)?;
                        entries.push(Entry { row, col, node: term.materialize(dag) });
                    }
                }
            }
        }
        Orientation::Reverse => {
            // One dominator tree per root over its cone, and the leaves in
            // that cone: no pass over the whole graph per batch of leaves,
            // so the work is the reverse sweep's, however many inputs.
            let column = graph.leaf_inputs();
            let mut tree = DominatorTree::new(size);
            let mut marks = Marks::new(size);
            let mut parents = ConeParents::new(size);
            for (row, &root) in graph.roots().iter().enumerate() {
                let descendants = graph.descendants(root, &mut marks);
                let mut cols: Vec<(usize, NodeId)> =
                    descendants.iter().filter_map(|&v| column[v.index()].map(|k| (k, v))).collect();
                cols.retain(|&(col, _)| keep(row, col));
                if cols.is_empty() {
                    continue;
                }
                cols.sort_unstable();
                sums.spend(descendants.len() as u64)?;
                tree.compute(graph, &descendants);
                parents.compute(graph, &descendants);
                for (col, leaf) in cols {
                    let walk = Walk::FromRoot { tree: &tree, parents: &parents };
                    let term = sums.path_sum(dag, &walk, leaf, root)?;
                    entries.push(Entry { row, col, node: term.materialize(dag) });
                }
            }
        }
    }
    entries.sort_by_key(|e| (e.row, e.col));
    Ok((entries, sums.work))
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

/// One orientation of the recursion over `S`. A pair is written
/// `(moving, fixed)`: the sum between `moving` and `fixed` is split at the
/// immediate (post)dominator of `moving` toward `fixed`, or, where nothing
/// is shared, summed over `moving`'s edges toward `fixed`; `near` is the
/// part at the moving end and `far` the rest of the chain.
enum Walk<'a> {
    /// `moving` is the upper end, `fixed` the leaf below it.
    TowardLeaf { graph: &'a DerivativeGraph, tree: &'a PostDominatorTree, masks: &'a LeafMasks, bit: u64 },
    /// `moving` is the lower end, `fixed` the root above it.
    FromRoot { tree: &'a DominatorTree, parents: &'a ConeParents },
}

impl Walk<'_> {
    /// The subgraph of the pair, named by its upper and lower ends.
    fn key(&self, moving: NodeId, fixed: NodeId) -> (NodeId, NodeId) {
        match self {
            Walk::TowardLeaf { .. } => (moving, fixed),
            Walk::FromRoot { .. } => (fixed, moving),
        }
    }

    /// Where the sum of `(v, end)` splits: `v`'s immediate (post)dominator
    /// if `v` is shared, else `end` itself (no split).
    fn split(&self, dag: &ExprDag, shared: &[bool], v: NodeId, end: NodeId) -> NodeId {
        if !shared[v.index()] {
            return end;
        }
        match *self {
            Walk::TowardLeaf { graph, tree, masks, bit } if !is_unit_pair(dag, graph, v, masks, bit) => {
                tree.immediate(v).expect("only the leaf has no postdominator")
            }
            Walk::TowardLeaf { .. } => end,
            Walk::FromRoot { tree, .. } => tree.immediate(v).expect("only the root has no dominator"),
        }
    }

    /// `v`'s edges toward the fixed end: (neighbour, label), in the order
    /// the matching sweep meets them.
    fn edges(&self, v: NodeId) -> Vec<(NodeId, NodeId)> {
        match *self {
            Walk::TowardLeaf { graph, masks, bit, .. } => graph
                .children(v)
                .iter()
                .filter(|e| masks.of(e.child) & bit != 0)
                .map(|e| (e.child, e.label))
                .collect(),
            Walk::FromRoot { parents, .. } => parents.of(v).iter().map(|e| (e.parent, e.label)).collect(),
        }
    }

    /// The two parts, in the order their pairs are built and their terms
    /// multiplied: from the root down, as the sweep of each orientation does.
    fn order<T>(&self, near: T, far: T) -> [T; 2] {
        match self {
            Walk::TowardLeaf { .. } => [near, far],
            Walk::FromRoot { .. } => [far, near],
        }
    }
}

impl PathSums<'_> {
    /// `S(upper, lower)` if already built (`1` when the ends coincide).
    fn get(&self, dag: &mut ExprDag, (upper, lower): (NodeId, NodeId)) -> Option<Term> {
        if upper == lower {
            return Some(Term::one(dag));
        }
        self.sums.get(&FactorableSubgraph { upper, lower }).copied()
    }

    fn insert(&mut self, (upper, lower): (NodeId, NodeId), term: Term) {
        self.sums.insert(FactorableSubgraph { upper, lower }, term);
    }

    /// Counts `units` of work; stopped once past the budget.
    fn spend(&mut self, units: u64) -> Result<(), Stopped> {
        self.work = self.work.saturating_add(units);
        if self.work <= self.budget.load(Ordering::Relaxed) {
            Ok(())
        } else {
            Err(Stopped::Work)
        }
    }

    /// `S(root, leaf)`, built along `walk` from the pair `(start, end)`;
    /// stopped once past the limits.
    fn path_sum(
        &mut self,
        dag: &mut ExprDag,
        walk: &Walk<'_>,
        start: NodeId,
        end: NodeId,
    ) -> Result<Term, Stopped> {
        let mut stack = vec![(start, end)];
        while let Some(&(v, w)) = stack.last() {
            self.spend(1)?;
            if dag.len() > self.node_limit {
                return Err(Stopped::Nodes { work: self.work });
            }
            if self.get(dag, walk.key(v, w)).is_some() {
                stack.pop();
                continue;
            }
            let q = walk.split(dag, &self.shared, v, w);
            if q != w {
                // S(v, w) = S(v, q) · S(q, w): q lies on every path between them.
                let near = self.get(dag, walk.key(v, q));
                let far = self.get(dag, walk.key(q, w));
                match (near, far) {
                    (Some(near), Some(far)) => {
                        let [a, b] = walk.order(near, far);
                        let product = a.mul(b, dag);
                        self.insert(walk.key(v, w), product);
                        stack.pop();
                    }
                    (near, far) => {
                        let pairs = walk.order((near, (v, q)), (far, (q, w)));
                        stack.extend(pairs.into_iter().filter(|(built, _)| built.is_none()).map(|(_, p)| p));
                    }
                }
                continue;
            }
            // q == w: the subgraph (v, w) itself, over v's edges toward w.
            let edges = walk.edges(v);
            let before = stack.len();
            stack.extend(
                edges.iter().map(|&(n, _)| (n, w)).filter(|&(n, _)| self.get(dag, walk.key(n, w)).is_none()),
            );
            if stack.len() > before {
                continue;
            }
            let terms: Vec<Term> = edges
                .iter()
                .map(|&(n, label)| {
                    let label = Term::of(dag, label);
                    let rest = self.get(dag, walk.key(n, w)).expect("built above");
                    let [a, b] = walk.order(label, rest);
                    a.mul(b, dag)
                })
                .collect();
            let total = sum(dag, terms).expect("a node between the ends has an edge toward the fixed one");
            self.insert(walk.key(v, w), total);
            stack.pop();
        }
        Ok(self.get(dag, walk.key(start, end)).expect("built by the loop"))
    }
}

/// The rows (output indices) of each root node, for finding the roots in a
/// cone in time proportional to the cone.
struct RootRows {
    start: Vec<u32>,
    rows: Vec<usize>,
}

impl RootRows {
    fn new(graph: &DerivativeGraph) -> RootRows {
        let mut start = vec![0u32; graph.node_bound() + 1];
        for root in graph.roots().iter().filter(|&&r| graph.contains(r)) {
            start[root.index() + 1] += 1;
        }
        for k in 1..start.len() {
            start[k] += start[k - 1];
        }
        let mut next = start.clone();
        let mut rows = vec![0; start[start.len() - 1] as usize];
        for (row, root) in graph.roots().iter().enumerate().filter(|&(_, &r)| graph.contains(r)) {
            rows[next[root.index()] as usize] = row;
            next[root.index()] += 1;
        }
        RootRows { start, rows }
    }

    /// The rows whose output is `v`, ascending.
    fn of(&self, v: NodeId) -> &[usize] {
        &self.rows[self.start[v.index()] as usize..self.start[v.index() + 1] as usize]
    }
}
