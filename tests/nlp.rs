//! The nonlinear programs of `tests/nlp/` ([`testkit::nlp`]: output 1 the
//! objective, the rest constraints): values, gradient and constraint
//! Jacobian, and the sparse Hessian of the Lagrangian with the reference's
//! weights, against the references computed by CasADi, to 1e-9; and the
//! Hessian's pattern against the reference's nonzero count.

use testkit::{as_matrix, as_vec, Tol};

/// 1e-9 relative, and absolute below magnitude 1 (`Tol::rel`).
fn assert_close(what: &str, got: f64, want: f64) {
    assert!(testkit::close(got, want, Tol::rel(1e-9)), "{what}: {got} vs {want}");
}

#[test]
fn every_nlp_matches_its_reference_to_1e_9() {
    let problems = testkit::nlp();
    assert!(problems.len() >= 5, "the NLP corpus is missing");
    for problem in problems {
        let (name, program, reference) = (&problem.name, &problem.program, &problem.reference);
        let (x, w) = (&reference.point, as_vec(&reference.json["weights"]));
        let (n, m) = (program.inputs.len(), program.outputs.len());
        assert_eq!((x.len(), w.len()), (n, m), "{name}");

        // Values, objective gradient and constraint Jacobian.
        let function = dstar::Function::new(program.clone(), dstar::Options::default());
        let jacobian = function.compile(dstar::Request::Jacobian).expect("compiles");
        let blocks = jacobian.eval_dense(dstar::Args::x(x)).expect("evaluates");
        let (values, dense) = (&blocks[0][0], &blocks[1]);
        for (i, (got, want)) in values.iter().zip(&reference.values).enumerate() {
            assert_close(&format!("{name}: value {i}"), *got, *want);
        }
        for (i, (row, want)) in dense.iter().zip(&reference.jacobian).enumerate() {
            for (j, (got, want)) in row.iter().zip(want).enumerate() {
                assert_close(&format!("{name}: J[{i}][{j}]"), *got, *want);
            }
        }

        // The Lagrangian Hessian, and the gradient of the Lagrangian wᵀJ.
        let hessian = function.compile(dstar::Request::Hessian).expect("compiles");
        let lower_nnz = reference.json["sizes"]["hessian_lower_nnz"].as_u64().unwrap() as usize;
        let pattern = hessian.pattern().expect("a Hessian's pattern");
        assert!(pattern.nnz() >= lower_nnz, "{name}: the pattern holds the reference's nonzeros");
        let got = hessian.eval_dense(dstar::Args::x(x).w(&w)).expect("evaluates").remove(0);
        for (i, (row, want)) in got.iter().zip(as_matrix(&reference.json["lagrangian_hessian"])).enumerate() {
            for (j, (got, want)) in row.iter().zip(want).enumerate() {
                assert_close(&format!("{name}: H[{i}][{j}]"), *got, want);
            }
        }
        let vjp = function.compile(dstar::Request::Vjp(1)).expect("compiles");
        let mut wj = vec![0.0; n];
        vjp.eval(dstar::Args::x(x).w(&w), &mut wj).expect("evaluates");
        let gradient_of_l: Vec<f64> = (0..n).map(|j| (0..m).map(|i| w[i] * dense[i][j]).sum()).collect();
        for (col, (got, want)) in wj.iter().zip(&gradient_of_l).enumerate() {
            assert_close(&format!("{name}: (wᵀJ)[{col}]"), *got, *want);
        }
    }
}
