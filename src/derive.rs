//! The expression-string API: derivatives in, text out.

use crate::Error;
use factor::higher::Budget;
use frontend::shown::Shown;
use frontend::table::plain;
use frontend::{parse_expr, parse_program, print_expr, print_program, Output};

/// The derivative of the expression `expr` with respect to the variable
/// `var`, as an expression. A variable the expression does not use has
/// derivative `0`.
///
/// ```
/// assert_eq!(dstar::derivative("sin(x*y)", "x")?, "y * cos(x * y)");
/// assert_eq!(dstar::derivative("x^2", "y")?, "0");
/// # Ok::<(), dstar::Error>(())
/// ```
pub fn derivative(expr: &str, var: &str) -> Result<String, Error> {
    derivative_n(expr, var, 1)
}

/// The `order`-th derivative of `expr` with respect to `var`, by Taylor-mode
/// propagation (see [`crate::partial`]) within the default [`Budget`],
/// written as a person would.
///
/// ```
/// assert_eq!(dstar::derivative_n("x^3", "x", 2)?, "6 * x");
/// assert_eq!(dstar::derivative_n("sin(x)", "x", 1_000_000_000_000)?, "sin(x)");
/// # Ok::<(), dstar::Error>(())
/// ```
///
/// # Errors
/// A parse error, a bad variable name, or [`Error::Derivative`] when the
/// order needs more than the budget (the message names an order within it).
pub fn derivative_n(expr: &str, var: &str, order: usize) -> Result<String, Error> {
    let program = parse_expr(expr)?;
    let Some(col) = program.inputs.iter().position(|i| i == var) else {
        check_variable(var)?;
        return Ok(if order == 0 {
            print_expr(&program.dag, program.outputs[0].node, &program.inputs)
        } else {
            "0".into()
        });
    };
    let d = crate::partial(&program, &[(col, order as u64)], &Budget::default(), &frontend::Stop::never())?;
    Ok(print_expr(&d.dag, d.outputs[0].node, &d.inputs))
}

fn check_variable(var: &str) -> Result<(), Error> {
    match frontend::parser::check_name(var) {
        Some(frontend::parser::NameError::NotIdentifier) => {
            Err(Error::Usage(format!("'{}' is not a variable name", Shown(var))))
        }
        // A reserved word is no input of the expression: it is told so there.
        _ => Ok(()),
    }
}

/// The Jacobian of a problem file's outputs as a problem file whose outputs
/// are the structurally nonzero entries, named `d_<output>_d_<input>` (a
/// table's entry `g[0]` written `g_0`), with the function's outputs first.
///
/// ```
/// let text = dstar::jacobian("in x, y\nout f = x*y")?;
/// assert_eq!(text, "in x, y\nout f = x * y\nout d_f_d_x = y\nout d_f_d_y = x\n");
/// # Ok::<(), dstar::Error>(())
/// ```
pub fn jacobian(source: &str) -> Result<String, Error> {
    let program = parse_program(source)?;
    let jacobian = factor::jacobian(program.kernel()?);
    let mut outputs = program.outputs.clone();
    for e in jacobian.entries() {
        let name = format!("d_{}_d_{}", plain(&program.outputs[e.row].name), plain(&program.inputs[e.col]));
        outputs.push(Output { name, node: e.node });
    }
    let dag = jacobian.into_kernel().into_parts().0;
    Ok(print_program(&program.derived(dag, outputs)))
}

/// The Hessian of a problem file's single output as a problem file: the
/// function, its gradient `d_<f>_d_<x>`, then the lower triangle of the
/// Hessian, `d2_<f>_d_<x>_d_<y>`, structural zeros left out.
pub fn hessian(source: &str) -> Result<String, Error> {
    let program = parse_program(source)?;
    let [output] = program.outputs.as_slice() else {
        return Err(Error::Usage(format!(
            "a Hessian needs a scalar function; this one has {} outputs",
            program.outputs.len()
        )));
    };
    let hessian = factor::hessian(program.kernel()?, 0);
    let name = plain(&output.name);
    let x: Vec<String> = program.inputs.iter().map(|x| plain(x)).collect();
    let mut outputs = vec![output.clone()];
    for (col, node) in hessian.gradient() {
        outputs.push(Output { name: format!("d_{name}_d_{}", x[col]), node });
    }
    for e in hessian.lower_entries() {
        outputs.push(Output { name: format!("d2_{name}_d_{}_d_{}", x[e.row], x[e.col]), node: e.node });
    }
    Ok(print_program(&program.derived(hessian.dag().clone(), outputs)))
}
