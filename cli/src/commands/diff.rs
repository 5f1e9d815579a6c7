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
    #[arg(required = true, num_args = 1.., allow_negative_numbers = true)]
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
            None if dstar::frontend::parser::check_name(&var).is_some() => {
                return Err(Failure::input(format!("error: '{}' is not a variable name\n", Shown(&var))));
            }
            // As in the REPL: a name the expression does not use is more
            // likely a typo than a request for 0.
            None => {
                let message = crate::session::not_a_variable(&var, &program.inputs);
                return Err(Failure::input(format!("error: {message}\n")));
            }
        }
    }
    let derivative = dstar::partial(&program, &columns, &dstar::Budget::default(), &dstar::Stop::never())
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
            let k = order(word).map_err(|message| Failure::input(format!("error: {message}\n")))?;
            match by.last_mut() {
                Some((_, o @ None)) => *o = Some(k),
                _ => return Err(Failure::input(format!("error: the order {word} must follow a variable\n"))),
            }
        } else {
            by.push((word.clone(), None));
        }
    }
    Ok(by.into_iter().map(|(var, order)| (var, order.unwrap_or(1))).collect())
}

/// A derivative's order as written, here and in the REPL: a whole number,
/// 0 or more, read from its text (an `f64` would round orders past 2^53).
pub fn order(text: &str) -> Result<u64, String> {
    if let Ok(order) = text.parse::<u64>() {
        return Ok(order);
    }
    let compact: String = text.split_whitespace().collect();
    Err(if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        format!("the order must be at most {}", u64::MAX)
    } else if compact.parse::<f64>().is_ok_and(|v| v < 0.0) {
        format!("the order must be 0 or more, found '{}'", Shown(text))
    } else {
        format!("the order must be a whole number such as 2, found '{}'", Shown(text))
    })
}
