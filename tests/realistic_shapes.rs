//! Issue 25: every kind of compiled kernel against the interpreter, bit for
//! bit, on the shapes real problems have ([`testkit::shapes`]: banded
//! constraints over a shared intermediate, multiple and single shooting,
//! grids, fits, collocation, partial sums, the NLP families), at sizes on
//! both sides of the chunk size (1,000 operations), of the split that
//! compiles a Jacobian's function ahead of its entries (two chunks of
//! function operations) and of the limit under which eliminations compete
//! with D* (16,384 edges).
//!
//! Each kernel is compiled every way the library compiles one: whole, in
//! its parts (the Hessian's `x, w`, the products' directions), with the
//! function first (`compile_program`), in small chunks, and two points per
//! call in batches; the self-check is off so that a wrong kernel shows
//! here. Independent oracles (dual and hyper-dual numbers, central
//! differences) check the derivatives themselves on the same shapes.
//!
//! The short run covers every family at two of the three sizes;
//! `DSTAR_LONG=1` draws 240 instances from 1e3 to 5e4 operations, and adds
//! a fit of 10,000 residuals over four inputs and a sum over 10,000 inputs.

#[path = "common/kernels.rs"]
mod kernels;

use dstar::frontend::Program;
use dstar::{differentiate, Args, Function, JitCompiler, Options, Request};
use kernels::{assert_same, check_kind, input, kinds, KernelKind, Tally};
use testkit::shapes::Family;
use testkit::Rng;

/// The Jacobian compiled as the library does (`compile_program`: the
/// function's chunks ahead of the entries, while they are simplified), and
/// whole, and function first in small chunks, against the interpreter.
fn check_jacobian(
    compiler: &JitCompiler,
    program: &Program,
    x: &[f64],
    rng: &mut Rng,
    what: &str,
    tally: &mut Tally,
) {
    let options = Options { self_check: false, ..Options::default() };
    let jacobian = differentiate(program, &options).expect("differentiates").jacobian;
    let kernel = jacobian.kernel();
    let library = Function::new(program.clone(), options).compile(Request::Jacobian).expect("compiles");
    let small = compiler.clone().with_chunk_size(97);
    let whole = [kernel.num_inputs()];
    let ahead = small.compile_function(kernel, program.outputs.len(), &whole).expect("compiles");
    let ahead = small.compile_rest(ahead, kernel, &whole).expect("compiles");
    for _ in 0..2 {
        let input = input(rng, x, kernel);
        let mut out = vec![0.0; library.out_len()];
        library.eval(Args::x(&input), &mut out).expect("lengths");
        assert_same(kernel, &input, &out, &format!("{what} Jacobian (Function::compile)"));
        ahead.eval(&input, &mut out).expect("lengths");
        assert_same(kernel, &input, &out, &format!("{what} Jacobian (function first, chunks of 97)"));
        tally.count("jacobian");
    }
    let kind = KernelKind { name: "jacobian", kernel: kernel.clone(), parts: vec![kernel.num_inputs()] };
    check_kind(compiler, &kind, x, rng, what, tally);
}

/// Every kernel of one instance of `family` of about `ops` operations.
fn check_instance(family: Family, ops: usize, seed: u64, all_kinds: bool, tally: &mut Tally) {
    let compiler = JitCompiler::new().expect("a supported host").with_self_check(false);
    let mut rng = Rng::new(seed);
    let size = family.size_for(ops);
    let source = family.generate(size, &mut rng);
    let program = dstar::parse_program(&source).expect("parses");
    let x = program.point.clone().expect("a point");
    let what = format!("{} of size {size} ({} ops, seed {seed})", family.name(), program.count_ops());
    check_jacobian(&compiler, &program, &x, &mut rng, &what, tally);
    let big = program.count_ops() > 3_000;
    for kind in kinds(&program, all_kinds, all_kinds && !big, all_kinds && !big) {
        check_kind(&compiler, &kind, &x, &mut rng, &what, tally);
    }
}

#[test]
fn every_kernel_matches_the_interpreter_on_real_shapes() {
    let mut tally = Tally::default();
    if testkit::long_run() {
        // Sizes log-uniform from 1e3 to 5e4 operations, every family in turn.
        let mut rng = Rng::new(2025);
        for seed in 0..240 {
            let family = Family::ALL[seed % Family::ALL.len()];
            let ops = (1e3 * 50f64.powf(rng.unit())) as usize;
            check_instance(family, ops, seed as u64, ops <= 20_000, &mut tally);
        }
        // Ten thousand outputs over four inputs, and the reverse.
        check_instance(Family::FitResiduals, 80_000, 7, false, &mut tally);
        check_instance(Family::PartialSums, 80_000, 8, false, &mut tally);
    } else {
        // Below one chunk, past the function-first split, past the
        // elimination limit (the Jacobian and first-order products only):
        // two of the three sizes per family, in turn.
        for (i, family) in Family::ALL.into_iter().enumerate() {
            let sizes = if i % 2 == 0 { [700, 2_600] } else { [2_600, 9_000] };
            for (j, ops) in sizes.into_iter().enumerate() {
                check_instance(family, ops, (10 * i + j) as u64, ops < 5_000, &mut tally);
            }
        }
    }
    tally.report("real shapes");
}

/// The derivatives themselves on the same shapes, against independent
/// oracles: the compiled Jacobian against dual numbers and central
/// differences (`testkit::compare`), the Lagrangian Hessian against
/// hyper-dual numbers at sampled entries (its structural zeros included),
/// and J·v, wᵀJ and H·v against the Jacobian and Hessian they must equal.
/// A bug in a building block that the interpreter and the JIT share would
/// pass the parity test above; not this one.
#[test]
fn derivatives_on_real_shapes_match_the_oracles() {
    let instances = testkit::cases(2, 8);
    let (mut checked, mut agreed) = (0, 0);
    for family in Family::ALL {
        for seed in 0..instances as u64 {
            let mut rng = Rng::new(100 + seed);
            let size = family.size_for(if seed % 2 == 0 { 600 } else { 2_500 });
            let source = family.generate(size, &mut rng);
            let program = dstar::parse_program(&source).expect("parses");
            let what = format!("{} of size {size}, seed {seed}", family.name());
            let (dag, outputs) = (&program.dag, program.output_nodes());
            let x = program.point.clone().expect("a point");
            let (n, m) = (x.len(), outputs.len());

            let function = Function::new(program.clone(), Options::default());
            let dense =
                function.compile(Request::Jacobian).unwrap().eval_dense(Args::x(&x)).expect("lengths");
            let (values, jacobian) = (&dense[0][0], &dense[1]);
            match testkit::compare(dag, &outputs, &x, values, jacobian) {
                testkit::Verdict::Wrong(e) | testkit::Verdict::NonFinite(e) => panic!("{what}: {e}"),
                testkit::Verdict::Agrees => agreed += 1,
                testkit::Verdict::Skipped(reason) => {
                    eprintln!("{what}: central differences skipped, {reason}")
                }
            }

            let w: Vec<f64> = (0..m).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let hessian = function.compile(Request::Hessian).expect("compiles");
            let dense = hessian.eval_dense(Args::x(&x).w(&w)).expect("lengths").remove(0);
            for _ in 0..40 {
                let (i, j) = (rng.below(n), rng.below(n));
                let hyper = testkit::eval_hyper(dag, &outputs, &x, i, j);
                let (exact, magnitude) = hyper
                    .outputs
                    .iter()
                    .zip(&w)
                    .fold((0.0, 0.0), |(e, s), (h, w)| (e + w * h.d12, s + w.abs() * h.m12));
                let tolerance = 1e-9 * exact.abs() + 1e-11 * magnitude + 1e-13;
                assert!(
                    (dense[i][j] - exact).abs() <= tolerance,
                    "{what}: Hessian ({i}, {j}) is {:e}, hyper-dual {exact:e}",
                    dense[i][j]
                );
            }

            let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let jv: Vec<f64> = jacobian.iter().map(|row| dot(row, &v)).collect();
            let jt_w: Vec<f64> = (0..n).map(|j| (0..m).map(|i| w[i] * jacobian[i][j]).sum()).collect();
            let hv: Vec<f64> = dense.iter().map(|row| dot(row, &v)).collect();
            let mut out = vec![0.0; m];
            function.compile(Request::Jvp(1)).unwrap().eval(Args::x(&x).v(&v), &mut out).unwrap();
            assert_close(&out, &jv, &format!("{what}: J·v"));
            let mut out = vec![0.0; n];
            function.compile(Request::Vjp(1)).unwrap().eval(Args::x(&x).w(&w), &mut out).unwrap();
            assert_close(&out, &jt_w, &format!("{what}: wᵀJ"));
            function.compile(Request::Hvp(1)).unwrap().eval(Args::x(&x).w(&w).v(&v), &mut out).unwrap();
            assert_close(&out, &hv, &format!("{what}: H·v"));
            checked += 1;
        }
    }
    eprintln!("oracles: {checked} instances, {agreed} with every central difference too");
    // Dual numbers check every entry; central differences skip the
    // ill-conditioned ones, but not most instances.
    assert!(agreed * 2 > checked, "central differences skipped {} of {checked}", checked - agreed);
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

/// Products summed in another order than the kernel's: close, not equal.
fn assert_close(got: &[f64], want: &[f64], what: &str) {
    let scale = want.iter().fold(1.0f64, |s, v| s.max(v.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= 1e-10 * scale, "{what}: component {k} is {a:e}, expected {b:e}");
    }
}
