//! Issue 28: programs with functions, against the same programs with every
//! call written out.
//!
//! Generated programs ([`testkit::functions`]: 1 to 4 levels of nesting,
//! several results, unused results, repeated and constant arguments, calls
//! in expressions, parameters) and the `gen.py` families, structured and
//! inlined: for every request, the values are the inlined program's bit for
//! bit and the derivatives agree with it and with dual numbers; every kind
//! of kernel of the structured program equals the interpreter bit for bit,
//! whole, in small chunks, in parts and two points at a time.
//!
//! The short run checks 30 programs; `DSTAR_LONG=1` checks 2,000.

#[path = "common/kernels.rs"]
mod kernels;

use dstar::frontend::Program;
use dstar::{Args, Function, JitCompiler, Options, Request};
use kernels::{check_kind, kinds, Tally};
use testkit::{close, eval_dual, gen_py, same, well_conditioned, Rng, Tol};

const REQUESTS: [Request; 8] = [
    Request::Values,
    Request::Jacobian,
    Request::Gradient,
    Request::Hessian,
    Request::Jvp(2),
    Request::Vjp(2),
    Request::Hvp(2),
    Request::Taylor(3),
];

fn parse(text: &str, what: &str) -> Program {
    dstar::parse_program(text).unwrap_or_else(|e| panic!("{what}: {}\n{text}", e.render(text)))
}

/// The structured program `structured` against `flat` (its calls written
/// out) for every request, at the file's point and parameters.
fn against_flat(structured: &Program, flat: &Program, rng: &mut Rng, what: &str, tally: &mut Tally) {
    against_flat_for(&REQUESTS, structured, flat, rng, what, tally);
}

/// [`against_flat`] for `requests`.
fn against_flat_for(
    requests: &[Request],
    structured: &Program,
    flat: &Program,
    rng: &mut Rng,
    what: &str,
    tally: &mut Tally,
) {
    let options = Options { self_check: false, ..Options::default() };
    let x = structured.point.clone().expect("a point");
    let p = structured.param_values.clone().unwrap_or_default();
    let (n, m) = (structured.inputs.len(), structured.outputs.len());
    let xp: Vec<f64> = x.iter().chain(&p).copied().collect();
    let (dag, roots) = (&structured.dag, structured.output_nodes());
    let conditioned = well_conditioned(&flat.dag, &flat.output_nodes(), &xp, 1e4);
    let ours = Function::new(structured.clone(), options.clone());
    let theirs = Function::new(flat.clone(), options);
    for &request in requests {
        let what = format!("{what}, {request:?}");
        let a = ours.compile(request).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        let b = theirs.compile(request).unwrap_or_else(|e| panic!("{what}: flat: {e:?}"));
        let blocks = request.blocks(n, p.len(), m);
        let w = rng.point(blocks.w, -1.0, 1.0);
        let v = rng.point(blocks.v, -1.0, 1.0);
        let args = Args::x(&x).p(&p).w(&w).v(&v);
        let (da, db) = (a.eval_dense(args).expect("fits"), b.eval_dense(args).expect("fits"));
        assert_eq!(da.len(), db.len(), "{what}: blocks");
        let has_values = matches!(request, Request::Values | Request::Jacobian | Request::Gradient);
        for (k, (ra, rb)) in da.iter().zip(&db).enumerate() {
            let (ra, rb) = (ra.concat(), rb.concat());
            if k == 0 && has_values {
                let bits = ra.iter().zip(&rb).all(|(a, b)| same(*a, *b));
                assert!(bits, "{what}: values {ra:?} structured, {rb:?} flat");
            } else if conditioned {
                for (i, (a, b)) in ra.iter().zip(&rb).enumerate() {
                    assert!(
                        close(*a, *b, Tol::rel(1e-9)),
                        "{what}: block {k} entry {i}: {a:e} vs flat {b:e}"
                    );
                }
            }
        }
        tally.count("against flat");
        if request == Request::Jacobian && conditioned {
            // The Jacobian against dual numbers (which write calls out).
            let jacobian = &da[1];
            for col in 0..n {
                let dual = eval_dual(dag, &roots, &xp, col);
                for (row, d) in dual.outputs.iter().enumerate().filter(|(_, d)| d.d.is_finite()) {
                    let got = jacobian[row][col];
                    assert!(
                        close(got, d.d, Tol::rel(1e-8)),
                        "{what}: J[{row}][{col}] = {got:e}, dual {:e}",
                        d.d
                    );
                }
            }
            tally.count("against dual numbers");
        }
    }
}

/// Every kind of kernel of `program` against the interpreter.
fn against_interpreter(program: &Program, rng: &mut Rng, what: &str, tally: &mut Tally) {
    let compiler = JitCompiler::new().expect("a supported host").with_self_check(false);
    let x = program.point.clone().expect("a point");
    let p = program.param_values.clone().unwrap_or_default();
    let xp: Vec<f64> = x.iter().chain(&p).copied().collect();
    let jacobian = dstar::factor::jacobian(program.kernel().expect("a kernel"));
    let mut all = kinds(program, true, false, true);
    all.push(kernels::KernelKind {
        name: "jacobian",
        kernel: jacobian.kernel().clone(),
        parts: vec![jacobian.kernel().num_inputs()],
    });
    for kind in &all {
        check_kind(&compiler, kind, &xp, rng, what, tally);
    }
}

fn check(seed: u64, ops: usize, tally: &mut Tally) {
    let mut rng = Rng::new(seed);
    let generated = testkit::functions::generate(&mut rng, ops);
    let what = format!("seed {seed}");
    let structured = parse(&generated.structured, &what);
    let flat = parse(&generated.flat, &format!("{what} (flat)"));
    let what = format!("{what}\n{}", generated.structured);
    against_flat(&structured, &flat, &mut rng, &what, tally);
    against_interpreter(&structured, &mut rng, &what, tally);
}

#[test]
fn generated_programs_with_functions_equal_their_calls_written_out() {
    let mut tally = Tally::default();
    let count = if testkit::long_run() { 2000 } else { 30 };
    for seed in 0..count {
        check(seed, [10, 30, 80][seed as usize % 3], &mut tally);
    }
    tally.report(&format!("{count} generated programs with functions"));
}

/// The families of `gen.py` (optimal control with nested calls, a fit and a
/// Gaussian mixture with data as parameters, a grid), structured against
/// their `--inline` form, at several sizes; the smallest of each also kernel
/// by kernel against the interpreter.
#[test]
fn the_structured_families_equal_their_inlined_forms() {
    let mut tally = Tally::default();
    let first_order =
        [Request::Values, Request::Jacobian, Request::Gradient, Request::Vjp(2), Request::Jvp(2)];
    let families: [(&str, &[usize], &[Request]); 4] = [
        ("cartpole", &[1, 7, 40], &REQUESTS),
        ("fit", &[3, 60, 400], &REQUESTS),
        ("minsurf", &[2, 6, 12], &REQUESTS),
        ("gmm", &[1, 3], &first_order),
    ];
    let mut rng = Rng::new(28);
    for (family, sizes, requests) in families {
        for (i, &n) in sizes.iter().enumerate() {
            let what = format!("{family} {n}");
            let structured = parse(&gen_py(family, n, &[]), &what);
            let inline = parse(&gen_py(family, n, &["--inline"]), &format!("{what} --inline"));
            assert!(!structured.functions.is_empty(), "{what}: structured");
            against_flat_for(requests, &structured, &inline, &mut rng, &what, &mut tally);
            if i == 0 && family != "gmm" {
                against_interpreter(&structured, &mut rng, &what, &mut tally);
            }
        }
    }
    tally.report("the gen.py families");
}
