//! Every corpus problem: the D* Jacobian and the function values match the
//! `.ref.json` references to 1e-9 relative.

use testkit::{close, Problem, Tol};

const TOL: Tol = Tol { rel: 1e-9, abs: 1e-12 };

fn check(problem: &Problem) {
    let (name, program, reference) = (&problem.name, &problem.program, &problem.reference);
    let jacobian = factor::jacobian(program.kernel().unwrap());
    let (values, dense) = jacobian.eval(&reference.point);
    for (i, (a, b)) in values.iter().zip(&reference.values).enumerate() {
        assert!(close(*a, *b, TOL), "{name}: value {i}: {a} vs reference {b}");
    }
    let rows = &reference.jacobian;
    assert_eq!(rows.len(), dense.len(), "{name}: rows");
    for (i, row) in rows.iter().enumerate() {
        for (k, &b) in row.iter().enumerate() {
            let a = dense[i][k];
            assert!(close(a, b, TOL), "{name}: d out{i}/d x{k}: {a} vs reference {b}");
        }
    }
}

/// D* never costs more than plain forward or reverse accumulation.
fn check_cost(problem: &Problem) {
    let program = &problem.program;
    let outputs = program.output_nodes();
    let jacobian = factor::jacobian(program.kernel().unwrap());
    let forward = factor::forward_mode_ops(
        &frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), program.inputs.len()).unwrap(),
        usize::MAX,
    )
    .expect("no limit");
    let reverse = factor::reverse_mode_ops(
        &frontend::Kernel::new(program.dag.clone(), outputs.to_vec(), program.inputs.len()).unwrap(),
        usize::MAX,
    )
    .expect("no limit");
    let name = &problem.name;
    assert!(
        jacobian.jacobian_ops() <= forward.min(reverse),
        "{name}: D* {} ops, forward {forward}, reverse {reverse}",
        jacobian.jacobian_ops()
    );
}

#[test]
fn corpus_jacobians_cost_at_most_forward_or_reverse_mode() {
    for problem in testkit::corpus() {
        check_cost(&problem);
    }
}

#[test]
fn corpus_jacobians_match_references() {
    let problems = testkit::corpus();
    assert!(!problems.is_empty(), "no problems in tests/corpus");
    for problem in &problems {
        check(problem);
    }
}
