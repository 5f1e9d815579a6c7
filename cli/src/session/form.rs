//! The derivatives behind the REPL's forms: `diff` of any order and any
//! variables (Taylor mode, within a work budget), `taylor`, `grad`,
//! `jacobian` and `hessian`, as programs over the functions' variables (and
//! their parameters, which have no row or column) with their rows and
//! columns named, written as a person would.

use super::SessionError;
use dstar::frontend::{ExprDag, Kernel, NodeId, Output, Program};
use dstar::{Budget, HigherError, Stop};

/// How the entries of a derivative are laid out when printed.
#[derive(Clone, Debug)]
pub enum Shape {
    Scalar,
    /// A gradient: one entry per variable.
    Row,
    Matrix {
        cols: usize,
    },
    /// A large, sparse symmetric matrix given by its lower triangle's
    /// structural nonzeros (`(row, col)` with `row >= col`, one entry
    /// each), printed as a list.
    Lower {
        vars: Vec<String>,
        at: Vec<(usize, usize)>,
    },
}

/// Up to this many variables a Hessian prints as a full matrix; past it,
/// as its lower triangle's nonzeros unless they fill half of it.
const DENSE_HESSIAN_MAX: usize = 6;

impl Shape {
    /// Joins the entries' texts: `a`, `[a, b]` or `[[a, b],\n [c, d]]`.
    pub fn layout(&self, texts: &[String]) -> String {
        match self {
            Shape::Scalar => texts[0].clone(),
            Shape::Row => format!("[{}]", texts.join(", ")),
            Shape::Matrix { cols } => {
                let rows: Vec<String> =
                    texts.chunks((*cols).max(1)).map(|r| format!("[{}]", r.join(", "))).collect();
                format!("[{}]", rows.join(",\n "))
            }
            Shape::Lower { vars, at } => {
                let lines: Vec<String> = at
                    .iter()
                    .zip(texts)
                    .map(|(&(r, c), text)| format!("({}, {}): {text}", vars[r], vars[c]))
                    .collect();
                lines.join("\n")
            }
        }
    }
}

/// A derivative: a program over the variables (its inputs, in order) and
/// the parameters, one output per entry, and what its rows and columns are.
pub struct Derived {
    pub program: Program,
    pub shape: Shape,
    /// A Jacobian's functions, as written.
    pub rows: Vec<String>,
}

impl Derived {
    /// What the rows and columns are, as a comment line (empty for a scalar).
    pub fn header(&self) -> String {
        let vars = match self.program.inputs.is_empty() {
            true => "none".to_string(),
            false => self.program.inputs.join(", "),
        };
        match self.shape {
            Shape::Scalar => String::new(),
            Shape::Row => format!("# columns: {vars}"),
            Shape::Matrix { .. } if self.rows.is_empty() => format!("# rows and columns: {vars}"),
            Shape::Matrix { .. } => format!("# rows: {}; columns: {vars}", self.rows.join(", ")),
            Shape::Lower { ref at, .. } => {
                let n = self.program.inputs.len();
                format!(
                    "# symmetric; the {} of its lower triangle's {} entries, (row, column): value; \
                     rows and columns: {vars}",
                    crate::commands::counted(at.len(), "nonzero"),
                    n * (n + 1) / 2
                )
            }
        }
    }
}

/// The partial derivative of `f` by `by`, `(input, order)` pairs in the
/// order written (`names` are the variables, for messages), within
/// `budget`; `stop` is asked before every order.
pub fn partial(
    f: &Program,
    by: &[(usize, u64)],
    names: &[&str],
    budget: &Budget,
    stop: &Stop,
) -> Result<Program, SessionError> {
    dstar::partial(f, by, budget, stop).map_err(|e| match e {
        dstar::Error::Derivative(HigherError::Stopped) => SessionError::interrupted(),
        dstar::Error::Derivative(
            e @ (HigherError::Work { stage, .. }
            | HigherError::Ops { stage, .. }
            | HigherError::Constants { stage, .. }),
        ) if names.len() > 1 => SessionError::new(format!("by {}: {e}", names[stage])),
        e => internal(e),
    })
}

/// The Taylor polynomial of `f` in its input `input` around `at`.
pub fn taylor(
    f: &Program,
    input: usize,
    at: f64,
    order: u64,
    budget: &Budget,
    stop: &Stop,
) -> Result<Program, SessionError> {
    dstar::taylor_polynomial(f, input, at, order, budget, stop).map_err(|e| match e {
        dstar::Error::Derivative(HigherError::Stopped) => SessionError::interrupted(),
        e => internal(e),
    })
}

/// The gradient of `program`'s value, one entry per input.
pub fn gradient(program: &Program) -> Result<Derived, SessionError> {
    let n = program.inputs.len();
    let jacobian = dstar::factor::jacobian(program.kernel().map_err(internal)?);
    let mut dag = jacobian.dag().clone();
    let zero = dag.constant(0.0);
    let mut row = vec![zero; n];
    for e in jacobian.entries() {
        row[e.col] = e.node;
    }
    Ok(derived(dag, leaves_of(program), row, Shape::Row, vec![]))
}

/// The Jacobian of several functions, named `rows`, over the union of
/// their variables in order of first appearance (and of their parameters).
pub fn jacobian(functions: &[Program], rows: Vec<String>) -> Result<Derived, SessionError> {
    let (dag, leaves, outputs) = together(functions);
    let n = leaves.0.len();
    let all = n + leaves.1.len();
    let kernel = Kernel::new(dag, outputs.clone(), all).map_err(internal)?.with_variables(n);
    let jacobian = dstar::factor::jacobian(kernel);
    let mut dag = jacobian.dag().clone();
    let zero = dag.constant(0.0);
    let mut entries = vec![zero; outputs.len() * n];
    for e in jacobian.entries() {
        entries[e.row * n + e.col] = e.node;
    }
    Ok(derived(dag, leaves, entries, Shape::Matrix { cols: n }, rows))
}

/// The Hessian of `program`'s value: its lower triangle's structural
/// nonzeros (printed as the full matrix when small or dense).
pub fn hessian(program: &Program) -> Result<Derived, SessionError> {
    let hessian = dstar::factor::hessian(program.kernel().map_err(internal)?, 0);
    let n = program.inputs.len();
    let (at, lower): (Vec<(usize, usize)>, Vec<NodeId>) =
        hessian.lower_entries().map(|e| ((e.row, e.col), e.node)).unzip();
    let mut dag = hessian.dag().clone();
    if n > DENSE_HESSIAN_MAX && 4 * at.len() < n * (n + 1) {
        let shape = Shape::Lower { vars: program.inputs.clone(), at };
        return Ok(derived(dag, leaves_of(program), lower, shape, vec![]));
    }
    let zero = dag.constant(0.0);
    let mut entries: Vec<NodeId> = vec![zero; n * n];
    for (&(row, col), node) in at.iter().zip(lower) {
        entries[row * n + col] = node;
        entries[col * n + row] = node;
    }
    Ok(derived(dag, leaves_of(program), entries, Shape::Matrix { cols: n }, vec![]))
}

/// A program's inputs and parameters.
type Leaves = (Vec<String>, Vec<String>);

fn leaves_of(program: &Program) -> Leaves {
    (program.inputs.clone(), program.params.clone())
}

/// Several one-output functions over the union of their variables and the
/// union of their parameters (each in order of first appearance), in one DAG.
fn together(functions: &[Program]) -> (ExprDag, Leaves, Vec<NodeId>) {
    let union = |names: fn(&Program) -> &[String]| {
        let mut all: Vec<String> = vec![];
        for v in functions.iter().flat_map(names) {
            if !all.contains(v) {
                all.push(v.clone());
            }
        }
        all
    };
    let inputs = union(|p| &p.inputs);
    let params = union(|p| &p.params);
    let mut dag = ExprDag::new();
    let mut outputs = vec![];
    for p in functions {
        let position =
            |names: &[String], v: &String| names.iter().position(|w| w == v).expect("collected above");
        let leaves: Vec<NodeId> = (p.inputs.iter().map(|v| position(&inputs, v)))
            .chain(p.params.iter().map(|v| inputs.len() + position(&params, v)))
            .map(|k| dag.input(k))
            .collect();
        outputs.push(dag.import(&p.dag, &[p.outputs[0].node], Some(&leaves))[0]);
    }
    (dag, (inputs, params), outputs)
}

fn derived(
    dag: ExprDag,
    (inputs, params): Leaves,
    nodes: Vec<NodeId>,
    shape: Shape,
    rows: Vec<String>,
) -> Derived {
    let outputs =
        nodes.into_iter().enumerate().map(|(i, node)| Output { name: format!("d{i}"), node }).collect();
    let program = Program::new(dag, inputs, outputs).with_params(params, None);
    Derived { program: dstar::tidy(&program), shape, rows }
}

/// The constant 0 over `inputs`.
pub fn zero(inputs: &[String]) -> Program {
    let mut dag = ExprDag::new();
    let node = dag.constant(0.0);
    Program::new(dag, inputs.to_vec(), vec![Output { name: "f".into(), node }])
}

pub fn internal(e: impl std::fmt::Display) -> SessionError {
    SessionError::new(e.to_string())
}
