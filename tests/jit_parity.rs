//! The JIT against the interpreter on D* Jacobians: every corpus problem and
//! the generated programs of the D* differential test, node by node (bit for
//! bit, inline integer powers within 1 ulp).

#[allow(dead_code)]
#[path = "../backend/tests/support/mod.rs"]
mod jit;
#[allow(dead_code)]
#[path = "../factor/tests/support/gen.rs"]
mod programs;

mod support;

use backend::JitCompiler;

#[test]
fn jacobian_kernels_match_the_interpreter_on_the_corpus() {
    let compiler = JitCompiler::new().expect("host supported");
    for path in support::corpus() {
        let name = path.display().to_string();
        let program =
            dstar::parse_program(&std::fs::read_to_string(&path).expect("corpus file")).expect("parses");
        let jacobian = factor::jacobian(program.kernel().unwrap());
        let x = jit::point_of(&program);
        let roots = jacobian.kernel().roots().to_vec();
        jit::assert_nodewise_parity(&compiler, jacobian.dag(), &roots, program.inputs.len(), &x, &name);
    }
}

#[test]
fn jacobian_kernels_match_the_interpreter_on_generated_programs() {
    let count = if std::env::var_os("DSTAR_LONG").is_some() { 20_000 } else { 300 };
    let compiler = JitCompiler::new().expect("host supported");
    let mut rng = programs::Rng::new(0x5eed);
    for i in 0..count {
        let shape = programs::random_shape(&mut rng);
        let case = programs::random_case(&mut rng, shape);
        let n = case.num_inputs;
        let jacobian = factor::jacobian(frontend::Kernel::new(case.dag, case.outputs.to_vec(), n).unwrap());
        let roots = jacobian.kernel().roots().to_vec();
        for _ in 0..2 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(-2.0, 2.0)).collect();
            jit::assert_nodewise_parity(&compiler, jacobian.dag(), &roots, n, &x, &format!("program {i}"));
        }
    }
}
