//! The symbolic builder: an expression is a node of one graph
//! ([`crate::graph`]); each call of `dstar.symbols` or `dstar.vector` starts
//! a graph, expressions of two graphs combine in the larger one, and a
//! graph is freed with its last expression. Building is a table lookup per
//! operation under that graph's lock alone, and equal subexpressions of a
//! graph are one node however they were written.

use crate::graph::{Entry, Graph, Nodes, Symbol};
use dstar::frontend::shown::Shown;
use dstar::frontend::{Cmp, FunctionDef, Output};
use dstar::{ExprDag, NodeId, Op, Program};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyList, PyTuple};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A symbolic expression (a node of a graph of expressions).
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
#[derive(Clone)]
pub struct Expr {
    graph: Arc<Graph>,
    node: NodeId,
}

/// A comparison of two expressions, the condition of :func:`dstar.ifelse`.
///
/// It has no truth value, except ``==`` and ``!=``, which are true when the
/// two sides are the same expression (so expressions work as dict keys).
#[pyclass(module = "dstar._dstar", frozen)]
pub struct Condition {
    graph: Arc<Graph>,
    cmp: Cmp,
    a: NodeId,
    b: NodeId,
}

/// An operand as Python gives it: an expression or a number.
enum Operand {
    Expr(Arc<Graph>, NodeId),
    Number(f64),
}

/// The operand `value` is; `None` for anything else (an operator then
/// returns `NotImplemented`).
fn operand(value: &Bound<'_, PyAny>) -> Option<Operand> {
    if let Ok(e) = value.cast::<Expr>() {
        let e = e.get();
        return Some(Operand::Expr(Arc::clone(&e.graph), e.node));
    }
    value.extract::<f64>().ok().map(Operand::Number)
}

fn required(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Operand> {
    operand(value).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{what} must be a dstar expression or a number, not {}",
            value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })
}

/// Runs `build` on the nodes of `operands` in one graph: the largest of
/// theirs (a new one for numbers alone), into which the other operands'
/// cones are imported, numbers becoming constants. Each other graph is
/// locked only while its cone is copied out, so no two locks are ever held.
fn combine<R>(operands: &[Operand], build: impl FnOnce(&mut Nodes, &[NodeId]) -> R) -> (Arc<Graph>, R) {
    let graphs: Vec<&Arc<Graph>> = operands
        .iter()
        .filter_map(|o| match o {
            Operand::Expr(graph, _) => Some(graph),
            Operand::Number(_) => None,
        })
        .collect();
    let target = match graphs.split_first() {
        None => Graph::new(),
        Some((first, rest)) if rest.iter().all(|g| Arc::ptr_eq(g, first)) => Arc::clone(first),
        Some(_) => {
            let sizes: Vec<usize> = graphs.iter().map(|g| g.len()).collect();
            let largest = (0..graphs.len()).max_by_key(|&i| (sizes[i], std::cmp::Reverse(i))).unwrap_or(0);
            Arc::clone(graphs[largest])
        }
    };
    let cones: Vec<_> = operands
        .iter()
        .map(|o| match o {
            Operand::Expr(graph, node) if !Arc::ptr_eq(graph, &target) => Some(graph.lock().export(&[*node])),
            _ => None,
        })
        .collect();
    let result = {
        let mut nodes = target.lock();
        let ids: Vec<NodeId> = operands
            .iter()
            .zip(&cones)
            .map(|(o, cone)| match (o, cone) {
                (_, Some(cone)) => nodes.import(cone)[0],
                (Operand::Expr(_, node), None) => *node,
                (Operand::Number(c), None) => nodes.dag.constant(*c),
            })
            .collect();
        build(&mut nodes, &ids)
    };
    (target, result)
}

/// `op` applied to `operands`.
fn apply(op: Op, operands: &[Operand]) -> Expr {
    let (graph, node) = combine(operands, |nodes, ids| nodes.dag.apply(op, ids));
    Expr { graph, node }
}

impl Expr {
    fn operand(&self) -> Operand {
        Operand::Expr(Arc::clone(&self.graph), self.node)
    }

    fn binary(
        &self,
        py: Python<'_>,
        op: Op,
        other: &Bound<'_, PyAny>,
        reflected: bool,
    ) -> PyResult<Py<PyAny>> {
        let Some(other) = operand(other) else { return Ok(py.NotImplemented()) };
        let operands = if reflected { [other, self.operand()] } else { [self.operand(), other] };
        Ok(Py::new(py, apply(op, &operands))?.into_any())
    }
}

#[guard::guarded]
#[pymethods]
impl Expr {
    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Add, other, false)
    }
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Add, other, true)
    }
    fn __sub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Sub, other, false)
    }
    fn __rsub__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Sub, other, true)
    }
    fn __mul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Mul, other, false)
    }
    fn __rmul__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Mul, other, true)
    }
    fn __truediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Div, other, false)
    }
    fn __rtruediv__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.binary(py, Op::Div, other, true)
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
        self.binary(py, Op::Pow, other, false)
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
        self.binary(py, Op::Pow, other, true)
    }
    fn __neg__(&self) -> Expr {
        apply(Op::Neg, &[self.operand()])
    }
    fn __pos__(&self) -> Expr {
        self.clone()
    }

    fn __richcmp__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let Some(other) = operand(other) else { return Ok(py.NotImplemented()) };
        let cmp = match op {
            CompareOp::Lt => Cmp::Lt,
            CompareOp::Le => Cmp::Le,
            CompareOp::Gt => Cmp::Gt,
            CompareOp::Ge => Cmp::Ge,
            CompareOp::Eq => Cmp::Eq,
            CompareOp::Ne => Cmp::Ne,
        };
        let (graph, (a, b)) = combine(&[self.operand(), other], |_, ids| (ids[0], ids[1]));
        Ok(Py::new(py, Condition { graph, cmp, a, b })?.into_any())
    }

    /// The same for equal expressions of any graph ([`Nodes::hash`]).
    fn __hash__(&self) -> u64 {
        self.graph.lock().hash(self.node)
    }

    /// NumPy defers to the operators above (``np.float64(2) * x`` is an
    /// expression, not an object array).
    #[classattr]
    fn __array_ufunc__() -> Option<i32> {
        None
    }

    fn __str__(&self) -> String {
        let nodes = self.graph.lock();
        dstar::print_expr(&nodes.dag, self.node, &nodes.names())
    }

    fn __repr__(&self) -> PyResult<String> {
        let text = self.__str__()?;
        Ok(if text.len() > 200 {
            format!("Expr({}...)", &text[..text.char_indices().nth(200).map_or(text.len(), |(i, _)| i)])
        } else {
            format!("Expr({text})")
        })
    }

    /// Whether this expression is a symbol (an input or parameter of a
    /// ``Function``).
    #[getter]
    fn is_symbol(&self) -> bool {
        self.graph.lock().symbol_of(self.node).is_some()
    }

    /// The value of a constant expression, ``None`` otherwise.
    #[getter]
    fn value(&self) -> Option<f64> {
        self.graph.lock().dag.as_const(self.node)
    }

    /// Number of operations this expression needs, each shared
    /// subexpression once.
    #[getter]
    fn ops(&self) -> usize {
        let nodes = self.graph.lock();
        nodes.cone(&[self.node]).into_iter().filter(|&id| !nodes.dag.op(id).is_leaf()).count()
    }
}

#[guard::guarded]
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
        let nodes = self.graph.lock();
        let names = nodes.names();
        let a = dstar::print_expr(&nodes.dag, self.a, &names);
        let b = dstar::print_expr(&nodes.dag, self.b, &names);
        format!("{a} {} {b}", self.cmp.symbol())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("Condition({})", self.__str__()?))
    }
}

/// New symbols named `names`, in a new graph.
fn new_symbols(names: &[String]) -> PyResult<Vec<Expr>> {
    for name in names {
        crate::calls::check_name(name, "a symbol").map_err(PyValueError::new_err)?;
    }
    let graph = Graph::new();
    let mut nodes = graph.lock();
    Ok(names
        .iter()
        .map(|name| Expr { graph: Arc::clone(&graph), node: nodes.symbol(&Symbol::new(name.clone())) })
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
/// tuple. Each call creates new symbols, even for a name used before, in a
/// graph of their own: expressions of different calls combine freely, and
/// threads building from different symbols do not wait for each other.
///
/// >>> x, y = dstar.symbols("x y")
/// >>> dstar.symbols("q0:3")
/// (Expr(q0), Expr(q1), Expr(q2))
#[guard::guarded]
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
        return Ok(Py::new(py, exprs[0].clone())?.into_any());
    }
    Ok(PyTuple::new(py, exprs)?.into_any().unbind())
}

/// ``n`` new symbols named ``name_0 ... name_{n-1}``, as a list.
///
/// >>> x = dstar.vector("x", 3)
/// >>> str(x[0] + x[2])
/// 'x_0 + x_2'
#[guard::guarded]
#[pyfunction]
pub fn vector<'py>(py: Python<'py>, name: &str, n: usize) -> PyResult<Bound<'py, PyList>> {
    check_count(n)?;
    let names: Vec<String> = (0..n).map(|k| format!("{name}_{k}")).collect();
    PyList::new(py, new_symbols(&names)?)
}

/// Applies the function `name` of the op table to `args` (expressions or
/// numbers); the Python module defines ``dstar.sin`` etc. over this.
#[guard::guarded]
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
    let operands = args
        .iter()
        .map(|a| required(&a, &format!("the argument of {name}()")))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(apply(op, &operands))
}

/// ``p`` where the condition holds, else ``q`` (derivatives through the
/// branch taken).
///
/// >>> x, y = dstar.symbols("x y")
/// >>> str(dstar.ifelse(x < y, x, y * 2))
/// 'ifelse(x < y, x, 2 * y)'
#[guard::guarded]
#[pyfunction]
pub fn ifelse(condition: &Bound<'_, PyAny>, p: &Bound<'_, PyAny>, q: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let c = condition.cast::<Condition>().map_err(|_| {
        PyTypeError::new_err("the condition of ifelse must be a comparison of expressions, like x < y")
    })?;
    let c = c.get();
    let (p, q) = (required(p, "the first branch of ifelse")?, required(q, "the second branch of ifelse")?);
    let (a, b) = (Operand::Expr(Arc::clone(&c.graph), c.a), Operand::Expr(Arc::clone(&c.graph), c.b));
    Ok(apply(Op::Select(c.cmp), &[a, b, p, q]))
}

/// One expression or number, or an iterable of them, as a list.
fn as_list<'py>(value: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if value.cast::<Expr>().is_ok() || value.extract::<f64>().is_ok() {
        Ok(vec![value.clone()])
    } else {
        value.try_iter()?.collect()
    }
}

/// The expressions of `values`, which must all be expressions (`what`
/// names them in the error).
fn exprs(values: &[Bound<'_, PyAny>], what: &str) -> PyResult<Vec<Expr>> {
    values
        .iter()
        .map(|v| {
            v.cast::<Expr>()
                .map(|e| e.get().clone())
                .map_err(|_| PyTypeError::new_err(format!("{what} must be symbols")))
        })
        .collect()
}

/// Builds the program of a `dstar.Function` from builder expressions:
/// `inputs` and `params` symbols, `outputs` expressions or numbers (one, or
/// an iterable). The copy into the program's own DAG runs with the GIL
/// released.
pub(crate) fn program_of<'py>(
    py: Python<'py>,
    inputs: &Bound<'py, PyAny>,
    outputs: &Bound<'py, PyAny>,
    output_names: Option<Vec<String>>,
    params: Option<&Bound<'py, PyAny>>,
) -> PyResult<Program> {
    let inputs = exprs(&as_list(inputs)?, "inputs")?;
    let params = match params {
        Some(params) => exprs(&as_list(params)?, "params")?,
        None => Vec::new(),
    };
    let outputs = as_list(outputs)?.iter().map(|o| required(o, "an output")).collect::<PyResult<Vec<_>>>()?;
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
    py.detach(|| program(&inputs, &params, &outputs, &names)).map_err(PyValueError::new_err)
}

/// The symbols of `inputs` and `params`, checked: each a symbol, none
/// twice, no two of one name.
fn roles(inputs: &[Expr], params: &[Expr]) -> Result<(Vec<Symbol>, Vec<Symbol>), String> {
    let mut roles: HashMap<u64, &str> = HashMap::new();
    let mut names = HashSet::new();
    let mut symbols = [Vec::new(), Vec::new()];
    for (list, (role, exprs)) in symbols.iter_mut().zip([("input", inputs), ("parameter", params)]) {
        for (j, e) in exprs.iter().enumerate() {
            let nodes = e.graph.lock();
            let Some(symbol) = nodes.symbol_of(e.node).cloned() else {
                let text = dstar::print_expr(&nodes.dag, e.node, &nodes.names());
                return Err(format!("{role} {j} of the Function is '{}', not a symbol", Shown(&text)));
            };
            drop(nodes);
            match roles.insert(symbol.id, role) {
                Some(first) if first == role => {
                    let article = if role == "input" { "an" } else { "a" };
                    return Err(format!("symbol '{}' is given twice as {article} {role}", symbol.name));
                }
                Some(_) => return Err(format!("symbol '{}' is both an input and a parameter", symbol.name)),
                None => {}
            }
            if !names.insert(symbol.name.clone()) {
                return Err(format!(
                    "two different symbols named '{}' are inputs or parameters; give them distinct names",
                    symbol.name
                ));
            }
            list.push(symbol);
        }
    }
    let [inputs, params] = symbols;
    Ok((inputs, params))
}

/// The program computing `outputs` (named `names`) from the symbols
/// `inputs` then `params`: each graph's cone of the outputs is copied out
/// under that graph's lock and rebuilt in the program's DAG, inputs
/// numbered in order, then the parameters, and each call a call of the same
/// function; the functions called are the program's
/// ([`dstar::frontend::named_apart::with_functions`]).
fn program(
    inputs: &[Expr],
    params: &[Expr],
    outputs: &[Operand],
    names: &[String],
) -> Result<Program, String> {
    let (inputs, params) = roles(inputs, params)?;
    check_names(&inputs, &params, names)?;
    let mut dag = ExprDag::new();
    let mut leaves = HashMap::new();
    for (k, symbol) in inputs.iter().chain(&params).enumerate() {
        leaves.insert(symbol.id, dag.input(k));
    }
    // The outputs of each graph (their positions and nodes), in order of first appearance.
    let mut groups: Vec<(&Arc<Graph>, Vec<usize>, Vec<NodeId>)> = Vec::new();
    let mut group_of = HashMap::new();
    let mut roots = vec![None; outputs.len()];
    for (i, output) in outputs.iter().enumerate() {
        match output {
            Operand::Number(c) => roots[i] = Some(dag.constant(*c)),
            Operand::Expr(graph, node) => {
                let g = *group_of.entry(Arc::as_ptr(graph)).or_insert_with(|| {
                    groups.push((graph, Vec::new(), Vec::new()));
                    groups.len() - 1
                });
                groups[g].1.push(i);
                groups[g].2.push(*node);
            }
        }
    }
    for (graph, members, nodes) in groups {
        let cone = graph.lock().export(&nodes);
        let mut here: Vec<NodeId> = Vec::with_capacity(cone.entries.len());
        for entry in &cone.entries {
            let built = match entry {
                Entry::Symbol(symbol) => *leaves.get(&symbol.id).ok_or_else(|| {
                    format!(
                        "the outputs depend on symbol '{}', which is neither an input nor a parameter",
                        symbol.name
                    )
                })?,
                Entry::Call { function, args, out } => {
                    let args: Vec<NodeId> = args.iter().map(|&a| here[a]).collect();
                    dag.call(function, &args)[*out]
                }
                Entry::Node(node) => {
                    let args: Vec<NodeId> = node.args().iter().map(|a| here[a.index()]).collect();
                    dag.apply(node.op, &args)
                }
            };
            here.push(built);
        }
        for (&i, &root) in members.iter().zip(&cone.roots) {
            roots[i] = Some(here[root]);
        }
    }
    let outputs: Vec<Output> = names
        .iter()
        .zip(roots)
        .map(|(name, node)| Output { name: name.clone(), node: node.expect("every output is built") })
        .collect();
    let leaves = |symbols: &[Symbol]| symbols.iter().map(|s| s.name.clone()).collect();
    let program = Program::new(dag, leaves(&inputs), outputs).with_params(leaves(&params), None);
    Ok(dstar::frontend::named_apart::with_functions(program))
}

/// An error unless the output `names` are names, none reserved, none
/// twice nor an input's or parameter's, and there is an input (as
/// [`dstar::frontend::Builder::finish`] checks).
fn check_names(inputs: &[Symbol], params: &[Symbol], names: &[String]) -> Result<(), String> {
    if inputs.is_empty() {
        return Err("the program has no inputs".into());
    }
    let mut seen: HashSet<&str> = inputs.iter().chain(params).map(|s| s.name.as_str()).collect();
    for name in names {
        crate::calls::check_name(name, "an output")?;
        if !seen.insert(name) {
            return Err(format!("'{name}' names two things"));
        }
    }
    Ok(())
}

/// Whether a call of a Function on `args` (and `p`, an expression or a
/// list or tuple) is symbolic: some argument is an expression.
pub(crate) fn has_expr(args: &Bound<'_, PyTuple>, p: Option<&Bound<'_, PyAny>>) -> bool {
    let is_expr = |v: &Bound<'_, PyAny>| v.cast::<Expr>().is_ok();
    let in_p = p.is_some_and(|p| {
        is_expr(p)
            || p.cast::<PyList>().is_ok_and(|l| l.iter().any(|v| is_expr(&v)))
            || p.cast::<PyTuple>().is_ok_and(|t| t.iter().any(|v| is_expr(&v)))
    });
    in_p || args.iter().any(|a| is_expr(&a))
}

/// The call of `function` on `args` (expressions or numbers; its inputs,
/// then its parameters, or the parameters as `p`, else the `defaults`),
/// recorded as one call site of the arguments' graph: an expression per
/// result, a tuple of them for several.
pub(crate) fn call(
    py: Python<'_>,
    function: &Arc<FunctionDef>,
    n: usize,
    args: &Bound<'_, PyTuple>,
    p: Option<&Bound<'_, PyAny>>,
    defaults: Option<&[f64]>,
) -> PyResult<Py<PyAny>> {
    let name = function.name();
    let q = function.args().len() - n;
    let mut values: Vec<Bound<'_, PyAny>> = args.iter().collect();
    match p {
        Some(_) if q == 0 => {
            return Err(PyValueError::new_err(format!("{name}() has no parameters; p= is not for it")))
        }
        Some(_) if values.len() == n + q => {
            return Err(PyTypeError::new_err(format!(
                "{name}() got its parameters twice: after the inputs and as p="
            )))
        }
        Some(p) if values.len() == n => {
            let p = as_list(p)?;
            if p.len() != q {
                return Err(PyValueError::new_err(format!(
                    "{name}() has {q} parameter{} ({}); p= gave {}",
                    if q == 1 { "" } else { "s" },
                    function.args()[n..].join(", "),
                    p.len()
                )));
            }
            values.extend(p);
        }
        None if values.len() == n && q > 0 => {
            if let Some(defaults) = defaults {
                values.extend(defaults.iter().map(|&v| PyFloat::new(py, v).into_any()));
            }
        }
        _ => {}
    }
    if values.len() != n + q {
        let params = if q == 0 {
            String::new()
        } else {
            format!(
                " then its {q} parameter{} ({}; or as p=[...])",
                if q == 1 { "" } else { "s" },
                function.args()[n..].join(", ")
            )
        };
        return Err(PyTypeError::new_err(format!(
            "{name}() takes its {n} input{} ({}){params}, one expression or number each; got {} argument{}",
            if n == 1 { "" } else { "s" },
            function.args()[..n].join(", "),
            values.len(),
            if values.len() == 1 { "" } else { "s" }
        )));
    }
    let operands = values
        .iter()
        .enumerate()
        .map(|(k, v)| required(v, &format!("argument {} ('{}') of {name}()", k + 1, function.args()[k])))
        .collect::<PyResult<Vec<_>>>()?;
    let (graph, results) = combine(&operands, |nodes, ids| nodes.call(function, ids));
    let mut exprs = results.into_iter().map(|node| Expr { graph: Arc::clone(&graph), node });
    if function.results().len() == 1 {
        let e = exprs.next().expect("one result");
        return Ok(Py::new(py, e)?.into_any());
    }
    Ok(PyTuple::new(py, exprs)?.into_any().unbind())
}
