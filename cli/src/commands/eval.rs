//! `dstar eval`: a problem file's outputs (and Jacobian, Hessians) at a point.

use super::progress::Progress;
use super::{json, load, point, Failure, PipelineArgs};
use clap::Args;
use dstar::frontend::Program;
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
    /// Also print the Jacobian (dense, one row per output).
    #[arg(long)]
    jacobian: bool,
    /// Also print the Hessian of every output (one n×n matrix each).
    #[arg(long)]
    hessian: bool,
    /// Use the reference interpreter instead of the JIT.
    #[arg(long)]
    interp: bool,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Print {"inputs":[..],"outputs":[..],"values":[..],"jacobian":[[..]],..}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &EvalArgs) -> Result<(), Failure> {
    let progress = Progress::start("parsing");
    let program = load(&args.file)?;
    let x = point(args.at.as_deref(), &program, &args.file)?;
    progress.stage("differentiating and compiling");
    let (values, jacobian) = if args.jacobian {
        let (v, j) = eval_jacobian(&program, &x, args.interp, &args.pipeline.options())?;
        (v, Some(j))
    } else {
        (eval_function(&program, &x, args.interp)?, None)
    };
    let hessians = if args.hessian { Some(eval_hessians(&program, &x, args.interp)?) } else { None };
    drop(progress);
    let names = program.output_names();
    if args.json {
        let mut obj = Map::new();
        obj.insert("inputs".into(), json::strings(&program.inputs));
        obj.insert("outputs".into(), json::strings(&names));
        obj.insert("values".into(), json::numbers(&values));
        if let Some(j) = &jacobian {
            obj.insert("jacobian".into(), json::matrix(j));
        }
        if let Some(h) = &hessians {
            obj.insert("hessian".into(), Value::Array(h.iter().map(|m| json::matrix(m)).collect()));
        }
        println!("{}", Value::Object(obj));
        return Ok(());
    }
    for (i, (name, v)) in names.iter().zip(&values).enumerate() {
        println!("{name} = {v}");
        if let Some(j) = &jacobian {
            println!("  gradient: {}", row_text(&j[i]));
        }
        if let Some(h) = &hessians {
            println!("  hessian:");
            for row in &h[i] {
                println!("    {}", row_text(row));
            }
        }
    }
    Ok(())
}

fn row_text(row: &[f64]) -> String {
    let items: Vec<String> = row.iter().map(|v| v.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn eval_function(program: &Program, x: &[f64], interp: bool) -> Result<Vec<f64>, Failure> {
    if interp {
        return Ok(dstar::frontend::eval_program(program, x));
    }
    let function = program.kernel().map_err(Failure::internal)?;
    let kernel =
        dstar::backend::JitCompiler::new().and_then(|c| c.compile(&function)).map_err(Failure::internal)?;
    let mut out = vec![0.0; program.outputs.len()];
    kernel.eval(x, &mut out).map_err(Failure::internal)?;
    Ok(out)
}

type Matrix = Vec<Vec<f64>>;

fn eval_jacobian(
    program: &Program,
    x: &[f64],
    interp: bool,
    options: &dstar::Options,
) -> Result<(Vec<f64>, Matrix), Failure> {
    let jacobian = dstar::differentiate(program, options).map_err(Failure::internal)?.jacobian;
    if interp {
        return Ok(jacobian.eval(x));
    }
    let compiler = dstar::backend::JitCompiler::new().map_err(Failure::internal)?;
    let kernel = dstar::JacobianKernel::compile(&jacobian, &compiler).map_err(Failure::internal)?;
    kernel.eval_dense(x).map_err(Failure::internal)
}

fn eval_hessians(program: &Program, x: &[f64], interp: bool) -> Result<Vec<Matrix>, Failure> {
    let compiler =
        if interp { None } else { Some(dstar::backend::JitCompiler::new().map_err(Failure::internal)?) };
    let function = program.kernel().map_err(Failure::internal)?;
    let mut matrices = vec![];
    for output in 0..program.outputs.len() {
        let hessian = dstar::factor::hessian(function.clone(), output);
        let out = match &compiler {
            None => hessian.kernel().eval(x),
            Some(c) => {
                let kernel = c.compile(hessian.kernel()).map_err(Failure::internal)?;
                let mut out = vec![0.0; kernel.num_outputs()];
                kernel.eval(x, &mut out).map_err(Failure::internal)?;
                out
            }
        };
        let layout = hessian.layout();
        let parts = layout.split(&out);
        matrices.push(layout.blocks()[2].to_dense(parts[2]));
    }
    Ok(matrices)
}
