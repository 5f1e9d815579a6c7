//! `sin(a)` and `cos(a)` of the same argument in one call to the C library's
//! `sincos`, as gcc does: the argument reduction, most of the cost, is shared.
//!
//! glibc's `sincos` runs the code of its `sin` and `cos` (the functions
//! [`Op::eval`] calls through `f64::sin` and `f64::cos`), so results are bit
//! for bit the same; `tests/sincos.rs` checks this through the JIT. The
//! symbol is not registered with the JIT: cranelift-jit finds it in the
//! process with `dlsym`, which needs no `unsafe` here.

use cranelift_codegen::ir::{types, AbiParam, Signature};
use cranelift_module::Module;
use frontend::{ExprDag, Node, NodeId, Op};

/// Whether kernels call `sincos`: only where the C library is known to have
/// one that agrees with its `sin` and `cos`.
pub(crate) const AVAILABLE: bool = cfg!(all(target_os = "linux", target_env = "gnu"));

/// The C library's symbol.
pub(crate) const SYMBOL: &str = "sincos";

/// `void sincos(double x, double *sin, double *cos)`.
pub(crate) fn signature<M: Module>(module: &M) -> Signature {
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(types::F64), AbiParam::new(ptr), AbiParam::new(ptr)]);
    sig
}

/// The other half of a pair: the node `cos(a)` for `sin(a)` and `sin(a)`
/// for `cos(a)`, if `dag` holds it (reached or not).
pub(crate) fn partner(dag: &ExprDag, id: NodeId) -> Option<NodeId> {
    let other = match dag.op(id) {
        Op::Sin => Op::Cos,
        Op::Cos => Op::Sin,
        _ => return None,
    };
    dag.find(&Node::new(other, dag.args(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partners_share_the_argument() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let sin_x = dag.apply(Op::Sin, &[x]);
        let cos_y = dag.apply(Op::Cos, &[y]);
        assert_eq!(partner(&dag, sin_x), None);
        let cos_x = dag.apply(Op::Cos, &[x]);
        assert_eq!(partner(&dag, sin_x), Some(cos_x));
        assert_eq!(partner(&dag, cos_x), Some(sin_x));
        assert_eq!(partner(&dag, cos_y), None);
        assert_eq!(partner(&dag, x), None);
    }
}
