//! `dstar.Function`: a parsed program and its kernels, each compiled on
//! first use and shared by every thread afterwards.

use crate::arrays::{companion, csr, pattern_arrays, points, row, run, Data, Directions};
use crate::errors::to_py_plain;
use crate::widths::{ByWidth, Plan, WIDEST_JVP, WIDEST_SWEEPS};
use dstar::{
    DirectionsKernel, DirectionsPlan, HessianKernel, HvpKernel, JacobianKernel, JitKernel, Options, Program,
    SparsityPattern, VjpKernel,
};
use numpy::{PyArrayDyn, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::sync::OnceLock;
use std::time::Instant;

/// The kernels of a function, compiled when first asked for (the products
/// in several widths: directions per call).
struct Kernels {
    values: OnceLock<JitKernel>,
    jacobian: OnceLock<JacobianKernel>,
    hessian: OnceLock<HessianKernel>,
    /// The scarcity remainder every `J v` width compiles from.
    directions: OnceLock<DirectionsPlan>,
    jvp: ByWidth<DirectionsKernel>,
    vjp: ByWidth<VjpKernel>,
    hvp: ByWidth<HvpKernel>,
}

impl Default for Kernels {
    fn default() -> Self {
        Kernels {
            values: OnceLock::new(),
            jacobian: OnceLock::new(),
            hessian: OnceLock::new(),
            directions: OnceLock::new(),
            jvp: ByWidth::new(WIDEST_JVP),
            vjp: ByWidth::new(WIDEST_SWEEPS),
            hvp: ByWidth::new(WIDEST_SWEEPS),
        }
    }
}

/// A compiled function of ``n_in`` inputs and ``n_out`` outputs with its
/// derivative kernels.
///
/// Build one with :func:`dstar.compile` (text) or ``dstar.Function(inputs,
/// outputs)`` (the symbolic builder). Every kernel method takes one point
/// of shape ``(n_in,)`` or a batch ``(B, n_in)`` and returns the result for
/// each point, stacked; a batch runs on all cores with the GIL released.
/// Kernels are compiled on first use (``f.jacobian`` compiles the Jacobian
/// kernel once) and may be called from many threads at once.
///
/// >>> import dstar, numpy as np
/// >>> f = dstar.compile("in x, y\nout f = x*y\nout g = sin(x)")
/// >>> f.jacobian(np.array([2.0, 3.0]))
/// array([[ 3.        ,  2.        ],
///        [-0.41614684,  0.        ]])
#[pyclass(module = "dstar._dstar", frozen)]
pub struct Function {
    program: Program,
    options: Options,
    source: OnceLock<String>,
    kernels: Kernels,
}

impl Function {
    /// A function for `program`, nothing compiled yet.
    pub(crate) fn new(program: Program, options: Options) -> Function {
        Function { program, options, source: OnceLock::new(), kernels: Kernels::default() }
    }

    fn n(&self) -> usize {
        self.program.inputs.len()
    }

    fn m(&self) -> usize {
        self.program.outputs.len()
    }

    fn values_kernel(&self, py: Python<'_>) -> PyResult<&JitKernel> {
        compiled(py, &self.kernels.values, &self.options, |options| {
            Ok(options.compiler()?.compile(&self.program.kernel()?)?)
        })
    }

    fn jacobian_kernel(&self, py: Python<'_>) -> PyResult<&JacobianKernel> {
        compiled(py, &self.kernels.jacobian, &self.options, |options| {
            dstar::compile_program(&self.program, options)
        })
    }

    fn hessian_kernel(&self, py: Python<'_>) -> PyResult<&HessianKernel> {
        compiled(py, &self.kernels.hessian, &self.options, |options| {
            HessianKernel::compile(&self.program, &options.compiler()?)
        })
    }

    fn jvp_kernels(&self, py: Python<'_>, k: usize) -> PyResult<Plan<'_, DirectionsKernel>> {
        let directions =
            compiled(py, &self.kernels.directions, &self.options, |_| DirectionsPlan::new(&self.program))?;
        self.kernels.jvp.plan(py, k, &self.options, |w, options| directions.compile(w, &options.compiler()?))
    }

    fn vjp_kernels(&self, py: Python<'_>, k: usize) -> PyResult<Plan<'_, VjpKernel>> {
        self.kernels.vjp.plan(py, k, &self.options, |w, options| {
            VjpKernel::compile(&self.program, w, &options.compiler()?)
        })
    }

    fn hvp_kernels(&self, py: Python<'_>, k: usize) -> PyResult<Plan<'_, HvpKernel>> {
        self.kernels.hvp.plan(py, k, &self.options, |w, options| {
            HvpKernel::compile(&self.program, w, &options.compiler()?)
        })
    }

    /// The weights of the Lagrangian: given, or `[1]` for a scalar function.
    fn weights<'py>(
        &self,
        weights: Option<&Bound<'py, PyAny>>,
        batch: Option<usize>,
    ) -> PyResult<(Data<'py>, bool)> {
        let m = self.m();
        match weights {
            Some(w) => companion(w, m, batch, "weights", "one weight per output"),
            None if m == 1 => Ok((Data::Owned(vec![1.0]), false)),
            None => Err(PyValueError::new_err(format!(
                "this function has {m} outputs: pass weights=w (shape ({m},)) for the Hessian of the \
                 Lagrangian sum_i w[i] * f_i, e.g. weights=numpy.eye({m})[i] for output i alone"
            ))),
        }
    }
}

/// The kernel in `cell`, compiled by `build` from `options` if this is the
/// first call: with the GIL released, and stopped by Ctrl-C
/// ([`interruptible`](crate::interrupt::interruptible)).
pub(crate) fn compiled<'a, T: Send + Sync>(
    py: Python<'_>,
    cell: &'a OnceLock<T>,
    options: &Options,
    build: impl FnOnce(&Options) -> Result<T, dstar::Error> + Send,
) -> PyResult<&'a T> {
    if let Some(kernel) = cell.get() {
        return Ok(kernel);
    }
    let kernel = crate::interrupt::interruptible(py, |stop| {
        build(&Options { stop: stop.clone(), ..options.clone() })
    })?
    .map_err(|e| to_py_plain(py, e))?;
    // Two threads may both compile; the first one stored wins.
    let _ = cell.set(kernel);
    Ok(cell.get().expect("just set"))
}

/// Scatters CSR `values` of `pattern` into the dense row-major `out`.
fn scatter(pattern: &SparsityPattern, values: &[f64], out: &mut [f64], symmetric: bool) {
    let n = pattern.num_cols;
    out.fill(0.0);
    for r in 0..pattern.num_rows() {
        for k in pattern.row_offsets[r]..pattern.row_offsets[r + 1] {
            let c = pattern.cols[k];
            out[r * n + c] = values[k];
            if symmetric {
                out[c * n + r] = values[k];
            }
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

#[pymethods]
impl Function {
    /// ``Function(inputs, outputs, output_names=None, simplify=True,
    /// self_check=True)``: the function from the symbols ``inputs`` (in that
    /// order) to the expressions ``outputs`` (an expression, a number or a
    /// list of them). See :func:`dstar.compile` for the options.
    #[new]
    #[pyo3(signature = (inputs, outputs, output_names = None, simplify = true, self_check = true))]
    fn py_new(
        inputs: &Bound<'_, PyAny>,
        outputs: &Bound<'_, PyAny>,
        output_names: Option<Vec<String>>,
        simplify: bool,
        self_check: bool,
    ) -> PyResult<Function> {
        crate::expr::function(
            inputs,
            outputs,
            output_names,
            Options { simplify, self_check, ..Default::default() },
        )
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

    /// The input names, in order.
    #[getter]
    fn input_names(&self) -> Vec<String> {
        self.program.inputs.clone()
    }

    /// The output names, in order.
    #[getter]
    fn output_names(&self) -> Vec<String> {
        self.program.output_names()
    }

    /// Whether Jacobians are simplified (common subchains) after accumulation.
    #[getter]
    fn simplify(&self) -> bool {
        self.options.simplify
    }

    /// Whether each kernel checks itself against the interpreter when compiled.
    #[getter]
    fn self_check(&self) -> bool {
        self.options.self_check
    }

    /// The function as problem-format text (shared subexpressions bound to
    /// names, so the text is linear in the DAG's size).
    ///
    /// >>> print(dstar.compile("sin(x*y) + x*y").source(), end="")
    /// in x, y
    /// t1 = x * y
    /// out f = t1 + sin(t1)
    fn source(&self) -> String {
        self.source.get_or_init(|| dstar::print_program(&self.program)).clone()
    }

    /// Number of operations of the function (each ``+ - * /``, negation and
    /// call once, shared subexpressions once).
    #[getter]
    fn ops(&self) -> usize {
        self.program.count_ops()
    }

    /// The values at ``x``: shape ``(n_out,)``, or ``(B, n_out)`` for a
    /// batch ``x`` of shape ``(B, n_in)``.
    ///
    /// >>> dstar.compile("x*y")([2.0, 3.0])
    /// array([6.])
    fn __call__<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (data, batch) = points(x, n, "x")?;
        let kernel = self.values_kernel(py)?;
        let xs = data.as_slice();
        Ok(run(py, batch, &[m], |i, o, _| Ok(kernel.eval(&xs[i * n..(i + 1) * n], o)?))?.into_any())
    }

    /// The Jacobian at ``x``: dense ``(n_out, n_in)`` (``(B, n_out, n_in)``
    /// for a batch) or, with ``sparse=True``, a ``scipy.sparse.csr_array``
    /// with the symbolic sparsity pattern (a list of them for a batch; see
    /// :meth:`jacobian_nonzeros` for the stacked nonzeros).
    ///
    /// >>> f = dstar.compile("sin(x*y) + x^2")
    /// >>> f.jacobian([1.0, 2.0])
    /// array([[ 1.16770633, -0.41614684]])
    #[pyo3(signature = (x, sparse = false))]
    fn jacobian<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        sparse: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (data, batch) = points(x, n, "x")?;
        let kernel = self.jacobian_kernel(py)?;
        let pattern = kernel.pattern();
        let xs = data.as_slice();
        if sparse {
            let values = self.nonzeros(py, kernel, xs, batch)?;
            return sparse_result(py, values, batch, pattern, (m, n));
        }
        let out = run(py, batch, &[m, n], |i, o, scratch| {
            scratch.resize(kernel.out_len(), 0.0);
            kernel.eval(&xs[i * n..(i + 1) * n], scratch)?;
            scatter(pattern, &scratch[m..], o, false);
            Ok(())
        })?;
        Ok(out.into_any())
    }

    /// The Jacobian's structural nonzeros at ``x`` in CSR order of
    /// :attr:`jacobian_pattern`: shape ``(nnz,)`` or ``(B, nnz)``.
    fn jacobian_nonzeros<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let (data, batch) = points(x, self.n(), "x")?;
        let kernel = self.jacobian_kernel(py)?;
        let values = self.nonzeros(py, kernel, data.as_slice(), batch)?;
        Ok(values.into_any())
    }

    /// The Jacobian's symbolic sparsity pattern as CSR ``(indptr, indices)``
    /// (int64 arrays); compiles the Jacobian kernel if needed.
    #[getter]
    fn jacobian_pattern<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (indptr, indices) = pattern_arrays(py, self.jacobian_kernel(py)?.pattern());
        PyTuple::new(py, [indptr.into_any(), indices.into_any()])
    }

    /// The Hessian of the Lagrangian ``sum_i weights[i] * f_i`` at ``x``
    /// (of the function itself when it has one output and ``weights`` is
    /// omitted): dense and symmetric ``(n_in, n_in)`` (``(B, n_in, n_in)``
    /// for a batch), or with ``sparse=True`` its lower triangle as a
    /// ``scipy.sparse.csr_array`` with the symbolic pattern (the union over
    /// the outputs). ``weights`` has shape ``(n_out,)``, or ``(B, n_out)``
    /// with a batch.
    ///
    /// >>> f = dstar.compile("in x, y\nout f = x*x*y\nout g = sin(x) + y")
    /// >>> f.hessian([0.5, 3.0], weights=[1.0, 0.0])
    /// array([[6., 1.],
    ///        [1., 0.]])
    #[pyo3(signature = (x, weights = None, sparse = false))]
    fn hessian<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        weights: Option<&Bound<'py, PyAny>>,
        sparse: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = self.n();
        let (data, batch) = points(x, n, "x")?;
        let (w, per_point) = self.weights(weights, batch)?;
        let kernel = self.hessian_kernel(py)?;
        let pattern = kernel.pattern();
        let (xs, ws, m) = (data.as_slice(), w.as_slice(), self.m());
        if sparse {
            let values = run(py, batch, &[kernel.nnz()], |i, o, _| {
                kernel.eval(&xs[i * n..(i + 1) * n], row(ws, m, per_point, i), o)
            })?;
            return sparse_result(py, values, batch, pattern, (n, n));
        }
        let out = run(py, batch, &[n, n], |i, o, scratch| {
            scratch.resize(kernel.nnz(), 0.0);
            kernel.eval(&xs[i * n..(i + 1) * n], row(ws, m, per_point, i), scratch)?;
            scatter(pattern, scratch, o, true);
            Ok(())
        })?;
        Ok(out.into_any())
    }

    /// The nonzeros of the Lagrangian Hessian's lower triangle at ``x`` in
    /// the CSR order of :attr:`hessian_pattern`: ``(nnz,)`` or ``(B, nnz)``.
    #[pyo3(signature = (x, weights = None))]
    fn hessian_nonzeros<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        weights: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (data, batch) = points(x, n, "x")?;
        let (w, per_point) = self.weights(weights, batch)?;
        let kernel = self.hessian_kernel(py)?;
        let (xs, ws) = (data.as_slice(), w.as_slice());
        let values = run(py, batch, &[kernel.nnz()], |i, o, _| {
            kernel.eval(&xs[i * n..(i + 1) * n], row(ws, m, per_point, i), o)
        })?;
        Ok(values.into_any())
    }

    /// The lower triangle's symbolic pattern as CSR ``(indptr, indices)``
    /// (int64 arrays), the union over outputs; compiles the Hessian kernel
    /// if needed.
    #[getter]
    fn hessian_pattern<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (indptr, indices) = pattern_arrays(py, self.hessian_kernel(py)?.pattern());
        PyTuple::new(py, [indptr.into_any(), indices.into_any()])
    }

    /// Which accumulation built the Hessian kernel (``"D*"`` or
    /// ``"edge pushing"``...) and its operations per call.
    #[getter]
    fn hessian_method(&self, py: Python<'_>) -> PyResult<(String, usize)> {
        let kernel = self.hessian_kernel(py)?;
        Ok((kernel.method().name().to_string(), kernel.ops()))
    }

    /// The gradient of a scalar function at ``x`` (reverse accumulation):
    /// ``(n_in,)`` or ``(B, n_in)``. Same as ``vjp(x, [1.0])``.
    ///
    /// >>> dstar.compile("x*x*y").gradient([1.0, 2.0])
    /// array([4., 1.])
    fn gradient<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if self.m() != 1 {
            return Err(PyValueError::new_err(format!(
                "gradient needs a scalar function; this one has {} outputs: use vjp(x, w) or jacobian(x)",
                self.m()
            )));
        }
        let one = PyList::new(py, [1.0])?;
        self.vjp(py, x, one.as_any())
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
    fn jvp<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (data, batch) = points(x, n, "x")?;
        let (dirs, layout) = Directions::read(v, n, batch, "v", "directions in input space")?;
        let kernels = self.jvp_kernels(py, layout.k)?;
        let (xs, vs) = (data.as_slice(), dirs.as_slice());
        let out = run(py, batch, &layout.result_dims(m), |i, o, scratch| {
            let v = layout.of_point(vs, i);
            kernels.for_each(|kernel, first, width| {
                scratch.clear();
                scratch.extend_from_slice(&xs[i * n..(i + 1) * n]);
                scratch.extend_from_slice(&v[first * n..(first + width) * n]);
                kernel.eval(scratch, &mut o[first * m..(first + width) * m])
            })
        })?;
        Ok(out.into_any())
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
    fn vjp<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        w: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (data, batch) = points(x, n, "x")?;
        let (weights, layout) = Directions::read(w, m, batch, "w", "weights, one per output")?;
        let kernels = self.vjp_kernels(py, layout.k)?;
        let (xs, ws) = (data.as_slice(), weights.as_slice());
        let out = run(py, batch, &layout.result_dims(n), |i, o, _| {
            let w = layout.of_point(ws, i);
            kernels.for_each(|kernel, first, width| {
                kernel.eval(
                    &xs[i * n..(i + 1) * n],
                    &w[first * m..(first + width) * m],
                    &mut o[first * n..(first + width) * n],
                )
            })
        })?;
        Ok(out.into_any())
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
    #[pyo3(signature = (x, v, weights = None))]
    fn hvp<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        weights: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.n(), self.m());
        let (data, batch) = points(x, n, "x")?;
        let (dirs, layout) = Directions::read(v, n, batch, "v", "directions in input space")?;
        let (w, w_per_point) = self.weights(weights, batch)?;
        let kernels = self.hvp_kernels(py, layout.k)?;
        let (xs, vs, ws) = (data.as_slice(), dirs.as_slice(), w.as_slice());
        let out = run(py, batch, &layout.result_dims(n), |i, o, _| {
            let (x, w, v) = (&xs[i * n..(i + 1) * n], row(ws, m, w_per_point, i), layout.of_point(vs, i));
            kernels.for_each(|kernel, first, width| {
                kernel.eval(x, w, &v[first * n..(first + width) * n], &mut o[first * n..(first + width) * n])
            })
        })?;
        Ok(out.into_any())
    }

    /// Nanoseconds per native call of a kernel (``"values"`` or
    /// ``"jacobian"``) at ``x``, timed in a Rust loop of ``iters`` calls:
    /// the baseline for measuring the overhead of calling from Python.
    #[pyo3(signature = (kind, x, iters = 100_000))]
    fn native_call_ns(&self, py: Python<'_>, kind: &str, x: Vec<f64>, iters: usize) -> PyResult<f64> {
        if x.len() != self.n() {
            return Err(PyValueError::new_err(format!("x must have {} values", self.n())));
        }
        let iters = iters.max(1);
        let time = |kernel: &dyn Fn(&mut [f64]) -> Result<(), dstar::Error>, len: usize| {
            let mut out = vec![0.0; len];
            let start = Instant::now();
            for _ in 0..iters {
                kernel(std::hint::black_box(&mut out))?;
            }
            Ok::<f64, dstar::Error>(start.elapsed().as_nanos() as f64 / iters as f64)
        };
        let ns = match kind {
            "values" => {
                let k = self.values_kernel(py)?;
                time(&|o| Ok(k.eval(std::hint::black_box(&x), o)?), k.num_outputs())
            }
            "jacobian" => {
                let k = self.jacobian_kernel(py)?;
                time(&|o| k.eval(std::hint::black_box(&x), o), k.out_len())
            }
            _ => return Err(PyValueError::new_err("kind must be \"values\" or \"jacobian\"")),
        };
        ns.map_err(|e| to_py_plain(py, e))
    }

    /// Pickles to the source text and options; unpickling compiles again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String, bool, bool))> {
        let rebuild = py.import("dstar._dstar")?.getattr("_function_from_source")?;
        Ok((rebuild, (self.source(), self.options.simplify, self.options.self_check)))
    }

    fn __repr__(&self) -> String {
        format!(
            "<dstar.Function ({}) -> ({}), {} ops>",
            dstar::frontend::shown::list(&self.program.inputs),
            dstar::frontend::shown::list(&self.program.output_names()),
            self.program.count_ops()
        )
    }
}

impl Function {
    /// The Jacobian's nonzeros at each point, `(nnz,)` or `(B, nnz)`.
    fn nonzeros<'py>(
        &self,
        py: Python<'py>,
        kernel: &JacobianKernel,
        xs: &[f64],
        batch: Option<usize>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let (n, m, nnz) = (self.n(), self.m(), kernel.pattern().nnz());
        run(py, batch, &[nnz], |i, o, scratch| {
            scratch.resize(kernel.out_len(), 0.0);
            kernel.eval(&xs[i * n..(i + 1) * n], scratch)?;
            o.copy_from_slice(&scratch[m..]);
            Ok(())
        })
    }
}
