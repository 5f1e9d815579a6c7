//! A kernel's function compiled ahead of its other outputs. A Jacobian
//! kernel computes the function (its first outputs), then the entries; the
//! entries are rewritten by simplification, the function is not. So the
//! function's chunks can compile while the entries are simplified, and the
//! entries' chunks after. The function's chunks store every function value
//! the entries read before simplification; simplified entries read only
//! those, unless hash-consing merged a new node into one of the function's
//! own, in which case the kernel compiles the usual way instead.

use crate::order::depth_first;
use frontend::{ExprDag, Node, NodeId};

/// The function part of a kernel: which operations its chunks compute and
/// which of them they store for the other outputs.
#[derive(Clone, Debug)]
pub(crate) struct FunctionFirst {
    /// The function's outputs: the kernel's first outputs.
    pub(crate) outputs: Vec<NodeId>,
    /// Its operations, depth first from its outputs (sin/cos partners side by side).
    pub(crate) ops: Vec<NodeId>,
    /// Each operation's node, to check that a later kernel computes the same.
    nodes: Vec<Node>,
    /// By node index: computed by the function's chunks.
    computes: Vec<bool>,
    /// By node index: stored for the other outputs.
    exported: Vec<bool>,
}

impl FunctionFirst {
    /// The function of the kernel `outputs` of `dag`: its first `m` outputs.
    pub(crate) fn new(dag: &ExprDag, outputs: &[NodeId], m: usize) -> FunctionFirst {
        let (function, rest) = outputs.split_at(m.min(outputs.len()));
        let reach = dag.reachable(function);
        let ops = depth_first(dag, function, &reach);
        let mut computes = vec![false; dag.len()];
        for id in &ops {
            computes[id.index()] = true;
        }
        let nodes = ops.iter().map(|&id| *dag.node(id)).collect();
        let exported = vec![false; dag.len()];
        let mut first = FunctionFirst { outputs: function.to_vec(), ops, nodes, computes, exported };
        for id in first.read_by(dag, rest) {
            first.exported[id.index()] = true;
        }
        first
    }

    /// Whether the function's chunks compute `id`.
    pub(crate) fn computes(&self, id: NodeId) -> bool {
        self.computes.get(id.index()).copied().unwrap_or(false)
    }

    /// The nodes the function's chunks store for the other outputs.
    pub(crate) fn exported(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.ops.iter().copied().filter(|id| self.exported[id.index()])
    }

    /// Whether the kernel `outputs` of `dag` starts with this function,
    /// computed by the same nodes, and its other outputs read no value of
    /// the function but those stored for them.
    pub(crate) fn fits(&self, dag: &ExprDag, outputs: &[NodeId]) -> bool {
        let m = self.outputs.len();
        if outputs.len() < m || outputs[..m] != self.outputs[..] || dag.len() < self.computes.len() {
            return false;
        }
        if self.ops.iter().zip(&self.nodes).any(|(&id, node)| dag.node(id) != node) {
            return false;
        }
        self.read_by(dag, &outputs[m..]).into_iter().all(|id| self.exported[id.index()])
    }

    /// The function's operations that the outputs `rest` of `dag` read
    /// directly: those among them, and the arguments of the other
    /// operations they reach (not looking inside the function).
    fn read_by(&self, dag: &ExprDag, rest: &[NodeId]) -> Vec<NodeId> {
        let reach = dag.reachable(rest);
        let others = dag.ids().filter(|id| reach[id.index()] && !self.computes(*id));
        let read = rest.iter().copied().chain(others.flat_map(|id| dag.args(id).iter().copied()));
        read.filter(|&id| self.computes(id)).collect()
    }
}
