//! The JIT against the interpreter on D* Jacobians: every corpus problem,
//! the generated programs of the D* differential test, and the Jacobian and
//! Hessian kernels of guarded programs, node by node (bit for bit, inline
//! integer powers within 1 ulp).

use backend::JitCompiler;
use frontend::{ExprDag, NodeId};
use testkit::{generate, Rng, Shape};

/// [`testkit::assert_nodewise_parity`] of the JIT: every node `outputs`
/// reach compiled as an output, checked against the interpreter.
fn assert_nodewise_parity(
    compiler: &JitCompiler,
    dag: &ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    x: &[f64],
    what: &str,
) {
    testkit::assert_nodewise_parity(dag, outputs, num_inputs, x, what, |kernel| {
        let jit = compiler.compile(kernel).expect("a compilable case");
        let mut out = vec![0.0; kernel.num_outputs()];
        jit.eval(x, &mut out).expect("matching lengths");
        out
    });
}

#[test]
fn jacobian_kernels_match_the_interpreter_on_the_corpus() {
    let compiler = JitCompiler::new().expect("host supported");
    for problem in testkit::corpus() {
        let (name, program) = (problem.path.display().to_string(), &problem.program);
        let jacobian = factor::jacobian(program.kernel().unwrap());
        let x = problem.point();
        let roots = jacobian.kernel().roots().to_vec();
        assert_nodewise_parity(&compiler, jacobian.dag(), &roots, program.inputs.len(), &x, &name);
    }
}

#[test]
fn jacobian_kernels_match_the_interpreter_on_generated_programs() {
    let count = testkit::cases(300, 20_000);
    let compiler = JitCompiler::new().expect("host supported");
    let mut rng = Rng::new(0x5eed);
    for i in 0..count {
        let shape = Shape::random(&mut rng);
        let case = generate(&mut rng, &shape);
        let n = case.num_inputs;
        let jacobian = factor::jacobian(frontend::Kernel::new(case.dag, case.outputs.to_vec(), n).unwrap());
        let roots = jacobian.kernel().roots().to_vec();
        for _ in 0..2 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect();
            assert_nodewise_parity(&compiler, jacobian.dag(), &roots, n, &x, &format!("program {i}"));
        }
    }
}

/// Issue 12: the derivative kernels of guarded programs
/// ([`testkit::guards`]), whose selects keep the branch not taken out of the
/// derivatives: the Jacobian and Hessian kernels, node by node, at the point
/// where the branch not taken is singular and at random points. 200
/// programs; `DSTAR_LONG=1` runs 5,000.
#[test]
fn issue_12_guarded_derivative_kernels_match_the_interpreter() {
    let compiler = JitCompiler::new().expect("host supported");
    for seed in 0..testkit::cases(200, 5_000) as u64 {
        let mut rng = Rng::new(seed);
        let guarded = testkit::guards::random_guard_case(&mut rng);
        let case = guarded.case;
        let n = case.num_inputs;
        let function = case.kernel();
        let jacobian = factor::jacobian(function.clone());
        let hessian = factor::hessian(function, 0);
        let points = [case.point.clone(), rng.point(n, -2.0, 2.0)];
        for x in &points {
            let roots = jacobian.kernel().roots();
            assert_nodewise_parity(&compiler, jacobian.dag(), roots, n, x, &format!("Jacobian {seed}"));
            let roots = hessian.kernel().roots();
            assert_nodewise_parity(&compiler, hessian.dag(), roots, n, x, &format!("Hessian {seed}"));
        }
    }
}
