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
    let compiler = dstar::JitCompiler::new().expect("a supported host");
    let problems = testkit::nlp();
    assert!(problems.len() >= 5, "the NLP corpus is missing");
    for problem in problems {
        let (name, program, reference) = (&problem.name, &problem.program, &problem.reference);
        let (x, w) = (&reference.point, as_vec(&reference.json["weights"]));
        let (n, m) = (program.inputs.len(), program.outputs.len());
        assert_eq!((x.len(), w.len()), (n, m), "{name}");

        // Values, objective gradient and constraint Jacobian.
        let jacobian = dstar::compile_program(program, &dstar::Options::default()).expect("compiles");
        let (values, dense) = jacobian.eval_dense(x).expect("evaluates");
        for (i, (got, want)) in values.iter().zip(&reference.values).enumerate() {
            assert_close(&format!("{name}: value {i}"), *got, *want);
        }
        for (i, (row, want)) in dense.iter().zip(&reference.jacobian).enumerate() {
            for (j, (got, want)) in row.iter().zip(want).enumerate() {
                assert_close(&format!("{name}: J[{i}][{j}]"), *got, *want);
            }
        }

        // The Lagrangian Hessian, its gradient wᵀJ and values in one call.
        let hessian = dstar::HessianKernel::compile(program, &compiler).expect("compiles");
        let lower_nnz = reference.json["sizes"]["hessian_lower_nnz"].as_u64().unwrap() as usize;
        assert!(hessian.nnz() >= lower_nnz, "{name}: the pattern holds the reference's nonzeros");
        let got = hessian.eval_dense(x, &w).expect("evaluates");
        for (i, (row, want)) in got.iter().zip(as_matrix(&reference.json["lagrangian_hessian"])).enumerate() {
            for (j, (got, want)) in row.iter().zip(want).enumerate() {
                assert_close(&format!("{name}: H[{i}][{j}]"), *got, want);
            }
        }
        let mut all = vec![0.0; hessian.all_len()];
        hessian.eval_all(x, &w, &mut all).expect("evaluates");
        for i in 0..m {
            assert_close(&format!("{name}: value {i} in the Hessian call"), all[i], values[i]);
        }
        let gradient_of_l: Vec<f64> = (0..n).map(|j| (0..m).map(|i| w[i] * dense[i][j]).sum()).collect();
        let pattern = hessian.gradient_pattern();
        for (k, &col) in pattern.cols.iter().enumerate() {
            assert_close(&format!("{name}: (wᵀJ)[{col}]"), all[m + k], gradient_of_l[col]);
        }
    }
}
