//! `dstar bench`: times the compiled function and Jacobian kernels.

use super::{load, point, Failure};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct BenchArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// The point to call the kernels at (default: the file's `# @point`, or
    /// 0.5 for every input).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, num_args = 1)]
    at: Option<Vec<f64>>,
    /// Print {"function_ns_median":..,"jacobian_ns_median":..,"compile_ms":..,"symbolic_ms":..}.
    #[arg(long)]
    json: bool,
}

/// Median nanoseconds per call of `f`, over batches lasting at least 0.2 s in
/// all, after a warm-up.
pub fn median_ns(mut f: impl FnMut()) -> f64 {
    let warm = Instant::now();
    let mut calls_per_batch = 1usize;
    while warm.elapsed() < Duration::from_millis(20) {
        for _ in 0..calls_per_batch {
            f();
        }
        calls_per_batch *= 2;
    }
    // Batches of about 1 ms each, so timer overhead is negligible.
    let per_call = warm.elapsed().as_secs_f64() / (2 * calls_per_batch - 1) as f64;
    let batch = ((1e-3 / per_call.max(1e-9)) as usize).max(1);
    let mut samples = vec![];
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(200) || samples.len() < 11 {
        let t = Instant::now();
        for _ in 0..batch {
            f();
        }
        samples.push(t.elapsed().as_secs_f64() * 1e9 / batch as f64);
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    let start = Instant::now();
    let program = load(&args.file)?;
    let jacobian = factor::jacobian(&program);
    let symbolic_ms = start.elapsed().as_secs_f64() * 1e3;
    let x = match (&args.at, &program.point) {
        (None, None) => vec![0.5; program.inputs.len()],
        (at, _) => point(at.as_deref(), &program, &args.file)?,
    };
    let compiler = backend::JitCompiler::new().map_err(Failure::internal)?;
    let n = program.inputs.len();
    let function = compiler.compile(&program.dag, &program.output_nodes(), n).map_err(Failure::internal)?;
    let start = Instant::now();
    let kernel = dstar::JacobianKernel::compile(&jacobian, &compiler).map_err(Failure::internal)?;
    let compile_ms = start.elapsed().as_secs_f64() * 1e3;
    let mut out = vec![0.0; function.num_outputs()];
    let function_ns =
        median_ns(|| function.eval(std::hint::black_box(&x), &mut out).expect("lengths checked"));
    let mut out = vec![0.0; kernel.out_len()];
    let jacobian_ns = median_ns(|| kernel.eval(std::hint::black_box(&x), &mut out).expect("lengths checked"));
    if args.json {
        let report = json!({
            "function_ns_median": function_ns,
            "jacobian_ns_median": jacobian_ns,
            "compile_ms": compile_ms,
            "symbolic_ms": symbolic_ms,
        });
        println!("{report}");
    } else {
        println!("{}:", args.file.display());
        println!("function call        {function_ns:>10.1} ns (median)");
        println!("function + Jacobian  {jacobian_ns:>10.1} ns (median), {} nonzeros", kernel.pattern().nnz());
        println!("compile              {compile_ms:>10.2} ms");
        println!("symbolic             {symbolic_ms:>10.2} ms");
    }
    Ok(())
}
