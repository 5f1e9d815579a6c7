//! Issue 25: the emitted C of the Jacobian and the Lagrangian Hessian of
//! every shape of `testkit::shapes`, compiled with the system C compiler in
//! a standard mode (`-std=c99`: no contraction into `fma`), against the JIT,
//! bit for bit. The shapes call `sin`, `cos`, `tan`, `exp`, `log` and
//! `sqrt`, which the JIT and the C file take from the same C library, and
//! powers, which both compute by dstar's own steps (`dstar_pow`); only the
//! functions dstar defines itself in Rust (`erf`, `asinh`, ...) would be the
//! C library's in C, and no shape calls them. `backend/tests/emit_c.rs`
//! checks every operation on generated programs.
//!
//! Issue 28: programs with functions, whose kernels call each function (and
//! its derivative functions) written once in the C file: the `gen.py`
//! families bit for bit, generated programs with functions
//! ([`testkit::functions`]) within a tolerance where they call `asinh` (the
//! C library's in C, dstar's own in the JIT), and the size of the C file,
//! which grows with the call sites, not with the program written out.

use dstar::frontend::{Kernel, Op, Program};
use dstar::{backend, factor, JitCompiler};
use testkit::native::{c_compiler, CKernel};
use testkit::shapes::Family;
use testkit::{close, gen_py, same, Rng, Tol};

/// Whether `kernel` (its calls written out) computes a function that the C
/// file takes from the C library and the JIT from dstar's own code.
fn calls_portable(kernel: &Kernel) -> bool {
    let kernel = kernel.inlined();
    let reach = kernel.dag().reachable(kernel.roots());
    let portable = [Op::Erf, Op::Asinh, Op::Acosh, Op::Atanh, Op::Sign, Op::Min, Op::Max];
    kernel.dag().ids().any(|id| reach[id.index()] && portable.contains(&kernel.dag().op(id)))
}

/// The C of `kernel` against its JIT at `points`, bit for bit.
fn compare(cc: &str, kernel: &Kernel, points: &[Vec<f64>], what: &str) {
    assert!(!calls_portable(kernel), "{what}: a shape calls a function the C file takes from elsewhere");
    compare_within(cc, kernel, points, None, what);
}

/// The C of `kernel` against its JIT at `points`: bit for bit, or within
/// `tol` if given.
fn compare_within(cc: &str, kernel: &Kernel, points: &[Vec<f64>], tol: Option<Tol>, what: &str) {
    // One block: the C kernel takes the whole input as one array, as the test's loader calls it.
    let source = backend::emit_c(kernel, "dstar_kernel", &[kernel.num_inputs()]).expect("a C name");
    let m = kernel.num_outputs();
    let c = CKernel::build(cc, &source, "dstar_kernel", &["-O2", "-std=c99"], kernel.num_inputs(), m);
    let jit = JitCompiler::new().expect("a supported host").compile(kernel).expect("compiles");
    let (mut a, mut b) = (vec![0.0; m], vec![0.0; m]);
    for x in points {
        jit.eval(x, &mut a).expect("lengths");
        c.eval(x, &mut b);
        let agree = |p: f64, q: f64| tol.map_or(same(p, q), |tol| close(p, q, tol));
        if let Some(k) = a.iter().zip(&b).position(|(p, q)| !agree(*p, *q)) {
            panic!("{what}: output {k}: JIT {:e}, C {:e} ({} ulps)", a[k], b[k], testkit::ulps(a[k], b[k]));
        }
    }
}

#[test]
fn emitted_c_matches_the_jit_on_real_shapes() {
    let Some(cc) = c_compiler() else { return };
    let mut rng = Rng::new(31);
    for family in Family::ALL {
        let source = family.generate(family.size_for(400), &mut rng);
        let program = dstar::parse_program(&source).expect("parses");
        let x = program.point.clone().expect("a point");
        let w: Vec<f64> = (0..program.outputs.len()).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let moved: Vec<f64> = x.iter().map(|v| v * 0.99 - 1e-3).collect();
        let jacobian = factor::jacobian(program.kernel().expect("a kernel"));
        compare(&cc, jacobian.kernel(), &[x.clone(), moved.clone()], &format!("{} Jacobian", family.name()));
        let hessian = factor::lagrangian_hessian(program.kernel().expect("a kernel"));
        let points = [[x, w.clone()].concat(), [moved, w].concat()];
        compare(&cc, hessian.kernel(), &points, &format!("{} Hessian", family.name()));
    }
}

/// The Jacobian and Lagrangian Hessian kernels of `program` (whose point
/// and parameters its file gives), at that point and a moved one: the
/// kernels and their inputs `x, p` and `x, p, w`.
fn derivative_kernels(program: &Program, rng: &mut Rng) -> [(Kernel, Vec<Vec<f64>>); 2] {
    let x = program.point.clone().expect("a point");
    let p = program.param_values.clone().unwrap_or_default();
    let w: Vec<f64> = (0..program.outputs.len()).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let moved: Vec<f64> = x.iter().map(|v| v * 0.99 - 1e-3).collect();
    let jacobian = factor::jacobian(program.kernel().expect("a kernel")).into_kernel();
    let hessian = factor::lagrangian_hessian(program.kernel().expect("a kernel")).kernel().clone();
    [
        (jacobian, vec![[&x[..], &p].concat(), [&moved[..], &p].concat()]),
        (hessian, vec![[&x[..], &p, &w].concat(), [&moved[..], &p, &w].concat()]),
    ]
}

#[test]
fn emitted_c_with_functions_matches_the_jit() {
    let Some(cc) = c_compiler() else { return };
    let mut rng = Rng::new(28);
    for (family, n) in [("cartpole", 3), ("fit", 20), ("minsurf", 4)] {
        let program = dstar::parse_program(&gen_py(family, n, &[])).expect("parses");
        assert!(!program.functions.is_empty(), "{family}: structured");
        for (kernel, points) in derivative_kernels(&program, &mut rng) {
            assert!(kernel.has_calls(), "{family}: the derivative kernels call functions");
            let c = backend::emit_c(&kernel, "dstar_kernel", &[kernel.num_inputs()]).expect("a C name");
            assert!(c.contains("static void dstar_kernel_"), "{family}: functions written as functions");
            let derivative = c.contains("_d(double a0") || c.contains("_dd(double a0");
            assert!(derivative, "{family}: derivative functions written as functions");
            compare(&cc, &kernel, &points, &format!("{family} {n}"));
        }
    }
    let tol = Tol { rel: 1e-9, abs: 1e-12 };
    for seed in 0..6 {
        let generated = testkit::functions::generate(&mut Rng::new(seed), [10, 30, 80][seed as usize % 3]);
        let program = dstar::parse_program(&generated.structured).expect("parses");
        for (kernel, points) in derivative_kernels(&program, &mut rng) {
            let tol = calls_portable(&kernel).then_some(tol);
            compare_within(&cc, &kernel, &points, tol, &format!("generated program {seed}"));
        }
    }
}

/// Bytes of the emitted C of the Jacobian and the Lagrangian Hessian of `source`.
fn emitted_bytes(source: &str) -> [usize; 2] {
    let program = dstar::parse_program(source).expect("parses");
    let lengths = [program.inputs.len(), program.params.len()];
    let jacobian = factor::jacobian(program.kernel().expect("a kernel"));
    let hessian = factor::lagrangian_hessian(program.kernel().expect("a kernel"));
    let weights = [lengths[0], lengths[1], program.outputs.len()];
    [
        backend::emit_c(jacobian.kernel(), "f", &lengths).expect("C").len(),
        backend::emit_c(hessian.kernel(), "f", &weights).expect("C").len(),
    ]
}

/// Each function is written once and each call site is one call: from 10
/// to 100 intervals of the cart-pole, the structured file grows by its
/// call sites and the statements reading their results, the inlined one by
/// the whole step written out, many times more; and the structured file at
/// 100 intervals is a fraction of the inlined one.
#[test]
fn emitted_c_grows_with_call_sites_not_with_the_inlined_program() {
    let [small, large] = [10, 100].map(|n| emitted_bytes(&gen_py("cartpole", n, &[])));
    let [small_inlined, large_inlined] =
        [10, 100].map(|n| emitted_bytes(&gen_py("cartpole", n, &["--inline"])));
    for (k, what) in ["Jacobian", "Hessian"].iter().enumerate() {
        let per_interval = (large[k] - small[k]) / 90;
        let per_interval_inlined = (large_inlined[k] - small_inlined[k]) / 90;
        eprintln!(
            "cartpole {what}: structured {} -> {} bytes ({per_interval} an interval), \
             inlined {} -> {} bytes ({per_interval_inlined} an interval)",
            small[k], large[k], small_inlined[k], large_inlined[k]
        );
        assert!(per_interval * 5 < per_interval_inlined, "{what}: {per_interval} vs {per_interval_inlined}");
        assert!(large[k] * 4 < large_inlined[k], "{what}: {} vs {}", large[k], large_inlined[k]);
    }
}
