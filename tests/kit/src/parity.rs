//! The back ends against the interpreter, node by node.

use crate::tol::same;
use frontend::{ExprDag, Kernel, NodeId, Op};

/// Node-wise parity: `evaluate` computes, at `x`, a kernel whose roots are
/// every node `outputs` reach (in id order); each node's value must be what
/// `Op::eval` gives on the evaluated values of its arguments, bit for bit.
/// Per node, so that the report names the first node that differs. Panics
/// naming `what` and the node.
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
        assert!(
            same(got, want),
            "{what}: {id:?} = {op:?}{args:?}: compiled {got:e} ({:#x}), interpreter {want:e} ({:#x})",
            got.to_bits(),
            want.to_bits()
        );
    }
}
