//! `dstar stats`: op counts of the function, its Jacobian and the
//! forward- and reverse-mode baselines.

use super::progress::Progress;
use super::{load, Failure, PipelineArgs};
use clap::Args;
use dstar::factor::{Ledger, Stage};
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct StatsArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// Also build the Hessian of the Lagrangian Σ w_i f_i: its method and
    /// the ops of one Hessian call.
    #[arg(long)]
    hessian: bool,
    /// Print {"inputs":..,"outputs":..,"function_ops":..,"jacobian_ops":..,...}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &StatsArgs) -> Result<(), Failure> {
    let progress = Progress::start("parsing");
    let start = Instant::now();
    let program = load(&args.file)?;
    progress.stage("differentiating");
    let derived = dstar::differentiate(&program, &args.pipeline.options()).map_err(Failure::internal)?;
    let symbolic_ms = start.elapsed().as_secs_f64() * 1e3;
    progress.stage("counting the baselines");
    let jacobian = &derived.jacobian;
    let (m, n) = jacobian.shape();
    let function = program.kernel().map_err(Failure::internal)?;
    let function_ops = program.count_ops();
    let jacobian_ops = jacobian.jacobian_ops();
    let limit = dstar::factor::plan::BASELINE_WORK_LIMIT;
    let forward = dstar::factor::forward_mode_ops(&function, limit);
    let reverse = dstar::factor::reverse_mode_ops(&function, limit);
    // The cheap gradient principle: one reverse sweep costs a small multiple
    // of the function (of the sum of the outputs, for several).
    let gradient_ops = dstar::factor::gradient(function.clone()).count_ops();
    let hessian = args.hessian.then(|| {
        progress.stage("building the Hessian");
        let start = Instant::now();
        let h = dstar::factor::lagrangian_hessian(function);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        (h.hessian_ops(), h.method(), h.lower_pattern().nnz(), ms, h.ledger().clone())
    });
    drop(progress);
    let strategy = jacobian.method().name();
    let simplify = derived.simplify.as_ref();
    // Functions: each body's ops once, and the call sites of the program.
    let roots = program.output_nodes();
    let call_sites = program.count_calls();
    let inlined_ops = dstar::frontend::call::inlined_ops(&program.dag, &roots);
    let functions: Vec<(String, usize)> =
        program.functions.iter().map(|f| (f.name().to_string(), f.body().count_ops())).collect();
    if args.json {
        let mut stats = json!({
            "inputs": n,
            "params": program.params.len(),
            "outputs": m,
            "function_ops": function_ops,
            "jacobian_ops": jacobian_ops,
            "jacobian_nnz": jacobian.nnz(),
            "forward_mode_ops": forward,
            "reverse_mode_ops": reverse,
            "symbolic_ms": symbolic_ms,
            "strategy": strategy,
            "ops_before_simplify": derived.ops_before_simplify,
            "gradient_ops": gradient_ops,
            "functions": functions.iter().map(|(name, ops)| json!({"name": name, "ops": ops})).collect::<Vec<_>>(),
            "call_sites": call_sites,
            "inlined_ops": inlined_ops,
        });
        stats["jacobian_work"] = ledger_json(jacobian.ledger());
        if let Some((ops, method, nnz, ms, ledger)) = &hessian {
            stats["hessian_ops"] = json!(ops);
            stats["hessian_method"] = json!(method.name());
            stats["hessian_lower_nnz"] = json!(nnz);
            stats["hessian_ms"] = json!(ms);
            stats["hessian_work"] = ledger_json(ledger);
        }
        if let Some(report) = simplify {
            stats["simplify_stop_reason"] = json!(report.stop_reason.name());
            stats["simplify_ms"] = json!(report.elapsed.as_secs_f64() * 1e3);
            stats["simplify_work"] = json!(report.work_spent);
            stats["simplify_iterations"] = json!(report.iterations);
            stats["simplify_egraph_nodes"] = json!(report.egraph_nodes);
        }
        println!("{stats}");
    } else {
        let params = match program.params.len() {
            0 => String::new(),
            1 => ", 1 parameter".to_string(),
            q => format!(", {q} parameters"),
        };
        println!("{}: {n} inputs{params}, {m} outputs", args.file.display());
        println!("function ops         {function_ops:>10}");
        if !functions.is_empty() {
            let bodies: Vec<String> = functions.iter().map(|(name, ops)| format!("{name} {ops}")).collect();
            let counted = super::counted(functions.len(), "function");
            println!("  {counted}, ops of each body: {}", bodies.join(", "));
            println!("  call sites         {call_sites:>10}");
            println!("  written out        {inlined_ops:>10}   ops with every call written out");
        }
        println!("jacobian ops         {jacobian_ops:>10}   function and Jacobian together");
        println!("  accumulated by     {strategy:>10}   the cheapest of D* and the vertex eliminations");
        println!("  before subchains   {:>10}", derived.ops_before_simplify);
        if let Some(r) = simplify {
            println!(
                "  subchain pass      {:>10.2} ms, stopped: {}",
                r.elapsed.as_secs_f64() * 1e3,
                r.stop_reason
            );
        }
        println!("jacobian nonzeros    {:>10}   of {}", jacobian.nnz(), m * n);
        let baseline = |ops: Option<usize>| match ops {
            Some(ops) => format!("{ops:>10}"),
            None => format!("{:>10}", format!("skipped: sweeps over {limit} nodes")),
        };
        println!("forward-mode ops     {}   {n} tangent sweeps", baseline(forward));
        println!("reverse-mode ops     {}   {m} adjoint sweeps", baseline(reverse));
        println!("gradient ops         {gradient_ops:>10}   function and one reverse sweep");
        print_ledger("jacobian", jacobian.ledger());
        if let Some((ops, method, nnz, ms, ledger)) = &hessian {
            println!("hessian ops          {ops:>10}   one Lagrangian Hessian call, by {method}");
            println!("  lower triangle     {nnz:>10}   nonzeros, built in {ms:.2} ms");
            print_ledger("hessian", ledger);
        }
        println!("symbolic time        {symbolic_ms:>10.2} ms   parse to finished Jacobian");
    }
    Ok(())
}

/// `{"total": .., "<stage>": .., "fallbacks": [{"stage", "stopped", "instead"}]}`,
/// stages that spent nothing left out.
fn ledger_json(ledger: &Ledger) -> serde_json::Value {
    let mut work = json!({ "total": ledger.total() });
    for stage in Stage::ALL.into_iter().filter(|&stage| ledger.spent(stage) > 0) {
        work[stage.name()] = json!(ledger.spent(stage));
    }
    work["fallbacks"] = ledger
        .fallbacks()
        .iter()
        .map(|f| json!({"stage": f.stage.name(), "stopped": f.stopped, "instead": f.instead}))
        .collect();
    work
}

/// The work per stage of building the `what` (a Jacobian or a Hessian),
/// then each fallback on a line of its own.
fn print_ledger(what: &str, ledger: &Ledger) {
    let spent: Vec<String> = Stage::ALL
        .into_iter()
        .filter(|&stage| ledger.spent(stage) > 0)
        .map(|stage| format!("{stage} {}", ledger.spent(stage)))
        .collect();
    println!(
        "  {what} work {:>width$}   units: {}",
        ledger.total(),
        spent.join(", "),
        width = 19 - what.len()
    );
    for fallback in ledger.fallbacks() {
        println!("  fell back          {fallback}");
    }
}
