//! The symbolic builder: expressions are nodes of one hash-consed DAG shared
//! by the whole process, so building is a table lookup per operation and
//! equal subexpressions are one node however they were written.

use crate::function::Function;
use dstar::frontend::shown::Shown;
use dstar::frontend::{Cmp, Output};
use dstar::{ExprDag, NodeId, Op, Program};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::{LazyLock, Mutex, MutexGuard};

/// The process-wide DAG and the name of each symbol (input `k` is symbol `k`).
#[derive(Default)]
struct Graph {
    dag: ExprDag,
    names: Vec<String>,
}

static GRAPH: LazyLock<Mutex<Graph>> = LazyLock::new(Mutex::default);

fn graph() -> MutexGuard<'static, Graph> {
    // A panic while holding the lock leaves the DAG append-only and valid.
    GRAPH.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A symbolic expression (a node of the shared DAG).
///
/// Combine with ``+ - * / **``, unary minus and floats on either side, with
/// the functions ``dstar.sin`` ... and ``dstar.ifelse``; compare with
/// ``< <= > >=`` to make a condition for ``ifelse``. ``str(e)`` is
/// problem-format text, shared subexpressions bound to names.
///
/// >>> x, y = dstar.symbols("x y")
/// >>> str(dstar.sin(x * y) + x**2)
/// 'sin(x * y) + x^2'
#[pyclass(module = "dstar._dstar", frozen)]
#[derive(Clone, Copy)]
pub struct Expr {
    id: NodeId,
}

/// A comparison of two expressions, the condition of :func:`dstar.ifelse`.
///
/// It has no truth value, except ``==`` and ``!=``, which are true when the
/// two sides are the same expression (so expressions work as dict keys).
#[pyclass(module = "dstar._dstar", frozen)]
pub struct Condition {
    cmp: Cmp,
    a: NodeId,
    b: NodeId,
}

/// The node of an operand: an expression or a number; `None` for anything
/// else (the operator then returns `NotImplemented`).
fn operand(value: &Bound<'_, PyAny>) -> Option<NodeId> {
    if let Ok(e) = value.cast::<Expr>() {
        return Some(e.get().id);
    }
    let v: f64 = value.extract().ok()?;
    Some(graph().dag.constant(v))
}

fn required(value: &Bound<'_, PyAny>, what: &str) -> PyResult<NodeId> {
    operand(value).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what} must be a dstar expression or a number, not {}",
            value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })
}

fn apply(op: Op, args: &[NodeId]) -> Expr {
    Expr { id: graph().dag.apply(op, args) }
}

fn binary(
    py: Python<'_>,
    op: Op,
    a: NodeId,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let Some(b) = operand(other) else { return Ok(py.NotImplemented()) };
    let args = if reflected { [b, a] } else { [a, b] };
    Ok(Py::new(py, apply(op, &args))?.into_any())
}

#[pymethods]
impl Expr {
    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Add, self.id, other, false)
    }
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Add, self.id, other, true)
    }
    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Sub, self.id, other, false)
    }
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Sub, self.id, other, true)
    }
    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Mul, self.id, other, false)
    }
    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Mul, self.id, other, true)
    }
    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Div, self.id, other, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        binary(py, Op::Div, self.id, other, true)
    }
    fn __pow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        if !modulo.is_none() {
            return Ok(py.NotImplemented());
        }
        binary(py, Op::Pow, self.id, other, false)
    }
    fn __rpow__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        modulo: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        if !modulo.is_none() {
            return Ok(py.NotImplemented());
        }
        binary(py, Op::Pow, self.id, other, true)
    }
    fn __neg__(&self) -> Expr {
        apply(Op::Neg, &[self.id])
    }
    fn __pos__(&self) -> Expr {
        *self
    }

    fn __richcmp__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let Some(b) = operand(other) else { return Ok(py.NotImplemented()) };
        let cmp = match op {
            CompareOp::Lt => Cmp::Lt,
            CompareOp::Le => Cmp::Le,
            CompareOp::Gt => Cmp::Gt,
            CompareOp::Ge => Cmp::Ge,
            CompareOp::Eq => Cmp::Eq,
            CompareOp::Ne => Cmp::Ne,
        };
        Ok(Py::new(py, Condition { cmp, a: self.id, b })?.into_any())
    }

    fn __hash__(&self) -> u64 {
        self.id.index() as u64
    }

    /// NumPy defers to the operators above (``np.float64(2) * x`` is an
    /// expression, not an object array).
    #[classattr]
    fn __array_ufunc__() -> Option<i32> {
        None
    }

    fn __str__(&self) -> String {
        let g = graph();
        dstar::print_expr(&g.dag, self.id, &g.names)
    }

    fn __repr__(&self) -> String {
        let text = self.__str__();
        if text.len() > 200 {
            format!("Expr({}...)", &text[..text.char_indices().nth(200).map_or(text.len(), |(i, _)| i)])
        } else {
            format!("Expr({text})")
        }
    }

    /// Whether this expression is a symbol (an input of a ``Function``).
    #[getter]
    fn is_symbol(&self) -> bool {
        matches!(graph().dag.op(self.id), Op::Input(_))
    }

    /// The value of a constant expression, ``None`` otherwise.
    #[getter]
    fn value(&self) -> Option<f64> {
        graph().dag.as_const(self.id)
    }

    /// Number of operations this expression needs, each shared
    /// subexpression once.
    #[getter]
    fn ops(&self) -> usize {
        graph().dag.count_ops(&[self.id])
    }
}

#[pymethods]
impl Condition {
    fn __bool__(&self) -> PyResult<bool> {
        match self.cmp {
            Cmp::Eq => Ok(self.a == self.b),
            Cmp::Ne => Ok(self.a != self.b),
            _ => Err(PyTypeError::new_err(
                "a comparison of dstar expressions has no truth value; use dstar.ifelse(a < b, p, q)",
            )),
        }
    }

    fn __str__(&self) -> String {
        let g = graph();
        let a = dstar::print_expr(&g.dag, self.a, &g.names);
        let b = dstar::print_expr(&g.dag, self.b, &g.names);
        format!("{a} {} {b}", self.cmp.symbol())
    }

    fn __repr__(&self) -> String {
        format!("Condition({})", self.__str__())
    }
}

/// New symbols named `names`.
fn new_symbols(names: &[String]) -> PyResult<Vec<Expr>> {
    for name in names {
        let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(PyValueError::new_err(format!(
                "'{}' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)",
                Shown(name)
            )));
        }
        if let Some(what) = dstar::frontend::reserved(name) {
            return Err(PyValueError::new_err(format!(
                "'{}' is {what} and cannot name a symbol",
                Shown(name)
            )));
        }
    }
    let mut g = graph();
    Ok(names
        .iter()
        .map(|name| {
            let k = g.names.len();
            g.names.push(name.clone());
            Expr { id: g.dag.input(k) }
        })
        .collect())
}

/// Expands `x0:3` to `x0, x1, x2`; other words stay as they are.
fn expand(word: &str) -> PyResult<Vec<String>> {
    let Some((head, end)) = word.split_once(':') else { return Ok(vec![word.to_string()]) };
    let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, start) = head.split_at(head.len() - digits);
    let bad =
        || PyValueError::new_err(format!("'{}': a range is written like x0:3 (x0, x1, x2)", Shown(word)));
    let start: usize = if start.is_empty() { 0 } else { start.parse().map_err(|_| bad())? };
    let end: usize = end.parse().map_err(|_| bad())?;
    if stem.is_empty() || end < start {
        return Err(bad());
    }
    check_count(end - start)?;
    Ok((start..end).map(|k| format!("{stem}{k}")).collect())
}

/// Symbols one call creates at most: a range or vector past it is
/// surely a slip, which would otherwise run the machine out of memory.
const MAX_SYMBOLS: usize = 10_000_000;

/// An error unless `n` symbols are at most [`MAX_SYMBOLS`].
fn check_count(n: usize) -> PyResult<()> {
    if n > MAX_SYMBOLS {
        return Err(PyValueError::new_err(format!(
            "{n} symbols at once; at most {MAX_SYMBOLS} (call again for more)"
        )));
    }
    Ok(())
}

/// Creates symbols from names separated by spaces or commas, with ranges
/// ``x0:3`` for ``x0, x1, x2``: one name gives one ``Expr``, anything else a
/// tuple. Each call creates new symbols, even for a name used before.
///
/// >>> x, y = dstar.symbols("x y")
/// >>> dstar.symbols("q0:3")
/// (Expr(q0), Expr(q1), Expr(q2))
#[pyfunction]
pub fn symbols(py: Python<'_>, names: &str) -> PyResult<Py<PyAny>> {
    let words: Vec<&str> =
        names.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        return Err(PyValueError::new_err("symbols needs at least one name"));
    }
    let mut all = vec![];
    for w in &words {
        all.extend(expand(w)?);
        check_count(all.len())?;
    }
    let exprs = new_symbols(&all)?;
    if words.len() == 1 && !words[0].contains(':') {
        return Ok(Py::new(py, exprs[0])?.into_any());
    }
    Ok(PyTuple::new(py, exprs)?.into_any().unbind())
}

/// ``n`` new symbols named ``name_0 ... name_{n-1}``, as a list.
///
/// >>> x = dstar.vector("x", 3)
/// >>> str(x[0] + x[2])
/// 'x_0 + x_2'
#[pyfunction]
pub fn vector<'py>(py: Python<'py>, name: &str, n: usize) -> PyResult<Bound<'py, PyList>> {
    check_count(n)?;
    let names: Vec<String> = (0..n).map(|k| format!("{name}_{k}")).collect();
    PyList::new(py, new_symbols(&names)?)
}

/// Applies the function `name` of the op table to `args` (expressions or
/// numbers); the Python module defines ``dstar.sin`` etc. over this.
#[pyfunction]
#[pyo3(signature = (name, *args))]
pub fn apply_function(name: &str, args: &Bound<'_, PyTuple>) -> PyResult<Expr> {
    let op = Op::from_function_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown function '{}'", Shown(name))))?;
    if args.len() != op.arity() {
        return Err(PyTypeError::new_err(format!(
            "{name}() takes {} argument{}, got {}",
            op.arity(),
            if op.arity() == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let ids = args
        .iter()
        .map(|a| required(&a, &format!("the argument of {name}()")))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(apply(op, &ids))
}

/// ``p`` where the condition holds, else ``q`` (derivatives through the
/// branch taken).
///
/// >>> x, y = dstar.symbols("x y")
/// >>> str(dstar.ifelse(x < y, x, y * 2))
/// 'ifelse(x < y, x, 2 * y)'
#[pyfunction]
pub fn ifelse(condition: &Bound<'_, PyAny>, p: &Bound<'_, PyAny>, q: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let c = condition.cast::<Condition>().map_err(|_| {
        PyTypeError::new_err("the condition of ifelse must be a comparison of expressions, like x < y")
    })?;
    let c = c.get();
    let (p, q) = (required(p, "the first branch of ifelse")?, required(q, "the second branch of ifelse")?);
    Ok(apply(Op::Select(c.cmp), &[c.a, c.b, p, q]))
}

/// A program from builder expressions: `inputs` symbols, `outputs`
/// expressions or numbers, copied out of the shared DAG.
pub(crate) fn program(
    inputs: &[Bound<'_, PyAny>],
    outputs: &[Bound<'_, PyAny>],
    output_names: Option<Vec<String>>,
) -> PyResult<Program> {
    let input_ids = inputs
        .iter()
        .map(|i| {
            i.cast::<Expr>().map(|e| e.get().id).map_err(|_| PyTypeError::new_err("inputs must be symbols"))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let output_ids = outputs.iter().map(|o| required(o, "an output")).collect::<PyResult<Vec<_>>>()?;
    if outputs.is_empty() {
        return Err(PyValueError::new_err("a Function needs at least one output"));
    }
    let names = match output_names {
        Some(names) if names.len() == outputs.len() => names,
        Some(names) => {
            return Err(PyValueError::new_err(format!(
                "{} output names for {} outputs",
                names.len(),
                outputs.len()
            )))
        }
        None => (1..=outputs.len()).map(|k| format!("out{k}")).collect(),
    };
    let g = graph();
    let mut local_of = vec![None; g.names.len()];
    let mut input_names = vec![];
    let mut seen_names = std::collections::HashSet::<String>::new();
    for (j, id) in input_ids.iter().enumerate() {
        let Op::Input(k) = g.dag.op(*id) else {
            return Err(PyValueError::new_err(format!(
                "input {j} of the Function is '{}', not a symbol",
                dstar::print_expr(&g.dag, *id, &g.names)
            )));
        };
        let k = k as usize;
        if local_of[k].is_some() {
            return Err(PyValueError::new_err(format!("symbol '{}' is an input twice", g.names[k])));
        }
        if !seen_names.insert(g.names[k].clone()) {
            return Err(PyValueError::new_err(format!(
                "two different symbols named '{}' are inputs; give them distinct names",
                g.names[k]
            )));
        }
        local_of[k] = Some(j);
        input_names.push(g.names[k].clone());
    }
    let reach = g.dag.reachable(&output_ids);
    for id in g.dag.ids().filter(|id| reach[id.index()]) {
        if let Op::Input(k) = g.dag.op(id) {
            if local_of[k as usize].is_none() {
                return Err(PyValueError::new_err(format!(
                    "the outputs depend on symbol '{}', which is not among the inputs",
                    g.names[k as usize]
                )));
            }
        }
    }
    let mut dag = ExprDag::new();
    let locals: Vec<NodeId> = (0..input_ids.len()).map(|j| dag.input(j)).collect();
    // Symbols that are not inputs are unreachable (checked above): any node will do.
    let map: Vec<NodeId> = local_of
        .iter()
        .map(|l| l.map_or(locals.first().copied().unwrap_or_else(|| dag.constant(0.0)), |j| locals[j]))
        .collect();
    let roots = dag.import(&g.dag, &output_ids, Some(&map));
    drop(g);
    for name in &names {
        if dstar::frontend::reserved(name).is_some() || seen_names.contains(name) {
            return Err(PyValueError::new_err(format!("'{}' cannot name an output", Shown(name))));
        }
    }
    let outputs = names.into_iter().zip(roots).map(|(name, node)| Output { name, node }).collect();
    Ok(Program::new(dag, input_names, outputs))
}

/// Builds a [`Function`] from symbols and expressions.
pub(crate) fn function<'py>(
    inputs: &Bound<'py, PyAny>,
    outputs: &Bound<'py, PyAny>,
    output_names: Option<Vec<String>>,
    options: dstar::Options,
) -> PyResult<Function> {
    let as_list = |v: &Bound<'py, PyAny>| -> PyResult<Vec<Bound<'py, PyAny>>> {
        if v.cast::<Expr>().is_ok() || v.extract::<f64>().is_ok() {
            Ok(vec![v.clone()])
        } else {
            v.try_iter()?.collect()
        }
    };
    let program = program(&as_list(inputs)?, &as_list(outputs)?, output_names)?;
    Ok(Function::new(program, options))
}
