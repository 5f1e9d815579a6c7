//! [`Kernel`]: what every later stage takes and gives back, the outputs
//! (roots) of an expression DAG over a fixed number of inputs, checked once.

use crate::dag::{ExprDag, NodeId};
use crate::eval::eval;
use crate::op::Op;
use crate::program::Program;
use std::sync::Arc;

/// Why a DAG and roots do not form a [`Kernel`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidKernel {
    /// A root names a node the DAG does not have.
    #[error("root {root} is node {node:?}, but the DAG has only {len} nodes")]
    UnknownRoot {
        /// The root's position.
        root: usize,
        /// The node it names.
        node: NodeId,
        /// Nodes in the DAG.
        len: usize,
    },
    /// A root depends on an input the kernel does not have.
    #[error("node {node:?} reads input {index}, but the kernel has {num_inputs} inputs")]
    InputOutOfRange {
        /// The input node.
        node: NodeId,
        /// Its index.
        index: u32,
        /// The kernel's inputs.
        num_inputs: usize,
    },
}

/// The outputs `roots` of `dag` as a function of the inputs `0..num_inputs`.
///
/// The first [`num_variables`](Kernel::num_variables) inputs are the
/// variables derivatives are taken with respect to; the others (a
/// program's parameters, then the blocks a derivative kernel adds: weights,
/// directions) are data, never differentiated: no Jacobian column, Hessian
/// row or operation exists for them.
///
/// Built only through [`Kernel::new`], which checks that every root exists
/// and reads only inputs below `num_inputs`; every stage after it (derivatives,
/// simplification, compilation, emission) relies on that and checks nothing
/// again. Extending the DAG ([`Kernel::dag_mut`]) keeps it valid: nodes are
/// append-only, so what the roots reach never changes.
///
/// ```
/// let program = frontend::parse_program("in x, y\nout x * y\nout sin(x)")?;
/// let kernel = program.kernel()?;
/// assert_eq!((kernel.num_inputs(), kernel.num_outputs(), kernel.count_ops()), (2, 2, 2));
/// assert_eq!(kernel.eval(&[2.0, 3.0]), vec![6.0, 2f64.sin()]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Kernel {
    dag: Arc<ExprDag>,
    roots: Vec<NodeId>,
    num_inputs: usize,
    num_variables: usize,
}

impl Kernel {
    /// The kernel computing `roots` of `dag` (a DAG of its own, or one
    /// shared: an `Arc<ExprDag>`) from `num_inputs` inputs, all of them
    /// variables ([`with_variables`](Self::with_variables) says otherwise).
    ///
    /// # Errors
    /// [`InvalidKernel`] if a root is not a node of `dag` or depends on an
    /// input `k >= num_inputs`.
    pub fn new(
        dag: impl Into<Arc<ExprDag>>,
        roots: Vec<NodeId>,
        num_inputs: usize,
    ) -> Result<Kernel, InvalidKernel> {
        let dag = dag.into();
        if let Some((root, &node)) = roots.iter().enumerate().find(|(_, id)| id.index() >= dag.len()) {
            return Err(InvalidKernel::UnknownRoot { root, node, len: dag.len() });
        }
        // Only a DAG with an input out of range can have a root read one.
        if dag.inputs_below() as usize > num_inputs {
            let reach = dag.reachable(&roots);
            for node in dag.ids().filter(|id| reach[id.index()]) {
                if let Op::Input(index) = dag.op(node) {
                    if index as usize >= num_inputs {
                        return Err(InvalidKernel::InputOutOfRange { node, index, num_inputs });
                    }
                }
            }
        }
        Ok(Kernel { dag, roots, num_inputs, num_variables: num_inputs })
    }

    /// The same kernel with only its first `num_variables` inputs as
    /// variables. Panics if it has fewer inputs.
    pub fn with_variables(mut self, num_variables: usize) -> Kernel {
        assert!(num_variables <= self.num_inputs, "{num_variables} variables of {} inputs", self.num_inputs);
        self.num_variables = num_variables;
        self
    }

    /// A kernel derived from this one (a derivative's): `roots` of `dag`
    /// (which extends this kernel's) over this kernel's inputs and
    /// `extra_inputs` more after them (weights, directions), with the same
    /// variables.
    ///
    /// # Errors
    /// As [`Kernel::new`].
    pub fn derived(
        &self,
        dag: ExprDag,
        roots: Vec<NodeId>,
        extra_inputs: usize,
    ) -> Result<Kernel, InvalidKernel> {
        Ok(Kernel::new(dag, roots, self.num_inputs + extra_inputs)?.with_variables(self.num_variables))
    }

    /// The same DAG with other roots (checked as by [`Kernel::new`]), the
    /// same inputs and variables.
    ///
    /// # Errors
    /// As [`Kernel::new`].
    pub fn with_roots(self, roots: Vec<NodeId>) -> Result<Kernel, InvalidKernel> {
        Ok(Kernel::new(self.dag, roots, self.num_inputs)?.with_variables(self.num_variables))
    }

    /// The expression DAG; it may hold nodes the roots do not reach.
    pub fn dag(&self) -> &ExprDag {
        &self.dag
    }

    /// The DAG, to add nodes to (derivatives built beside the function).
    /// Adding nodes never changes what the roots compute. A DAG shared with
    /// a program or another kernel ([`Program::kernel`], `clone`) is copied
    /// first, so the others never see the nodes added.
    pub fn dag_mut(&mut self) -> &mut ExprDag {
        Arc::make_mut(&mut self.dag)
    }

    /// The output nodes, in order.
    pub fn roots(&self) -> &[NodeId] {
        &self.roots
    }

    /// Number of inputs: the input a call reads has this length.
    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    /// Number of variables: the first inputs, those derivatives are taken
    /// with respect to.
    pub fn num_variables(&self) -> usize {
        self.num_variables
    }

    /// Number of outputs (roots).
    pub fn num_outputs(&self) -> usize {
        self.roots.len()
    }

    /// Operations the roots need (see [`ExprDag::count_ops`]).
    pub fn count_ops(&self) -> usize {
        self.dag.count_ops(&self.roots)
    }

    /// The outputs at `x`, by the reference interpreter (a missing input
    /// reads NaN).
    pub fn eval(&self, x: &[f64]) -> Vec<f64> {
        eval(&self.dag, &self.roots, x)
    }

    /// The DAG and the roots.
    pub fn into_parts(self) -> (ExprDag, Vec<NodeId>) {
        (Arc::unwrap_or_clone(self.dag), self.roots)
    }

    /// Whether the roots read a result of a call.
    pub fn has_calls(&self) -> bool {
        !self.dag.sites().is_empty() && !self.dag.reached_sites(&self.roots).is_empty()
    }

    /// The same function with every call written out ([`crate::call::inline`]):
    /// the same values, bit for bit, the same inputs and variables.
    pub fn inlined(&self) -> Kernel {
        if !self.has_calls() {
            return self.clone();
        }
        let (dag, roots) = crate::call::inline(&self.dag, &self.roots);
        Kernel { dag: Arc::new(dag), roots, ..self.clone_shape() }
    }

    /// The same function with the calls of the functions `pick` picks
    /// written out (to any depth in their bodies), the others kept: the
    /// same values, bit for bit.
    pub fn inlined_if(&self, pick: &dyn Fn(&crate::call::FunctionDef) -> bool) -> Kernel {
        if !self.has_calls() {
            return self.clone();
        }
        let mut dag = ExprDag::new();
        let roots =
            crate::copy::copy(&mut dag, &self.dag, &self.roots, None, crate::copy::Calls::InlineIf(pick));
        Kernel { dag: Arc::new(dag), roots, ..self.clone_shape() }
    }

    /// An empty kernel of this one's inputs and variables.
    fn clone_shape(&self) -> Kernel {
        Kernel {
            dag: Arc::default(),
            roots: vec![],
            num_inputs: self.num_inputs,
            num_variables: self.num_variables,
        }
    }
}

impl Program {
    /// The program as a [`Kernel`]: its outputs over its inputs, then its
    /// parameters; the inputs are the variables.
    ///
    /// # Errors
    /// [`InvalidKernel`] for a program built by hand whose outputs read an
    /// input it does not declare (never for a parsed one).
    ///
    /// The kernel shares the program's DAG, copied only if nodes are added
    /// to it ([`Kernel::dag_mut`]).
    pub fn kernel(&self) -> Result<Kernel, InvalidKernel> {
        let all = self.inputs.len() + self.params.len();
        Ok(Kernel::new(Arc::clone(&self.dag), self.output_nodes(), all)?.with_variables(self.inputs.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_and_inputs_are_checked_once() {
        let mut dag = ExprDag::new();
        let x = dag.input(0);
        let y = dag.input(3);
        let s = dag.add(x, y);
        assert!(Kernel::new(dag.clone(), vec![s], 4).is_ok());
        let error = Kernel::new(dag.clone(), vec![s], 2).unwrap_err();
        assert_eq!(error, InvalidKernel::InputOutOfRange { node: y, index: 3, num_inputs: 2 });
        let missing = NodeId::from_index(10);
        assert!(matches!(Kernel::new(dag.clone(), vec![missing], 4), Err(InvalidKernel::UnknownRoot { .. })));
        // An input the roots do not reach does not matter.
        assert!(Kernel::new(dag, vec![x], 1).is_ok());
    }

    #[test]
    fn a_program_and_its_kernel_share_a_dag_until_nodes_are_added() {
        let program = crate::parse_program("in x, y\nout x * y").unwrap();
        let mut kernel = program.kernel().unwrap();
        let copy = kernel.clone();
        assert!(std::ptr::eq(kernel.dag(), &*program.dag) && std::ptr::eq(copy.dag(), &*program.dag));
        let seven = kernel.dag_mut().constant(7.0);
        assert!(!std::ptr::eq(kernel.dag(), &*program.dag));
        assert_eq!((program.dag.len(), copy.dag().len(), kernel.dag().len()), (3, 3, 4));
        assert_eq!(kernel.dag().as_const(seven), Some(7.0));
        assert_eq!(kernel.eval(&[2.0, 3.0]), [6.0]);
    }
}
