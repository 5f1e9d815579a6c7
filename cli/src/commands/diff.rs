//! `dstar diff`: the derivative of an expression, as text.

use super::Failure;
use crate::session::{nth_derivative, Limits};
use clap::Args;
use std::sync::atomic::AtomicBool;

#[derive(Args)]
pub struct DiffArgs {
    /// The expression. Example: "sin(x*y) + x^2"
    expr: String,
    /// The variable to differentiate by.
    var: String,
    /// How many times to differentiate. Stops early when the derivative is
    /// 0 or repeats; bounded in DAG nodes, as in the REPL.
    #[arg(default_value_t = 1)]
    order: u64,
}

pub fn run(args: &DiffArgs) -> Result<(), Failure> {
    let program = dstar::parse_expr(&args.expr)
        .map_err(|e| Failure::input(format!("error: {}", e.render(&args.expr))))?;
    let col = program.inputs.iter().position(|i| *i == args.var);
    if col.is_none() && dstar::parse_expr_with_inputs("0", &[args.var.as_str()]).is_err() {
        return Err(Failure::input(format!("error: '{}' is not a variable name\n", args.var)));
    }
    let derivative = nth_derivative(&program, col, args.order, Limits::default(), &AtomicBool::new(false))
        .map_err(|e| Failure::input(format!("error: {}\n", e.message)))?;
    println!("{}", dstar::print_expr(&derivative.dag, derivative.outputs[0].node, &derivative.inputs));
    Ok(())
}
