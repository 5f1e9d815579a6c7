//! The local partials of any node of a DAG, the labels of the derivative
//! graph's edges: a built-in operation's by its rule ([`crate::rules`], the
//! only derivative rules), a call's result's by its function's derivative
//! ([`crate::calls`]).

use frontend::{ExprDag, NodeId, Op};
use smallvec::SmallVec;

/// The local partials of one node with respect to its argument slots, in slot
/// order. `None` is a structural zero: the derivative graph gets no edge.
pub type Partials = SmallVec<[Option<NodeId>; 4]>;

/// The local partials of `node` with respect to each of its arguments.
pub fn partials(dag: &mut ExprDag, node: NodeId) -> Partials {
    match dag.op(node) {
        Op::Call(c) => crate::calls::partials(dag, c),
        op => crate::rules::partials(dag, node, op),
    }
}
