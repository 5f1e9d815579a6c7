//! `dstar stats`: op counts of the function, its Jacobian and the
//! forward- and reverse-mode baselines.

use super::progress::Progress;
use super::{load, Failure, PipelineArgs};
use clap::Args;
use dstar::factor::{Ledger, Stage};
use dstar::{Kernel, Program};
use serde_json::json;
use std::path::{Path, PathBuf};
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
    let function = program.kernel().map_err(Failure::internal)?;
    // One search for maps, as a compiled function keeps it for every request.
    let maps = dstar::factor::Maps::default();
    let mut stats = Stats::count(&program, &derived, &function, &maps, symbolic_ms);
    if args.hessian {
        progress.stage("building the Hessian");
        stats.hessian = Some(HessianStats::build(function, &maps, args.pipeline.options().hessian_columns));
    }
    drop(progress);
    if args.json {
        print_json(&stats);
    } else {
        print_text(&args.file, &stats);
    }
    Ok(())
}

/// What `stats` prints about a program beside its Jacobian.
struct Stats<'a> {
    program: &'a Program,
    derived: &'a dstar::Differentiated,
    /// Parse to finished Jacobian.
    symbolic_ms: f64,
    function_ops: usize,
    /// Forward- and reverse-mode baselines, `None` past the work limit.
    forward: Option<usize>,
    reverse: Option<usize>,
    gradient_ops: usize,
    /// Each function's name and the ops of its body, counted once.
    functions: Vec<(String, usize)>,
    call_sites: usize,
    /// Ops with every call written out.
    inlined_ops: u64,
    /// The maps the plan builds compiled Jacobians and Hessians from.
    maps: Option<MapStats>,
    hessian: Option<HessianStats>,
}

/// The maps of a program (`factor::plan::maps`): how many, their
/// instances, and the ops they cover (calls written out).
struct MapStats {
    instances: Vec<usize>,
    mapped_ops: u64,
    written_out_ops: u64,
}

impl MapStats {
    fn find(function: &Kernel, maps: &dstar::factor::Maps) -> Option<MapStats> {
        let d = maps.found(function)?;
        let instances = d.maps.iter().map(|m| m.instances).collect();
        Some(MapStats { instances, mapped_ops: d.mapped_ops(), written_out_ops: d.written_out_ops() })
    }
}

/// The Lagrangian Hessian: the ops of one call, how it was built, the
/// nonzeros of its lower triangle, and the time and work building it took.
struct HessianStats {
    ops: usize,
    method: &'static str,
    nnz: usize,
    ms: f64,
    /// The work of the budgeted stages; `None` for maps, which have none
    /// (each body's Hessian is built whole, once).
    ledger: Option<Ledger>,
}

impl<'a> Stats<'a> {
    /// Counts the ops of `program` (whose kernel is `function`), its
    /// baselines and its functions; no Hessian.
    fn count(
        program: &'a Program,
        derived: &'a dstar::Differentiated,
        function: &Kernel,
        maps: &dstar::factor::Maps,
        symbolic_ms: f64,
    ) -> Stats<'a> {
        let limit = dstar::factor::plan::BASELINE_WORK_LIMIT;
        let function_ops = program.count_ops();
        let forward = dstar::factor::forward_mode_ops(function, limit);
        let reverse = dstar::factor::reverse_mode_ops(function, limit);
        // The cheap gradient principle: one reverse sweep costs a small multiple
        // of the function (of the sum of the outputs, for several).
        let gradient_ops = dstar::factor::gradient(function.clone()).count_ops();
        // Functions: each body's ops once, and the call sites of the program.
        let call_sites = program.count_calls();
        let inlined_ops = dstar::frontend::call::inlined_ops(&program.dag, &program.output_nodes());
        let functions =
            program.functions.iter().map(|f| (f.name().to_string(), f.body().count_ops())).collect();
        Stats {
            program,
            derived,
            symbolic_ms,
            function_ops,
            forward,
            reverse,
            gradient_ops,
            functions,
            call_sites,
            inlined_ops,
            maps: MapStats::find(function, maps),
            hessian: None,
        }
    }
}

impl HessianStats {
    /// Builds the Lagrangian Hessian of `function` as a compiled kernel
    /// has it (as maps where the plan finds them, else by columns where the
    /// plan takes them, if `columns`), timed.
    fn build(function: Kernel, maps: &dstar::factor::Maps, columns: bool) -> HessianStats {
        let start = Instant::now();
        // Each map body's Hessian once: the Hessian of the program written
        // out (gmm 1000: 680 K operations) took minutes and gigabytes.
        if let Some((kernel, lower)) = maps.hessian(&function) {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let (ops, nnz) = (kernel.count_ops(), lower.nnz());
            return HessianStats { ops, method: "maps", nnz, ms, ledger: None };
        }
        if let Some(columns) = columns.then(|| dstar::factor::columns::columns(&function)).flatten() {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let nnz = columns.nnz();
            let mut ledger = Ledger::default();
            ledger.spend(dstar::factor::Stage::Columns, columns.work());
            let stopped = format!("a dense lower triangle of {nnz} nonzeros");
            ledger.fall_back(dstar::factor::Stage::EdgePushing, stopped, "H·V columns");
            return HessianStats {
                ops: columns.count_ops(),
                method: "hvp_columns",
                nnz,
                ms,
                ledger: Some(ledger),
            };
        }
        let h = dstar::factor::lagrangian_hessian(function);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let (ops, method, nnz) = (h.hessian_ops(), h.method().name(), h.lower_pattern().nnz());
        HessianStats { ops, method, nnz, ms, ledger: Some(h.ledger().clone()) }
    }
}

/// `stats --json`: every figure as one JSON object.
fn print_json(s: &Stats) {
    let jacobian = &s.derived.jacobian;
    let (m, n) = jacobian.shape();
    let mut stats = json!({
        "inputs": n,
        "params": s.program.params.len(),
        "outputs": m,
        "function_ops": s.function_ops,
        "jacobian_ops": jacobian.jacobian_ops(),
        "jacobian_nnz": jacobian.nnz(),
        "forward_mode_ops": s.forward,
        "reverse_mode_ops": s.reverse,
        "symbolic_ms": s.symbolic_ms,
        "strategy": jacobian.method().name(),
        "ops_before_simplify": s.derived.ops_before_simplify,
        "gradient_ops": s.gradient_ops,
        "functions": s.functions.iter().map(|(name, ops)| json!({"name": name, "ops": ops})).collect::<Vec<_>>(),
        "call_sites": s.call_sites,
        "inlined_ops": s.inlined_ops,
    });
    stats["jacobian_work"] = ledger_json(jacobian.ledger());
    if let Some(maps) = &s.maps {
        stats["maps"] = json!({
            "instances": maps.instances,
            "mapped_ops": maps.mapped_ops,
            "written_out_ops": maps.written_out_ops,
        });
    }
    if let Some(h) = &s.hessian {
        stats["hessian_ops"] = json!(h.ops);
        stats["hessian_method"] = json!(h.method);
        stats["hessian_lower_nnz"] = json!(h.nnz);
        stats["hessian_ms"] = json!(h.ms);
        if let Some(ledger) = &h.ledger {
            stats["hessian_work"] = ledger_json(ledger);
        }
    }
    if let Some(report) = &s.derived.simplify {
        stats["simplify_stop_reason"] = json!(report.stop_reason.name());
        stats["simplify_ms"] = json!(report.elapsed.as_secs_f64() * 1e3);
        stats["simplify_work"] = json!(report.work_spent);
        stats["simplify_iterations"] = json!(report.iterations);
        stats["simplify_egraph_nodes"] = json!(report.egraph_nodes);
    }
    println!("{stats}");
}

/// `stats`: a table, one figure a line, each with what it counts.
fn print_text(file: &Path, s: &Stats) {
    let jacobian = &s.derived.jacobian;
    let (m, n) = jacobian.shape();
    let params = match s.program.params.len() {
        0 => String::new(),
        1 => ", 1 parameter".to_string(),
        q => format!(", {q} parameters"),
    };
    println!("{}: {n} inputs{params}, {m} outputs", file.display());
    println!("function ops         {:>10}", s.function_ops);
    if !s.functions.is_empty() {
        let bodies: Vec<String> = s.functions.iter().map(|(name, ops)| format!("{name} {ops}")).collect();
        let counted = super::counted(s.functions.len(), "function");
        println!("  {counted}, ops of each body: {}", bodies.join(", "));
        println!("  call sites         {:>10}", s.call_sites);
        println!("  written out        {:>10}   ops with every call written out", s.inlined_ops);
    }
    println!("jacobian ops         {:>10}   function and Jacobian together", jacobian.jacobian_ops());
    let strategy = jacobian.method().name();
    println!("  accumulated by     {strategy:>10}   the cheapest of D* and the vertex eliminations");
    println!("  before subchains   {:>10}", s.derived.ops_before_simplify);
    if let Some(r) = &s.derived.simplify {
        println!(
            "  subchain pass      {:>10.2} ms, stopped: {}",
            r.elapsed.as_secs_f64() * 1e3,
            r.stop_reason
        );
    }
    println!("jacobian nonzeros    {:>10}   of {}", jacobian.nnz(), m * n);
    let limit = dstar::factor::plan::BASELINE_WORK_LIMIT;
    let baseline = |ops: Option<usize>| match ops {
        Some(ops) => format!("{ops:>10}"),
        None => format!("{:>10}", format!("skipped: sweeps over {limit} nodes")),
    };
    println!("forward-mode ops     {}   {n} tangent sweeps", baseline(s.forward));
    println!("reverse-mode ops     {}   {m} adjoint sweeps", baseline(s.reverse));
    println!("gradient ops         {:>10}   function and one reverse sweep", s.gradient_ops);
    print_ledger("jacobian", jacobian.ledger());
    if let Some(maps) = &s.maps {
        let instances: usize = maps.instances.iter().sum();
        let maps_counted = super::counted(maps.instances.len(), "map");
        let values = dstar::factor::plan::maps_pay(dstar::Request::Values, maps.written_out_ops);
        let users = if values {
            "compiled values, J, gradient and H use them"
        } else {
            "compiled J, gradient and H use them"
        };
        println!("maps                 {maps_counted:>10}   over {instances} instances: {users}");
        println!(
            "  covering           {:>10}   of {} ops written out (copies of shared values included)",
            maps.mapped_ops, maps.written_out_ops
        );
    }
    if let Some(h) = &s.hessian {
        println!("hessian ops          {:>10}   one Lagrangian Hessian call, by {}", h.ops, h.method);
        println!("  lower triangle     {:>10}   nonzeros, built in {:.2} ms", h.nnz, h.ms);
        if let Some(ledger) = &h.ledger {
            print_ledger("hessian", ledger);
        }
    }
    println!("symbolic time        {:>10.2} ms   parse to finished Jacobian", s.symbolic_ms);
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
