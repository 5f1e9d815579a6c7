//! The e-graph language: one e-node holds one of our [`Op`]s and its children,
//! so the operations are listed once, in `frontend::op`, and not again here.

use egg::{FromOp, Id, Language};
use frontend::{Cmp, Op, Real};
use std::fmt;

/// An e-node: an [`Op`] applied to e-class ids. Leaves (`Const`, `Input`)
/// carry their value or index inside the op and have no children.
///
/// Only the first `op.arity()` slots are children; the others always hold
/// e-class 0, so derived equality, ordering and hashing see only
/// the op and its real children.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpNode {
    op: Op,
    slots: [Id; 4],
}

impl OpNode {
    /// `op` applied to `children`. Panics if `children.len() != op.arity()`:
    /// callers build nodes from checked arities.
    pub fn new(op: Op, children: &[Id]) -> OpNode {
        assert_eq!(children.len(), op.arity(), "{} takes {} arguments", op.name(), op.arity());
        let mut slots = [Id::from(0); 4];
        slots[..children.len()].copy_from_slice(children);
        OpNode { op, slots }
    }

    /// The leaf for `op` (a `Const` or an `Input`).
    pub fn leaf(op: Op) -> OpNode {
        OpNode::new(op, &[])
    }

    /// The constant `value`.
    pub fn constant(value: f64) -> OpNode {
        OpNode::leaf(Op::Const(Real::new(value)))
    }

    /// The operation.
    pub fn op(&self) -> Op {
        self.op
    }
}

impl Language for OpNode {
    type Discriminant = Op;

    fn discriminant(&self) -> Op {
        self.op
    }

    fn matches(&self, other: &Self) -> bool {
        self.op == other.op
    }

    fn children(&self) -> &[Id] {
        &self.slots[..self.op.arity()]
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.slots[..self.op.arity()]
    }
}

/// The name of the `k`-th input in patterns and printed e-nodes.
const INPUT_PREFIX: &str = "in";

impl fmt::Display for OpNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Op::Const(c) => write!(f, "{}", c.get()),
            Op::Input(k) => write!(f, "{INPUT_PREFIX}{k}"),
            Op::Select(cmp) => write!(f, "ifelse{}", cmp.symbol()),
            op => f.write_str(op.name()),
        }
    }
}

/// The e-node spelling `op` (as printed by [`OpNode`]'s `Display`) does not
/// exist or takes another number of children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownOp {
    /// The spelling.
    pub op: String,
    /// How many children it was given.
    pub children: usize,
}

impl fmt::Display for UnknownOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no operation '{}' with {} children", self.op, self.children)
    }
}

impl std::error::Error for UnknownOp {}

/// Parses the spelling of an operation as `Display` prints it.
fn parse_op(name: &str) -> Option<Op> {
    if let Ok(value) = name.parse::<f64>() {
        return Some(Op::Const(Real::new(value)));
    }
    if let Some(k) = name.strip_prefix(INPUT_PREFIX).and_then(|k| k.parse().ok()) {
        return Some(Op::Input(k));
    }
    if let Some(symbol) = name.strip_prefix("ifelse") {
        return Cmp::ALL.into_iter().find(|c| c.symbol() == symbol).map(Op::Select);
    }
    // Operators print as themselves (`+`, `neg`), functions by their name.
    Op::ALL.into_iter().find(|op| op.name() == name).or_else(|| Op::from_function_name(name))
}

impl FromOp for OpNode {
    type Error = UnknownOp;

    fn from_op(op: &str, children: Vec<Id>) -> Result<Self, Self::Error> {
        match parse_op(op) {
            Some(parsed) if parsed.arity() == children.len() => Ok(OpNode::new(parsed, &children)),
            _ => Err(UnknownOp { op: op.to_string(), children: children.len() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_round_trips_through_its_spelling() {
        let mut ops = Op::ALL.to_vec();
        ops.extend([Op::Const(Real::new(-2.5)), Op::Input(7)]);
        for op in ops {
            let children: Vec<Id> = (0..op.arity()).map(Id::from).collect();
            let node = OpNode::new(op, &children);
            let parsed = OpNode::from_op(&node.to_string(), children).expect("printed spelling parses");
            assert_eq!(parsed, node, "{op:?}");
        }
    }

    #[test]
    fn unused_slots_do_not_affect_equality() {
        let a = OpNode::new(Op::Neg, &[Id::from(3)]);
        let mut b = OpNode::new(Op::Neg, &[Id::from(5)]);
        b.children_mut()[0] = Id::from(3);
        assert_eq!(a, b);
        assert!(OpNode::from_op("sin", vec![]).is_err());
    }
}
