//! Case `ba` of the section `structured` (issue 36): ADBench's bundle
//! adjustment (`examples/peers/ba.py`, 21 cameras, p observations, p / 10
//! points) from text to dstar's sparse Jacobian, against JAX's
//! `jit(vmap(jacfwd))` per-observation blocks (`examples/peers/jax_ba.py`),
//! both on CPU 1, XLA on one thread; values and Jacobians checked against
//! each other at the file's point.

use crate::families::{derivative_entries, load_average, ms, sparse_difference, us, Case};
use crate::jax::{jax_available, JaxPeer};
use crate::serve::{Kind, Served};
use crate::timing::{alternating_timed, Timed};
use crate::Bench;
use std::path::{Path, PathBuf};
use std::process::Command;

const CAMERAS: usize = 21;
const OBSERVATIONS: [usize; 2] = [1000, 10_000];
/// Columns of a reprojection row: a camera's 11, a point's 3, a weight.
const BLOCK: usize = 15;

/// Writes `ba.py CAMERAS p/10 p [--json]` (the program, or its data for JAX) into `dir`.
fn generate(dir: &Path, p: usize, json: bool) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("ba_{p}.{}", if json { "json" } else { "dstar" }));
    if path.exists() {
        return Ok(path);
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/peers/ba.py");
    let mut command = Command::new("python3");
    command.arg(&script).args([CAMERAS, p / 10, p].map(|v| v.to_string()));
    if json {
        command.arg("--json");
    }
    let out = command.output().map_err(|e| format!("python3 {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("ba.py failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::write(&path, out.stdout).map_err(|e| e.to_string())?;
    Ok(path)
}

pub fn ba(bench: &Bench, dir: &Path) {
    println!(
        "\nba (ADBench bundle adjustment, {CAMERAS} cameras, p / 10 points): dstar parse -> compiled sparse \
         Jacobian against JAX jit(vmap(jacfwd)) blocks, both on CPU 1 (taskset), XLA one thread; load average {}",
        load_average()
    );
    let with_jax = jax_available();
    let mut cases = Vec::new();
    let mut peers: Vec<Option<JaxPeer>> = Vec::new();
    for p in OBSERVATIONS {
        let started = generate(dir, p, false)
            .and_then(|path| Served::start(&path, &[Kind::Jacobian], Some("1")).map(|served| (path, served)));
        let case = match started {
            Ok((path, served)) => Case { form: "structured", n: p, units: p as f64, path, served },
            Err(why) => {
                println!("  ba {p}: skipped: {why}");
                continue;
            }
        };
        let r = &case.served.report;
        println!(
            "  p = {p}: {} operations inlined, {} Jacobian nonzeros; set-up {} (parse {}, symbolic {}, JIT {}), \
             peak {:.0} MB",
            r.inlined_ops,
            r.kernel(Kind::Jacobian).map_or(0, |k| k.nnz),
            ms(r.ms("parse") + r.ms("jacobian")),
            ms(r.ms("parse")),
            ms(r.ms("jacobian symbolic")),
            ms(r.ms("jacobian JIT")),
            r.peak_kb as f64 / 1024.0
        );
        let peer = if with_jax { jax_peer(bench, dir, &case) } else { None };
        cases.push(case);
        peers.push(peer);
    }
    let mut timed: Vec<Timed<'_>> = Vec::new();
    for (case, peer) in cases.iter().zip(&peers) {
        timed.push(Box::new(move |calls| case.served.run(Kind::Jacobian, calls)));
        if let Some(peer) = peer {
            timed.push(Box::new(move |calls| peer.run("jacobian", calls)));
        }
    }
    let ns = alternating_timed(bench.settings.budget * 2 * cases.len().max(1) as u32, &mut timed);
    drop(timed);
    println!("load average {}", load_average());
    println!(
        "{:>8} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8} {:>10} {:>10}",
        "p", "dstar set", "JAX 1st", "JAX/ds", "J ds µs", "J JAX µs", "ds/JAX", "ds ns/obs", "JAX ns/obs"
    );
    let mut k = 0;
    for (case, peer) in cases.iter().zip(&peers) {
        let r = &case.served.report;
        let setup_s = (r.ms("parse") + r.ms("jacobian")) / 1e3;
        let j = ns[k];
        k += 1;
        let (jax_setup, jax_j) = match peer {
            Some(peer) => {
                k += 1;
                (peer.number("setup_s"), ns[k - 1])
            }
            None => (f64::NAN, f64::NAN),
        };
        let or_dash = |v: f64, text: String| if v.is_nan() { "-".to_string() } else { text };
        println!(
            "{:>8} {:>8.2} s {:>10} {:>8} {:>10} {:>10} {:>8} {:>10.0} {:>10}",
            case.n,
            setup_s,
            or_dash(jax_setup, format!("{jax_setup:.2} s")),
            or_dash(jax_setup, format!("{:.1}", jax_setup / setup_s)),
            us(j),
            or_dash(jax_j, us(jax_j)),
            or_dash(jax_j, format!("{:.2}", j / jax_j)),
            j / case.units,
            or_dash(jax_j, format!("{:.0}", jax_j / case.units))
        );
    }
    println!("targets (issue 36): ds/JAX Jacobian <= 1.0, JAX/ds set-up > 1");
}

/// JAX's peer for `case`, its residuals and Jacobian blocks checked against
/// dstar's values and sparse Jacobian.
fn jax_peer(bench: &Bench, dir: &Path, case: &Case) -> Option<JaxPeer> {
    let p = case.n;
    let problem = generate(dir, p, true).ok()?;
    let data: serde_json::Value = serde_json::from_slice(&std::fs::read(&problem).ok()?).ok()?;
    let peer = match JaxPeer::start("jax_ba.py", &problem) {
        Ok(peer) => peer,
        Err(why) => {
            println!("  JAX at p = {p}: no peer: {why}");
            return None;
        }
    };
    // JAX's blocks as (row, col, value): reprojection rows 2i, 2i + 1, then
    // weight rows 2p + i; columns cameras, points, weights.
    let points = data["pts"].as_array().map_or(0, Vec::len);
    let (point_base, weight_base) = (11 * CAMERAS, 11 * CAMERAS + 3 * points);
    let mut entries = Vec::new();
    let blocks = peer.first["reprojection"].as_array().cloned().unwrap_or_default();
    for (i, (block, pair)) in blocks.iter().zip(data["obs"].as_array()?).enumerate() {
        let (camera, point) = (pair[0].as_u64()? as usize, pair[1].as_u64()? as usize);
        let columns: Vec<usize> = (0..11)
            .map(|j| 11 * camera + j)
            .chain((0..3).map(|j| point_base + 3 * point + j))
            .chain([weight_base + i])
            .collect();
        for (k, row) in block.as_array()?.iter().enumerate() {
            for (c, v) in columns.iter().zip(row.as_array()?) {
                entries.push((2 * i + k, *c, v.as_f64()?));
            }
        }
    }
    for (i, v) in peer.numbers("weight").into_iter().enumerate() {
        entries.push((2 * p + i, weight_base + i, v));
    }
    let (out, positions) = case.served.dump(Kind::Jacobian, &bench.dir);
    let values = peer.numbers("values");
    let value_difference = values
        .iter()
        .zip(&out)
        .map(|(a, b)| (a - b).abs() / a.abs().max(b.abs()).max(1.0))
        .fold(0.0, f64::max);
    // JAX's blocks are dense: d e0 / d v0 and d e1 / d u0 are structural
    // zeros there and absent from dstar's pattern (14 nonzeros a row).
    let complete = blocks.len() == p && values.len() == 3 * p;
    let j_difference = sparse_difference(entries, derivative_entries(&out, &positions));
    println!(
        "  JAX at p = {p}: first call {:.2} s; {} blocks of 2 x {BLOCK} + {p} weight entries against dstar's {} \
         nonzeros (14 a row: JAX's blocks also hold d e0/d v0 = d e1/d u0 = 0); \
         agrees to {value_difference:.1e} (values), {j_difference:.1e} (Jacobian), relative",
        peer.number("setup_s"),
        blocks.len(),
        positions.len()
    );
    if !complete || value_difference.max(j_difference) > 1e-10 {
        println!("  JAX at p = {p}: computes something else; not compared");
        return None;
    }
    Some(peer)
}
