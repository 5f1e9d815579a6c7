//! `dstar elim`: every elimination strategy's cost beside D*'s.

use super::progress::Progress;
use super::{load, Failure};
use clap::Args;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Args)]
pub struct ElimArgs {
    /// The problem file (.dstar).
    file: PathBuf,
    /// Print {"strategies":[{"name":..,"mults":..,"adds":..,"nonunit_edges":..}, ...]}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &ElimArgs) -> Result<(), Failure> {
    let progress = Progress::start("eliminating");
    let program = load(&args.file)?;
    let function = program.kernel().map_err(Failure::internal)?;
    let reports = dstar::factor::strategies(&function);
    let default = dstar::factor::jacobian(function);
    drop(progress);
    let picked = default.method().name();
    if args.json {
        let strategies: Vec<Value> = reports
            .iter()
            .map(|r| match &r.outcome {
                Ok(o) => json!({"name": name(r), "mults": o.cost.mults, "adds": o.cost.adds, "nonunit_edges": o.nonunit_edges}),
                Err(skip) => json!({"name": name(r), "mults": 0, "adds": 0, "nonunit_edges": 0, "skipped": skip.to_string()}),
            })
            .collect();
        println!(
            "{}",
            json!({"strategies": strategies, "default": picked, "dstar_jacobian_ops": default.jacobian_ops()})
        );
        return Ok(());
    }
    println!("{}: multiplications + additions to accumulate the Jacobian", args.file.display());
    println!("{:<20} {:>10} {:>10} {:>14}", "strategy", "mults", "adds", "nonunit edges");
    for r in &reports {
        match &r.outcome {
            Err(skip) => println!("{:<20} skipped: {skip}", name(r)),
            Ok(o) => {
                println!("{:<20} {:>10} {:>10} {:>14}", name(r), o.cost.mults, o.cost.adds, o.nonunit_edges)
            }
        }
    }
    println!("default: {picked} ({} ops with the function)", default.jacobian_ops());
    Ok(())
}

/// The row's name: the elimination's, or `dstar` for D* (whichever variant).
fn name(report: &dstar::factor::StrategyReport) -> &'static str {
    match report.method {
        dstar::factor::Method::Dstar(_) => "dstar",
        method => method.name(),
    }
}
