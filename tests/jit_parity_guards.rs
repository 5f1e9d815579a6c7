//! Issue 12: the JIT against the interpreter on the derivative kernels of
//! guarded programs (`factor/tests/support/guards.rs`), whose selects keep
//! the branch not taken out of the derivatives: the Jacobian and Hessian
//! kernels, node by node, at the point where the branch not taken is
//! singular and at random points. 200 programs; `DSTAR_LONG=1` runs 5,000.

#[allow(dead_code)]
#[path = "../backend/tests/support/mod.rs"]
mod jit;
#[path = "../factor/tests/support/mod.rs"]
mod programs;

use backend::JitCompiler;
use frontend::Kernel;

#[test]
fn issue_12_guarded_derivative_kernels_match_the_interpreter() {
    let count = if std::env::var("DSTAR_LONG").is_ok_and(|v| v == "1") { 5_000 } else { 200 };
    let Ok(compiler) = JitCompiler::new() else { return };
    for seed in 0..count {
        let mut rng = programs::gen::Rng::new(seed);
        let guarded = programs::guards::random_guard_case(&mut rng);
        let case = guarded.case;
        let n = case.num_inputs;
        let function = Kernel::new(case.dag, case.outputs, n).expect("valid");
        let jacobian = factor::jacobian(function.clone());
        let hessian = factor::hessian(function, 0);
        let mut points = vec![guarded.point];
        points.push((0..n).map(|_| rng.uniform(-2.0, 2.0)).collect());
        for x in &points {
            let roots = jacobian.kernel().roots();
            jit::assert_nodewise_parity(&compiler, jacobian.dag(), roots, n, x, &format!("Jacobian {seed}"));
            let roots = hessian.kernel().roots();
            jit::assert_nodewise_parity(&compiler, hessian.dag(), roots, n, x, &format!("Hessian {seed}"));
        }
    }
}
