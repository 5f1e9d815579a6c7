//! `F.map(n)`: `n` calls of a function at once, as CasADi's `Function.map`.
//! Each call is an ordinary call site, so a model built with it is the
//! model built with a loop (the same source, the same maps found in it,
//! docs/maps.md); it only makes the loop shorter to write.

use crate::function::Function;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

/// ``n`` calls of a :class:`Function` on expressions, made by
/// :meth:`Function.map`. Called with one argument per input of the
/// function (then per parameter, or ``p=``), each either one expression or
/// number, which every call shares, or a sequence of ``n`` of them (a list,
/// a tuple, a :func:`vector`, a NumPy array), of which call ``i`` takes
/// item ``i``. It returns, per result of the function, the list of the
/// ``n`` calls' results (a tuple of such lists for several results), or
/// with ``sum=True`` their sum, added in call order.
///
/// >>> x, u = dstar.symbols("x u")
/// >>> step = dstar.Function([x, u], [x + 0.1 * u], name="step")
/// >>> xs, us = dstar.vector("x", 3), dstar.vector("u", 3)
/// >>> nxt = step.map(3)(xs, us)
/// >>> len(nxt), str(nxt[1])
/// (3, 't1 = step(x_1, u_1); t1')
/// >>> str(step.map(3, sum=True)(xs, 1.0))
/// 't1 = step(x_0, 1); t2 = step(x_1, 1); t3 = step(x_2, 1); t1 + t2 + t3'
#[pyclass(module = "dstar._dstar", frozen)]
pub struct Map {
    function: Py<Function>,
    n: usize,
    sum: bool,
}

impl Map {
    pub(crate) fn new(function: Py<Function>, n: usize, sum: bool) -> Map {
        Map { function, n, sum }
    }
}

/// How one argument of a map is given.
enum Argument<'py> {
    /// The same for every call.
    Shared(Bound<'py, PyAny>),
    /// Item `i` for call `i`.
    Each(Bound<'py, PyAny>),
}

#[guard::guarded]
#[pymethods]
impl Map {
    #[pyo3(signature = (*args, p = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        p: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let function = self.function.borrow(py);
        let name = function.name.clone();
        let arguments = args
            .iter()
            .enumerate()
            .map(|(k, arg)| argument(&name, k, arg, self.n))
            .collect::<PyResult<Vec<_>>>()?;
        let results = function.num_outputs();
        // Grown call by call, as a loop's list: a huge `n` of shared
        // arguments costs what it asks, and Ctrl-C stops it.
        let mut columns: Vec<Vec<Bound<'py, PyAny>>> = vec![Vec::new(); results];
        for i in 0..self.n {
            if i % 4096 == 4095 {
                py.check_signals()?;
            }
            let call_args = arguments
                .iter()
                .map(|a| match a {
                    Argument::Shared(v) => Ok(v.clone()),
                    Argument::Each(v) => v.get_item(i),
                })
                .collect::<PyResult<Vec<_>>>()?;
            let called = function.call_on(py, &PyTuple::new(py, call_args)?, p)?;
            if results == 1 {
                columns[0].push(called);
            } else {
                for (column, value) in columns.iter_mut().zip(called.cast::<PyTuple>()?.iter()) {
                    column.push(value);
                }
            }
        }
        let mut out = Vec::with_capacity(results);
        for column in columns {
            out.push(if self.sum { sum(py, column)? } else { PyList::new(py, column)?.into_any() });
        }
        match out.len() {
            1 => Ok(out.remove(0)),
            _ => Ok(PyTuple::new(py, out)?.into_any()),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let name = self.function.borrow(py).name.clone();
        format!("{name}.map({}{})", self.n, if self.sum { ", sum=True" } else { "" })
    }

    /// The number of calls.
    #[getter]
    fn n(&self) -> usize {
        self.n
    }
}

/// Argument `k` (from 0) of a map of `n` calls of `name`: one value, or a
/// sequence of `n`.
fn argument<'py>(name: &str, k: usize, arg: Bound<'py, PyAny>, n: usize) -> PyResult<Argument<'py>> {
    let one = arg.cast::<crate::expr::Expr>().is_ok() || arg.extract::<f64>().is_ok();
    if one {
        return Ok(Argument::Shared(arg));
    }
    match arg.len() {
        Ok(len) if len == n && !arg.is_instance_of::<pyo3::types::PyString>() => Ok(Argument::Each(arg)),
        Ok(len) => Err(PyValueError::new_err(format!(
            "{name}.map({n}): argument {} has {len} items; give {n} (one per call) or one expression or number \
             (shared by every call)",
            k + 1
        ))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}.map({n}): argument {} is a {}; give an expression or number (shared by every call) or a \
             sequence of {n} (one per call)",
            k + 1,
            arg.get_type().name()?
        ))),
    }
}

/// The sum of `values` in order, `0` for none.
fn sum<'py>(py: Python<'py>, values: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let mut values = values.into_iter();
    let Some(first) = values.next() else { return Ok(0.0f64.into_pyobject(py)?.into_any()) };
    values.try_fold(first, |total, v| total.add(v))
}
