//! `dstar diff`: a derivative of an expression, as text: any order, by any
//! variables in turn (mixed partials), by Taylor-mode propagation within the
//! same work budget as the REPL.

use super::Failure;
use clap::Args;
use dstar::frontend::shown::Shown;

#[derive(Args)]
pub struct DiffArgs {
    /// The expression. Example: "sin(x*y) + x^2"
    expr: String,
    /// The variables to differentiate by, each followed by its order if it
    /// is not 1: `x`, `x 3`, `x y`, `x 2 y`. Stops early when the
    /// derivative is 0 or repeats.
    #[arg(required = true, num_args = 1..)]
    by: Vec<String>,
}

pub fn run(args: &DiffArgs) -> Result<(), Failure> {
    let program = dstar::parse_expr(&args.expr)
        .map_err(|e| Failure::input(format!("error: {}", e.render(&args.expr))))?;
    let by = variables(&args.by)?;
    let mut columns = vec![];
    for (var, order) in by {
        match program.inputs.iter().position(|i| *i == var) {
            Some(col) => columns.push((col, order)),
            None if dstar::parse_expr_with_inputs("0", &[var.as_str()]).is_err() => {
                return Err(Failure::input(format!("error: '{}' is not a variable name\n", Shown(&var))));
            }
            // A variable the expression does not use: the derivative is 0.
            None if order > 0 => {
                println!("0");
                return Ok(());
            }
            None => {}
        }
    }
    let derivative = dstar::partial(&program, &columns, &dstar::Budget::default(), &|| false)
        .map_err(|e| Failure::input(format!("error: {e}\n")))?;
    println!("{}", dstar::print_expr(&derivative.dag, derivative.outputs[0].node, &derivative.inputs));
    Ok(())
}

/// `x 2 y` as `[(x, 2), (y, 1)]`: a number after a variable is its order.
fn variables(words: &[String]) -> Result<Vec<(String, u64)>, Failure> {
    let mut by: Vec<(String, Option<u64>)> = vec![];
    for word in words {
        // A number is an order (`2.5` a wrong one); `2x` is a wrong name.
        if word.parse::<f64>().is_ok() {
            let order = word.parse().map_err(|_| {
                Failure::input(format!("error: the order '{}' must be a whole number\n", Shown(word)))
            })?;
            match by.last_mut() {
                Some((_, o @ None)) => *o = Some(order),
                _ => return Err(Failure::input(format!("error: the order {word} must follow a variable\n"))),
            }
        } else {
            by.push((word.clone(), None));
        }
    }
    Ok(by.into_iter().map(|(var, order)| (var, order.unwrap_or(1))).collect())
}
