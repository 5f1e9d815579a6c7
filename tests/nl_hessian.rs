//! Issue 38: the Lagrangian Hessian of every `.nl` fixture that Pyomo wrote
//! (`frontend/tests/nl/make_fixtures.py`) against Pyomo's own second
//! derivatives (its symbolic reverse mode, then its numeric one), computed
//! independently of its writer and of our reader: `Σ w_i ∇²f_i` with
//! weights that differ per output, at the fixture's point, through the
//! compiled kernel.

use dstar::{Args, Function, Options, Request};
use serde_json::Value;
use std::path::Path;
use testkit::corpus::as_vec;

const FIXTURES: [&str; 5] = ["hs71", "chain", "mixed", "constraints_only", "functions"];

#[test]
fn lagrangian_hessians_of_nl_files_are_pyomos() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("frontend/tests/nl");
    for name in FIXTURES {
        let path = dir.join(format!("{name}.nl"));
        let text = std::fs::read_to_string(&path).expect("a fixture");
        let model = frontend::parse_nl(&text, &frontend::NlNames::beside(&path)).expect("Pyomo's .nl reads");
        let reference: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
                .unwrap();
        let outputs = reference["outputs"].as_array().expect("outputs");
        let point = as_vec(&reference["point"]);
        let n = point.len();
        // Outputs Pyomo cannot differentiate twice (floor, ceil, Expr_if) weigh 0.
        let weights: Vec<f64> = outputs
            .iter()
            .enumerate()
            .map(|(i, o)| if o["hessian"].is_null() { 0.0 } else { 1.0 + 0.25 * i as f64 })
            .collect();
        let mut expected = vec![vec![0.0; n]; n];
        for (o, w) in outputs.iter().zip(&weights) {
            for entry in o["hessian"].as_array().into_iter().flatten() {
                let e = as_vec(entry);
                expected[e[0] as usize][e[1] as usize] += w * e[2];
            }
        }
        let function = Function::new(model.program, Options::default());
        assert_eq!(function.program().outputs.len(), outputs.len(), "{name}");
        let kernel = function.compile(Request::Hessian).expect("compiles");
        let dense = kernel.eval_dense(Args::x(&point).w(&weights)).expect("evaluates");
        let hessian = dense.last().expect("the Hessian block");
        for i in 0..n {
            for j in 0..=i {
                let (got, want) = (hessian[i][j], expected[i][j]);
                assert!(
                    (got - want).abs() <= 1e-10 * want.abs().max(1.0),
                    "{name}: H[{i}][{j}] = {got}, Pyomo's {want}"
                );
            }
        }
    }
}
