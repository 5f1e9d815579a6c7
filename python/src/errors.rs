//! Errors as Python exceptions: parse errors carry where they happened, and
//! a panic anywhere below an entry point is an [`InternalError`], an
//! ordinary exception, never pyo3's `PanicException` (a `BaseException`
//! that `except Exception` lets through): every `#[pymethods]` block and
//! `#[pyfunction]` carries `#[guarded]` (the `guard` crate), which runs each
//! body inside [`guard`].

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

pyo3::create_exception!(
    _dstar,
    ParseError,
    PyValueError,
    "Source text that does not parse.\n\n\
     ``str(err)`` is the rendered message with the offending line and a caret;\n\
     ``err.line`` and ``err.col`` (from 1, columns in characters) say where,\n\
     ``err.message`` is the message without position."
);

/// The Python exception for `error`; `source` renders parse errors with a caret.
pub(crate) fn to_py(py: Python<'_>, error: dstar::Error, source: &str) -> PyErr {
    match error {
        dstar::Error::Parse(parse) => {
            let rendered = parse.render(source);
            let err = ParseError::new_err(rendered.trim_end().to_string());
            let value = err.value(py);
            // Setting attributes on a fresh exception instance cannot fail.
            let _ = value.setattr("line", parse.span.start.line);
            let _ = value.setattr("col", parse.span.start.column);
            let _ = value.setattr("message", parse.kind.to_string());
            err
        }
        dstar::Error::Codegen(e) => PyRuntimeError::new_err(e.to_string()),
        dstar::Error::SelfCheck(e) => PyRuntimeError::new_err(e.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// [`to_py`] for errors that cannot be parse errors.
pub(crate) fn to_py_plain(py: Python<'_>, error: dstar::Error) -> PyErr {
    to_py(py, error, "")
}

pyo3::create_exception!(
    _dstar,
    InternalError,
    PyRuntimeError,
    "A bug of dstar: a broken invariant (a Rust panic) met while serving a call.\n\n\
     ``str(err)`` starts with ``internal error:`` and says what broke; please\n\
     report it with the call that raised it."
);

/// `body`'s result, or an [`InternalError`] if it panics. Unwinding out of
/// `body` is safe to observe: the state it may leave behind is built to be
/// read after a panic (a graph's lock recovers from poisoning and its DAG is
/// append-only, a kernel is stored only once compiled).
pub(crate) fn guard<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| Err(internal_error(payload.as_ref())))
}

/// The [`InternalError`] of a panic's payload (its message, when it has one).
fn internal_error(payload: &(dyn Any + Send)) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    InternalError::new_err(format!("internal error: {message} (please report it: this is a bug of dstar)"))
}
