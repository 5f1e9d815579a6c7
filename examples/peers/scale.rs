//! Section `scale` (issue 30): flat programs of real shapes at increasing
//! sizes (`gen.py cartpole N --flat`, `minsurf`, `fit`, `dense`): ns per
//! operation and per repetition of each kernel, set-up per phase, peak
//! memory, machine code per operation, and CasADi's Lagrangian Hessian in C
//! beside them wherever it finishes within the time limit.

use crate::casadi::{Built, CasadiKernel, Derivative};
use crate::families::{derivative_entries, load_average, ms, sparse_difference, unit_name, us, Case};
use crate::serve::Kind;
use crate::timing::{alternating_timed, Timed};
use crate::Bench;
use std::time::Instant;

/// A family's sizes by default and those `--long` adds.
const FAMILIES: [(&str, &[usize], &[usize]); 4] = [
    ("cartpole", &[30, 100, 300, 1000], &[3000, 10_000]),
    ("minsurf", &[10, 30, 100], &[300]),
    ("fit", &[1000, 10_000], &[100_000]),
    ("dense", &[75, 150, 300], &[600]),
];

/// The Jacobian first: its symbolic phase holds the search for maps,
/// which the values and the Hessian share.
const KINDS: [Kind; 3] = [Kind::Jacobian, Kind::Hessian, Kind::Values];

pub fn scale(bench: &Bench) {
    println!("\nFlat programs at scale (issue 30), each size built in a child process of its own");
    let dir = bench.dir.join("scale");
    for (family, sizes, long) in FAMILIES {
        if !bench.settings.wants(family) {
            continue;
        }
        let mut sizes = sizes.to_vec();
        if bench.settings.long {
            sizes.extend_from_slice(long);
        }
        run_family(bench, &dir, family, &sizes);
    }
}

/// CasADi's Lagrangian Hessian of `case`'s program, checked against dstar's.
fn casadi_hessian(
    bench: &Bench,
    case: &Case,
    deadline: Instant,
) -> Result<(Built, Vec<f64>, Vec<f64>), String> {
    let source = std::fs::read_to_string(&case.path).map_err(|e| e.to_string())?;
    let program = dstar::parse_program(&source).map_err(|e| e.to_string())?;
    let dir =
        bench.dir.join(format!("scale-{}", case.path.file_stem().unwrap_or_default().to_string_lossy()));
    let flags = bench.flags();
    let mut built = CasadiKernel::build_until(
        &program,
        Derivative::LagrangianHessian,
        &dir,
        &bench.cc,
        &flags,
        Some(deadline),
    )?;
    let x = program.point.clone().unwrap_or_else(|| vec![0.5; program.inputs.len()]);
    let w = vec![1.0; program.outputs.len()];
    built.kernel.eval(&x, &w);
    let (out, positions) = case.served.dump(Kind::Hessian, &bench.dir);
    let difference = sparse_difference(built.kernel.nonzeros(), derivative_entries(&out, &positions));
    if difference > 1e-9 {
        return Err(format!("CasADi's Hessian differs from dstar's by {difference:.1e}"));
    }
    let _ = std::fs::remove_file(dir.join("casadi_kernel.c"));
    Ok((built, x, w))
}

fn run_family(bench: &Bench, dir: &std::path::Path, family: &str, sizes: &[usize]) {
    let unit = unit_name(family);
    println!(
        "\n{family} --flat: set-up per phase (ms), peak resident set, JIT code bytes per op; load average {}",
        load_average()
    );
    println!(
        "{:>7} {:>9} {:>8} {:>9} {:>8} {:>9} {:>8} {:>7} {:>9} {:>8} {:>11} {:>6} {:>6} {:>6}",
        "N",
        "f ops",
        "parse",
        "J sym",
        "J JIT",
        "H sym",
        "H JIT",
        "f JIT",
        "total",
        "peak MB",
        "Jsym ns/e",
        "f B/op",
        "J B/op",
        "H B/op"
    );
    let mut cases = Vec::new();
    for &n in sizes {
        let Some(case) = Case::start(dir, family, n, true, &KINDS, None) else { continue };
        let r = &case.served.report;
        let kernel = |kind| r.kernel(kind).expect("built");
        let bytes_per_op = |kind| {
            let k = kernel(kind);
            k.code_bytes as f64 / k.ops.max(1) as f64
        };
        // Symbolic Jacobian per element: function operations plus nonzeros.
        let elements = (r.ops + kernel(Kind::Jacobian).nnz) as f64;
        println!(
            "{:>7} {:>9} {:>8.1} {:>9.1} {:>8.1} {:>9.1} {:>8.1} {:>7.1} {:>9} {:>8.0} {:>11.0} {:>6.1} {:>6.1} {:>6.1}",
            n,
            r.ops,
            r.ms("parse"),
            r.ms("jacobian symbolic"),
            r.ms("jacobian JIT"),
            r.ms("hessian symbolic"),
            r.ms("hessian JIT"),
            r.ms("values JIT"),
            ms(r.total_ms()),
            r.peak_kb as f64 / 1024.0,
            r.ms("jacobian symbolic") * 1e6 / elements,
            bytes_per_op(Kind::Values),
            bytes_per_op(Kind::Jacobian),
            bytes_per_op(Kind::Hessian)
        );
        cases.push(case);
    }
    let mut peers = Vec::new();
    if bench.with_casadi {
        for (i, case) in cases.iter().enumerate() {
            match casadi_hessian(bench, case, Instant::now() + bench.settings.casadi_timeout) {
                Ok((built, x, w)) => {
                    println!(
                        "  CasADi H at N = {}: {:.2} s (python3 with symbolic + codegen {:.2}, C compiler {:.2}), agrees",
                        case.n,
                        built.setup_s(),
                        built.python_work_s(),
                        built.cc_s
                    );
                    peers.push((i, built, x, w));
                }
                Err(why) => {
                    println!(
                        "  CasADi H at N = {}: none ({why}; limit {} s); none larger tried",
                        case.n,
                        bench.settings.casadi_timeout.as_secs()
                    );
                    break;
                }
            }
        }
    }

    let mut timed: Vec<Timed<'_>> = Vec::new();
    for case in &cases {
        for kind in KINDS {
            timed.push(Box::new(move |calls| case.served.run(kind, calls)));
        }
    }
    for (_, built, x, w) in &mut peers {
        let (kernel, x, w) = (&mut built.kernel, &*x, &*w);
        timed.push(Box::new(move |calls| {
            let start = Instant::now();
            for _ in 0..calls {
                kernel.eval(std::hint::black_box(x), std::hint::black_box(w));
            }
            start.elapsed().as_nanos() as f64
        }));
    }
    let ns = alternating_timed(bench.settings.budget * cases.len().max(1) as u32, &mut timed);
    drop(timed);
    println!("{family} --flat kernels (fastest of alternating batches); load average {}", load_average());
    println!(
        "{:>7} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "N",
        "f ns/op",
        "J ns/op",
        "H ns/op",
        "f µs",
        "J µs",
        "H µs",
        format!("J ns/{unit}"),
        format!("H ns/{unit}"),
        "CasA H µs",
        "CasA set",
        "ds/CasA",
        "CasA/ds"
    );
    let at = |i: usize, kind: Kind| ns[3 * i + KINDS.iter().position(|&k| k == kind).expect("a kind")];
    let per_op = |i: usize, kind: Kind| {
        at(i, kind) / cases[i].served.report.kernel(kind).map_or(1, |k| k.ops.max(1)) as f64
    };
    for (i, case) in cases.iter().enumerate() {
        let peer = peers.iter().enumerate().find(|(_, (c, ..))| *c == i);
        let (casadi_ns, casadi_setup, vs, setup_vs) = match peer {
            Some((p, (_, built, ..))) => {
                let h = ns[3 * cases.len() + p];
                let r = &case.served.report;
                let ours = (r.ms("parse") + r.ms("hessian")) / 1e3;
                (
                    us(h),
                    format!("{:.1} s", built.setup_s()),
                    format!("{:.2}", at(i, Kind::Hessian) / h),
                    format!("{:.1}", built.setup_s() / ours),
                )
            }
            None => ("-".to_string(), "-".to_string(), "-".to_string(), "-".to_string()),
        };
        println!(
            "{:>7} {:>8.2} {:>8.2} {:>8.2} {:>10} {:>10} {:>10} {:>10.1} {:>10.1} {:>10} {:>10} {:>8} {:>8}",
            case.n,
            per_op(i, Kind::Values),
            per_op(i, Kind::Jacobian),
            per_op(i, Kind::Hessian),
            us(at(i, Kind::Values)),
            us(at(i, Kind::Jacobian)),
            us(at(i, Kind::Hessian)),
            at(i, Kind::Jacobian) / case.units,
            at(i, Kind::Hessian) / case.units,
            casadi_ns,
            casadi_setup,
            vs,
            setup_vs
        );
    }
    if cases.len() >= 2 {
        let (first, last) = (0, cases.len() - 1);
        let op = |kind| per_op(last, kind) / per_op(first, kind);
        let unit_ratio = |kind| (at(last, kind) / cases[last].units) / (at(first, kind) / cases[first].units);
        println!(
            "{family}: N = {} over N = {}: ns/op f {:.2}, J {:.2}, H {:.2} (targets <= 1.5); per {unit} J {:.2}, H {:.2}; \
             set-up {:.1}x for {:.1}x the ops",
            cases[last].n,
            cases[first].n,
            op(Kind::Values),
            op(Kind::Jacobian),
            op(Kind::Hessian),
            unit_ratio(Kind::Jacobian),
            unit_ratio(Kind::Hessian),
            cases[last].served.report.total_ms() / cases[first].served.report.total_ms(),
            cases[last].served.report.ops as f64 / cases[first].served.report.ops as f64
        );
    }
    if !peers.is_empty() {
        println!("(ds/CasA: dstar's H time over CasADi's C; CasA/ds: CasADi's H set-up over dstar's parse + H symbolic + H JIT; targets <= 1.0 and >= 10)");
    }
}
