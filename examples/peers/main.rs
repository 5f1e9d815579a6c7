//! dstar's kernels beside their peers, measured in one run: the
//! function-and-Jacobian kernels of `tests/corpus` against our own emitted C
//! and against CasADi's generated C (both built here with `cc -O3`), batches
//! of points against one point per call, and the Lagrangian Hessian kernels
//! of `tests/nlp` against CasADi's `hessian` in C.
//!
//! ```text
//! cargo run --release --example peers                  # both corpora
//! cargo run --release --example peers -- --only sh_10,sh_20 --budget-ms 1000
//! cargo run --release --example peers -- --sections hessian --cflags "-O3 -march=native"
//! cargo run --release --example peers -- --sections jacobian --no-casadi   # seconds, not minutes
//! cargo run --release --example peers -- --sections symbolic   # symbolic time against ops + nnz
//! cargo run --release --example peers -- --sections structured  # issue 28: functions, CasADi map, JAX
//! cargo run --release --example peers -- --sections structured --only cartpole --long  # + N = 1e4, 1e5
//! cargo run --release --example peers -- --sections structured --only ba  # issue 36: bundle adjustment against JAX
//! cargo run --release --example peers -- --sections scale        # issue 30: flat families growing
//! cargo run --release --example peers -- --sections zoo          # issue 35: set-up of the shape zoo, N to 8N
//! cargo run --release --example peers -- --sections scale --only cartpole,dense --long --casadi-timeout-s 600
//! ```
//!
//! The `symbolic` section (not run by default: it takes a minute) times the
//! Jacobian's symbolic stage on issue 14's dense chain sums
//! (`testkit::chain_sums`, n = 75 to 600) and on random programs of 1e4 to
//! 1e6 operations (`testkit::scaling_program`), per operation plus nonzero:
//! flat when the stage is linear in ops + nnz.
//!
//! The `structured` section (issue 28; minutes) writes `gen.py cartpole |
//! fit | minsurf N` (`../shared/structured/gen.py`, or `$DSTAR_GEN`)
//! structured and `--flat`, builds each size in a child process of its own
//! (`peers --serve FILE KINDS`: the set-up per phase, parse, symbolic
//! Jacobian, its JIT, symbolic Lagrangian Hessian, its JIT, and the child's
//! peak resident set `VmHWM`), and times every size's Jacobian and Hessian
//! kernels in alternating batches served by those children: set-up and
//! kernels structured against flat at the largest N both have, time per
//! interval (point, cell) at the largest N against the smallest. Cart-pole
//! N = 100, 1000 (flat too), `--long` adds 10^4 and 10^5; fit 100 to 10^4
//! (`--long` 10^5); minsurf 10 to 100 (flat to 30; `--long` 300). For
//! cart-pole, CasADi's answer (`examples/peers/casadi_map.py`: the RK4 step
//! an SX `Function` `map`ped over the horizon in MX, Jacobian and
//! Lagrangian Hessian generated as C and built with the C compiler) is
//! checked against dstar's values and timed beside it, at each N until one
//! takes longer than `--casadi-timeout-s` (120 s; 600 with `--long`). Last
//! the Gaussian mixture of `gen.py gmm N` (N = 1000, 10^4 structured, 1000
//! flat): dstar's gradient from text against JAX's `jit(grad)` of the
//! vectorized objective (`examples/peers/jax_gmm.py`; `pip install jax`),
//! both pinned to CPU 1 and XLA on one thread, values checked, JAX's
//! timings served by its own process in the same alternation. Then (issue
//! 36) ADBench's bundle adjustment (`examples/peers/ba.py`: 21 cameras,
//! p = 1000 and 10^4 observations, p / 10 points): dstar's set-up from text
//! to the sparse Jacobian against the first call of JAX's
//! `jit(vmap(jacfwd))` per-observation blocks (`examples/peers/jax_ba.py`),
//! and the two Jacobian kernels, pinned and checked the same way.
//!
//! The `scale` section (issue 30; minutes) builds the flat families
//! (cart-pole 30 to 1000, minsurf 10 to 100, fit 10^3 and 10^4, dense 75
//! to 300; `--long` adds 3000 and 10^4, 300, 10^5, 600) the same way, and
//! prints each kernel's ns per operation and per repetition, the set-up per
//! phase, the peak resident set, the JIT's executable bytes per operation
//! (whole pages mapped, read from `/proc/self/maps`), and CasADi's
//! Lagrangian Hessian (SX, C, symbolic + codegen + C compiler) beside them
//! until it takes longer than `--casadi-timeout-s` (60 s when `scale` is
//! the only section, else 120 s; 600 with `--long`). `--only` picks families in both sections (`gmm` and `ba` are two).
//! Python peers run as `python3` from `PATH`: with a virtual environment
//! holding casadi and jax, put its `bin` first on `PATH`.
//!
//! Every ratio compares kernels timed in alternating batches under the same
//! machine load, the fastest batch of each counting (load only ever adds
//! time); the geometric means summarize a corpus. Without a C compiler the
//! run is skipped; without `python3 -c "import casadi"` (`pip install
//! casadi`) the CasADi columns and the Hessians are, each with a note.

// The allocator of the front doors (the CLI, the Python package): the
// children's set-up is what their users see.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod ba;
mod casadi;
mod families;
mod jax;
mod scale;
mod serve;
mod structured;
mod timing;
mod zoo;

use casadi::{CasadiKernel, Derivative};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;
use testkit::native::{c_compiler, CKernel};
use timing::alternating_ns;

/// Points per batch in the batch-throughput columns.
const BATCH: usize = 256;

/// Command-line settings.
struct Settings {
    only: Option<Vec<String>>,
    casadi: bool,
    sections: Vec<String>,
    budget: Duration,
    flags: Vec<String>,
    /// Larger sizes in the `structured` and `scale` sections.
    long: bool,
    /// How long a CasADi peer may take to build before it is given up.
    casadi_timeout: Duration,
}

impl Settings {
    fn from_args() -> Settings {
        let mut settings = Settings {
            only: None,
            casadi: true,
            sections: vec!["jacobian".to_string(), "hessian".to_string()],
            budget: Duration::from_millis(600),
            flags: vec!["-O3".to_string()],
            long: false,
            casadi_timeout: Duration::ZERO,
        };
        let mut casadi_timeout = None;
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().unwrap_or_else(|| usage(&format!("{arg} takes a value")));
            match arg.as_str() {
                "--only" => settings.only = Some(value().split(',').map(str::to_string).collect()),
                "--no-casadi" => settings.casadi = false,
                "--sections" => settings.sections = value().split(',').map(str::to_string).collect(),
                "--budget-ms" => {
                    let ms = value().parse().unwrap_or_else(|_| usage("--budget-ms takes a whole number"));
                    settings.budget = Duration::from_millis(ms)
                }
                "--long" => settings.long = true,
                "--casadi-timeout-s" => {
                    let s =
                        value().parse().unwrap_or_else(|_| usage("--casadi-timeout-s takes a whole number"));
                    casadi_timeout = Some(Duration::from_secs(s))
                }
                "--cflags" => settings.flags = value().split_whitespace().map(str::to_string).collect(),
                "--help" | "-h" => usage(""),
                other => usage(&format!("unknown argument {other}")),
            }
        }
        // Within 10 minutes where the targets ask for it (--long), shorter by default.
        let scale_only = settings.sections.iter().all(|s| s == "scale");
        let default_timeout = match (settings.long, scale_only) {
            (true, _) => 600,
            (false, true) => 60,
            (false, false) => 120,
        };
        settings.casadi_timeout = casadi_timeout.unwrap_or(Duration::from_secs(default_timeout));
        settings
    }

    fn wants(&self, name: &str) -> bool {
        self.only.as_ref().is_none_or(|only| only.iter().any(|o| o == name))
    }
}

/// Prints `problem` (if any) and the usage, and exits: with status 2 after
/// a problem, 0 when help was asked for.
fn usage(problem: &str) -> ! {
    if !problem.is_empty() {
        eprintln!("peers: {problem}");
    }
    eprintln!(
        "usage: peers [--only a,b] [--sections jacobian,hessian,symbolic,structured,scale,zoo] [--no-casadi] \
         [--budget-ms N] [--cflags \"-O3 ...\"] [--long] [--casadi-timeout-s S]"
    );
    std::process::exit(if problem.is_empty() { 0 } else { 2 })
}

/// `(name, path)` of the `*.dstar` files of `dir` (relative to the repository), sorted.
fn problems(dir: &str) -> Vec<(String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dstar"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.file_stem().unwrap_or_default().to_string_lossy().into_owned(), p)).collect()
}

fn geomean(ratios: &[f64]) -> f64 {
    (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp()
}

/// Whether two dense results agree to `rel` (both NaN counts as agreeing).
fn agree(a: &[f64], b: &[f64], rel: f64) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(&p, &q)| {
            (p.is_nan() && q.is_nan()) || p == q || (p - q).abs() <= rel * p.abs().max(q.abs()).max(1.0)
        })
}

/// What every section needs: the settings, the C compiler and the JIT.
struct Bench {
    settings: Settings,
    cc: String,
    with_casadi: bool,
    compiler: dstar::JitCompiler,
    dir: PathBuf,
}

impl Bench {
    fn flags(&self) -> Vec<&str> {
        self.settings.flags.iter().map(String::as_str).collect()
    }

    /// CasADi's kernel for `program`, or `None` with the reason printed.
    fn casadi(&self, name: &str, program: &dstar::Program, derivative: Derivative) -> Option<CasadiKernel> {
        if !self.with_casadi {
            return None;
        }
        let dir = self.dir.join(format!("{name}-{derivative:?}"));
        match CasadiKernel::build(program, derivative, &dir, &self.cc, &self.flags()) {
            Ok(peer) => Some(peer),
            Err(why) => {
                println!("{name}: no CasADi peer: {why}");
                None
            }
        }
    }
}

fn main() {
    // As the CLI does (`cli/src/memory.rs`, `purge_later`): mimalloc keeps
    // freed memory for a second (`mi_option_purge_delay`, 15).
    // SAFETY: sets an option, which mimalloc reads when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(15, 1000) };
    let args: Vec<String> = std::env::args().collect();
    if let [_, serve, path, kinds] = &args[..] {
        if serve == "--serve" {
            return serve::serve(path, kinds);
        }
    }
    if args.get(1).is_some_and(|a| a == "--zoo-child") {
        return zoo::run_child(&args[2..]);
    }
    let settings = Settings::from_args();
    let Some(cc) = c_compiler() else {
        println!("skipped: no working C compiler (set CC), so no peer to compare with");
        return;
    };
    let with_casadi = settings.casadi && casadi::available();
    let compiler = dstar::JitCompiler::new().expect("a supported host");
    let dir = std::env::temp_dir().join(format!("dstar-peers-{}", std::process::id()));
    let bench = Bench { settings, cc, with_casadi, compiler, dir };
    println!(
        "{} {}; timed in alternating batches, {} ms per problem, fastest batch counts; load average {}\n",
        bench.cc,
        bench.flags().join(" "),
        bench.settings.budget.as_millis(),
        families::load_average()
    );
    if bench.settings.sections.iter().any(|s| s == "jacobian") {
        jacobians(&bench);
    }
    if bench.settings.sections.iter().any(|s| s == "symbolic") {
        symbolic();
    }
    if bench.settings.sections.iter().any(|s| s == "hessian") {
        if bench.with_casadi {
            hessians(&bench);
        } else {
            println!("\nskipped the Hessians: their peer is CasADi, which python3 cannot import");
        }
    }
    if bench.settings.sections.iter().any(|s| s == "structured") {
        structured::structured(&bench);
    }
    if bench.settings.sections.iter().any(|s| s == "scale") {
        scale::scale(&bench);
    }
    if bench.settings.sections.iter().any(|s| s == "zoo") {
        let only = bench.settings.only.clone().unwrap_or_default();
        zoo::report(&only, bench.settings.long);
    }
    println!("\nload average at the end {}", families::load_average());
    let _ = std::fs::remove_dir_all(&bench.dir);
}

/// The Jacobian's symbolic stage (D* and the eliminations, without the
/// common-subchain pass) against the size of its input and output.
fn symbolic() {
    println!("\nSymbolic Jacobian (no subchain pass) against ops + nnz");
    println!("{:>22} {:>9} {:>9} {:>10} {:>16}", "shape", "ops", "nnz", "ms", "ns per op+nnz");
    let time = |name: String, kernel: dstar::Kernel| {
        let ops = kernel.count_ops();
        let start = std::time::Instant::now();
        let jacobian = dstar::factor::jacobian(kernel);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let nnz = jacobian.pattern().nnz();
        println!("{name:>22} {ops:>9} {nnz:>9} {ms:>10.1} {:>16.0}", ms * 1e6 / (ops + nnz) as f64);
    };
    for n in [75, 150, 300, 600] {
        let program = dstar::parse_program(&testkit::chain_sums(n, n as u64)).expect("parses");
        time(format!("chain sums {n}x{n}"), program.kernel().expect("valid"));
    }
    for ops in [10_000, 100_000, 1_000_000] {
        let (dag, outputs, n) = testkit::scaling_program(ops, 7);
        time(format!("random, {ops} ops"), dstar::Kernel::new(dag, outputs, n).expect("a valid kernel"));
    }
}

/// Function-and-Jacobian kernels of `tests/corpus`: the JIT against our
/// emitted C and CasADi's C, and batches against one point per call.
fn jacobians(bench: &Bench) {
    let flags = bench.flags();
    println!("Jacobian kernels of tests/corpus (function values and Jacobian in one call)");
    println!(
        "{:>15} {:>6} {:>6} {:>9} {:>9} {:>9} {:>6} {:>8} {:>9} {:>7}",
        "problem", "ops", "casadi", "JIT ns", "C ns", "CasADi ns", "JIT/C", "JIT/CasA", "batch ns", "bat/pt"
    );
    let (mut to_c, mut to_casadi, mut batch_gain) = (Vec::new(), Vec::new(), Vec::new());
    for (name, path) in problems("tests/corpus") {
        if !bench.settings.wants(&name) {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("a readable corpus file");
        let program = dstar::parse_program(&source).expect("the corpus parses");
        let jacobian = dstar::differentiate(&program, &dstar::Options::default()).expect("valid").jacobian;
        // The native kernel itself, one input array as C's.
        let kernel = bench.compiler.compile(jacobian.kernel()).expect("compiles");
        let (n, len) = (program.inputs.len(), kernel.num_outputs());
        let c_source = dstar::emit_c(jacobian.kernel(), "dstar_kernel", &[n]).expect("a C name");
        let c = CKernel::build(&bench.cc, &c_source, "dstar_kernel", &flags, n, len);
        let mut peer = bench.casadi(&name, &program, Derivative::Jacobian);

        let x = program.point.clone().unwrap_or_else(|| vec![0.5; n]);
        let (mut out, mut c_out) = (vec![0.0; len], vec![0.0; len]);
        kernel.eval(&x, &mut out).expect("lengths");
        c.eval(&x, &mut c_out);
        assert!(agree(&out, &c_out, 1e-12), "{name}: the JIT and our C disagree");
        if let Some(peer) = &mut peer {
            peer.eval(&x, &[]);
            let (values, dense) = peer.dense();
            let m = program.outputs.len();
            let (ours, our_dense) = (&out[..m], jacobian.pattern().to_dense(&out[m..]));
            let same = agree(&values, ours, 1e-9) && agree(&dense.concat(), &our_dense.concat(), 1e-9);
            assert!(same, "{name}: CasADi's kernel computes something else");
        }

        // Points around x, so that no branch predictor learns one point.
        let xs: Vec<f64> =
            (0..BATCH).flat_map(|i| x.iter().map(move |v| v * (1.0 + 1e-3 * i as f64))).collect();
        let mut outs = vec![0.0; BATCH * len];
        bench.compiler.compile_two_points(jacobian.kernel(), &kernel).expect("compiles");
        kernel.eval_points(&xs, &mut outs).expect("shapes");
        let mut point_outs = outs.clone();
        let mut timed: Vec<Box<dyn FnMut(u64) + '_>> = vec![
            Box::new(|calls| {
                for _ in 0..calls {
                    kernel.eval(black_box(&x), black_box(&mut out)).expect("lengths");
                }
            }),
            Box::new(|calls| {
                for _ in 0..calls {
                    c.eval(black_box(&x), black_box(&mut c_out));
                }
            }),
            Box::new(|calls| {
                for _ in 0..calls {
                    for (p, o) in xs.chunks_exact(n).zip(point_outs.chunks_exact_mut(len)) {
                        kernel.eval(black_box(p), black_box(o)).expect("lengths");
                    }
                }
            }),
            Box::new(|calls| {
                // On this thread: eval_batch's work per core, without the thread pool's hand-overs.
                for _ in 0..calls {
                    kernel.eval_points(black_box(&xs), black_box(&mut outs)).expect("shapes");
                }
            }),
        ];
        if let Some(peer) = &mut peer {
            timed.push(Box::new(|calls| {
                for _ in 0..calls {
                    peer.eval(black_box(&x), &[]);
                }
            }));
        }
        let ns = alternating_ns(bench.settings.budget, &mut timed);
        drop(timed);
        let (jit_ns, c_ns, points_ns, batch_ns) = (ns[0], ns[1], ns[2] / BATCH as f64, ns[3] / BATCH as f64);
        to_c.push(jit_ns / c_ns);
        batch_gain.push(points_ns / batch_ns);
        let (casadi_ns, casadi_ops, vs_casadi) = match (&peer, ns.get(4)) {
            (Some(peer), Some(&ns)) => {
                to_casadi.push(jit_ns / ns);
                (format!("{ns:.1}"), peer.ops().to_string(), format!("{:.2}", jit_ns / ns))
            }
            _ => ("-".to_string(), "-".to_string(), "-".to_string()),
        };
        println!(
            "{name:>15} {:>6} {casadi_ops:>6} {jit_ns:>9.1} {c_ns:>9.1} {casadi_ns:>9} {:>6.2} {vs_casadi:>8} \
             {batch_ns:>9.1} {:>7.2}",
            jacobian.jacobian_ops(),
            jit_ns / c_ns,
            points_ns / batch_ns
        );
    }
    summary("JIT/our C", &to_c);
    summary("JIT/CasADi C", &to_casadi);
    summary("batch throughput per core / per-point", &batch_gain);
}

/// Lagrangian Hessian kernels of `tests/nlp` against CasADi's
/// `hessian(dot(w, f), x)` lower triangle, at the reference point and weights.
fn hessians(bench: &Bench) {
    println!(
        "\nLagrangian Hessian kernels of tests/nlp (lower triangle of Σ w_i ∇²f_i, x and w given apart)"
    );
    println!(
        "{:>22} {:>7} {:>7} {:>10} {:>10} {:>8}",
        "problem", "ops", "casadi", "JIT ns", "CasADi ns", "JIT/CasA"
    );
    let mut to_casadi = Vec::new();
    for (name, path) in problems("tests/nlp") {
        if !bench.settings.wants(&name) {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("a readable NLP file");
        let program = dstar::parse_program(&source).expect("the NLP corpus parses");
        let function = dstar::Function::new(program.clone(), dstar::Options::default());
        let kernel = function.compile(dstar::Request::Hessian).expect("compiles");
        let Some(mut peer) = bench.casadi(&name, &program, Derivative::LagrangianHessian) else { continue };
        let (n, m) = (program.inputs.len(), program.outputs.len());
        let x = program.point.clone().unwrap_or_else(|| vec![0.5; n]);
        let reference: serde_json::Value = std::fs::read_to_string(path.with_extension("ref.json"))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        let w: Vec<f64> = match reference["weights"].as_array() {
            Some(w) => w.iter().filter_map(serde_json::Value::as_f64).collect(),
            None => vec![1.0; m],
        };
        peer.eval(&x, &w);
        let ours = kernel.eval_dense(dstar::Args::x(&x).w(&w)).expect("lengths").remove(0);
        assert!(agree(&peer.dense().1.concat(), &ours.concat(), 1e-9), "{name}: CasADi's Hessian differs");

        let mut out = vec![0.0; kernel.out_len()];
        let mut timed: Vec<Box<dyn FnMut(u64) + '_>> = vec![
            Box::new(|calls| {
                for _ in 0..calls {
                    kernel.eval(black_box(dstar::Args::x(&x).w(&w)), black_box(&mut out)).expect("lengths");
                }
            }),
            Box::new(|calls| {
                for _ in 0..calls {
                    peer.eval(black_box(&x), black_box(&w));
                }
            }),
        ];
        let ns = alternating_ns(bench.settings.budget, &mut timed);
        drop(timed);
        to_casadi.push(ns[0] / ns[1]);
        println!(
            "{name:>22} {:>7} {:>7} {:>10.1} {:>10.1} {:>8.2}",
            kernel.ops(),
            peer.ops(),
            ns[0],
            ns[1],
            ns[0] / ns[1]
        );
    }
    summary("Hessian JIT/CasADi C", &to_casadi);
}

/// Prints the geometric mean and the extremes of `ratios`.
fn summary(what: &str, ratios: &[f64]) {
    if ratios.is_empty() {
        return;
    }
    let (least, most) = ratios.iter().fold((f64::INFINITY, 0f64), |(l, m), &r| (l.min(r), m.max(r)));
    println!("geometric mean {what}: {:.3} (from {least:.2} to {most:.2})", geomean(ratios));
}
