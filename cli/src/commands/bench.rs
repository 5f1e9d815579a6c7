//! `dstar bench`: times the compiled function and Jacobian kernels.

use super::progress::Progress;
use super::{load, params, point, values, Failure, PipelineArgs, Values};
use clap::Args;
use dstar::factor::Symbolic;
use dstar::Native;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// The point to call the kernels at (default: the file's `# @point`, or
    /// 0.5 for every input).
    #[arg(long, value_parser = values, allow_hyphen_values = true)]
    at: Option<Values>,
    /// The parameters' values (default: the file's `# @params`).
    #[arg(long, value_parser = values, allow_hyphen_values = true)]
    params: Option<Values>,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Also time one call of the Lagrangian Hessian kernel (weights 1).
    #[arg(long)]
    hessian: bool,
    /// Print {"function_ns_median":..,"jacobian_ns_median":..,"compile_ms":..,"symbolic_ms":..}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    let progress = Progress::start("parsing");
    let start = Instant::now();
    let program = load(&args.file)?;
    progress.stage("factoring the Jacobian");
    // The Jacobian Function::compile builds (maps where the plan finds
    // them), compiled below on its own to time the two stages apart.
    let jacobian = dstar::Function::new(program.clone(), args.pipeline.options())
        .symbolic(dstar::Request::Jacobian)
        .map_err(Failure::internal)?;
    let nnz = jacobian.layout.pattern().expect("a Jacobian's pattern").nnz();
    let symbolic_ms = start.elapsed().as_secs_f64() * 1e3;
    let x = match (&args.at, &program.point) {
        (None, None) => vec![0.5; program.inputs.len()],
        (at, _) => point(at.as_deref(), &program, &args.file)?,
    };
    let p = params(args.params.as_deref(), &program, &args.file)?;
    let args_of = dstar::Args::x(&x).p(&p);
    progress.stage("compiling");
    let compiled = |request| {
        let function = dstar::Function::new(program.clone(), args.pipeline.options());
        function.compile(request).map_err(Failure::internal)
    };
    let function = compiled(dstar::Request::Values)?;
    // Compiling alone: the symbolic stage was timed above.
    let compiler = args.pipeline.compiler()?;
    let start = Instant::now();
    let lengths = [x.len(), p.len()];
    let codegen = |e: dstar::backend::CodegenError| Failure::internal(dstar::Error::from(e));
    let kernel = match &jacobian.kernel {
        Symbolic::Whole(kernel) => Native::Jit(compiler.compile_parts(kernel, &lengths).map_err(codegen)?),
        Symbolic::Maps(kernel) => Native::Mapped(compiler.compile_mapped(kernel, &lengths).map_err(codegen)?),
        Symbolic::Columns(_) => unreachable!("a Jacobian is never by columns"),
    };
    let compile_ms = start.elapsed().as_secs_f64() * 1e3;
    progress.stage("timing");
    let mut out = vec![0.0; function.out_len()];
    let function_ns = dstar::timing::median_ns(|| {
        function.eval(std::hint::black_box(args_of), &mut out).expect("lengths checked")
    });
    let mut out = vec![0.0; kernel.num_outputs()];
    let jacobian_ns = dstar::timing::median_ns(|| {
        kernel.eval_parts(std::hint::black_box(&[&x, &p]), &mut out).expect("lengths checked")
    });
    let hessian = if args.hessian {
        progress.stage("building and timing the Hessian");
        let start = Instant::now();
        let kernel = compiled(dstar::Request::Hessian)?;
        let setup_ms = start.elapsed().as_secs_f64() * 1e3;
        let w = vec![1.0; program.outputs.len()];
        let mut out = vec![0.0; kernel.out_len()];
        let ns = dstar::timing::median_ns(|| {
            kernel.eval(std::hint::black_box(args_of.w(&w)), &mut out).expect("lengths checked")
        });
        Some((ns, setup_ms, kernel.out_len()))
    } else {
        None
    };
    drop(progress);
    if args.json {
        let mut report = json!({
            "function_ns_median": function_ns,
            "jacobian_ns_median": jacobian_ns,
            "compile_ms": compile_ms,
            "symbolic_ms": symbolic_ms,
        });
        if let Some((ns, setup_ms, _)) = hessian {
            report["hessian_ns_median"] = json!(ns);
            report["hessian_setup_ms"] = json!(setup_ms);
        }
        println!("{report}");
    } else {
        println!("{}:", args.file.display());
        println!("function call        {function_ns:>10.1} ns (median)");
        let how = if matches!(jacobian.kernel, Symbolic::Maps(_)) { ", as maps" } else { "" };
        println!("function + Jacobian  {jacobian_ns:>10.1} ns (median), {nnz} nonzeros{how}");
        println!("compile              {compile_ms:>10.2} ms");
        println!("symbolic             {symbolic_ms:>10.2} ms");
        if let Some((ns, setup_ms, nnz)) = hessian {
            println!("lagrangian hessian   {ns:>10.1} ns (median), {nnz} nonzeros in the lower triangle");
            println!("  built and compiled {setup_ms:>10.2} ms");
        }
    }
    Ok(())
}
