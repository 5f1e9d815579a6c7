//! The JIT against the interpreter (`frontend::eval`): bit for bit.

use backend::JitCompiler;
use frontend::{ExprDag, NodeId, Op};
use std::collections::HashSet;
use testkit::{same, ulps, with_seed, Rng, Shape};

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

/// `case` compiled whole, against the interpreter bit for bit at its
/// probe points.
fn assert_outputs_match(compiler: &JitCompiler, case: &testkit::Case, rng: &mut Rng, what: &str) {
    let kernel = compiler
        .compile(&frontend::Kernel::new(case.dag.clone(), case.outputs.to_vec(), case.num_inputs).unwrap())
        .expect("compiles");
    let mut out = vec![0.0; case.outputs.len()];
    for x in case.probe_points(rng) {
        kernel.eval(&x, &mut out).expect("lengths match");
        let want = frontend::eval(&case.dag, &case.outputs, &x);
        for (k, (&got, &want)) in out.iter().zip(&want).enumerate() {
            assert!(same(got, want), "{what} at {x:?}, output {k}: JIT {got:e}, interpreter {want:e}");
        }
    }
}

#[test]
fn corpus_matches_the_interpreter() {
    let compiler = JitCompiler::new().expect("a supported host");
    for problem in testkit::corpus() {
        let (name, program) = (problem.name, problem.program);
        let outputs = program.output_nodes();
        let n = program.inputs.len();
        let x = testkit::point_of(&program);
        let kernel = compiler
            .compile(&frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), n).unwrap())
            .expect("corpus compiles");
        let mut out = vec![0.0; outputs.len()];
        kernel.eval(&x, &mut out).expect("lengths match");
        let want = frontend::eval(&program.dag, &outputs, &x);
        for (k, (&got, &want)) in out.iter().zip(&want).enumerate() {
            assert!(
                same(got, want),
                "{name} output {k}: JIT {got:e}, interpreter {want:e} ({} ulps)",
                ulps(got, want)
            );
        }
        assert_nodewise_parity(&compiler, &program.dag, &outputs, n, &x, &name);
    }
}

#[test]
fn random_programs_match_the_interpreter_bit_for_bit() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(7);
    let mut seen = HashSet::new();
    for seed in 0..40 {
        let case = with_seed(seed, &Shape::every(4, 80));
        let reach = case.dag.reachable(&case.outputs);
        seen.extend(case.dag.ids().filter(|id| reach[id.index()]).map(|id| case.dag.op(id)));
        assert_outputs_match(&compiler, &case, &mut rng, &format!("seed {seed}"));
    }
    for op in Op::ALL {
        assert!(seen.contains(&op), "no generated program reaches {op:?}");
    }
}

#[test]
fn random_programs_with_integer_powers_match_node_by_node() {
    let compiler = JitCompiler::new().expect("a supported host");
    let mut rng = Rng::new(11);
    for seed in 100..130 {
        let case = with_seed(seed, &Shape::every(3, 60));
        for x in case.probe_points(&mut rng) {
            let what = format!("seed {seed} at {x:?}");
            assert_nodewise_parity(&compiler, &case.dag, &case.outputs, case.num_inputs, &x, &what);
        }
    }
}

#[test]
fn programs_past_the_optimizer_limit_match_the_interpreter_bit_for_bit() {
    // Straight-line code of `OPTIMIZE_BELOW_OPS` operations or more
    // compiles without Cranelift's optimizer: every operation, on both
    // sides of the limit.
    let compiler = JitCompiler::new().expect("a supported host");
    let limit = JitCompiler::OPTIMIZE_BELOW_OPS;
    let mut rng = Rng::new(13);
    for (seed, ops, past) in [(200, limit / 2, false), (201, 3 * limit, true)] {
        let case = with_seed(seed, &Shape { outputs: 6000, ..Shape::every(6, ops) });
        let reach = case.dag.reachable(&case.outputs);
        let reached: Vec<Op> = case
            .dag
            .ids()
            .filter(|id| reach[id.index()])
            .map(|id| case.dag.op(id))
            .filter(|op| !op.is_leaf())
            .collect();
        assert_eq!(reached.len() >= limit, past, "seed {seed}: {} operations", reached.len());
        let seen: HashSet<Op> = reached.iter().copied().collect();
        assert!(
            Op::ALL.iter().filter(|op| !op.is_leaf()).all(|op| seen.contains(op)),
            "seed {seed} misses an operation"
        );
        let what = format!("seed {seed} ({} operations)", reached.len());
        assert_outputs_match(&compiler, &case, &mut rng, &what);
    }
}
