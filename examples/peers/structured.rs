//! Section `structured` (issue 28): programs with functions called many
//! times (`gen.py cartpole | fit | minsurf N`) beside the same programs
//! written flat, CasADi's `map` over the horizon for cart-pole, JAX's
//! `jit(grad)` for the Gaussian mixture, and (in `ba.rs`) JAX's
//! `jit(vmap(jacfwd))` for ADBench's bundle adjustment.

use crate::casadi::{Built, CasadiKernel, Derivative};
use crate::families::{derivative_entries, load_average, ms, sparse_difference, unit_name, us, Case};
use crate::jax::{jax_available, JaxPeer};
use crate::serve::{Kind, Served};
use crate::timing::{alternating_timed, Timed};
use crate::Bench;
use std::path::Path;
use std::time::Instant;

/// The sizes of one family: structured, flat, structured added by `--long`.
struct Sizes {
    family: &'static str,
    structured: &'static [usize],
    flat: &'static [usize],
    long: &'static [usize],
}

const FAMILIES: [Sizes; 3] = [
    Sizes { family: "cartpole", structured: &[100, 1000], flat: &[100, 1000], long: &[10_000, 100_000] },
    Sizes { family: "fit", structured: &[100, 1000, 10_000], flat: &[100, 1000], long: &[100_000] },
    Sizes { family: "minsurf", structured: &[10, 30, 100], flat: &[10, 30], long: &[300] },
];

pub fn structured(bench: &Bench) {
    println!("\nStructured programs (issue 28), each size built in a child process of its own");
    let dir = bench.dir.join("structured");
    for sizes in &FAMILIES {
        if bench.settings.wants(sizes.family) {
            family(bench, &dir, sizes);
        }
    }
    if bench.settings.wants("gmm") {
        gmm(bench, &dir);
    }
    if bench.settings.wants("ba") {
        crate::ba::ba(bench, &dir);
    }
}

/// The set-up of J and H (parse, symbolic, JIT), ms.
fn setup_ms(case: &Case) -> f64 {
    served_setup_ms(&case.served)
}

fn served_setup_ms(served: &Served) -> f64 {
    let report = &served.report;
    report.ms("parse") + report.ms("jacobian") + report.ms("hessian")
}

/// Pairs of children [`setup_ratio`] starts.
const SETUP_PAIRS: usize = 7;

/// The set-up of `flat` over that of `structured` (their files), each
/// built again in [`SETUP_PAIRS`] pairs of children started alternately:
/// the median ratio of a pair and the lowest and highest. One pair is as
/// noisy as the host (1.7x to 2.9x on the same build).
fn setup_ratio(structured: &Case, flat: &Case, kinds: &[Kind]) -> Option<(f64, f64, f64)> {
    let mut ratios = Vec::with_capacity(SETUP_PAIRS);
    for _ in 0..SETUP_PAIRS {
        let s = Served::start(&structured.path, kinds, None).ok()?;
        let s = served_setup_ms(&s);
        let f = Served::start(&flat.path, kinds, None).ok()?;
        ratios.push(served_setup_ms(&f) / s);
    }
    ratios.sort_by(f64::total_cmp);
    Some((ratios[SETUP_PAIRS / 2], ratios[0], ratios[SETUP_PAIRS - 1]))
}

fn print_setup_header(unit: &str) {
    println!(
        "{:>16} {:>10} {:>10} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9} {:>12}",
        "form N",
        "ops",
        "inlined",
        "parse",
        "J sym",
        "J JIT",
        "H sym",
        "H JIT",
        "total",
        "peak MB",
        "code KB",
        format!("ms per {unit}")
    );
}

fn print_setup(case: &Case) {
    let r = &case.served.report;
    let code: usize = r.kernels.iter().filter(|k| k.kind != Kind::Values).map(|k| k.code_bytes).sum();
    let total = setup_ms(case);
    println!(
        "{:>16} {:>10} {:>10} {:>8.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9} {:>8.0} {:>9.0} {:>12.4}",
        case.label(),
        r.ops,
        r.inlined_ops,
        r.ms("parse"),
        r.ms("jacobian symbolic"),
        r.ms("jacobian JIT"),
        r.ms("hessian symbolic"),
        r.ms("hessian JIT"),
        ms(total),
        r.peak_kb as f64 / 1024.0,
        code as f64 / 1024.0,
        total / case.units
    );
}

/// CasADi's map for cart-pole at `n`: its Jacobian and Hessian kernels,
/// checked against `case`'s at the file's point, weights 1.
struct MapPeer {
    n: usize,
    jacobian: Built,
    hessian: Built,
    x: Vec<f64>,
    w: Vec<f64>,
}

fn map_peer(bench: &Bench, case: &Case, deadline: Instant) -> Result<MapPeer, String> {
    let source = std::fs::read_to_string(&case.path).map_err(|e| e.to_string())?;
    let program = dstar::parse_program(&source).map_err(|e| e.to_string())?;
    let (n, m) = (program.inputs.len(), program.outputs.len());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/peers/casadi_map.py");
    let flags = bench.flags();
    let build = |derivative: Derivative, what: &str| {
        let dir = bench.dir.join(format!("map-{}-{what}", case.n));
        let args = [case.n.to_string(), what.to_string()];
        CasadiKernel::from_script(&script, &args, derivative, (n, m), &dir, &bench.cc, &flags, Some(deadline))
    };
    let mut jacobian = build(Derivative::Jacobian, "jacobian")?;
    let mut hessian = build(Derivative::LagrangianHessian, "hessian")?;
    let x = program.point.clone().ok_or("no # @point")?;
    let w = vec![1.0; m];
    jacobian.kernel.eval(&x, &[]);
    hessian.kernel.eval(&x, &w);
    // The same function: values, Jacobian and Hessian against dstar's.
    let (out, positions) = case.served.dump(Kind::Jacobian, &bench.dir);
    let values = jacobian.kernel.values();
    let value_difference = values
        .iter()
        .zip(&out)
        .map(|(a, b)| (a - b).abs() / a.abs().max(b.abs()).max(1.0))
        .fold(0.0, f64::max);
    let j_difference = sparse_difference(jacobian.kernel.nonzeros(), derivative_entries(&out, &positions));
    let (out, positions) = case.served.dump(Kind::Hessian, &bench.dir);
    let h_difference = sparse_difference(hessian.kernel.nonzeros(), derivative_entries(&out, &positions));
    let worst = value_difference.max(j_difference).max(h_difference);
    println!(
        "  CasADi map at N = {}: agrees with dstar to {worst:.1e} (values {value_difference:.1e}, \
         J {j_difference:.1e}, H {h_difference:.1e}, relative)",
        case.n
    );
    if worst > 1e-9 {
        return Err(format!("CasADi's map computes something else (difference {worst:.1e})"));
    }
    Ok(MapPeer { n: case.n, jacobian, hessian, x, w })
}

fn family(bench: &Bench, dir: &Path, sizes: &Sizes) {
    let name = sizes.family;
    let unit = unit_name(name);
    let kinds = [Kind::Jacobian, Kind::Hessian];
    println!(
        "\n{name}: set-up from text to compiled Jacobian (J) and Lagrangian Hessian (H) kernels, \
         ms; peak resident set of the process; load average {}",
        load_average()
    );
    print_setup_header(unit);
    let mut structured_sizes = sizes.structured.to_vec();
    if bench.settings.long {
        structured_sizes.extend_from_slice(sizes.long);
    }
    let mut cases = Vec::new();
    for (flat, sizes) in [(false, &structured_sizes[..]), (true, sizes.flat)] {
        for &n in sizes {
            if let Some(case) = Case::start(dir, name, n, flat, &kinds, None) {
                print_setup(&case);
                cases.push(case);
            }
        }
    }
    let mut peers: Vec<MapPeer> = Vec::new();
    if name == "cartpole" && bench.with_casadi {
        for case in cases.iter().filter(|c| c.form == "structured") {
            match map_peer(bench, case, Instant::now() + bench.settings.casadi_timeout) {
                Ok(peer) => peers.push(peer),
                Err(why) => {
                    println!(
                        "  CasADi map at N = {}: no peer ({why}; limit {} s); none larger tried",
                        case.n,
                        bench.settings.casadi_timeout.as_secs()
                    );
                    break;
                }
            }
        }
    }

    // Every kernel of the family, alternating.
    let mut timed: Vec<Timed<'_>> = Vec::new();
    for case in &cases {
        for kind in kinds {
            timed.push(Box::new(move |calls| case.served.run(kind, calls)));
        }
    }
    for peer in &mut peers {
        let MapPeer { jacobian, hessian, x, w, .. } = peer;
        let (x, w) = (&*x, &*w);
        timed.push(Box::new(move |calls| {
            let start = Instant::now();
            for _ in 0..calls {
                jacobian.kernel.eval(std::hint::black_box(x), &[]);
            }
            start.elapsed().as_nanos() as f64
        }));
        timed.push(Box::new(move |calls| {
            let start = Instant::now();
            for _ in 0..calls {
                hessian.kernel.eval(std::hint::black_box(x), std::hint::black_box(w));
            }
            start.elapsed().as_nanos() as f64
        }));
    }
    let ns = alternating_timed(bench.settings.budget * cases.len().max(1) as u32, &mut timed);
    drop(timed);
    println!(
        "{name} kernels (fastest of alternating batches, one point per call); load average {}",
        load_average()
    );
    println!(
        "{:>16} {:>10} {:>10} {:>12} {:>10} {:>10} {:>12}",
        "form N",
        "J ops",
        "J µs",
        format!("J ns/{unit}"),
        "H ops",
        "H µs",
        format!("H ns/{unit}")
    );
    let kernel_ns = |i: usize, kind: Kind| ns[2 * i + usize::from(kind == Kind::Hessian)];
    for (i, case) in cases.iter().enumerate() {
        let r = &case.served.report;
        let ops = |kind| r.kernel(kind).map_or(0, |k| k.ops);
        let (j, h) = (kernel_ns(i, Kind::Jacobian), kernel_ns(i, Kind::Hessian));
        println!(
            "{:>16} {:>10} {:>10} {:>12.1} {:>10} {:>10} {:>12.1}",
            case.label(),
            ops(Kind::Jacobian),
            us(j),
            j / case.units,
            ops(Kind::Hessian),
            us(h),
            h / case.units
        );
    }
    let index = |form: &str, n: usize| cases.iter().position(|c| c.form == form && c.n == n);
    // Structured against flat at the largest size both have.
    let common =
        cases.iter().filter(|c| c.form == "flat" && index("structured", c.n).is_some()).map(|c| c.n).max();
    if let Some(n) = common {
        let (s, f) = (index("structured", n).expect("found"), index("flat", n).expect("found"));
        // Issue 36: outlining makes the flat file nearly as cheap as the structured one.
        let setup = match setup_ratio(&cases[s], &cases[f], &kinds) {
            Some((median, low, high)) => {
                format!("{median:.2}x (median of {SETUP_PAIRS} pairs of children, {low:.2}-{high:.2})")
            }
            None => format!("{:.2}x (one pair of children)", setup_ms(&cases[f]) / setup_ms(&cases[s])),
        };
        println!(
            "{name} N = {n}, flat over structured: set-up {setup} (target <= 2), kernels J {:.2}, \
             H {:.2} (targets <= 1.2)",
            kernel_ns(f, Kind::Jacobian) / kernel_ns(s, Kind::Jacobian),
            kernel_ns(f, Kind::Hessian) / kernel_ns(s, Kind::Hessian)
        );
    }
    let structured: Vec<usize> = (0..cases.len()).filter(|&i| cases[i].form == "structured").collect();
    if let (Some(&first), Some(&last)) = (structured.first(), structured.last()) {
        let per = |i: usize, kind| kernel_ns(i, kind) / cases[i].units;
        let r = &cases[last].served.report;
        println!(
            "{name} structured, per {unit} at N = {} over N = {}: J {:.2}, H {:.2} (targets <= 1.3); \
             set-up at N = {}: {} and {:.0} MB peak",
            cases[last].n,
            cases[first].n,
            per(last, Kind::Jacobian) / per(first, Kind::Jacobian),
            per(last, Kind::Hessian) / per(first, Kind::Hessian),
            cases[last].n,
            ms(setup_ms(&cases[last])),
            r.peak_kb as f64 / 1024.0
        );
    }
    if !peers.is_empty() {
        println!(
            "CasADi (SX step mapped in MX, C by {} {}) against dstar structured: set-up = symbolic + codegen + C \
             compiler for J and H",
            bench.cc,
            bench.flags().join(" ")
        );
        println!(
            "{:>8} {:>10} {:>26} {:>9} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8}",
            "N",
            "dstar",
            "CasADi (sym+gen, cc)",
            "CasA/ds",
            "J dstar µs",
            "J CasA µs",
            "ds/CasA",
            "H dstar µs",
            "H CasA µs",
            "ds/CasA"
        );
        let base = 2 * cases.len();
        for (p, peer) in peers.iter().enumerate() {
            let i = index("structured", peer.n).expect("a peer of a structured case");
            let setup_s = peer.jacobian.setup_s() + peer.hessian.setup_s();
            let ours_s = setup_ms(&cases[i]) / 1e3;
            let (j, h) = (kernel_ns(i, Kind::Jacobian), kernel_ns(i, Kind::Hessian));
            let (cj, ch) = (ns[base + 2 * p], ns[base + 2 * p + 1]);
            let python = peer.jacobian.python_work_s() + peer.hessian.python_work_s();
            let cc = peer.jacobian.cc_s + peer.hessian.cc_s;
            println!(
                "{:>8} {:>8.2} s {:>26} {:>9.1} {:>10} {:>10} {:>8.2} {:>10} {:>10} {:>8.2}",
                peer.n,
                ours_s,
                format!("{setup_s:.2} s ({python:.2}, {cc:.2})"),
                setup_s / ours_s,
                us(j),
                us(cj),
                j / cj,
                us(h),
                us(ch),
                h / ch
            );
        }
        println!("targets: CasA/ds set-up >= 10, ds/CasA kernels <= 1.0");
    }
}

/// The Gaussian mixture of `gen.py gmm N` (d = 10, K = 5): dstar's gradient
/// (structured, and flat at 1000) against JAX's `jit(grad)`, one thread each
/// (both pinned to CPU 1).
fn gmm(bench: &Bench, dir: &Path) {
    println!(
        "\ngmm (d = 10, K = 5): dstar parse -> compiled gradient against JAX jit(grad), both on CPU 1 \
         (taskset), XLA one thread; load average {}",
        load_average()
    );
    // The gradient first: its symbolic phase then holds the search for
    // maps, which the function's values share; JAX's first call of its
    // gradient traces and compiles it whole.
    let kinds = [Kind::Gradient, Kind::Values];
    let with_jax = jax_available();
    let mut cases = Vec::new();
    let mut peers: Vec<Option<JaxPeer>> = Vec::new();
    for (n, flat) in [(1000, false), (10_000, false), (1000, true)] {
        let Some(case) = Case::start(dir, "gmm", n, flat, &kinds, Some("1")) else { continue };
        let r = &case.served.report;
        println!(
            "  {}: {} ops ({} inlined); set-up {} (parse {}, gradient symbolic {}, JIT {}), peak {:.0} MB",
            case.label(),
            r.ops,
            r.inlined_ops,
            ms(r.ms("parse") + r.ms("gradient")),
            ms(r.ms("parse")),
            ms(r.ms("gradient symbolic")),
            ms(r.ms("gradient JIT")),
            r.peak_kb as f64 / 1024.0
        );
        let peer = if with_jax && !flat { jax_peer(bench, &case) } else { None };
        cases.push(case);
        peers.push(peer);
    }
    let mut timed: Vec<Timed<'_>> = Vec::new();
    for (case, peer) in cases.iter().zip(&peers) {
        timed.push(Box::new(move |calls| case.served.run(Kind::Gradient, calls)));
        timed.push(Box::new(move |calls| case.served.run(Kind::Values, calls)));
        if let Some(peer) = peer {
            timed.push(Box::new(move |calls| peer.run("grad", calls)));
            timed.push(Box::new(move |calls| peer.run("value", calls)));
        }
    }
    let ns = alternating_timed(bench.settings.budget * 2 * cases.len().max(1) as u32, &mut timed);
    drop(timed);
    println!("load average {}", load_average());
    println!(
        "{:>16} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8} {:>10} {:>10} {:>14}",
        "form N",
        "dstar set",
        "JAX 1st",
        "JAX/ds",
        "grad ds µs",
        "grad JAX",
        "ds/JAX",
        "f ds µs",
        "f JAX µs",
        "grad/f ds, JAX"
    );
    let mut k = 0;
    for (case, peer) in cases.iter().zip(&peers) {
        let r = &case.served.report;
        let setup_s = (r.ms("parse") + r.ms("gradient")) / 1e3;
        let (g, f) = (ns[k], ns[k + 1]);
        k += 2;
        let (jax_setup, jax_g, jax_f) = match peer {
            Some(peer) => {
                k += 2;
                (peer.number("setup_s"), ns[k - 2], ns[k - 1])
            }
            None => (f64::NAN, f64::NAN, f64::NAN),
        };
        let or_dash = |v: f64, text: String| if v.is_nan() { "-".to_string() } else { text };
        println!(
            "{:>16} {:>8.2} s {:>10} {:>8} {:>10} {:>10} {:>8} {:>10} {:>10} {:>14}",
            case.label(),
            setup_s,
            or_dash(jax_setup, format!("{jax_setup:.2} s")),
            or_dash(jax_setup, format!("{:.2}", jax_setup / setup_s)),
            us(g),
            or_dash(jax_g, us(jax_g)),
            or_dash(jax_g, format!("{:.2}", g / jax_g)),
            us(f),
            or_dash(jax_f, us(jax_f)),
            format!("{:.2}, {}", g / f, or_dash(jax_f, format!("{:.2}", jax_g / jax_f)))
        );
    }
    println!("targets: JAX/ds set-up > 1 (structured), ds/JAX gradient <= 1.0; flat gmm 1000: set-up <= 5 s, grad/f <= 4");
}

/// JAX's peer for `case`, its value and gradient checked against dstar's.
fn jax_peer(bench: &Bench, case: &Case) -> Option<JaxPeer> {
    let source = std::fs::read_to_string(&case.path).ok()?;
    let program = dstar::parse_program(&source).ok()?;
    let problem = serde_json::json!({"d": 10, "K": 5, "x": program.point, "p": program.param_values});
    let file = bench.dir.join(format!("gmm-{}.json", case.n));
    std::fs::write(&file, problem.to_string()).ok()?;
    let peer = match JaxPeer::start("jax_gmm.py", &file) {
        Ok(peer) => peer,
        Err(why) => {
            println!("  JAX at N = {}: no peer: {why}", case.n);
            return None;
        }
    };
    let (values, _) = case.served.dump(Kind::Values, &bench.dir);
    let (out, _) = case.served.dump(Kind::Gradient, &bench.dir);
    let (value, jax_grad) = (peer.number("value"), peer.numbers("grad"));
    let grad = &out[out.len() - jax_grad.len()..];
    let relative = |a: f64, b: f64| (a - b).abs() / a.abs().max(b.abs()).max(1.0);
    let value_difference = relative(values[0], value);
    let grad_difference = grad.iter().zip(&jax_grad).map(|(&a, &b)| relative(a, b)).fold(0.0, f64::max);
    println!(
        "  JAX at N = {}: first call {:.2} s (jit(f) {:.2} s); value {:.6e} against dstar's {:.6e}; \
         agrees to {:.1e} (value), {:.1e} (gradient), relative",
        case.n,
        peer.number("setup_s"),
        peer.number("function_setup_s"),
        value,
        values[0],
        value_difference,
        grad_difference
    );
    if value_difference.max(grad_difference) > 1e-8 {
        println!("  JAX at N = {}: computes something else; not compared", case.n);
        return None;
    }
    Some(peer)
}
