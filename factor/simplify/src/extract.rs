//! DAG-aware extraction: a cost that counts a shared e-class about once,
//! not once per use as egg's tree-cost `Extractor` does.
//!
//! Exact DAG extraction is NP-hard; this is Knuth's generalization of
//! Dijkstra's algorithm over e-classes with an *amortized* cost,
//! `cost(node) = ops(node) + Σ cost(child) / uses(child)`, where `uses`
//! estimates how many chosen nodes will share the child. A class is settled
//! when popped, and only nodes whose children are all settled compete, so the
//! selection is acyclic and settled order is a topological order. Rounds
//! re-estimate `uses` from the previous round's selection; the caller keeps
//! whichever selection has the fewest exact ops.

use crate::analysis::OpGraph;
use crate::convert::Selection;
use crate::language::OpNode;
use egg::{Id, Language};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The cost of one e-node itself, children aside.
pub type NodeCost<'a> = Box<dyn Fn(&OpNode) -> f64 + 'a>;

/// The e-graph flattened into arrays, built once for every extraction round.
pub struct DagExtractor<'a> {
    egraph: &'a OpGraph,
    /// The cost of each e-node itself.
    cost: NodeCost<'a>,
    /// Every e-node with canonical children, and its class.
    nodes: Vec<(egg::Id, OpNode)>,
    /// Per node, its distinct child classes.
    children: Vec<Vec<u32>>,
    /// Per class, the nodes that have it as a child (once per node).
    parents: Vec<Vec<u32>>,
    /// One past the largest class id.
    bound: usize,
}

impl std::fmt::Debug for DagExtractor<'_> {
    /// The sizes; the cost is a closure, shown by name only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DagExtractor")
            .field("nodes", &self.nodes.len())
            .field("classes", &self.bound)
            .field("cost", &"<fn>")
            .finish_non_exhaustive()
    }
}

impl<'a> DagExtractor<'a> {
    /// Indexes `egraph` (which must be rebuilt), counting one per
    /// operation and nothing for leaves.
    pub fn new(egraph: &'a OpGraph) -> DagExtractor<'a> {
        DagExtractor::with_cost(egraph, Box::new(|node: &OpNode| if node.op().is_leaf() { 0.0 } else { 1.0 }))
    }

    /// Indexes `egraph` (which must be rebuilt) with `cost` per e-node
    /// (non-negative).
    pub fn with_cost(egraph: &'a OpGraph, cost: NodeCost<'a>) -> DagExtractor<'a> {
        let bound = egraph.classes().map(|c| usize::from(c.id) + 1).max().unwrap_or(0);
        let mut nodes = Vec::with_capacity(egraph.total_number_of_nodes());
        let mut children = Vec::with_capacity(egraph.total_number_of_nodes());
        let mut parents = vec![Vec::new(); bound];
        for class in egraph.classes() {
            for node in class.iter() {
                let node = node.map_children(|c| egraph.find(c));
                let mut distinct: Vec<u32> = node.children().iter().map(|c| usize::from(*c) as u32).collect();
                distinct.sort_unstable();
                distinct.dedup();
                let index = nodes.len() as u32;
                for &c in &distinct {
                    parents[c as usize].push(index);
                }
                nodes.push((class.id, node));
                children.push(distinct);
            }
        }
        DagExtractor { egraph, cost, nodes, children, parents, bound }
    }

    /// `uses` estimated from the e-graph itself: the number of distinct
    /// classes holding a node that uses the class.
    pub fn egraph_uses(&self) -> Vec<f64> {
        let mut uses = vec![1.0; self.bound];
        let mut seen = Vec::new();
        for (class, parents) in self.parents.iter().enumerate() {
            seen.clear();
            seen.extend(parents.iter().map(|&n| usize::from(self.nodes[n as usize].0)));
            seen.sort_unstable();
            seen.dedup();
            uses[class] = seen.len().max(1) as f64;
        }
        uses
    }

    /// `uses` from a previous selection: how many chosen nodes the roots
    /// need use each class (at least one).
    pub fn selection_uses(&self, selection: &Selection, roots: &[Id]) -> Vec<f64> {
        let reach = selection.reachable(self.egraph, roots);
        let mut uses = vec![1.0f64; self.bound];
        let mut counts = vec![0u32; self.bound];
        for class in selection.order.iter().filter(|c| reach[usize::from(**c)]) {
            if let Some(node) = selection.chosen[usize::from(*class)] {
                for child in node.children() {
                    counts[usize::from(self.egraph.find(*child))] += 1;
                }
            }
        }
        for (u, c) in uses.iter_mut().zip(&counts) {
            *u = f64::from((*c).max(1));
        }
        uses
    }

    /// One round: the selection minimizing the amortized cost under `uses`.
    pub fn extract(&self, uses: &[f64]) -> Selection {
        let mut cost = vec![f64::INFINITY; self.bound];
        let mut settled = vec![false; self.bound];
        let mut pending: Vec<u32> = self.children.iter().map(|c| c.len() as u32).collect();
        let mut chosen = vec![None; self.bound];
        let mut order = Vec::new();
        // Costs are non-negative, so their bit patterns order like the values.
        let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
        let node_cost = |n: usize, cost: &[f64]| {
            let own = (self.cost)(&self.nodes[n].1);
            own + self.children[n].iter().map(|&c| cost[c as usize] / uses[c as usize]).sum::<f64>()
        };
        for (n, c) in self.children.iter().enumerate() {
            if c.is_empty() {
                heap.push(Reverse((node_cost(n, &cost).to_bits(), n as u32)));
            }
        }
        while let Some(Reverse((bits, n))) = heap.pop() {
            let (class, node) = self.nodes[n as usize];
            let class = usize::from(class);
            if settled[class] {
                continue;
            }
            settled[class] = true;
            cost[class] = f64::from_bits(bits);
            chosen[class] = Some(node);
            order.push(Id::from(class));
            for &p in &self.parents[class] {
                let p = p as usize;
                pending[p] -= 1;
                if pending[p] == 0 && !settled[usize::from(self.nodes[p].0)] {
                    heap.push(Reverse((node_cost(p, &cost).to_bits(), p as u32)));
                }
            }
        }
        Selection { chosen, order }
    }
}
