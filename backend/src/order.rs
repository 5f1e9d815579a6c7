//! The orders a kernel's operations run in: id order, or depth first from
//! the outputs; in both, `sin(a)` and `cos(a)` sit side by side where
//! `sincos` is available, so one call computes both. The chunk plan
//! ([`crate::chunk`]) and the function compiled first
//! ([`crate::function_first`]) both take them from here.

use crate::sincos;
use frontend::{ExprDag, NodeId};

/// The operations `reach` marks, in id order, except that where `sincos`
/// is available, the later of each reached sin/cos pair follows the earlier.
pub(crate) fn operations(dag: &ExprDag, reach: &[bool]) -> Vec<NodeId> {
    let is_op = |id: NodeId| reach[id.index()] && !dag.op(id).is_leaf();
    let mut ops = Vec::new();
    let mut moved_up = vec![false; dag.len()];
    for id in dag.ids() {
        if !is_op(id) || moved_up[id.index()] {
            continue;
        }
        ops.push(id);
        if let Some(later) = sincos::partner(dag, id).filter(|&p| sincos::AVAILABLE && p > id && is_op(p)) {
            ops.push(later);
            moved_up[later.index()] = true;
        }
    }
    ops
}

/// The operations the outputs reach in depth-first post-order from the
/// outputs, each output's operations together, so that a value lives
/// from its computation to its uses a short way apart; sin/cos partners
/// next to each other where `sincos` is available.
pub(crate) fn depth_first(dag: &ExprDag, outputs: &[NodeId], reach: &[bool]) -> Vec<NodeId> {
    let is_op = |id: NodeId| reach[id.index()] && !dag.op(id).is_leaf();
    let mut ops = Vec::new();
    let mut seen = vec![false; dag.len()];
    let mut stack: Vec<(NodeId, usize)> = Vec::new();
    for &root in outputs {
        if !is_op(root) || seen[root.index()] {
            continue;
        }
        seen[root.index()] = true;
        stack.push((root, 0));
        while let Some((id, i)) = stack.last_mut() {
            let args = dag.args(*id);
            if *i < args.len() {
                let child = args[*i];
                *i += 1;
                if is_op(child) && !seen[child.index()] {
                    seen[child.index()] = true;
                    stack.push((child, 0));
                }
                continue;
            }
            let id = *id;
            stack.pop();
            ops.push(id);
            let partner =
                sincos::partner(dag, id).filter(|&p| sincos::AVAILABLE && is_op(p) && !seen[p.index()]);
            if let Some(p) = partner {
                // Its only argument is `id`'s, computed already.
                seen[p.index()] = true;
                ops.push(p);
            }
        }
    }
    ops
}
