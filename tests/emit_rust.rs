//! `emit_rust` output compiled with `rustc` agrees with the JIT kernel of the
//! same Jacobian.
//!
//! Every kernel goes into one generated crate, one module each, with a `main`
//! that evaluates them at fixed points (written as bit patterns) and prints
//! the outputs as bit patterns, so `rustc` runs once. Both sides call the same
//! `std` functions and the same `frontend::portable` code (`erf`, `min`,
//! `pow`, ...), so the results must be identical. Programs with functions
//! (issue 28) are emitted with each function written once, as a `fn`.

use frontend::{Kernel, Op, Program};
use rustc::compile_and_run;
use std::collections::BTreeSet;
use std::fmt::Write;
use testkit::gen_py;

#[path = "common/rustc.rs"]
mod rustc;

/// Corpus problems whose kernels are larger than this many operations are
/// left out: `rustc -O` on one huge function costs more than it tells.
/// (matmul_10 and nbody_acc_20, about 17,000 each, would take `rustc` 40 s.)
const MAX_OPS: usize = 6_000;

/// Programs that together use every operation, at points that visit every
/// branch (both sides of each comparison, ties, zeros, the ranges of `erf`).
const OP_PROGRAMS: [(&str, &str, &[&[f64]]); 4] = [
    (
        "elementary",
        "in x, y, z
         out a = sin(x) * cos(y) + tan(z) - x / y
         out b = asin(x) + acos(y) * atan(z)
         out c = sinh(x) + cosh(y) * tanh(z)
         out d = asinh(x) - acosh(1 + y) + atanh(z)
         out f = exp(x) * log(y + 1) + log2(z + 2) - log10(x + 3)
         out k = expm1(x) * log1p(y) - exp2(z)
         out g = sqrt(x + y) + cbrt(z - x) * abs(y - z)
         out h = atan2(y, x) + hypot(x, z) - -x",
        &[&[0.3, 0.7, -0.2], &[-0.45, 0.1, 0.9], &[0.01, 0.99, 0.5], &[0.8, 0.25, -0.75]],
    ),
    (
        "piecewise",
        "in x, y
         out lo = min(x, y) * max(x, y * y)
         out s = sign(x - y) * x + floor(3 * x) * y + ceil(2 * y) * x + sign(y)
         out l = ifelse(x < y, x * y, x / y) + ifelse(x >= 0.5, sin(x), cos(y))
         out t = ifelse(x == y, 1, x) + ifelse(x != 0.25, x * x, y) + ifelse(x <= y, y, x * y) + ifelse(x > y, 2 * x, 3 * y)",
        &[&[0.25, 0.75], &[0.75, 0.25], &[0.5, 0.5], &[-1.3, 0.0], &[0.0, -0.0], &[2.0, -3.5]],
    ),
    (
        "erf",
        "in x, y
         out g = erf(x * y) + erf(-x)
         out f = x * erf(y - 1) + erf(x / 3) * y",
        &[
            &[0.5, 1.5],
            &[1.1, 0.9],
            &[-2.0, 2.7],
            &[4.5, -1.6],
            &[7.0, 0.1],
            &[1e-9, 3.0],
            // erf(-x) here: the `libm` crate's erf (once the interpreter's) and
            // a port of it onto `f64::exp` (once the emitted Rust's) differ.
            &[1.3491268946606185, 0.5],
        ],
    ),
    (
        "pow",
        "in x, y
         out p = x^3 + y^-2 + x^2.5 + pow(x, y) + x^7 - y^(-3)
         out q = (x * y)^0.5 + x^2 * y^4 + 2^x + x^y^2",
        &[&[1.3, 0.7], &[0.4, 2.2], &[2.5, -1.25], &[0.9, 0.9]],
    ),
];

/// One kernel to compare, at its points.
struct Case {
    name: String,
    kernel: Kernel,
    points: Vec<Vec<f64>>,
}

impl Case {
    /// The Jacobian of `program` at `points`.
    fn new(name: &str, program: &Program, points: Vec<Vec<f64>>) -> Case {
        let kernel = factor::jacobian(program.kernel().unwrap()).into_kernel();
        Case { name: name.to_string(), kernel, points }
    }
}

/// The corpus problems up to [`MAX_OPS`], at their `# @point`s and a
/// perturbation of each.
fn corpus_cases() -> Vec<Case> {
    let mut cases = vec![];
    for problem in testkit::corpus() {
        let (path, source, program) = (&problem.path, &problem.source, &problem.program);
        let mut points: Vec<Vec<f64>> = source
            .lines()
            .filter_map(|l| l.strip_prefix("# @point"))
            .map(|l| l.split_whitespace().map(|v| v.parse().unwrap()).collect())
            .collect();
        assert!(!points.is_empty(), "{} has a # @point", path.display());
        let perturbed: Vec<Vec<f64>> = points
            .iter()
            .map(|p| p.iter().enumerate().map(|(i, v)| v * 0.9 + 0.01 * (i % 7) as f64).collect())
            .collect();
        points.extend(perturbed);
        let case = Case::new(&problem.name, program, points);
        if case.kernel.count_ops() <= MAX_OPS {
            cases.push(case);
        }
    }
    cases
}

fn op_cases() -> Vec<Case> {
    let mut covered = BTreeSet::new();
    let cases: Vec<Case> = OP_PROGRAMS
        .iter()
        .map(|(name, source, points)| {
            let program = frontend::parse_program(source).unwrap_or_else(|e| panic!("{name}: {e}"));
            let reach = program.dag.reachable(&program.output_nodes());
            covered.extend(program.dag.ids().filter(|id| reach[id.index()]).map(|id| program.dag.op(id)));
            Case::new(name, &program, points.iter().map(|p| p.to_vec()).collect())
        })
        .collect();
    let missing: Vec<Op> = Op::ALL.into_iter().filter(|op| !covered.contains(op)).collect();
    assert!(missing.is_empty(), "no program uses {missing:?}");
    cases
}

/// One crate holding every kernel as `kN::kernel`, and a `main` printing
/// "case point bits..." for every case and point.
fn generate(cases: &[Case]) -> String {
    let mut src = String::from("#![allow(warnings)]\n\n");
    let mut main = String::from("fn main() {\n");
    for (c, case) in cases.iter().enumerate() {
        let roots = case.kernel.roots().to_vec();
        let n = case.kernel.num_inputs();
        let kernel = backend::emit_rust(&case.kernel, "kernel", &[n]).expect("a Rust name");
        let _ = writeln!(src, "mod k{c} {{\n{kernel}}}\n");
        for (p, x) in case.points.iter().enumerate() {
            let bits: Vec<String> = x.iter().map(|v| format!("{:#x}", v.to_bits())).collect();
            let _ =
                writeln!(main, "    run({c}, {p}, k{c}::kernel, &[{}], {});", bits.join(", "), roots.len());
        }
    }
    main.push_str("}\n");
    src.push_str(rustc::RUN);
    src + &main
}

/// Compiles the emitted Rust of `cases` and compares it with the JIT: bit for
/// bit (NaN matching any NaN).
fn check_against_jit(name: &str, cases: &[Case]) {
    let Ok(compiler) = backend::JitCompiler::new() else {
        return; // host ISA unsupported
    };
    let results = compile_and_run(name, &generate(cases));
    assert_eq!(results.len(), cases.iter().map(|c| c.points.len()).sum::<usize>());

    let mut summary = vec![];
    let mut failures = vec![];
    for (c, case) in cases.iter().enumerate() {
        let roots = case.kernel.roots().to_vec();
        let kernel = compiler.compile(&case.kernel).unwrap();
        let (mut compared, mut identical) = (0, 0);
        for (_, p, emitted) in results.iter().filter(|r| r.0 == c) {
            let mut jit = vec![0.0; roots.len()];
            kernel.eval(&case.points[*p], &mut jit).unwrap();
            for (k, (a, b)) in jit.iter().zip(emitted).enumerate() {
                compared += 1;
                if a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) {
                    identical += 1;
                    continue;
                }
                failures.push(format!("{} point {p} output {k}: JIT {a:e} vs emitted Rust {b:e}", case.name));
            }
        }
        summary.push(format!("{:>14}: {identical}/{compared} identical", case.name));
    }
    eprintln!("emit_rust vs JIT:\n{}", summary.join("\n"));
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// A Jacobian of every shape of `testkit::shapes`, about 800 operations
/// each, at its point and a perturbation of it.
fn shape_cases() -> Vec<Case> {
    let mut rng = testkit::Rng::new(25);
    testkit::shapes::Family::ALL
        .into_iter()
        .map(|family| {
            let source = family.generate(family.size_for(800), &mut rng);
            let program = frontend::parse_program(&source).expect("parses");
            let x = program.point.clone().expect("a point");
            let moved: Vec<f64> = x.iter().map(|v| v * 1.01 + 1e-3).collect();
            Case::new(family.name(), &program, vec![x, moved])
        })
        .collect()
}

/// Issue 25: the shapes of real problems.
#[test]
fn emitted_rust_matches_the_jit_on_real_shapes() {
    check_against_jit("shapes", &shape_cases());
}

#[test]
fn emitted_rust_matches_the_jit() {
    let mut cases = corpus_cases();
    assert!(cases.len() >= 15, "most of the corpus is small enough");
    cases.extend(op_cases().into_iter().filter(|c| c.name != "erf"));
    check_against_jit("kernels", &cases);
}

/// Regression: the emitted `erf` module ended in a doc comment that
/// documents nothing, which `rustc` rejects; and the emitted `erf` was a port
/// of the interpreter's onto `f64::exp` that differed from it now and then.
#[test]
fn issue_6_emitted_erf_compiles_and_matches_the_jit() {
    let cases: Vec<Case> = op_cases().into_iter().filter(|c| c.name == "erf").collect();
    assert_eq!(cases.len(), 1);
    check_against_jit("erf", &cases);
}

/// Issue 28: the Jacobian and Lagrangian Hessian kernels of programs with
/// functions (the `gen.py` families and generated ones), whose calls the
/// emitted Rust makes to functions written once.
#[test]
fn emitted_rust_with_functions_matches_the_jit() {
    let mut sources: Vec<(String, String)> = [("cartpole", 3), ("fit", 20), ("minsurf", 4)]
        .map(|(f, n)| (format!("{f}_{n}"), gen_py(f, n, &[])))
        .to_vec();
    for seed in 0..4 {
        let generated =
            testkit::functions::generate(&mut testkit::Rng::new(seed), [10, 30, 80][seed as usize % 3]);
        sources.push((format!("generated_{seed}"), generated.structured));
    }
    let mut cases = vec![];
    for (name, source) in &sources {
        let program = frontend::parse_program(source).unwrap_or_else(|e| panic!("{name}: {e}"));
        let x = program.point.clone().expect("a point");
        let p = program.param_values.clone().unwrap_or_default();
        let w: Vec<f64> = (0..program.outputs.len()).map(|k| 0.5 - 0.25 * k as f64).collect();
        let jacobian = factor::jacobian(program.kernel().unwrap()).into_kernel();
        let hessian = factor::lagrangian_hessian(program.kernel().unwrap()).kernel().clone();
        assert!(jacobian.has_calls() && hessian.has_calls(), "{name}: kernels with calls");
        let emitted = backend::emit_rust(&jacobian, "kernel", &[jacobian.num_inputs()]).unwrap();
        assert!(emitted.contains("\nfn kernel_"), "{name}: functions written as functions");
        cases.push(Case { name: format!("{name} J"), kernel: jacobian, points: vec![[&x[..], &p].concat()] });
        cases.push(Case {
            name: format!("{name} H"),
            kernel: hessian,
            points: vec![[&x[..], &p, &w].concat()],
        });
    }
    check_against_jit("functions", &cases);
}
