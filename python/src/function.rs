//! `dstar.Function`: a [`dstar::Function`], whose kernels ([`Compiled`])
//! the library compiles on first use and keeps ([`dstar::Function::kernel_until`]),
//! shared by every thread afterwards. Each method reads its arguments and
//! calls one kernel through [`Function::part`], [`Function::sparse`] or
//! [`Function::product`].

use crate::arrays::{companion, csr, pattern_arrays, points, Data, Directions};
use crate::errors::to_py_plain;
use crate::eval::{eval_part, eval_products, Call, Part, Slot};
use dstar::factor::plan::{direction_widths, WIDEST_JVP, WIDEST_SWEEPS};
use dstar::frontend::shown;
use dstar::frontend::FunctionDef;
use dstar::{Args, Batch, Compiled, Options, Program, Request, SparsityPattern};
use numpy::{PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// The weights a method passes: none, or the Lagrangian's (given, or `[1]`
/// for a scalar function).
#[derive(Clone, Copy)]
enum Weights<'a, 'py> {
    None,
    Lagrangian(Option<&'a Bound<'py, PyAny>>),
}

/// A method's arguments read from Python: the points (one, or a batch of
/// `batch`), the parameters and the weights.
struct Inputs<'py> {
    xs: Data<'py>,
    batch: Option<usize>,
    ps: Data<'py>,
    ws: Option<Data<'py>>,
}

impl Inputs<'_> {
    /// The call of a kernel on them.
    fn call(&self) -> Call<'_> {
        let blocks = Batch::x(self.xs.as_slice()).p(self.ps.as_slice());
        let blocks = match &self.ws {
            Some(ws) => blocks.w(ws.as_slice()),
            None => blocks,
        };
        Call { points: self.batch, blocks }
    }
}

/// A compiled function of ``n_in`` inputs and ``n_out`` outputs, with
/// ``n_param`` parameters, and its derivative kernels.
///
/// Build one with :func:`dstar.compile` (text) or ``dstar.Function(inputs,
/// outputs, params=...)`` (the symbolic builder). Every kernel method takes
/// one point of shape ``(n_in,)`` or a batch ``(B, n_in)`` and returns the
/// result for each point, stacked; a batch runs on all cores with the GIL
/// released. Parameters are data, never differentiated (no Jacobian
/// column): every method takes them as ``p=``, shape ``(n_param,)`` or
/// ``(B, n_param)`` with a batch, by default the file's ``# @params``
/// values; a new ``p`` compiles nothing. Kernels are compiled on first use
/// (``f.jacobian`` compiles the Jacobian kernel once) and may be called
/// from many threads at once.
///
/// >>> import dstar, numpy as np
/// >>> f = dstar.compile("in x, y\nout f = x*y\nout g = sin(x)")
/// >>> f.jacobian(np.array([2.0, 3.0]))
/// array([[ 3.        ,  2.        ],
///        [-0.41614684,  0.        ]])
/// >>> g = dstar.compile("param a\nin x\nout a * x^2\n# @params 3")
/// >>> g([2.0]), g([2.0], p=[10.0]), g.jacobian([2.0], p=[10.0])
/// (array([12.]), array([40.]), array([[40.]]))
#[pyclass(module = "dstar._dstar", frozen)]
pub struct Function {
    function: dstar::Function,
    /// The name its calls print ([`Function::definition`]).
    pub(crate) name: String,
    source: OnceLock<String>,
    /// The function as a [`FunctionDef`], built on the first symbolic call.
    definition: OnceLock<Arc<FunctionDef>>,
}

impl Function {
    /// A function named `name` for `program`, nothing compiled yet.
    pub(crate) fn new(program: Program, options: Options, name: &str) -> PyResult<Function> {
        crate::calls::check_name(name, "a Function").map_err(PyValueError::new_err)?;
        Ok(Function {
            function: dstar::Function::new(program, options),
            name: name.to_string(),
            source: OnceLock::new(),
            definition: OnceLock::new(),
        })
    }

    /// The function as its calls call it: built once, so that every call
    /// of this object is a site of the same function.
    fn definition(&self) -> &Arc<FunctionDef> {
        self.definition.get_or_init(|| crate::calls::definition(&self.name, self.program()))
    }

    fn program(&self) -> &Program {
        self.function.program()
    }

    /// Number of outputs: results of a call.
    pub(crate) fn num_outputs(&self) -> usize {
        self.m()
    }

    /// The call of this function on expressions `args` (its inputs, then
    /// its parameters, or the parameters as `p`): an expression per result,
    /// a tuple of them for several.
    pub(crate) fn call_on<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let defaults = self.program().param_values.as_deref();
        Ok(crate::expr::call(py, self.definition(), self.n(), args, p, defaults)?.into_bound(py))
    }

    fn n(&self) -> usize {
        self.program().inputs.len()
    }

    fn m(&self) -> usize {
        self.program().outputs.len()
    }

    /// The kernel of `request`, compiled if this is the first call: with
    /// the GIL released, and stopped by Ctrl-C
    /// ([`interruptible`](crate::interrupt::interruptible)).
    fn kernel(&self, py: Python<'_>, request: Request) -> PyResult<Arc<Compiled>> {
        if let Some(kernel) = self.function.cached_kernel(request) {
            return Ok(kernel);
        }
        crate::interrupt::interruptible(py, |stop| self.function.kernel_until(request, stop))?
            .map_err(|e| to_py_plain(py, e))
    }

    /// The kernels covering `k` directions of the product `request(width)`,
    /// none wider than `widest`: `(kernel, first direction, width)`.
    fn runs(
        &self,
        py: Python<'_>,
        k: usize,
        widest: usize,
        request: fn(usize) -> Request,
    ) -> PyResult<Vec<(Arc<Compiled>, usize, usize)>> {
        let mut first = 0;
        direction_widths(k, widest)
            .into_iter()
            .map(|width| {
                first += width;
                Ok((self.kernel(py, request(width))?, first - width, width))
            })
            .collect()
    }

    /// The points `x`, the parameters `p` and the weights `w`.
    fn inputs<'py>(
        &self,
        x: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
        w: Weights<'_, 'py>,
    ) -> PyResult<Inputs<'py>> {
        let (xs, batch) = points(x, self.n(), "x")?;
        self.inputs_at(xs, batch, p, w)
    }

    /// [`inputs`](Self::inputs) of points read already.
    fn inputs_at<'py>(
        &self,
        xs: Data<'py>,
        batch: Option<usize>,
        p: Option<&Bound<'py, PyAny>>,
        w: Weights<'_, 'py>,
    ) -> PyResult<Inputs<'py>> {
        let ps = self.params(p, batch)?;
        let ws = match w {
            Weights::None => None,
            Weights::Lagrangian(w) => Some(self.weights(w, batch)?),
        };
        Ok(Inputs { xs, batch, ps, ws })
    }

    /// `part` of the output of `request`'s kernel at the points `x` (with
    /// the parameters `p` and the weights `w`): an array of the part's
    /// shape, `(B, ...)` for a batch.
    fn part<'py>(
        &self,
        py: Python<'py>,
        request: Request,
        part: Part,
        x: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
        w: Weights<'_, 'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inputs = self.inputs(x, p, w)?;
        let kernel = self.kernel(py, request)?;
        Ok(eval_part(py, &kernel, inputs.call(), part)?.into_any())
    }

    /// The sparse block `b` of `request`'s output (a Jacobian, or a
    /// Hessian's lower triangle, or with `symmetric` the whole Hessian) as
    /// a `csr_array` per point.
    #[allow(clippy::too_many_arguments)]
    fn sparse<'py>(
        &self,
        py: Python<'py>,
        request: Request,
        b: usize,
        x: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
        w: Weights<'_, 'py>,
        symmetric: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inputs = self.inputs(x, p, w)?;
        let kernel = self.kernel(py, request)?;
        let values = eval_part(py, &kernel, inputs.call(), Part::Block(b))?;
        let pattern = kernel.pattern().expect("a Jacobian or Hessian has a pattern");
        let shape = (if request == Request::Hessian { self.n() } else { self.m() }, self.n());
        if !symmetric {
            return sparse_result(py, values, inputs.batch, pattern, shape);
        }
        let (full, mirror) = pattern.symmetric();
        let mirror = numpy::PyArray1::from_vec(py, mirror.into_iter().map(|k| k as i64).collect());
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("axis", -1)?;
        let values = values.call_method("take", (mirror,), Some(&kwargs))?.cast_into()?;
        sparse_result(py, values, inputs.batch, &full, shape)
    }

    /// The product `request(k)` (`J·v`, `wᵀJ` or `H·v`) at the points `x`
    /// for the directions (or weight vectors) `dirs`, `k` of them per point,
    /// by kernels of the widths [`direction_widths`] chooses.
    fn product<'py>(
        &self,
        py: Python<'py>,
        request: fn(usize) -> Request,
        x: &Bound<'py, PyAny>,
        dirs: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
        w: Weights<'_, 'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (len, name, what, slot, widest, row_len) = match request(1) {
            Request::Jvp(_) => (n, "v", "directions in input space", Slot::V, WIDEST_JVP, m),
            Request::Vjp(_) => (m, "w", "weights, one per output", Slot::W, WIDEST_SWEEPS, n),
            _ => (n, "v", "directions in input space", Slot::V, WIDEST_SWEEPS, n),
        };
        let (xs, batch) = points(x, n, "x")?;
        let (ds, layout) = Directions::read(dirs, len, batch, name, what)?;
        let inputs = self.inputs_at(xs, batch, p, w)?;
        let runs = self.runs(py, layout.k, widest, request)?;
        Ok(eval_products(py, &runs, inputs.call(), slot, (ds.as_slice(), layout), row_len)?.into_any())
    }

    /// A pattern as CSR `(indptr, indices)` (int64 arrays).
    fn pattern<'py>(&self, py: Python<'py>, request: Request) -> PyResult<Bound<'py, PyTuple>> {
        let kernel = self.kernel(py, request)?;
        let (indptr, indices) =
            pattern_arrays(py, kernel.pattern().expect("a Jacobian or Hessian has a pattern"));
        PyTuple::new(py, [indptr.into_any(), indices.into_any()])
    }

    /// The parameters: `p` as given (a row, or a row per point of a
    /// batch), else the file's `# @params` values.
    fn params<'py>(&self, p: Option<&Bound<'py, PyAny>>, batch: Option<usize>) -> PyResult<Data<'py>> {
        let program = self.program();
        let q = program.params.len();
        let names = || shown::list(&program.params);
        match (p, &program.param_values) {
            (Some(p), _) if q > 0 => {
                companion(p, q, batch, "p", &format!("one value per parameter: {}", names()))
            }
            (Some(p), _) => companion(p, 0, batch, "p", "this function has no parameters"),
            (None, Some(values)) => Ok(Data::Owned(values.clone())),
            (None, None) if q == 0 => Ok(Data::Owned(Vec::new())),
            (None, None) => Err(PyValueError::new_err(format!(
                "this function has {q} parameter{} ({}) and no default values ('# @params'): \
                 pass p=[...], shape ({q},) or (B, {q}) for a batch",
                if q == 1 { "" } else { "s" },
                names()
            ))),
        }
    }

    /// The weights of the Lagrangian: given, or `[1]` for a scalar function.
    fn weights<'py>(&self, weights: Option<&Bound<'py, PyAny>>, batch: Option<usize>) -> PyResult<Data<'py>> {
        let m = self.m();
        match weights {
            Some(w) => companion(w, m, batch, "weights", "one weight per output"),
            None if m == 1 => Ok(Data::Owned(vec![1.0])),
            None => Err(PyValueError::new_err(format!(
                "this function has {m} outputs: pass weights=w (shape ({m},)) for the Hessian of the \
                 Lagrangian sum_i w[i] * f_i, e.g. weights=numpy.eye({m})[i] for output i alone"
            ))),
        }
    }
}

/// One sparse matrix per point: a `csr_array`, or a list of them for a batch.
fn sparse_result<'py>(
    py: Python<'py>,
    values: Bound<'py, PyArrayDyn<f64>>,
    batch: Option<usize>,
    pattern: &SparsityPattern,
    shape: (usize, usize),
) -> PyResult<Bound<'py, PyAny>> {
    let nnz = pattern.nnz();
    match batch {
        None => csr(py, values.into_any(), pattern, shape),
        Some(b) => {
            let list = PyList::empty(py);
            let rows = values.reshape(vec![b, nnz])?;
            for i in 0..b {
                list.append(csr(py, rows.get_item(i)?, pattern, shape)?)?;
            }
            Ok(list.into_any())
        }
    }
}

#[guard::guarded]
#[pymethods]
impl Function {
    /// ``Function(inputs, outputs, output_names=None, params=None,
    /// simplify=True, self_check=True, name="f", hessian_columns=True)``: the function from the
    /// symbols ``inputs`` (in that order) to the expressions ``outputs`` (an
    /// expression, a number or a list of them); the symbols ``params`` are
    /// its parameters, numbered after the inputs. ``name`` is what its
    /// calls print as (see :meth:`__call__`). See :func:`dstar.compile` for
    /// the options.
    ///
    /// >>> x, y, a = dstar.symbols("x y a")
    /// >>> f = dstar.Function([x, y], [a * x * y], params=[a])
    /// >>> f.jacobian([2.0, 3.0], p=[10.0])
    /// array([[30., 20.]])
    #[new]
    #[pyo3(signature = (inputs, outputs, output_names = None, params = None, simplify = true, self_check = true, name = "f", hessian_columns = true))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        inputs: &Bound<'_, PyAny>,
        outputs: &Bound<'_, PyAny>,
        output_names: Option<Vec<String>>,
        params: Option<&Bound<'_, PyAny>>,
        simplify: bool,
        self_check: bool,
        name: &str,
        hessian_columns: bool,
    ) -> PyResult<Function> {
        let options = Options { simplify, self_check, hessian_columns, ..Default::default() };
        Function::new(crate::expr::program_of(py, inputs, outputs, output_names, params)?, options, name)
    }

    /// The name its calls print as.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Number of inputs ``n``.
    #[getter]
    fn n_in(&self) -> usize {
        self.n()
    }

    /// Number of outputs ``m``.
    #[getter]
    fn n_out(&self) -> usize {
        self.m()
    }

    /// Number of parameters.
    #[getter]
    fn n_param(&self) -> usize {
        self.program().params.len()
    }

    /// The input names, in order.
    #[getter]
    fn input_names(&self) -> Vec<String> {
        self.program().inputs.clone()
    }

    /// The parameter names, in order.
    #[getter]
    fn param_names(&self) -> Vec<String> {
        self.program().params.clone()
    }

    /// The parameters' default values, from the file's ``# @params`` line,
    /// in the order of :attr:`param_names`; ``None`` without one. A call
    /// without ``p`` (numbers or expressions) takes them.
    ///
    /// >>> dstar.compile("param g\nin h\nout t = sqrt(2*h/g)\n# @params 9.81").param_values
    /// [9.81]
    #[getter]
    fn param_values(&self) -> Option<Vec<f64>> {
        self.program().param_values.clone()
    }

    /// The output names, in order.
    #[getter]
    fn output_names(&self) -> Vec<String> {
        self.program().output_names()
    }

    /// Whether Jacobians are simplified (common subchains) after accumulation.
    #[getter]
    fn simplify(&self) -> bool {
        self.function.options().simplify
    }

    /// Whether each kernel checks itself against the interpreter when compiled.
    #[getter]
    fn self_check(&self) -> bool {
        self.function.options().self_check
    }

    /// Whether a large, dense Lagrangian Hessian is built by columns of H·V
    /// products (see :func:`dstar.compile`).
    #[getter]
    fn hessian_columns(&self) -> bool {
        self.function.options().hessian_columns
    }

    /// The function as problem-format text (shared subexpressions bound to
    /// names, so the text is linear in the DAG's size; parameters and
    /// their default values included).
    ///
    /// >>> print(dstar.compile("sin(x*y) + x*y").source(), end="")
    /// in x, y
    /// t1 = x * y
    /// out f = t1 + sin(t1)
    fn source(&self) -> String {
        self.source.get_or_init(|| dstar::print_program(self.program())).clone()
    }

    /// Number of operations of the function (each ``+ - * /``, negation and
    /// call once, shared subexpressions once).
    #[getter]
    fn ops(&self) -> usize {
        self.program().count_ops()
    }

    /// Number of call sites of other Functions (or of the file's
    /// functions) in the main program: a call is one site however large
    /// the body, each distinct call once.
    #[getter]
    fn calls(&self) -> usize {
        self.program().count_calls()
    }

    /// The functions the program defines (its own calls, theirs, ...) by
    /// name, callees first.
    #[getter]
    fn function_names(&self) -> Vec<String> {
        self.program().functions.iter().map(|f| f.name().to_string()).collect()
    }

    /// The values at ``x``: shape ``(n_out,)``, or ``(B, n_out)`` for a
    /// batch ``x`` of shape ``(B, n_in)``; ``f(a, b, ...)`` with a number
    /// per input is ``f([a, b, ...])``.
    ///
    /// Called on expressions, ``f(a, b, ...)`` (an expression or a number
    /// per input, then one per parameter, or the parameters as ``p=``)
    /// records a call: an :class:`Expr` for one output, a tuple of them for
    /// several. The function is differentiated and compiled once however
    /// many calls a model makes, and a ``Function`` built over them keeps
    /// them as calls (see :attr:`calls`, :meth:`source`). Parameters are
    /// arguments of a call (data in the caller: its parameters, or
    /// expressions); a call without them takes the ``# @params`` values
    /// (:attr:`param_values`) as numbers, as the command line does.
    ///
    /// >>> x, y = dstar.symbols("x y")
    /// >>> sq = dstar.Function([x], [x * x], name="sq")
    /// >>> a, b = dstar.symbols("a b")
    /// >>> g = dstar.Function([a, b], [sq(a) + sq(a + b)])
    /// >>> g.calls, g([1.0, 2.0])
    /// (2, array([10.]))
    #[pyo3(signature = (*args, p = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if crate::expr::has_expr(args, p) {
            return self.call_on(py, args, p);
        }
        let (n, q) = (self.n(), self.program().params.len());
        let (x, p) = match args.len() {
            1 => (args.get_item(0)?, p.cloned()),
            k if k == n || (k == n + q && p.is_none()) => {
                let x = PyList::new(py, args.iter().take(n))?.into_any();
                let p =
                    if k > n { Some(PyList::new(py, args.iter().skip(n))?.into_any()) } else { p.cloned() };
                (x, p)
            }
            k => {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{}() takes one point x (shape ({n},) or (B, {n})), or one number or expression per input \
                     ({n}{}); got {k} arguments",
                self.name,
                if q > 0 { format!(", then {q} per parameter") } else { String::new() }
            )))
            }
        };
        self.part(py, Request::Values, Part::Block(0), &x, p.as_ref(), Weights::None)
    }

    /// ``n`` calls at once, as CasADi's ``F.map(n)``: a :class:`Map`
    /// whose arguments are each one expression or number (shared by every
    /// call) or a sequence of ``n`` (one per call), and whose results are
    /// lists of ``n`` expressions, or with ``sum=True`` their sums. The
    /// calls are the calls a loop makes (see :attr:`calls`), found as one
    /// map when the model is compiled.
    ///
    /// >>> x, u = dstar.symbols("x u")
    /// >>> step = dstar.Function([x, u], [x + 0.1 * u, x * u], name="step")
    /// >>> xs, us = dstar.vector("x", 100), dstar.vector("u", 100)
    /// >>> nxt, cost = step.map(100)(xs, us)
    /// >>> len(nxt), dstar.Function(xs + us, nxt).calls
    /// (100, 100)
    #[pyo3(signature = (n, *, sum = false))]
    fn map(slf: PyRef<'_, Self>, n: usize, sum: bool) -> crate::map::Map {
        crate::map::Map::new(slf.into(), n, sum)
    }

    /// The Jacobian at ``x`` (columns for the inputs only): dense
    /// ``(n_out, n_in)`` (``(B, n_out, n_in)`` for a batch) or, with
    /// ``sparse=True``, a ``scipy.sparse.csr_array`` with the symbolic
    /// sparsity pattern (a list of them for a batch; see
    /// :meth:`jacobian_nonzeros` for the stacked nonzeros).
    ///
    /// >>> f = dstar.compile("sin(x*y) + x^2")
    /// >>> f.jacobian([1.0, 2.0])
    /// array([[ 1.16770633, -0.41614684]])
    #[pyo3(signature = (x, sparse = false, *, p = None))]
    fn jacobian<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        sparse: bool,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if sparse {
            self.sparse(py, Request::Jacobian, 1, x, p, Weights::None, false)
        } else {
            self.part(py, Request::Jacobian, Part::Dense(1), x, p, Weights::None)
        }
    }

    /// The Jacobian's structural nonzeros at ``x`` in CSR order of
    /// :attr:`jacobian_pattern`: shape ``(nnz,)`` or ``(B, nnz)``.
    #[pyo3(signature = (x, *, p = None))]
    fn jacobian_nonzeros<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, Request::Jacobian, Part::Block(1), x, p, Weights::None)
    }

    /// The Jacobian's symbolic sparsity pattern as CSR ``(indptr, indices)``
    /// (int64 arrays); compiles the Jacobian kernel if needed.
    #[getter]
    fn jacobian_pattern<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.pattern(py, Request::Jacobian)
    }

    /// The Hessian of the Lagrangian ``sum_i weights[i] * f_i`` at ``x``
    /// (of the function itself when it has one output and ``weights`` is
    /// omitted): dense and symmetric ``(n_in, n_in)`` (``(B, n_in, n_in)``
    /// for a batch), or with ``sparse=True`` its lower triangle as a
    /// ``scipy.sparse.csr_array`` with the symbolic pattern (the union over
    /// the outputs); ``sparse=True, symmetric=True`` gives the whole
    /// symmetric matrix instead, as SciPy's ``minimize(hess=...)`` wants it.
    /// ``weights`` has shape ``(n_out,)``, or ``(B, n_out)`` with a batch.
    ///
    /// >>> f = dstar.compile("in x, y\nout f = x*x*y\nout g = sin(x) + y")
    /// >>> f.hessian([0.5, 3.0], weights=[1.0, 0.0])
    /// array([[6., 1.],
    ///        [1., 0.]])
    #[pyo3(signature = (x, weights = None, sparse = false, *, p = None, symmetric = false))]
    fn hessian<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        weights: Option<&Bound<'py, PyAny>>,
        sparse: bool,
        p: Option<&Bound<'py, PyAny>>,
        symmetric: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let w = Weights::Lagrangian(weights);
        if sparse {
            self.sparse(py, Request::Hessian, 0, x, p, w, symmetric)
        } else {
            self.part(py, Request::Hessian, Part::Dense(0), x, p, w)
        }
    }

    /// The nonzeros of the Lagrangian Hessian's lower triangle at ``x`` in
    /// the CSR order of :attr:`hessian_pattern`: ``(nnz,)`` or ``(B, nnz)``.
    #[pyo3(signature = (x, weights = None, *, p = None))]
    fn hessian_nonzeros<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        weights: Option<&Bound<'py, PyAny>>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.part(py, Request::Hessian, Part::Block(0), x, p, Weights::Lagrangian(weights))
    }

    /// The lower triangle's symbolic pattern as CSR ``(indptr, indices)``
    /// (int64 arrays), the union over outputs; compiles the Hessian kernel
    /// if needed.
    #[getter]
    fn hessian_pattern<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.pattern(py, Request::Hessian)
    }

    /// Which accumulation built the Hessian kernel (``"edge_pushing"``, or
    /// ``"gradient_"`` and a D* strategy) and its operations per call.
    #[getter]
    fn hessian_method(&self, py: Python<'_>) -> PyResult<(String, usize)> {
        let kernel = self.kernel(py, Request::Hessian)?;
        Ok((kernel.method().unwrap_or_default().to_string(), kernel.ops()))
    }

    /// The gradient of a scalar function at ``x`` (reverse accumulation):
    /// ``(n_in,)`` or ``(B, n_in)``. Same as ``vjp(x, [1.0])``.
    ///
    /// >>> dstar.compile("x*x*y").gradient([1.0, 2.0])
    /// array([4., 1.])
    #[pyo3(signature = (x, *, p = None))]
    fn gradient<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if self.m() != 1 {
            return Err(PyValueError::new_err(format!(
                "gradient needs a scalar function; this one has {} outputs: use vjp(x, w) or jacobian(x)",
                self.m()
            )));
        }
        let one = PyList::new(py, [1.0])?;
        self.vjp(py, x, one.as_any(), p)
    }

    /// ``J(x) @ v`` without forming ``J``: ``(n_out,)``, or ``(B, n_out)``
    /// for a batch. ``v`` has shape ``(n_in,)`` (the same direction for
    /// every point) or ``(B, n_in)``. Several directions at once: ``v`` of
    /// shape ``(k, n_in)`` for one point gives ``(k, n_out)`` (row ``d`` is
    /// ``J @ v[d]``), ``(B, k, n_in)`` for a batch gives ``(B, k, n_out)``;
    /// the function and its partials are evaluated once per point for all
    /// ``k``.
    ///
    /// >>> f = dstar.compile("in x, y\nout x*y\nout x + y")
    /// >>> f.jvp([2.0, 3.0], [1.0, 0.0])
    /// array([3., 1.])
    /// >>> f.jvp([2.0, 3.0], np.eye(2))  # the columns of J, as rows
    /// array([[3., 1.],
    ///        [2., 1.]])
    #[pyo3(signature = (x, v, *, p = None))]
    fn jvp<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.product(py, Request::Jvp, x, v, p, Weights::None)
    }

    /// ``w @ J(x)`` by reverse accumulation, without forming ``J``:
    /// ``(n_in,)``, or ``(B, n_in)`` for a batch. ``w`` has shape
    /// ``(n_out,)`` or ``(B, n_out)``. Several weight vectors at once: ``w``
    /// of shape ``(k, n_out)`` for one point gives ``(k, n_in)`` (row ``d``
    /// is ``w[d] @ J``), ``(B, k, n_out)`` for a batch gives ``(B, k,
    /// n_in)``; the function is evaluated once per point for all ``k``.
    ///
    /// >>> f = dstar.compile("in x, y\nout x*y\nout x + y")
    /// >>> f.vjp([2.0, 3.0], [1.0, 1.0])
    /// array([4., 3.])
    /// >>> f.vjp([2.0, 3.0], np.eye(2))  # the rows of J
    /// array([[3., 2.],
    ///        [1., 1.]])
    #[pyo3(signature = (x, w, *, p = None))]
    fn vjp<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        w: &Bound<'py, PyAny>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.product(py, Request::Vjp, x, w, p, Weights::None)
    }

    /// ``H(x) @ v`` for the Hessian of the Lagrangian ``sum_i weights[i] *
    /// f_i`` (forward over reverse, ``H`` never formed): ``(n_in,)`` or
    /// ``(B, n_in)``. ``weights`` may be omitted for a scalar function.
    /// Several directions at once, as for :meth:`jvp`: ``v`` of shape
    /// ``(k, n_in)`` gives ``(k, n_in)``, ``(B, k, n_in)`` gives ``(B, k,
    /// n_in)``.
    ///
    /// >>> f = dstar.compile("x*x*y")
    /// >>> f.hvp([1.0, 2.0], [1.0, 1.0])
    /// array([6., 2.])
    /// >>> f.hvp([1.0, 2.0], np.eye(2))  # the rows of H
    /// array([[4., 2.],
    ///        [2., 0.]])
    #[pyo3(signature = (x, v, weights = None, *, p = None))]
    fn hvp<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        weights: Option<&Bound<'py, PyAny>>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.product(py, Request::Hvp, x, v, p, Weights::Lagrangian(weights))
    }

    /// Nanoseconds per native call of a kernel (``"values"`` or
    /// ``"jacobian"``) at ``x``, timed in a Rust loop of ``iters`` calls:
    /// the baseline for measuring the overhead of calling from Python.
    #[pyo3(signature = (kind, x, iters = 100_000, *, p = None))]
    fn native_call_ns(
        &self,
        py: Python<'_>,
        kind: &str,
        x: &Bound<'_, PyAny>,
        iters: usize,
        p: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<f64> {
        let (xs, batch) = points(x, self.n(), "x")?;
        if batch.is_some() {
            return Err(PyValueError::new_err("native_call_ns takes one point; see native_batch_ns"));
        }
        let ps = self.params(p, None)?;
        let kernel = self.kernel(py, timed_request(kind)?)?;
        let args = Args::x(xs.as_slice()).p(ps.as_slice());
        let mut out = vec![0.0; kernel.out_len()];
        let iters = iters.max(1);
        let start = Instant::now();
        for _ in 0..iters {
            kernel
                .eval(std::hint::black_box(args), std::hint::black_box(&mut out))
                .map_err(|e| to_py_plain(py, e))?;
        }
        Ok(start.elapsed().as_nanos() as f64 / iters as f64)
    }

    /// Nanoseconds per batch: the kernel (``"values"`` or ``"jacobian"``)
    /// at the points ``xs`` ``(B, n_in)`` by ``Compiled::eval_batch``,
    /// timed in a Rust loop of ``iters`` calls (after one untimed call) on
    /// the threads batches run on, with the GIL released: the baseline of
    /// a Python batch. The calls write into one buffer, or with
    /// ``fresh=True`` each into a new one, as a result returned is.
    #[pyo3(signature = (kind, xs, iters = 10, *, p = None, fresh = false))]
    #[allow(clippy::too_many_arguments)]
    fn native_batch_ns(
        &self,
        py: Python<'_>,
        kind: &str,
        xs: &Bound<'_, PyAny>,
        iters: usize,
        p: Option<&Bound<'_, PyAny>>,
        fresh: bool,
    ) -> PyResult<f64> {
        let (xs, batch) = points(xs, self.n(), "xs")?;
        let Some(points) = batch else {
            return Err(PyValueError::new_err("native_batch_ns takes a batch (B, n_in); see native_call_ns"));
        };
        let ps = self.params(p, batch)?;
        let kernel = self.kernel(py, timed_request(kind)?)?;
        let batch = Batch::x(xs.as_slice()).p(ps.as_slice());
        let iters = iters.max(1);
        let ns = py.detach(|| {
            crate::threads::install(|| {
                let len = points * kernel.out_len();
                let mut outs = vec![0.0; len];
                kernel.eval_batch(batch, &mut outs)?;
                let start = Instant::now();
                for _ in 0..iters {
                    if fresh {
                        outs = vec![0.0; len];
                    }
                    kernel.eval_batch(std::hint::black_box(batch), std::hint::black_box(&mut outs))?;
                }
                Ok::<f64, dstar::Error>(start.elapsed().as_nanos() as f64 / iters as f64)
            })
        });
        ns.map_err(|e| to_py_plain(py, e))
    }

    /// Pickles to the source text (parameters and their defaults included)
    /// and options; unpickling compiles again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Reduced)> {
        let rebuild = py.import("dstar._dstar")?.getattr("_function_from_source")?;
        let options = self.function.options();
        Ok((
            rebuild,
            (
                self.source()?,
                options.simplify,
                options.self_check,
                self.name.clone(),
                options.hessian_columns,
            ),
        ))
    }

    fn __repr__(&self) -> String {
        let program = self.program();
        let params = if program.params.is_empty() {
            String::new()
        } else {
            format!("; params ({})", shown::list(&program.params))
        };
        format!(
            "<dstar.Function ({}) -> ({}), {} ops{params}>",
            shown::list(&program.inputs),
            shown::list(&program.output_names()),
            program.count_ops()
        )
    }
}

/// What a Function pickles to: source, `simplify`, `self_check`, name,
/// `hessian_columns`.
type Reduced = (String, bool, bool, String, bool);

/// The request a `native_*_ns` kind names.
fn timed_request(kind: &str) -> PyResult<Request> {
    match kind {
        "values" => Ok(Request::Values),
        "jacobian" => Ok(Request::Jacobian),
        _ => Err(PyValueError::new_err("kind must be \"values\" or \"jacobian\"")),
    }
}
