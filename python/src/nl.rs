//! AMPL `.nl` files for Python: [`read_nl`] reads one with the library's
//! reader into a [`Function`] and the data a solver needs beside it, which
//! `dstar.NLP.from_nl` and the `dstar-ipopt` solver use.

use crate::errors::to_py;
use crate::function::Function;
use dstar::frontend::nl::{Bound as Range, NlModel, NlNames, Sense};
use dstar::Options;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};

/// Reads the AMPL ``.nl`` file at ``path``, text or binary (names from the ``.row`` and
/// ``.col`` files beside it, when there are some) into ``(function, data)``:
/// a :class:`Function` whose output 1 is the objective (0 for a model
/// without one) and whose other outputs are the constraints' bodies, and a
/// dict of ``x0`` (the initial point), ``lbx``, ``ubx`` (variable bounds),
/// ``lbg``, ``ubg`` (constraint ranges; infinite where unbounded), ``duals``
/// (initial duals, AMPL's signs), ``sense`` (``"min"``, ``"max"``, or
/// ``None`` without an objective), ``var_names``, ``constraint_names`` and
/// ``objective_name`` (as the files give them). Raises :class:`ParseError`
/// at the line (binary: the byte) at fault, ``ValueError`` for complementarity constraints,
/// ``OSError`` for a file that cannot be read.
#[guard::guarded]
#[pyfunction]
#[pyo3(signature = (path, simplify = true, self_check = true, hessian_columns = true))]
pub(crate) fn read_nl<'py>(
    py: Python<'py>,
    path: PathBuf,
    simplify: bool,
    self_check: bool,
    hessian_columns: bool,
) -> PyResult<(Function, Bound<'py, PyDict>)> {
    let model = parse_file(py, &path)?;
    if model.constraint_bounds.iter().any(|b| matches!(b, Range::Complement { .. })) {
        return Err(PyValueError::new_err(format!(
            "{}: complementarity constraints are not supported",
            path.display()
        )));
    }
    let options = Options { simplify, self_check, hessian_columns, ..Default::default() };
    let function = Function::new(model.program_with_objective(), options, "f")?;
    Ok((function, solver_data(py, &model)?))
}

/// The model in the file at `path`: a parse error is rendered against the
/// file's text.
fn parse_file(py: Python<'_>, path: &Path) -> PyResult<NlModel> {
    let bytes = std::fs::read(path).map_err(|e| {
        let message = format!("cannot read {}: {e}", path.display());
        match e.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            _ => PyOSError::new_err(message),
        }
    })?;
    // Text or binary: the reader decodes the text itself.
    dstar::frontend::parse_nl(&bytes, &NlNames::beside(path))
        .map_err(|e| to_py(py, e.into(), &String::from_utf8_lossy(&bytes)))
}

/// What a solver needs beside the function, as [`read_nl`] documents it.
fn solver_data<'py>(py: Python<'py>, model: &NlModel) -> PyResult<Bound<'py, PyDict>> {
    let data = PyDict::new(py);
    let lower = |bounds: &[Range]| bounds.iter().map(|b| b.lower()).collect::<Vec<f64>>();
    let upper = |bounds: &[Range]| bounds.iter().map(|b| b.upper()).collect::<Vec<f64>>();
    data.set_item(
        "x0",
        model.program.point.clone().unwrap_or_else(|| vec![0.0; model.program.inputs.len()]),
    )?;
    data.set_item("lbx", lower(&model.var_bounds))?;
    data.set_item("ubx", upper(&model.var_bounds))?;
    data.set_item("lbg", lower(&model.constraint_bounds))?;
    data.set_item("ubg", upper(&model.constraint_bounds))?;
    data.set_item("duals", &model.duals)?;
    let sense = model.objective.as_ref().map(|o| match o.sense {
        Sense::Minimize => "min",
        Sense::Maximize => "max",
    });
    data.set_item("sense", sense)?;
    data.set_item("var_names", &model.var_names)?;
    data.set_item("constraint_names", &model.constraint_names)?;
    data.set_item("objective_name", model.objective.as_ref().map(|o| o.name.as_str()))?;
    Ok(data)
}
