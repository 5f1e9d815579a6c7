//! The `dstar._dstar` extension module: the `dstar` library facade for
//! Python. Everything that computes lives in the library, the kernels too
//! (each `dstar.Function` wraps a [`dstar::Function`], which compiles and
//! keeps them); this crate reads and writes NumPy arrays, maps errors to
//! exceptions, holds the symbolic builder's graphs, and names apart the
//! functions a built program calls (`calls.rs`).

mod arrays;
mod calls;
mod errors;
mod eval;
mod expr;
mod function;
mod graph;
mod interrupt;
mod map;
mod nl;
mod threads;

/// The symbolic stages build and drop many small vectors and maps: with
/// mimalloc instead of glibc's allocator, nbody_acc_20's set-up (text to a
/// compiled Jacobian) takes 7% less time, 222 -> 208 ms under load. It
/// serves this module's own allocations only. Version 2 (`python/Cargo.toml`):
/// v3's huge-page heaps doubled the resident set, and the first compile
/// after another library's (JAX's) paid for it in page faults.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use errors::{to_py, InternalError, ParseError};
use expr::{Condition, Expr};
use function::Function;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Whether `text` is a problem file (some statement starts with the keyword
/// `in`, `out` or `param`, which no expression can) rather than one
/// expression.
fn is_program(text: &str) -> bool {
    text.lines().flat_map(|line| line.split('#').next().unwrap_or("").split(';')).any(|statement| {
        let word: String =
            statement.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        word == "in" || word == "out" || word == "param"
    })
}

/// Compiles text into a :class:`Function`: a problem file (``in``/``out``
/// statements, ``param`` lines and a ``# @params`` line of default values,
/// see the problem format), the text of an AMPL ``.nl`` file (its first
/// line ``g...``; variables ``x0, x1, ...``, outputs the objective and the
/// constraints' bodies, see :func:`read_nl` for the bounds) or a single expression, whose variables become
/// the inputs in order of first appearance, or in the order of ``inputs``. ``name`` is what calls of it print as
/// (see :meth:`Function.__call__`). ``simplify`` extracts common subchains from
/// Jacobians. ``self_check`` (on by default) has every kernel, when it is
/// compiled, evaluated once at a fixed point and compared bit for bit with
/// the interpreter: a disagreement raises ``RuntimeError`` instead of
/// returning a wrong number. ``hessian_columns`` (on by default) builds a
/// large, dense Lagrangian Hessian (2^18 nonzeros or more) by columns of
/// H·V products, fast to set up; off, as one straight-line kernel, seconds
/// to build and up to 6 times faster to evaluate while it fits the
/// processor's caches. Raises :class:`ParseError` with the line and
/// column.
///
/// >>> f = dstar.compile("sin(x*y) + x^2")
/// >>> f.input_names
/// ['x', 'y']
/// >>> dstar.compile("x*y", inputs=["y", "x"]).jacobian([2.0, 3.0])
/// array([[3., 2.]])
/// >>> g = dstar.compile("param g\nin h\nout t = sqrt(2*h/g)\n# @params 9.81")
/// >>> g.param_names, g([5.0]), g([5.0], p=[1.62])
/// (['g'], array([1.00963755]), array([2.48451997]))
#[guard::guarded]
#[pyfunction]
#[pyo3(signature = (text, inputs = None, simplify = true, self_check = true, name = "f", hessian_columns = true))]
fn compile(
    py: Python<'_>,
    text: &str,
    inputs: Option<Vec<String>>,
    simplify: bool,
    self_check: bool,
    name: &str,
    hessian_columns: bool,
) -> PyResult<Function> {
    let program = if dstar::frontend::nl::looks_like_nl(text) {
        if inputs.is_some() {
            return Err(PyValueError::new_err(
                "inputs= is for a single expression; an .nl file orders its variables",
            ));
        }
        dstar::frontend::parse_nl(text, &Default::default()).map(|model| model.program)
    } else if is_program(text) {
        if inputs.is_some() {
            return Err(PyValueError::new_err(
                "inputs= is for a single expression; a problem file declares its inputs with 'in'",
            ));
        }
        dstar::parse_program(text)
    } else {
        match &inputs {
            Some(names) => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                dstar::parse_expr_with_inputs(text, &names)
            }
            None => dstar::parse_expr(text),
        }
    };
    let program = program.map_err(|e| to_py(py, e.into(), text))?;
    Function::new(
        program,
        dstar::Options { simplify, self_check, hessian_columns, ..Default::default() },
        name,
    )
}

/// Rebuilds a pickled :class:`Function` from its source text.
#[guard::guarded]
#[pyfunction]
#[pyo3(signature = (source, simplify, self_check = true, name = "f", hessian_columns = true))]
fn _function_from_source(
    py: Python<'_>,
    source: &str,
    simplify: bool,
    self_check: bool,
    name: &str,
    hessian_columns: bool,
) -> PyResult<Function> {
    let program = dstar::parse_program(source).map_err(|e| to_py(py, e.into(), source))?;
    Function::new(
        program,
        dstar::Options { simplify, self_check, hessian_columns, ..Default::default() },
        name,
    )
}

/// The ``order``-th derivative of the expression ``expr`` with respect to
/// ``var``, as expression text.
///
/// >>> dstar.derivative("sin(x*y)", "x")
/// 'y * cos(x * y)'
#[guard::guarded]
#[pyfunction]
#[pyo3(signature = (expr, var, order = 1))]
fn derivative(py: Python<'_>, expr: &str, var: &str, order: usize) -> PyResult<String> {
    dstar::derivative_n(expr, var, order).map_err(|e| to_py(py, e, expr))
}

/// The Jacobian of a problem file as a problem file: the outputs, then one
/// output ``d_<f>_d_<x>`` per structurally nonzero entry.
///
/// >>> print(dstar.jacobian_source("in x, y\nout f = x*y"), end="")
/// in x, y
/// out f = x * y
/// out d_f_d_x = y
/// out d_f_d_y = x
#[guard::guarded]
#[pyfunction]
fn jacobian_source(py: Python<'_>, text: &str) -> PyResult<String> {
    dstar::jacobian(text).map_err(|e| to_py(py, e, text))
}

/// The Hessian of a scalar problem file as a problem file: the function,
/// its gradient ``d_<f>_d_<x>``, then the lower triangle
/// ``d2_<f>_d_<x>_d_<y>``.
#[guard::guarded]
#[pyfunction]
fn hessian_source(py: Python<'_>, text: &str) -> PyResult<String> {
    dstar::hessian(text).map_err(|e| to_py(py, e, text))
}

/// The functions of the op table as ``(name, arity)``, in table order
/// (``ifelse`` excluded: its first argument is a comparison).
#[guard::guarded]
#[pyfunction]
fn functions() -> Vec<(&'static str, usize)> {
    dstar::Op::function_names()
        .filter_map(|name| dstar::Op::from_function_name(name).map(|op| (name, op.arity())))
        .collect()
}

/// Panics with ``message``: how the tests check that a panic below an
/// entry point raises :class:`InternalError`, never pyo3's ``PanicException``.
#[guard::guarded]
#[pyfunction]
fn _panic(message: &str) -> PyResult<()> {
    panic!("{message}");
}

/// The extension module.
#[pymodule]
fn _dstar(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Function>()?;
    m.add_class::<Expr>()?;
    m.add_class::<Condition>()?;
    m.add_class::<map::Map>()?;
    m.add("ParseError", m.py().get_type::<ParseError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    // The package's version: pyproject.toml takes it from Cargo.toml.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(_function_from_source, m)?)?;
    m.add_function(wrap_pyfunction!(derivative, m)?)?;
    m.add_function(wrap_pyfunction!(jacobian_source, m)?)?;
    m.add_function(wrap_pyfunction!(hessian_source, m)?)?;
    m.add_function(wrap_pyfunction!(functions, m)?)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    m.add_function(wrap_pyfunction!(nl::read_nl, m)?)?;
    m.add_function(wrap_pyfunction!(threads::set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(threads::num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(expr::symbols, m)?)?;
    m.add_function(wrap_pyfunction!(expr::vector, m)?)?;
    m.add_function(wrap_pyfunction!(expr::apply_function, m)?)?;
    m.add_function(wrap_pyfunction!(expr::ifelse, m)?)?;
    Ok(())
}
