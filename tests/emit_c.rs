//! Issue 25: the emitted C of the Jacobian and the Lagrangian Hessian of
//! every shape of `testkit::shapes`, compiled with the system C compiler in
//! a standard mode (`-std=c99`: no contraction into `fma`), against the JIT,
//! bit for bit. The shapes call `sin`, `cos`, `tan`, `exp`, `log` and
//! `sqrt`, which the JIT and the C file take from the same C library, and
//! powers, which both compute by dstar's own steps (`dstar_pow`); only the
//! functions dstar defines itself in Rust (`erf`, `asinh`, ...) would be the
//! C library's in C, and no shape calls them. `backend/tests/emit_c.rs`
//! checks every operation on generated programs.

use dstar::frontend::{Kernel, Op};
use dstar::{backend, factor, JitCompiler};
use testkit::native::{c_compiler, CKernel};
use testkit::shapes::Family;
use testkit::{same, Rng};

/// The C of `kernel` against its JIT at `points`.
fn compare(cc: &str, kernel: &Kernel, points: &[Vec<f64>], what: &str) {
    let reach = kernel.dag().reachable(kernel.roots());
    let portable = [Op::Erf, Op::Asinh, Op::Acosh, Op::Atanh, Op::Sign, Op::Min, Op::Max];
    assert!(
        kernel.dag().ids().all(|id| !reach[id.index()] || !portable.contains(&kernel.dag().op(id))),
        "{what}: a shape calls a function the C file takes from elsewhere"
    );
    // One block: the C kernel takes the whole input as one array, as the test's loader calls it.
    let source = backend::emit_c(kernel, "dstar_kernel", &[kernel.num_inputs()]).expect("a C name");
    let m = kernel.num_outputs();
    let c = CKernel::build(cc, &source, "dstar_kernel", &["-O2", "-std=c99"], kernel.num_inputs(), m);
    let jit = JitCompiler::new().expect("a supported host").compile(kernel).expect("compiles");
    let (mut a, mut b) = (vec![0.0; m], vec![0.0; m]);
    for x in points {
        jit.eval(x, &mut a).expect("lengths");
        c.eval(x, &mut b);
        if let Some(k) = a.iter().zip(&b).position(|(p, q)| !same(*p, *q)) {
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
