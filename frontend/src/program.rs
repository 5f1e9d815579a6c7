//! A parsed function: its DAG, named inputs, ordered outputs and source spans.

use crate::call::FunctionDef;
use crate::dag::{ExprDag, NodeId};
use crate::span::Span;
use std::sync::Arc;

/// A named output of a [`Program`].
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The output's name (`out2` for the unnamed second output).
    pub name: String,
    /// The node computing it.
    pub node: NodeId,
}

/// Where each node was first written in the source, for error messages.
#[derive(Clone, Debug, Default)]
pub struct SpanMap(Vec<Span>);

impl SpanMap {
    /// The span of `id`, if the parser created it.
    pub fn get(&self, id: NodeId) -> Option<Span> {
        self.0.get(id.index()).copied()
    }

    /// Makes room for `additional` more nodes' spans.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
    }

    /// Gives every node of `dag` not yet mapped the span `span`.
    pub(crate) fn fill(&mut self, dag: &ExprDag, span: Span) {
        self.0.resize(dag.len(), span);
    }
}

/// A function from named inputs (and parameters) to ordered, named outputs.
#[derive(Clone, Debug)]
pub struct Program {
    /// The expression DAG; input `k` is the node `Op::Input(k)`, parameter
    /// `j` the node `Op::Input(n + j)` for `n` inputs.
    ///
    /// Shared with the program's copies and its [`Kernel`](crate::Kernel)s,
    /// which never copy it unless one adds nodes to it
    /// ([`Arc::make_mut`]): a written-out model's DAG at 10^5 intervals is
    /// 1.5 M nodes, and each copy took 75 ms and 100 MB.
    pub dag: Arc<ExprDag>,
    /// Input names, in order: what derivatives are taken with respect to.
    pub inputs: Vec<String>,
    /// Parameter names, in order: data given with each evaluation, never
    /// differentiated.
    pub params: Vec<String>,
    /// The default parameter values of a `# @params v1 v2 ...` comment, if any.
    pub param_values: Option<Vec<f64>>,
    /// Outputs, in order.
    pub outputs: Vec<Output>,
    /// Source spans of the nodes the parser created.
    pub spans: SpanMap,
    /// The evaluation point of a `# @point v1 v2 ...` comment, if any.
    pub point: Option<Vec<f64>>,
    /// The functions the program defines, in order (each may call those
    /// before it); its DAG calls them at its sites.
    pub functions: Vec<Arc<FunctionDef>>,
}

impl Program {
    /// A program over `dag` with no parameters, no spans and no point.
    pub fn new(dag: ExprDag, inputs: Vec<String>, outputs: Vec<Output>) -> Program {
        Program {
            dag: Arc::new(dag),
            inputs,
            params: Vec::new(),
            param_values: None,
            outputs,
            spans: SpanMap::default(),
            point: None,
            functions: Vec::new(),
        }
    }

    /// The same program with `params` as its parameters: nodes
    /// `Op::Input(n + j)` for its `n` inputs.
    pub fn with_params(mut self, params: Vec<String>, values: Option<Vec<f64>>) -> Program {
        self.params = params;
        self.param_values = values;
        self
    }

    /// A program computing `outputs` of `dag`, a DAG over this program's
    /// inputs and parameters (a derivative of it): the same inputs,
    /// parameters, default values and point.
    pub fn derived(&self, dag: ExprDag, outputs: Vec<Output>) -> Program {
        let program = Program::new(dag, self.inputs.clone(), outputs);
        Program {
            point: self.point.clone(),
            ..program.with_params(self.params.clone(), self.param_values.clone())
        }
    }

    /// The names of the input nodes: `Op::Input(k)` is `leaves()[k]`, the
    /// inputs, then the parameters.
    pub fn leaves(&self) -> Vec<String> {
        self.inputs.iter().chain(&self.params).cloned().collect()
    }

    /// The output nodes, in order.
    pub fn output_nodes(&self) -> Vec<NodeId> {
        self.outputs.iter().map(|o| o.node).collect()
    }

    /// The output names, in order.
    pub fn output_names(&self) -> Vec<String> {
        self.outputs.iter().map(|o| o.name.clone()).collect()
    }

    /// Number of operations the outputs need (see [`ExprDag::count_ops`]).
    pub fn count_ops(&self) -> usize {
        self.dag.count_ops(&self.output_nodes())
    }

    /// Whether `self` and `other` compute structurally the same outputs from
    /// the same inputs (up to the order of commutative operands and of node
    /// ids), with the same names: with every call written out, and the same
    /// functions (names, arguments, results) defined.
    pub fn same_as(&self, other: &Program) -> bool {
        let signature =
            |p: &Program| -> Vec<String> { p.functions.iter().map(|f| format!("{f:?}")).collect() };
        if self.inputs != other.inputs
            || self.params != other.params
            || self.output_names() != other.output_names()
            || signature(self) != signature(other)
        {
            return false;
        }
        let (mine, my_roots) = crate::call::inline(&self.dag, &self.output_nodes());
        let (theirs, their_roots) = crate::call::inline(&other.dag, &other.output_nodes());
        let mut dag = mine.clone();
        let before = dag.len();
        let roots = dag.import(&theirs, &their_roots, None);
        let reach_self = mine.reachable(&my_roots).iter().filter(|r| **r).count();
        let reach_other = theirs.reachable(&their_roots).iter().filter(|r| **r).count();
        dag.len() == before && roots == my_roots && reach_self == reach_other
    }

    /// The same program with every call written out ([`crate::call::inline`]):
    /// the same values bit for bit, no functions, no spans.
    pub fn inlined(&self) -> Program {
        if self.count_calls() == 0 {
            return Program { functions: vec![], ..self.clone() };
        }
        let (dag, roots) = crate::call::inline(&self.dag, &self.output_nodes());
        let outputs =
            self.outputs.iter().zip(roots).map(|(o, node)| Output { name: o.name.clone(), node }).collect();
        Program {
            dag: Arc::new(dag),
            inputs: self.inputs.clone(),
            params: self.params.clone(),
            param_values: self.param_values.clone(),
            outputs,
            spans: SpanMap::default(),
            point: self.point.clone(),
            functions: vec![],
        }
    }

    /// Number of call sites the outputs reach.
    pub fn count_calls(&self) -> usize {
        self.dag.reached_sites(&self.output_nodes()).len()
    }
}
