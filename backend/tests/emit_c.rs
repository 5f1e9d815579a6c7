//! The emitted C, compiled with the system C compiler, against the JIT:
//! bit for bit on arithmetic, within a few ulps where the C library's
//! elementary functions replace Rust's.

use backend::{emit_c, JitCompiler};
use frontend::{ExprDag, NodeId, Op};
use std::collections::HashSet;
use testkit::native::{c_compiler, CKernel};
use testkit::{same, ulps, with_seed, Rng, Shape};

/// Runs `x` through the JIT and the C kernel; `exact` asks for identical bits.
fn compare(
    cc: &str,
    dag: &ExprDag,
    outputs: &[NodeId],
    num_inputs: usize,
    points: &[Vec<f64>],
    exact: bool,
    what: &str,
) {
    let source = emit_c(
        &frontend::Kernel::new(dag.clone(), outputs.to_vec(), num_inputs).unwrap(),
        "dstar_kernel",
        &[num_inputs],
    )
    .unwrap();
    let c = CKernel::build(cc, &source, "dstar_kernel", &["-O2", "-std=c99"], num_inputs, outputs.len());
    let jit = JitCompiler::new()
        .unwrap()
        .compile(&frontend::Kernel::new(dag.clone(), outputs.to_vec(), num_inputs).unwrap())
        .unwrap();
    let mut a = vec![0.0; outputs.len()];
    let mut b = a.clone();
    for x in points {
        jit.eval(x, &mut a).unwrap();
        c.eval(x, &mut b);
        for (k, (&j, &c)) in a.iter().zip(&b).enumerate() {
            let ok =
                if exact { same(j, c) } else { same(j, c) || (j - c).abs() <= 1e-12 * j.abs().max(1e-300) };
            assert!(ok, "{what} at {x:?}, output {k}: JIT {j:e}, C {c:e} ({} ulps)", ulps(j, c));
        }
    }
}

/// Whether `outputs` reach a function the C file takes from the C library
/// (the power's helper calls `pow` only where the interpreter does).
fn uses_libm(dag: &ExprDag, outputs: &[NodeId]) -> bool {
    let reach = dag.reachable(outputs);
    dag.ids().any(|id| reach[id.index()] && dag.op(id) != Op::Pow && dag.op(id).libm_symbol().is_some())
}

#[test]
fn emitted_c_matches_the_jit_on_the_corpus() {
    let Some(cc) = c_compiler() else { return };
    for problem in testkit::corpus() {
        let (name, program) = (problem.name, problem.program);
        let outputs = program.output_nodes();
        let point = testkit::point_of(&program);
        let arithmetic_only = !uses_libm(&program.dag, &outputs);
        compare(&cc, &program.dag, &outputs, program.inputs.len(), &[point], arithmetic_only, &name);
    }
}

#[test]
fn emitted_c_matches_the_jit_on_random_programs() {
    let Some(cc) = c_compiler() else { return };
    let mut rng = Rng::new(13);
    let mut seen = HashSet::new();
    for seed in 200..206 {
        // Elementary functions: C's libm against Rust's, so close, not identical.
        // Every node an output, so that every operation generated is emitted.
        let case = with_seed(seed, &Shape::every(3, 60));
        let nodes: Vec<NodeId> = case.dag.ids().collect();
        seen.extend(nodes.iter().map(|&id| case.dag.op(id)));
        let points = vec![case.point.clone()];
        compare(&cc, &case.dag, &nodes, 3, &points, false, &format!("seed {seed}"));
    }
    let missing: Vec<Op> = Op::ALL.into_iter().filter(|op| !seen.contains(op)).collect();
    assert!(missing.is_empty(), "no emitted C computes {missing:?}");
    // Arithmetic, min, max, sign, abs, floor, ceil, sqrt, ifelse: identical, specials included.
    let program = frontend::parse_program(
        "in x, y, z\n\
         a = min(x, y) * max(y, z) - sign(x - y) / abs(z)\n\
         b = floor(a) + ceil(x * 3.5) - sqrt(abs(y)) + -z\n\
         out a\nout b\n\
         out ifelse(x < y, a, b) + ifelse(x <= z, 1, 2) + ifelse(y > z, 3, 4)\n\
         out ifelse(x >= y, a, -0.0) * ifelse(x == z, 5, 6) + ifelse(y != z, 7, 8)\n\
         out min(x, -0.0) + max(y, 0.0)",
    )
    .unwrap();
    let case = testkit::Case {
        dag: frontend::ExprDag::clone(&program.dag),
        outputs: program.output_nodes(),
        num_inputs: 3,
        point: vec![0.3, -1.7, 2.2],
    };
    let points = case.probe_points(&mut rng);
    compare(&cc, &case.dag, &case.outputs, 3, &points, true, "native operations");
}
