//! Issue 36: map kernels ([`MapKernel`]) emitted as loops, one `for` loop
//! per map over static index tables (`backend::emit_c`, `backend::emit_rust`).
//! For maps of every shape (strided, shared and gathered inputs, rows and
//! summed results, values computed once before the maps and chained after
//! them, bodies that call functions), and for the values, the Jacobian, the
//! gradient, the Lagrangian Hessian and the whole Lagrangian kernel: the
//! emitted C, compiled with the system C compiler (`-std=c99`: no `fma`
//! contraction), and the emitted Rust, compiled with `rustc`, equal the
//! JIT's [`MappedKernel`](dstar::backend::MappedKernel) and
//! [`MapKernel::eval`] bit for bit, and the written-out kernels within
//! rounding (a map reorders sums). The emitted code outside the index
//! tables is the same at two numbers of instances.

use dstar::backend::{self, JitCompiler, SourceKernel};
use dstar::factor;
use dstar::frontend::map::{decompose, Column, Decomposition, MapKernel, MapRules};
use dstar::frontend::{parse_program, Block, Kernel, Program};
use std::fmt::Write;
use testkit::map_rules::{COMPUTING, COPYING, LIFTING, RULES};
use testkit::native::{c_compiler, CKernel, CSource};
use testkit::zoo::{Form, Zoo};
use testkit::{close, gen_py, same, same_bits, Rng, Tol};

const TOL: Tol = Tol { rel: 1e-11, abs: 1e-11 };

/// Map kernels of more operations are left out: compiling them costs more
/// than it tells (a mixture's Hessian, its shared values copied into every
/// point, has a million).
const MAX_OPS: usize = 5_000;

/// A map kernel to emit, its input blocks, the written-out kernel computing
/// the same, and an input.
struct Case {
    name: String,
    mapped: MapKernel,
    lengths: Vec<usize>,
    whole: Kernel,
    input: Vec<f64>,
}

impl Case {
    /// Where each block of the input starts, and its length; with `listed`,
    /// only the blocks the emitted function takes (`x` and those not empty).
    fn blocks(&self, listed: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
        let starts = self.lengths.iter().scan(0, |at, &len| Some(std::mem::replace(at, *at + len)));
        starts
            .zip(&self.lengths)
            .enumerate()
            .filter(move |&(b, (_, &len))| !listed || b == 0 || len > 0)
            .map(|(_, (at, &len))| (at, len))
    }
}

/// The five kernels of `program` as maps under `rules` (none if it has no
/// maps), at a seeded point: values, Jacobian, gradient (input `x, p`),
/// Hessian and Lagrangian (input `x, p, w`).
fn kernels(name: &str, program: &Program, rules: &MapRules, rng: &mut Rng) -> Vec<Case> {
    let f = program.kernel().expect("a kernel");
    let Some(d) = decompose(&f, rules) else { return vec![] };
    let copied = || decompose(&f, &MapRules { compute_common: false, ..*rules }).expect("the same maps");
    let copying = |d: &Decomposition| d.computed.is_some().then(copied);
    let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());
    let mut x: Vec<f64> = (0..n).map(|_| rng.uniform(-0.9, 0.9)).collect();
    x.extend((0..q).map(|_| rng.uniform(0.5, 1.5)));
    let mut xw = x.clone();
    xw.extend((0..m).map(|_| rng.uniform(-2.0, 2.0)));
    let jacobian =
        factor::mapped_jacobian(&d).unwrap_or_else(|| factor::mapped_jacobian(&copied()).expect("copied"));
    let hessian_maps = copying(&d);
    let for_hessian = hessian_maps.as_ref().unwrap_or(&d);
    let lagrangian = std::cell::OnceCell::new();
    let lagrangian = || lagrangian.get_or_init(|| factor::lagrangian_hessian(f.clone()));
    let mut cases = Vec::new();
    let mut add = |request: &str, mapped: MapKernel, whole: &dyn Fn() -> Kernel, weights: bool| {
        if mapped.count_ops() <= MAX_OPS {
            cases.push(Case {
                name: format!("{name}: {request}"),
                mapped,
                lengths: if weights { vec![n, q, m] } else { vec![n, q] },
                whole: whole(),
                input: if weights { xw.clone() } else { x.clone() },
            });
        }
    };
    add("values", factor::mapped_values(&d), &|| f.clone(), false);
    add("Jacobian", jacobian.0, &|| factor::jacobian(f.clone()).into_kernel(), false);
    add("gradient", factor::mapped_gradient(&d), &|| factor::gradient(f.clone()), false);
    add("Hessian", factor::mapped_hessian(for_hessian).0, &|| lagrangian().lower_kernel(), true);
    add("Lagrangian", factor::mapped_lagrangian(for_hessian).0, &|| lagrangian().kernel().clone(), true);
    cases
}

#[path = "common/rustc.rs"]
mod rustc;

/// A program of `n` instances of one random body, written out: each of
/// the body's inputs strided (`x[j + stride·i]`), shared (one input or
/// parameter for all), gathered (inputs in a shuffled order) or a parameter
/// per instance; its two results a row each, summed into one output, or one
/// of each; and, half the time, every instance reads a cheap value of the
/// shared input (which the plan's first search computes once).
fn repeated(rng: &mut Rng, n: usize) -> String {
    let k = 2 + rng.below(3);
    let stride = 1 + rng.below(3);
    // Strided inputs first, then the gathered ones, then the shared one.
    let (gathered, shared) = (stride * n + k, stride * n + k + n);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    // The first input moves with the instance, so that no two are the same.
    let kinds: Vec<usize> = (0..k).map(|j| if j == 0 { rng.below(2) } else { rng.below(5) }).collect();
    let leaf = |j: usize, i: usize| match kinds[j] {
        0 => format!("x{}", j + stride * i),
        1 => format!("x{}", gathered + order[i]),
        2 => format!("x{shared}"),
        3 => format!("p{i}"),
        _ => "c".to_string(),
    };
    let common = rng.chance(0.5);
    let bodies = [expression(rng, k, 3), expression(rng, k, 3)];
    let term = |b: usize, i: usize| {
        let mut t = bodies[b].clone();
        for j in 0..k {
            t = t.replace(&format!("@{j}"), &leaf(j, i));
        }
        if common {
            t = format!("ex * ({t})");
        }
        t
    };
    let inputs: Vec<String> = (0..=shared).map(|j| format!("x{j}")).collect();
    let params: Vec<String> = (0..n).map(|i| format!("p{i}")).chain(["c".to_string()]).collect();
    let mut s = format!("in {}\nparam {}\n", inputs.join(", "), params.join(", "));
    if common {
        let _ = writeln!(s, "ex = exp(0.3 * x{shared}) * x{shared}");
    }
    let mode = rng.below(3);
    for (b, summed) in [(0, mode == 1), (1, mode != 0)] {
        if summed {
            let terms: Vec<String> = (0..n).map(|i| term(b, i)).collect();
            let _ = writeln!(s, "out total{b} = {}", terms.join(" + "));
        } else {
            for i in 0..n {
                let _ = writeln!(s, "out row{b}_{i} = {}", term(b, i));
            }
        }
    }
    s
}

/// A random expression of the body inputs `@0 .. @k-1`, finite near zero.
fn expression(rng: &mut Rng, k: usize, depth: usize) -> String {
    if depth == 0 || rng.chance(0.25) {
        return match rng.below(4) {
            0 => format!("{:.3}", rng.uniform(-2.0, 2.0)),
            _ => format!("@{}", rng.below(k)),
        };
    }
    let op = rng.below(8);
    let mut sub = || expression(rng, k, depth - 1);
    match op {
        0 => format!("({} + {})", sub(), sub()),
        1 => format!("({} - {})", sub(), sub()),
        2 | 3 => format!("({} * {})", sub(), sub()),
        4 => format!("sin({})", sub()),
        5 => format!("cos({})", sub()),
        6 => format!("exp(0.5 * {})", sub()),
        _ => {
            let (a, b) = (sub(), sub());
            format!("({a} / (1 + {b} * {b}))")
        }
    }
}

/// A sum of squared residuals of `n` data points written as numbers.
fn least_squares(rng: &mut Rng, n: usize) -> String {
    let mut sum = String::from("in a, b, c\nout f = 0");
    for _ in 0..n {
        let (t, y) = (rng.uniform(0.1, 3.0), rng.uniform(-1.0, 1.0));
        sum += &format!(" + (a*exp(-b*{t}) + c*(b - {t})^3 - {y})^2");
    }
    sum + "\n"
}

/// Every case: programs of real shape and generated ones, each under the
/// rules that give its maps their shape.
fn all_cases() -> Vec<Case> {
    let mut rng = Rng::new(36);
    let mut programs: Vec<(String, String, MapRules)> = vec![
        ("cartpole 6".into(), gen_py("cartpole", 6, &[]), RULES),
        ("fit 20".into(), gen_py("fit", 20, &[]), RULES),
        ("minsurf 4".into(), gen_py("minsurf", 4, &[]), RULES),
        ("gmm 17".into(), gen_py("gmm", 17, &[]), COMPUTING),
        ("collocation 8".into(), Zoo::Collocation.generate(8, Form::Functions), COPYING),
        ("multiple_shooting 8, flat".into(), Zoo::MultipleShooting.generate(8, Form::Flat), RULES),
        ("fit 20, flat".into(), gen_py("fit", 20, &["--flat"]), LIFTING),
        ("least squares 20, data as numbers".into(), least_squares(&mut rng, 20), LIFTING),
    ];
    for seed in 0..testkit::cases(4, 40) {
        let n = 4 + rng.below(20);
        let rules = if seed % 2 == 0 { COMPUTING } else { RULES };
        programs.push((format!("repeated {seed}"), repeated(&mut rng, n), rules));
    }
    let mut cases = Vec::new();
    for (name, source, rules) in &programs {
        let program = parse_program(source).unwrap_or_else(|e| panic!("{name}: {e}\n{source}"));
        let found = kernels(name, &program, rules, &mut rng);
        assert!(!found.is_empty() || name.starts_with("repeated"), "{name}: no maps");
        cases.extend(found);
    }
    cases
}

/// What the emitted C of every case computes: all compiled by one run of
/// the C compiler, each called through a function taking its blocks in one
/// array.
fn c_outputs(cc: &str, cases: &[Case]) -> Vec<Vec<f64>> {
    let sources: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(c, case)| {
            let mut source =
                backend::emit_c(&case.mapped, &format!("k{c}"), &case.lengths).expect("a C name");
            let blocks: Vec<String> = case.blocks(true).map(|(at, _)| format!("in + {at}")).collect();
            let _ = writeln!(
                source,
                "\nvoid k{c}_one(const double *in, double *out)\n{{\n    k{c}({}, out);\n}}",
                blocks.join(", ")
            );
            source
        })
        .collect();
    let names: Vec<String> = (0..cases.len()).map(|c| format!("k{c}_one")).collect();
    let files: Vec<CSource<'_>> = cases
        .iter()
        .zip(&sources)
        .zip(&names)
        .map(|((case, source), fn_name)| CSource {
            source,
            fn_name,
            num_inputs: case.input.len(),
            num_outputs: case.mapped.num_outputs,
        })
        .collect();
    let kernels = CKernel::build_all(cc, &files, &["-O2", "-std=c99"]);
    kernels
        .iter()
        .zip(cases)
        .map(|(kernel, case)| {
            let mut out = vec![0.0; case.mapped.num_outputs];
            kernel.eval(&case.input, &mut out);
            out
        })
        .collect()
}

/// What the emitted Rust of every case computes: one crate, a module each
/// with a function taking its blocks in one array, compiled and run once.
fn rust_outputs(cases: &[Case]) -> Vec<Vec<f64>> {
    let mut src = String::from("#![allow(warnings)]\n\n");
    let mut main = String::from("fn main() {\n");
    for (c, case) in cases.iter().enumerate() {
        let kernel = backend::emit_rust(&case.mapped, "kernel", &case.lengths).expect("a Rust name");
        let blocks: Vec<String> =
            case.blocks(true).map(|(at, len)| format!("&input[{at}..{}]", at + len)).collect();
        let _ = writeln!(
            src,
            "mod k{c} {{\n{kernel}\npub fn one(input: &[f64], out: &mut [f64]) {{\n    kernel({}, out);\n}}\n}}\n",
            blocks.join(", ")
        );
        let bits: Vec<String> = case.input.iter().map(|v| format!("{:#x}", v.to_bits())).collect();
        let _ = writeln!(
            main,
            "    run({c}, 0, k{c}::one, &[{}], {});",
            bits.join(", "),
            case.mapped.num_outputs
        );
    }
    main.push_str("}\n");
    src.push_str(rustc::RUN);
    let mut outputs = vec![Vec::new(); cases.len()];
    for (c, _, values) in rustc::compile_and_run("maps", &(src + &main)) {
        outputs[c] = values;
    }
    outputs
}

/// Which shapes of maps `cases` hold, so that the test knows it saw each.
fn shapes(cases: &[Case]) -> Vec<&'static str> {
    let mut seen = Vec::new();
    let mut see = |shape: &'static str, is: bool| {
        if is && !seen.contains(&shape) {
            seen.push(shape);
        }
    };
    for case in cases {
        let k = &case.mapped;
        see("values computed once", k.pre.is_some());
        see("a chain after the maps", k.post.is_some());
        see("constants taken out of the bodies", !k.constants.is_empty());
        for piece in &k.pieces {
            let moves =
                |c: &Column, by: fn(i64) -> bool| matches!(c, Column::Affine { step, .. } if by(*step));
            for c in &piece.gather.columns {
                see("a strided input", moves(c, |s| s != 0));
                see("a shared input", moves(c, |s| s == 0));
                see("a gathered input", matches!(c, Column::Table(_)));
            }
            for c in &piece.places.columns {
                see("a result per row", !moves(c, |s| s == 0));
                see("a summed result", moves(c, |s| s == 0));
                see("a result placed by a table", matches!(c, Column::Table(_)));
            }
            see("a body with calls", piece.body.has_calls());
        }
    }
    seen
}

#[test]
fn emitted_loops_equal_the_jit_bit_for_bit() {
    let Ok(compiler) = JitCompiler::new() else { return }; // host ISA unsupported
    let cases = all_cases();
    let seen = shapes(&cases);
    assert_eq!(seen.len(), 10, "every shape of map: {seen:?}");
    let c = c_compiler().map(|cc| c_outputs(&cc, &cases));
    let rust = rust_outputs(&cases);
    for (k, case) in cases.iter().enumerate() {
        let (name, mapped) = (&case.name, &case.mapped);
        let mut jit = vec![0.0; mapped.num_outputs];
        let compiled = compiler.compile_mapped(mapped, &case.lengths).expect("compiles");
        let parts: Vec<&[f64]> = case.blocks(false).map(|(at, len)| &case.input[at..at + len]).collect();
        compiled.eval_parts(&parts, &mut jit).expect("lengths");
        assert!(same_bits(&jit, &mapped.eval(&case.input)), "{name}: the JIT vs the interpreter");
        if let Some(c) = &c {
            let differs = (0..jit.len()).find(|&j| !same(c[k][j], jit[j]));
            assert!(
                differs.is_none(),
                "{name}: output {differs:?}: C {:e} vs JIT",
                c[k][differs.unwrap_or(0)]
            );
        }
        let differs = (0..jit.len()).find(|&j| !same(rust[k][j], jit[j]));
        assert!(rust[k].len() == jit.len() && differs.is_none(), "{name}: output {differs:?}: Rust vs JIT");
        // The signature and the header of the kernel written out.
        let c = backend::emit_c(mapped, "f", &case.lengths).expect("C");
        assert!(c.contains(&backend::c_signature("f", &case.lengths).expect("blocks")), "{name}");
        let rust = backend::emit_rust(mapped, "f", &case.lengths).expect("Rust");
        assert!(rust.contains(&backend::rust_signature("f", &case.lengths).expect("blocks")), "{name}");
        let parts = [("out", &Block::Values(jit.len()))];
        let header = |kernel: SourceKernel<'_>| {
            backend::emit_c_header(kernel, "f", &case.lengths, &parts).expect("a header")
        };
        assert_eq!(header(mapped.into()), header((&case.whole).into()), "{name}: the header");
        let whole = case.whole.eval(&case.input);
        assert_eq!(whole.len(), jit.len(), "{name}: the written-out kernel's length");
        for (j, (a, b)) in jit.iter().zip(&whole).enumerate() {
            assert!(close(*a, *b, TOL), "{name}: output {j}: {a:e} as maps, {b:e} written out");
        }
    }
    eprintln!("{} map kernels emitted as C and Rust; shapes seen: {seen:?}", cases.len());
}

/// `source` without its index tables, every number written `0`: what does
/// not depend on the number of instances (their count, positions and
/// node numbers aside).
fn code_outside_tables(source: &str) -> String {
    let mut code = String::new();
    let mut in_table = false;
    for line in source.lines() {
        in_table |= line.starts_with("static const uint32_t ") || line.contains(": [u32; ");
        // The data taken out of the bodies grows with the instances too.
        in_table |= line.starts_with("static const double ") || line.contains(": [f64; ");
        if !in_table && line != "#[allow(non_upper_case_globals)]" {
            code.push_str(line);
            code.push('\n');
        }
        in_table &= !(line.ends_with("};") || line.ends_with("];"));
    }
    // A number's digits and its point (a mixture's `1/N` is a constant of its body).
    let mut numbers = code.split(|c: char| c.is_ascii_digit() || c == '.').filter(|s| !s.is_empty());
    let code =
        numbers.next().map_or_else(String::new, |first| numbers.fold(first.to_string(), |s, t| s + "0" + t));
    // The exponent of a number written so (`1e-5` where another size has `0.002`).
    code.replace("0e-0", "0").replace("0e0", "0")
}

/// The emitted C and Rust of the plan's maps (`factor::Maps`, as `dstar emit`
/// uses them) are the same code at two numbers of instances but for their
/// index tables: the file grows with the tables alone.
#[test]
fn emitted_code_outside_the_tables_does_not_grow_with_the_instances() {
    for (family, sizes) in [("cartpole", [150, 300]), ("gmm", [60, 120])] {
        let emitted = sizes.map(|n| {
            let program = parse_program(&gen_py(family, n, &[])).expect("gen.py parses");
            let f = program.kernel().expect("a kernel");
            let maps = factor::Maps::default();
            let (n, q, m) = (program.inputs.len(), program.params.len(), program.outputs.len());
            let mut kernels = vec![("Jacobian", maps.jacobian(&f).expect("maps").0, vec![n, q])];
            if family == "cartpole" {
                kernels.push(("Lagrangian", maps.lagrangian(&f).expect("maps").0, vec![n, q, m]));
            }
            let mut files = Vec::new();
            for (request, kernel, lengths) in &kernels {
                files.push((*request, "C", backend::emit_c(kernel, "f", lengths).expect("C")));
                files.push((*request, "Rust", backend::emit_rust(kernel, "f", lengths).expect("Rust")));
            }
            files
        });
        for ((request, language, small), (_, _, large)) in emitted[0].iter().zip(&emitted[1]) {
            let (code, large_code) = (code_outside_tables(small), code_outside_tables(large));
            eprintln!(
                "{family} {sizes:?}, {request} in {language}: {} and {} bytes, {} outside the tables",
                small.len(),
                large.len(),
                code.len(),
            );
            let what = format!("{family} {request} in {language}: the code outside the tables");
            let differs = code.lines().zip(large_code.lines()).find(|(a, b)| a != b);
            assert_eq!(differs, None, "{what}");
            assert_eq!(code.len(), large_code.len(), "{what}");
        }
    }
}
