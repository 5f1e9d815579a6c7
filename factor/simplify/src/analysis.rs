//! Constant folding as an e-class analysis: a class whose value is known
//! gains the constant leaf, which costs nothing to extract.

use crate::language::OpNode;
use egg::{Analysis, DidMerge, EGraph, Id, Language};
use frontend::{Op, Real};

/// The e-graph of the simplifier.
pub type OpGraph = EGraph<OpNode, ConstantFold>;

/// Folds every e-node whose children are all constants with [`Op::eval`],
/// the same IEEE evaluation `ExprDag::apply` folds with. `ifelse` folds only
/// when its four arguments are constant.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConstantFold;

impl Analysis<OpNode> for ConstantFold {
    type Data = Option<Real>;

    fn make(egraph: &mut OpGraph, enode: &OpNode, _id: Id) -> Option<Real> {
        match enode.op() {
            Op::Const(c) => Some(c),
            Op::Input(_) => None,
            op => {
                let mut args = [0.0; 4];
                for (slot, child) in args.iter_mut().zip(enode.children()) {
                    *slot = egraph[*child].data?.get();
                }
                Some(Real::new(op.eval(&args[..op.arity()])))
            }
        }
    }

    fn merge(&mut self, to: &mut Option<Real>, from: Option<Real>) -> DidMerge {
        // Two foldings of one value may round differently (after
        // reassociation); the first is kept, both are equally valid.
        egg::merge_option(to, from, |a, b| DidMerge(false, *a != b))
    }

    fn modify(egraph: &mut OpGraph, id: Id) {
        if let Some(c) = egraph[id].data {
            let leaf = egraph.add(OpNode::leaf(Op::Const(c)));
            egraph.union(id, leaf);
        }
    }
}
