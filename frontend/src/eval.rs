//! The reference interpreter: the evaluator every compiled kernel is tested
//! against.

use crate::dag::{ExprDag, NodeId};
use crate::op::Op;
use crate::program::Program;

/// Evaluates the nodes that `roots` reach at the point `x` (input `k` takes
/// `x[k]`; a missing input reads NaN) and returns the roots' values.
pub fn eval(dag: &ExprDag, roots: &[NodeId], x: &[f64]) -> Vec<f64> {
    let values = eval_nodes(dag, roots, x);
    roots.iter().map(|r| values[r.index()]).collect()
}

/// Like [`eval`], but returns the value of every node (NaN for nodes that
/// `roots` do not reach).
pub fn eval_nodes(dag: &ExprDag, roots: &[NodeId], x: &[f64]) -> Vec<f64> {
    let reach = dag.reachable(roots);
    let mut values = vec![f64::NAN; dag.len()];
    let mut args = [0.0; 4];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let node = dag.node(id);
        values[id.index()] = match node.op {
            Op::Input(k) => x.get(k as usize).copied().unwrap_or(f64::NAN),
            op => {
                let n = node.args().len();
                for (slot, a) in args.iter_mut().zip(node.args()) {
                    *slot = values[a.index()];
                }
                op.eval(&args[..n])
            }
        };
    }
    values
}

/// The program's outputs at `x`.
pub fn eval_program(program: &Program, x: &[f64]) -> Vec<f64> {
    eval(&program.dag, &program.output_nodes(), x)
}
