//! Hessians of scalar outputs: the Jacobian of the gradient, each symmetric
//! entry built once.

use crate::jacobian::{jacobian_of, jacobian_where};
use derivative::Entry;
use frontend::{ExprDag, NodeId};

/// The Hessian of one scalar output with respect to inputs `0..n`, with the
/// function and its gradient, all in one DAG.
#[derive(Clone, Debug)]
pub struct Hessian {
    /// The function's DAG, extended with gradient and Hessian nodes.
    pub dag: ExprDag,
    function: NodeId,
    num_inputs: usize,
    /// Structurally nonzero gradient entries `(col, node)`, columns ascending.
    gradient: Vec<(usize, NodeId)>,
    /// The lower triangle (`row >= col`) of the nonzero entries, CSR order.
    entries: Vec<Entry>,
}

/// The Hessian of the scalar `output` with respect to the inputs
/// `0..num_inputs`. Applying [`jacobian_of`] to the gradient nodes again gives
/// derivatives of any order.
pub fn hessian(dag: ExprDag, output: NodeId, num_inputs: usize) -> Hessian {
    let first = jacobian_of(dag, &[output], num_inputs);
    let gradient: Vec<(usize, NodeId)> = first.entries().iter().map(|e| (e.col, e.node)).collect();
    let gradient_nodes: Vec<NodeId> = gradient.iter().map(|g| g.1).collect();
    let columns: Vec<usize> = gradient.iter().map(|g| g.0).collect();
    // Row i of the second Jacobian is ∂/∂x of gradient entry columns[i]:
    // only the entries on or below the diagonal are built.
    let second = jacobian_where(first.dag, &gradient_nodes, num_inputs, &|row, col| col <= columns[row]);
    let mut entries: Vec<Entry> =
        second.entries().iter().map(|e| Entry { row: columns[e.row], col: e.col, node: e.node }).collect();
    entries.sort_by_key(|e| (e.row, e.col));
    Hessian { dag: second.dag, function: output, num_inputs, gradient, entries }
}

impl Hessian {
    /// The function node.
    pub fn function(&self) -> NodeId {
        self.function
    }

    /// The nonzero gradient entries `(col, node)`, columns ascending.
    pub fn gradient(&self) -> &[(usize, NodeId)] {
        &self.gradient
    }

    /// The nonzero entries on or below the diagonal (`row >= col`), in CSR
    /// order; `(col, row)` holds the same value.
    pub fn lower_entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of structurally nonzero entries of the full symmetric matrix.
    pub fn nnz(&self) -> usize {
        self.entries.iter().map(|e| if e.row == e.col { 1 } else { 2 }).sum()
    }

    /// The dense symmetric matrix of entry nodes, `None` for structural zeros.
    pub fn dense(&self) -> Vec<Vec<Option<NodeId>>> {
        let mut dense = vec![vec![None; self.num_inputs]; self.num_inputs];
        for e in &self.entries {
            dense[e.row][e.col] = Some(e.node);
            dense[e.col][e.row] = Some(e.node);
        }
        dense
    }

    /// Operations to compute function, gradient and Hessian together.
    pub fn ops(&self) -> usize {
        self.dag.count_ops(&self.roots())
    }

    /// The function value, the dense gradient and the dense Hessian at `x`.
    pub fn eval(&self, x: &[f64]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
        let values = frontend::eval_nodes(&self.dag, &self.roots(), x);
        let mut gradient = vec![0.0; self.num_inputs];
        for &(col, node) in &self.gradient {
            gradient[col] = values[node.index()];
        }
        let mut dense = vec![vec![0.0; self.num_inputs]; self.num_inputs];
        for e in &self.entries {
            dense[e.row][e.col] = values[e.node.index()];
            dense[e.col][e.row] = values[e.node.index()];
        }
        (values[self.function.index()], gradient, dense)
    }

    fn roots(&self) -> Vec<NodeId> {
        let gradient = self.gradient.iter().map(|g| g.1);
        let entries = self.entries.iter().map(|e| e.node);
        std::iter::once(self.function).chain(gradient).chain(entries).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend::Op;

    #[test]
    fn hessian_of_product_with_sine() {
        // f = x*y + sin(x): H = [[-sin x, 1], [1, 0]].
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(1);
        let xy = dag.mul(x, y);
        let s = dag.apply(Op::Sin, &[x]);
        let f = dag.add(xy, s);
        let h = hessian(dag, f, 2);
        let (value, gradient, dense) = h.eval(&[0.5, 2.0]);
        assert_eq!(value, 1.0 + 0.5f64.sin());
        assert_eq!(gradient, vec![2.0 + 0.5f64.cos(), 0.5]);
        assert_eq!(dense, vec![vec![-(0.5f64.sin()), 1.0], vec![1.0, 0.0]]);
        assert_eq!(h.nnz(), 3, "H[1][1] is a structural zero");
    }
}
