//! `dstar diff`: the derivative of an expression, as text.

use super::Failure;
use clap::Args;

#[derive(Args)]
pub struct DiffArgs {
    /// The expression. Example: "sin(x*y) + x^2"
    expr: String,
    /// The variable to differentiate by.
    var: String,
    /// How many times to differentiate.
    #[arg(default_value_t = 1)]
    order: usize,
}

pub fn run(args: &DiffArgs) -> Result<(), Failure> {
    let text = dstar::derivative_n(&args.expr, &args.var, args.order)
        .map_err(|e| Failure::input(format!("error: {}", e.render(&args.expr))))?;
    println!("{text}");
    Ok(())
}
