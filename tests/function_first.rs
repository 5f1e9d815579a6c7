//! `Function::compile(Request::Jacobian)` compiles the function's chunks
//! while the Jacobian is simplified (`JitCompiler::compile_function`); its
//! kernels equal those of `differentiate` then `JitCompiler::compile`, bit
//! for bit, on every corpus problem and NLP.

use dstar::{differentiate, Args, Function, JitCompiler, Options, Request};
use testkit::{corpus, nlp, point_of, same};

#[test]
fn compiled_with_the_function_first_equals_compiled_whole() {
    let Ok(compiler) = JitCompiler::new() else { return };
    for problem in corpus().into_iter().chain(nlp()) {
        let options = Options::default();
        let ahead =
            Function::new(problem.program.clone(), options.clone()).compile(Request::Jacobian).unwrap();
        let jacobian = differentiate(&problem.program, &options).unwrap().jacobian;
        let whole = compiler.compile(jacobian.kernel()).unwrap();
        assert_eq!(ahead.pattern(), Some(jacobian.pattern()), "{}", problem.name);
        let x0 = point_of(&problem.program);
        for step in [0.0, 0.01, -0.03] {
            let x: Vec<f64> = x0.iter().enumerate().map(|(i, v)| v + step * (1 + i % 5) as f64).collect();
            let mut a = vec![f64::NAN; ahead.out_len()];
            let mut b = vec![0.25; whole.num_outputs()];
            ahead.eval(Args::x(&x), &mut a).unwrap();
            whole.eval(&x, &mut b).unwrap();
            for (k, (p, q)) in a.iter().zip(&b).enumerate() {
                assert!(same(*p, *q), "{}: output {k} at step {step}: {p:e} vs {q:e}", problem.name);
            }
        }
    }
}
