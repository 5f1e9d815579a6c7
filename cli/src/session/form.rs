//! The derivatives behind the REPL's forms: `diff` of any order (guarded),
//! `grad`, `jacobian` and `hessian`, as programs over the functions'
//! variables with their rows and columns named.

use super::SessionError;
use dstar::frontend::{ExprDag, Kernel, NodeId, Output, Program};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// A derivative: a program over the variables (its inputs, in order), one
/// output per entry, and what its rows and columns are.
pub struct Derived {
    pub program: Program,
    pub shape: Shape,
    /// A Jacobian's functions, as written.
    pub rows: Vec<String>,
}

impl Derived {
    /// What the rows and columns are, as a comment line (empty for a scalar).
    pub fn header(&self) -> String {
        let vars = self.program.inputs.join(", ");
        match self.shape {
            Shape::Scalar => String::new(),
            Shape::Row => format!("# columns: {vars}"),
            Shape::Matrix { .. } if self.rows.is_empty() => format!("# rows and columns: {vars}"),
            Shape::Matrix { .. } => format!("# rows: {}; columns: {vars}", self.rows.join(", ")),
            Shape::Lower { ref at, .. } => {
                let n = self.program.inputs.len();
                format!(
                    "# symmetric; the {} nonzeros of its lower triangle's {} entries, (row, column): value; \
                     rows and columns: {vars}",
                    at.len(),
                    n * (n + 1) / 2
                )
            }
        }
    }
}

/// Bounds on repeated differentiation, in units of work: DAG nodes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Operations a derivative may have.
    pub max_ops: usize,
    /// DAG nodes all the differentiation steps of one `diff` may process
    /// together; each step counts the nodes of the DAG it is given, plus
    /// [`Limits::STEP_COST`].
    pub max_work: usize,
}

impl Limits {
    /// What a step costs besides its nodes (setting up a Jacobian), so that
    /// a derivative that stays small still cannot be asked for 10^18 times.
    pub const STEP_COST: usize = 64;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_ops: 100_000, max_work: 300_000 }
    }
}

/// The `order`-th derivative of `program`'s value by its input `var`
/// (`None`: a variable it does not use, so the derivative is 0), over the
/// same inputs.
///
/// Stops as soon as a derivative is the constant 0, and when the derivative
/// repeats one seen before (as `sin` does after four steps) it takes the
/// answer from the cycle; otherwise it stops with an error naming the
/// highest order within `limits`. `interrupt` is read before every step.
pub fn nth_derivative(
    program: &Program,
    var: Option<usize>,
    order: u64,
    limits: Limits,
    interrupt: &AtomicBool,
) -> Result<Program, SessionError> {
    let n = program.inputs.len();
    let mut kernel = program.kernel().map_err(internal)?;
    if order == 0 {
        return Ok(scalar_program(kernel, &program.inputs));
    }
    let Some(col) = var else { return Ok(zero(&program.inputs)) };
    // The derivatives since the DAG was last compacted, in order, all in
    // `kernel`'s DAG, where hash-consing makes a repeated derivative the
    // same node.
    let mut roots = vec![kernel.roots()[0]];
    let mut seen: HashMap<NodeId, usize> = HashMap::from([(roots[0], 0)]);
    let mut work = 0usize;
    for k in 1..=order {
        if interrupt.load(Ordering::Relaxed) {
            return Err(SessionError::interrupted());
        }
        work = work.saturating_add(kernel.dag().len() + Limits::STEP_COST);
        // The guards are on repeating: a first derivative is what grad builds.
        if k > 1 && work > limits.max_work {
            return Err(SessionError::new(format!(
                "order {order} needs too much work: differentiating {} times already processed {work} DAG nodes \
                 (limit {}); ask for order {} or lower",
                k - 1,
                limits.max_work,
                k - 1
            )));
        }
        let jacobian = dstar::factor::jacobian(kernel);
        let entry = jacobian.get(0, col);
        kernel = jacobian.into_kernel();
        let node = match entry {
            Some(node) if !kernel.dag().is_const(node, 0.0) => node,
            _ => return Ok(zero(&program.inputs)),
        };
        kernel = kernel.with_roots(vec![node]).map_err(internal)?;
        let ops = kernel.count_ops();
        if k > 1 && ops > limits.max_ops {
            return Err(SessionError::new(format!(
                "the derivative of order {k} has {ops} operations, more than the limit of {}; \
                 ask for order {} or lower",
                limits.max_ops,
                k - 1
            )));
        }
        if let Some(&i) = seen.get(&node) {
            // Order k repeats the one at roots[i]: a cycle of roots.len() - i steps.
            let period = (roots.len() - i) as u64;
            let at = i + ((order - k) % period) as usize;
            let kernel = kernel.with_roots(vec![roots[at]]).map_err(internal)?;
            return Ok(scalar_program(kernel, &program.inputs));
        }
        seen.insert(node, roots.len());
        roots.push(node);
        // Derivatives leave earlier ones behind in the DAG: keep it within a
        // constant factor of what the current one needs, so each step costs
        // in proportion to the derivative it differentiates.
        if kernel.dag().len() > 2 * ops + 256 {
            let mut dag = ExprDag::new();
            let root = dag.import(kernel.dag(), &[node], None)[0];
            kernel = Kernel::new(dag, vec![root], n).map_err(internal)?;
            roots = vec![root];
            seen = HashMap::from([(root, 0)]);
        }
    }
    Ok(scalar_program(kernel, &program.inputs))
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
    Ok(derived(dag, program.inputs.clone(), row, Shape::Row, vec![]))
}

/// The Jacobian of several functions, named `rows`, over the union of
/// their variables in order of first appearance.
pub fn jacobian(functions: &[Program], rows: Vec<String>) -> Result<Derived, SessionError> {
    let (dag, inputs, outputs) = together(functions);
    let n = inputs.len();
    let kernel = Kernel::new(dag, outputs.clone(), n).map_err(internal)?;
    let jacobian = dstar::factor::jacobian(kernel);
    let mut dag = jacobian.dag().clone();
    let zero = dag.constant(0.0);
    let mut entries = vec![zero; outputs.len() * n];
    for e in jacobian.entries() {
        entries[e.row * n + e.col] = e.node;
    }
    Ok(derived(dag, inputs, entries, Shape::Matrix { cols: n }, rows))
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
        return Ok(derived(
            dag,
            program.inputs.clone(),
            lower,
            Shape::Lower { vars: program.inputs.clone(), at },
            vec![],
        ));
    }
    let zero = dag.constant(0.0);
    let mut entries: Vec<NodeId> = vec![zero; n * n];
    for (&(row, col), node) in at.iter().zip(lower) {
        entries[row * n + col] = node;
        entries[col * n + row] = node;
    }
    Ok(derived(dag, program.inputs.clone(), entries, Shape::Matrix { cols: n }, vec![]))
}

/// Several one-output functions over the union of their variables (in
/// order of first appearance), in one DAG.
fn together(functions: &[Program]) -> (ExprDag, Vec<String>, Vec<NodeId>) {
    let mut inputs: Vec<String> = vec![];
    for p in functions {
        for v in &p.inputs {
            if !inputs.contains(v) {
                inputs.push(v.clone());
            }
        }
    }
    let mut dag = ExprDag::new();
    let mut outputs = vec![];
    for p in functions {
        let args: Vec<NodeId> = p
            .inputs
            .iter()
            .map(|v| dag.input(inputs.iter().position(|w| w == v).expect("collected above")))
            .collect();
        outputs.push(dag.import(&p.dag, &[p.outputs[0].node], Some(&args))[0]);
    }
    (dag, inputs, outputs)
}

fn derived(
    dag: ExprDag,
    inputs: Vec<String>,
    nodes: Vec<NodeId>,
    shape: Shape,
    rows: Vec<String>,
) -> Derived {
    let outputs =
        nodes.into_iter().enumerate().map(|(i, node)| Output { name: format!("d{i}"), node }).collect();
    Derived { program: Program::new(dag, inputs, outputs), shape, rows }
}

/// A one-root kernel as a program over `inputs`, with only what the root
/// needs.
fn scalar_program(kernel: Kernel, inputs: &[String]) -> Program {
    let mut dag = ExprDag::new();
    let root = dag.import(kernel.dag(), kernel.roots(), None)[0];
    Program::new(dag, inputs.to_vec(), vec![Output { name: "f".into(), node: root }])
}

/// The constant 0 over `inputs`.
fn zero(inputs: &[String]) -> Program {
    let mut dag = ExprDag::new();
    let node = dag.constant(0.0);
    Program::new(dag, inputs.to_vec(), vec![Output { name: "f".into(), node }])
}

pub fn internal(e: impl std::fmt::Display) -> SessionError {
    SessionError::new(e.to_string())
}
