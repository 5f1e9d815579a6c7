//! NumPy arrays in and out: points read without copying when they are
//! contiguous float64, shapes checked with a message that names the
//! expected shape, batches evaluated in parallel without the GIL.

use crate::errors::to_py_plain;
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

/// The doubles of an input array: borrowed from NumPy when contiguous
/// float64, copied otherwise.
pub(crate) enum Data<'py> {
    Borrowed(PyReadonlyArrayDyn<'py, f64>),
    Owned(Vec<f64>),
}

impl Data<'_> {
    /// The values, in C order.
    pub(crate) fn as_slice(&self) -> &[f64] {
        match self {
            Data::Borrowed(a) => a.as_slice().expect("borrowed only when contiguous"),
            Data::Owned(v) => v,
        }
    }
}

/// Reads `obj` (an ndarray or anything `numpy.asarray` takes) as float64.
fn read<'py>(obj: &Bound<'py, PyAny>) -> PyResult<(Data<'py>, Vec<usize>)> {
    let array = match obj.extract::<PyReadonlyArrayDyn<'py, f64>>() {
        Ok(array) => array,
        Err(_) => {
            let py = obj.py();
            let kwargs = PyDict::new(py);
            kwargs.set_item("dtype", "float64")?;
            let converted = py.import("numpy")?.call_method("asarray", (obj,), Some(&kwargs))?;
            converted.cast_into::<PyArrayDyn<f64>>()?.readonly()
        }
    };
    let shape = array.shape().to_vec();
    if array.as_slice().is_ok() {
        Ok((Data::Borrowed(array), shape))
    } else {
        Ok((Data::Owned(array.as_array().iter().copied().collect()), shape))
    }
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
/// batch, or `(B, len)`, one row per point. Returns the data and whether
/// rows advance per point.
pub(crate) fn companion<'py>(
    obj: &Bound<'py, PyAny>,
    len: usize,
    batch: Option<usize>,
    name: &str,
    what: &str,
) -> PyResult<(Data<'py>, bool)> {
    let (data, shape) = read(obj)?;
    match (&shape[..], batch) {
        ([l], _) if *l == len => Ok((data, false)),
        ([b, l], Some(batch)) if *l == len && *b == batch => Ok((data, true)),
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

/// Row `i` of a companion array (the only row if shared).
pub(crate) fn row(data: &[f64], len: usize, per_point: bool, i: usize) -> &[f64] {
    if per_point {
        &data[i * len..(i + 1) * len]
    } else {
        data
    }
}

/// Runs `f(i, out_i, scratch)` for the points `0..batch` in parallel with the
/// GIL released, each writing `out_len` doubles.
pub(crate) fn run_batch<F>(py: Python<'_>, batch: usize, out_len: usize, f: F) -> PyResult<Vec<f64>>
where
    F: Fn(usize, &mut [f64], &mut Vec<f64>) -> Result<(), dstar::Error> + Sync,
{
    let mut out = vec![0.0; batch * out_len];
    if out_len == 0 {
        return Ok(out);
    }
    py.detach(|| {
        out.par_chunks_mut(out_len)
            .enumerate()
            .with_min_len(64)
            .try_for_each_init(Vec::new, |scratch, (i, o)| f(i, o, scratch))
    })
    .map_err(|e| to_py_plain(py, e))?;
    Ok(out)
}

/// A NumPy array of `shape` owning `values` (no copy).
pub(crate) fn array<'py>(py: Python<'py>, values: Vec<f64>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let flat = PyArray1::from_vec(py, values);
    if let [_] = shape {
        return Ok(flat.into_any());
    }
    Ok(flat.reshape(shape.to_vec())?.into_any())
}

/// A `scipy.sparse.csr_array` of `shape` with the nonzeros `values` in the
/// CSR order of `pattern`.
pub(crate) fn csr<'py>(
    py: Python<'py>,
    values: Vec<f64>,
    pattern: &dstar::SparsityPattern,
    shape: (usize, usize),
) -> PyResult<Bound<'py, PyAny>> {
    let sparse = py.import("scipy.sparse").map_err(|e| {
        pyo3::exceptions::PyImportError::new_err(format!("sparse=True needs SciPy (pip install scipy): {e}"))
    })?;
    let (indptr, indices) = pattern_arrays(py, pattern);
    let data = PyArray1::from_vec(py, values);
    sparse.getattr("csr_array")?.call1(((data, indices, indptr), shape))
}

/// `(indptr, indices)` of `pattern` as int64 arrays.
pub(crate) fn pattern_arrays<'py>(
    py: Python<'py>,
    pattern: &dstar::SparsityPattern,
) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>) {
    let to_i64 = |v: &[usize]| v.iter().map(|&k| k as i64).collect::<Vec<i64>>();
    (PyArray1::from_vec(py, to_i64(&pattern.row_offsets)), PyArray1::from_vec(py, to_i64(&pattern.cols)))
}
