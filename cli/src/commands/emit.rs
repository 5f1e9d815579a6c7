//! `dstar emit`: the Jacobian program as text, C, Rust or Graphviz.

use super::{load, Failure, PipelineArgs};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
enum Target {
    /// The problem format: the function's outputs, then `d_<out>_d_<in>` entries.
    Text,
    /// A self-contained C99 function `void NAME(const double *x, double *out)`.
    C,
    /// A dependency-free Rust function `fn NAME(x: &[f64], out: &mut [f64])`.
    Rust,
    /// The derivative graph in Graphviz `dot` syntax.
    Dot,
}

#[derive(Args)]
pub struct EmitArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// What to write. Example: dstar emit examples/lyons.dstar --target c
    #[arg(long, value_enum, default_value = "text")]
    target: Target,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// The name of the emitted function (C and Rust).
    #[arg(long, default_value = "jacobian")]
    name: String,
}

pub fn run(args: &EmitArgs) -> Result<(), Failure> {
    let program = load(&args.file)?;
    let text = match args.target {
        Target::Text => {
            let source = std::fs::read_to_string(&args.file).map_err(Failure::internal)?;
            dstar::jacobian(&source).map_err(Failure::internal)?
        }
        Target::C | Target::Rust => {
            let jacobian =
                dstar::differentiate(&program, &args.pipeline.options()).map_err(Failure::internal)?.jacobian;
            let layout = layout_comment(&program, &jacobian);
            let code = match args.target {
                Target::C => dstar::backend::emit_c(jacobian.kernel(), &args.name),
                _ => dstar::backend::emit_rust(jacobian.kernel(), &args.name),
            };
            format!("{layout}{}", code.map_err(|e| Failure::input(format!("error: {e}\n")))?)
        }
        Target::Dot => dstar::derivative_graph_dot(&program).map_err(Failure::internal)?,
    };
    print!("{text}");
    Ok(())
}

/// A comment naming each slot of `x` and `out`.
fn layout_comment(program: &dstar::frontend::Program, jacobian: &dstar::factor::Jacobian) -> String {
    let mut s = format!("// x = [{}]\n", program.inputs.join(", "));
    let mut slots = program.output_names();
    for e in jacobian.entries() {
        slots.push(format!("d {}/d {}", program.outputs[e.row].name, program.inputs[e.col]));
    }
    s += &format!("// out = [{}]\n", slots.join(", "));
    s
}
