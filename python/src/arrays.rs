//! NumPy arrays in and out: points read without copying when they are
//! contiguous float64, shapes checked with a message that names the
//! expected shape, results allocated as NumPy arrays.

use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The doubles of an input array: borrowed from NumPy (the caller's array
/// when contiguous, aligned float64, else a copy NumPy made).
pub(crate) enum Data<'py> {
    Borrowed(Bound<'py, PyArrayDyn<f64>>),
    Owned(Vec<f64>),
}

impl Data<'_> {
    /// The values, in C order.
    pub(crate) fn as_slice(&self) -> &[f64] {
        match self {
            // SAFETY: the array is contiguous float64 (checked when read) and this
            // extension never borrows an input mutably. NumPy's dynamic borrow
            // tracking is skipped on purpose: it costs a third of a small call.
            // Python code writing the array while a batch runs without the GIL
            // races, as with any C extension that releases the GIL.
            Data::Borrowed(a) => unsafe { a.as_slice() }.expect("borrowed only when contiguous and aligned"),
            Data::Owned(v) => v,
        }
    }
}

/// Reads `obj` (an ndarray or anything `numpy.asarray` takes) as float64,
/// without a copy when it is a contiguous, aligned float64 array.
fn read<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Data<'py>, Vec<usize>)> {
    if let Ok(array) = obj.cast::<PyArrayDyn<f64>>() {
        // SAFETY: only probes whether the array can be viewed as a slice
        // (contiguous and aligned); the view is dropped at once.
        if unsafe { array.as_slice() }.is_ok() {
            return Ok((Data::Borrowed(array.clone()), array.shape().to_vec()));
        }
    }
    // Anything else (lists, other dtypes, strided or unaligned arrays, such
    // as buffers Dask deserialized): NumPy makes a fresh C-ordered copy.
    // NumPy would drop a complex array's imaginary parts with a warning (a
    // wrong result); complex Python numbers it refuses itself.
    if let Ok(array) = obj.cast::<PyUntypedArray>() {
        if array.dtype().kind() == b'c' {
            return Err(PyTypeError::new_err(
                "complex values: dstar's functions are of real numbers (pass x.real if the imaginary parts are zero)",
            ));
        }
    }
    let py = obj.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", "float64")?;
    kwargs.set_item("order", "C")?;
    let converted = py.import("numpy")?.call_method("array", (obj,), Some(&kwargs))?;
    let array = converted.cast_into::<PyArrayDyn<f64>>()?;
    let shape = array.shape().to_vec();
    Ok((Data::Borrowed(array), shape))
}

fn shape_text(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// One point `(n,)` (batch `None`) or a batch `(B, n)` (batch `Some(B)`).
pub(crate) fn points<'py>(
    obj: &Bound<'py, PyAny>,
    n: usize,
    name: &str,
) -> PyResult<(Data<'py>, Option<usize>)> {
    let (data, shape) = read(obj)?;
    match shape[..] {
        [len] if len == n => Ok((data, None)),
        [b, len] if len == n => Ok((data, Some(b))),
        _ => Err(PyValueError::new_err(format!(
            "{name} must have shape ({n},) or (B, {n}) for this function of {n} inputs; got shape {}",
            shape_text(&shape)
        ))),
    }
}

/// An array that goes with points: `(len,)`, shared by every point of a
/// batch, or `(B, len)`, one row per point (the kernels tell the two apart
/// by length).
pub(crate) fn companion<'py>(
    obj: &Bound<'py, PyAny>,
    len: usize,
    batch: Option<usize>,
    name: &str,
    what: &str,
) -> PyResult<Data<'py>> {
    let (data, shape) = read(obj)?;
    match (&shape[..], batch) {
        ([l], _) if *l == len => Ok(data),
        ([b, l], Some(batch)) if *l == len && *b == batch => Ok(data),
        _ => {
            let expected = match batch {
                None => format!("({len},)"),
                Some(b) => format!("({len},) or ({b}, {len})"),
            };
            Err(PyValueError::new_err(format!(
                "{name} must have shape {expected} ({what}); got shape {}",
                shape_text(&shape)
            )))
        }
    }
}

/// How the directions of a product (`v` of `J v`, `w` of `w J`) are laid
/// out: for one point `(len,)` or `k` of them `(k, len)`; for a batch of `B`
/// points `(len,)` (shared), `(B, len)` (one per point) or `(B, k, len)`
/// (`k` per point).
#[derive(Clone, Copy)]
pub(crate) struct Directions {
    /// Values per direction.
    pub(crate) len: usize,
    /// Directions per point.
    pub(crate) k: usize,
    /// Whether rows advance per point.
    per_point: bool,
    /// Whether they came with a `k` axis, which the result then has too.
    stacked: bool,
}

impl Directions {
    /// Reads `obj` as the directions that go with `batch` points.
    pub(crate) fn read<'py>(
        obj: &Bound<'py, PyAny>,
        len: usize,
        batch: Option<usize>,
        name: &str,
        what: &str,
    ) -> PyResult<(Data<'py>, Directions)> {
        let (data, shape) = read(obj)?;
        let (k, per_point, stacked) = match (&shape[..], batch) {
            ([l], _) if *l == len => (1, false, false),
            ([k, l], None) if *l == len => (*k, false, true),
            ([b, l], Some(batch)) if *l == len && *b == batch => (1, true, false),
            ([b, k, l], Some(batch)) if *l == len && *b == batch => (*k, true, true),
            _ => {
                let expected = match batch {
                    None => format!("({len},) or (k, {len})"),
                    Some(b) => format!("({len},), ({b}, {len}) or ({b}, k, {len})"),
                };
                return Err(PyValueError::new_err(format!(
                    "{name} must have shape {expected} ({what}); got shape {}",
                    shape_text(&shape)
                )));
            }
        };
        Ok((data, Directions { len, k, per_point, stacked }))
    }

    /// The `k` directions of point `i` in `data`, one after another.
    pub(crate) fn of_point<'a>(&self, data: &'a [f64], i: usize) -> &'a [f64] {
        row(data, self.k * self.len, self.per_point, i)
    }

    /// The shape of one point's result: `(k, out_len)` or `(out_len,)`.
    pub(crate) fn result_dims(&self, out_len: usize) -> Vec<usize> {
        if self.stacked {
            vec![self.k, out_len]
        } else {
            vec![out_len]
        }
    }
}

/// Row `i` of a companion array (the only row if shared).
fn row(data: &[f64], len: usize, per_point: bool, i: usize) -> &[f64] {
    if per_point {
        &data[i * len..(i + 1) * len]
    } else {
        data
    }
}

/// A new array of `shape` (zeros), filled by `fill` with its values in C
/// order.
pub(crate) fn filled<'py, E>(
    py: Python<'py>,
    shape: Vec<usize>,
    fill: impl FnOnce(&mut [f64]) -> Result<(), E>,
) -> Result<Bound<'py, PyArrayDyn<f64>>, E> {
    let array = PyArrayDyn::<f64>::zeros(py, shape, false);
    // SAFETY: the array was just created: nothing else refers to it yet.
    let out = unsafe { array.as_slice_mut() }.expect("new arrays are contiguous");
    fill(out)?;
    Ok(array)
}

/// A `scipy.sparse.csr_array` of `shape` with the nonzeros `values` in the
/// CSR order of `pattern`.
pub(crate) fn csr<'py>(
    py: Python<'py>,
    values: Bound<'py, PyAny>,
    pattern: &dstar::SparsityPattern,
    shape: (usize, usize),
) -> PyResult<Bound<'py, PyAny>> {
    let sparse = py.import("scipy.sparse").map_err(|e| {
        pyo3::exceptions::PyImportError::new_err(format!("sparse=True needs SciPy (pip install scipy): {e}"))
    })?;
    let (indptr, indices) = pattern_arrays(py, pattern);
    sparse.getattr("csr_array")?.call1(((values, indices, indptr), shape))
}

/// `(indptr, indices)` of `pattern` as int64 arrays.
pub(crate) fn pattern_arrays<'py>(
    py: Python<'py>,
    pattern: &dstar::SparsityPattern,
) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
    let to_i64 = |v: &[usize]| v.iter().map(|&k| k as i64).collect::<Vec<i64>>();
    (PyArray1::from_vec(py, to_i64(&pattern.row_offsets)), PyArray1::from_vec(py, to_i64(&pattern.cols)))
}
