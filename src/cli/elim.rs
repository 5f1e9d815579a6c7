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
    let (outputs, n) = (program.output_nodes(), program.inputs.len());
    let reports = factor::eliminate::strategies(&program.dag, &outputs, n);
    let default = factor::jacobian(&program);
    drop(progress);
    let picked = default.method().name();
    if args.json {
        let strategies: Vec<Value> = reports
            .iter()
            .map(|r| {
                let mut row = json!({"name": r.name, "mults": r.mults, "adds": r.adds, "nonunit_edges": r.nonunit_edges});
                if let Some(reason) = &r.skipped {
                    row["skipped"] = json!(reason);
                }
                row
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
        match &r.skipped {
            Some(reason) => println!("{:<20} skipped: {reason}", r.name),
            None => println!("{:<20} {:>10} {:>10} {:>14}", r.name, r.mults, r.adds, r.nonunit_edges),
        }
    }
    println!("default: {picked} ({} ops with the function)", default.jacobian_ops());
    Ok(())
}
