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
/// `roots` do not reach). A call evaluates its function's body on the
/// values of its arguments, once per site.
pub fn eval_nodes(dag: &ExprDag, roots: &[NodeId], x: &[f64]) -> Vec<f64> {
    let reach = dag.reachable(roots);
    let mut values = vec![f64::NAN; dag.len()];
    let mut results: Vec<Option<Vec<f64>>> = vec![None; dag.sites().len()];
    let mut args = [0.0; 4];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let node = dag.node(id);
        values[id.index()] = match node.op {
            Op::Input(k) => x.get(k as usize).copied().unwrap_or(f64::NAN),
            Op::Call(c) => {
                let site = dag.site(c.site);
                let called = results[c.site as usize].get_or_insert_with(|| {
                    let args: Vec<f64> = site.args.iter().map(|a| values[a.index()]).collect();
                    site.called().body().eval(&args)
                });
                called[c.out as usize]
            }
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
