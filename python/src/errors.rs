//! Errors as Python exceptions: parse errors carry where they happened.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

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
