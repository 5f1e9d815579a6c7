//! `dstar eval`: a problem file's outputs at a point.

use super::{json, load, point, Failure};
use clap::Args;
use serde_json::{Map, Value};
use std::path::PathBuf;

#[derive(Args)]
pub struct EvalArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// The point, one value per input, comma-separated (default: the file's
    /// `# @point` comment). Example: --at 0.7,-1.3
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    at: Option<Vec<f64>>,
    /// Print {"inputs":[..],"outputs":[..],"values":[..]} instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &EvalArgs) -> Result<(), Failure> {
    let program = load(&args.file)?;
    let x = point(args.at.as_deref(), &program, &args.file)?;
    let values = frontend::eval_program(&program, &x);
    let names = program.output_names();
    if args.json {
        let mut obj = Map::new();
        obj.insert("inputs".into(), json::strings(&program.inputs));
        obj.insert("outputs".into(), json::strings(&names));
        obj.insert("values".into(), json::numbers(&values));
        println!("{}", Value::Object(obj));
    } else {
        for (name, v) in names.iter().zip(&values) {
            println!("{name} = {v}");
        }
    }
    Ok(())
}
