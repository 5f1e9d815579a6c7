//! `dstar stats`: op counts of the function, its D* Jacobian and the
//! forward- and reverse-mode baselines.

use super::progress::Progress;
use super::{load, Failure};
use clap::Args;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct StatsArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// Print {"inputs":..,"outputs":..,"function_ops":..,"jacobian_ops":..,...}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &StatsArgs) -> Result<(), Failure> {
    let progress = Progress::start("parsing");
    let start = Instant::now();
    let program = load(&args.file)?;
    progress.stage("factoring the Jacobian");
    let jacobian = factor::jacobian(&program);
    let symbolic_ms = start.elapsed().as_secs_f64() * 1e3;
    progress.stage("counting the baselines");
    let (m, n) = jacobian.shape();
    let outputs = program.output_nodes();
    let function_ops = program.count_ops();
    let jacobian_ops = jacobian.dag.count_ops(&jacobian.kernel_roots());
    let forward = factor::forward_mode_ops(&program.dag, &outputs, n);
    let reverse = factor::reverse_mode_ops(&program.dag, &outputs, n);
    drop(progress);
    if args.json {
        let stats = json!({
            "inputs": n,
            "outputs": m,
            "function_ops": function_ops,
            "jacobian_ops": jacobian_ops,
            "jacobian_nnz": jacobian.nnz(),
            "forward_mode_ops": forward,
            "reverse_mode_ops": reverse,
            "symbolic_ms": symbolic_ms,
        });
        println!("{stats}");
    } else {
        println!("{}: {n} inputs, {m} outputs", args.file.display());
        println!("function ops         {function_ops:>10}");
        println!("jacobian ops (D*)    {jacobian_ops:>10}   function and Jacobian together");
        println!("jacobian nonzeros    {:>10}   of {}", jacobian.nnz(), m * n);
        println!("forward-mode ops     {forward:>10}   {n} tangent sweeps");
        println!("reverse-mode ops     {reverse:>10}   {m} adjoint sweeps");
        println!("symbolic time        {symbolic_ms:>10.2} ms");
    }
    Ok(())
}
