//! The back ends against the interpreter, node by node.

use crate::tol::{same, ulps};
use frontend::{ExprDag, Kernel, NodeId, Op};

/// Whether `node` is `x^k` for a constant integer `|k| <= 16`, which the
/// JIT lowers inline (products in double-double arithmetic): the one place
/// it may differ from the interpreter's `powf`, by at most 1 ulp.
pub fn is_inline_power(dag: &ExprDag, node: NodeId) -> bool {
    dag.op(node) == Op::Pow
        && dag.as_const(dag.args(node)[1]).is_some_and(|k| k.fract() == 0.0 && k.abs() <= 16.0)
}

/// Whether `roots` reach an inline power.
pub fn has_inline_power(dag: &ExprDag, roots: &[NodeId]) -> bool {
    let reach = dag.reachable(roots);
    dag.ids().any(|id| reach[id.index()] && is_inline_power(dag, id))
}

/// Node-wise parity: `evaluate` computes, at `x`, a kernel whose roots are
/// every node `outputs` reach (in id order); each node's value must be what
/// `Op::eval` gives on the evaluated values of its arguments, bit for bit,
/// except inline integer powers (at most 1 ulp). Per node, so an ulp never
/// gets amplified downstream. Panics naming `what` and the node.
pub fn assert_nodewise_parity(
    dag: &ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    x: &[f64],
    what: &str,
    evaluate: impl FnOnce(&Kernel) -> Vec<f64>,
) {
    let reach = dag.reachable(outputs);
    let nodes: Vec<NodeId> = dag.ids().filter(|id| reach[id.index()]).collect();
    let kernel = Kernel::new(dag.clone(), nodes.clone(), num_inputs).expect("outputs of a valid kernel");
    let out = evaluate(&kernel);
    assert_eq!(out.len(), nodes.len(), "{what}: one value per node");
    let mut evaluated = vec![f64::NAN; dag.len()];
    for (id, v) in nodes.iter().zip(&out) {
        evaluated[id.index()] = *v;
    }
    for &id in &nodes {
        let op = dag.op(id);
        let args: Vec<f64> = dag.args(id).iter().map(|a| evaluated[a.index()]).collect();
        let want = match op {
            Op::Input(k) => x[k as usize],
            _ => op.eval(&args),
        };
        let got = evaluated[id.index()];
        let ok = if is_inline_power(dag, id) { ulps(got, want) <= 1 } else { same(got, want) };
        assert!(
            ok,
            "{what}: {id:?} = {op:?}{args:?}: compiled {got:e} ({:#x}), interpreter {want:e} ({:#x})",
            got.to_bits(),
            want.to_bits()
        );
    }
}
