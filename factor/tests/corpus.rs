//! Every corpus problem: the D* Jacobian and the function values match the
//! `.ref.json` references to 1e-9 relative.

#[path = "corpus_support/mod.rs"]
mod corpus_support;

use corpus_support::corpus_files;
use std::path::Path;

fn numbers(value: &serde_json::Value) -> Vec<f64> {
    value.as_array().expect("an array").iter().map(|v| v.as_f64().expect("a number")).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

fn check(path: &Path) {
    let source = std::fs::read_to_string(path).expect("readable problem");
    let program = frontend::parse_program(&source).expect("corpus problems parse");
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(path.with_extension("ref.json")).expect("every problem has a reference"),
    )
    .expect("valid JSON");
    let point = numbers(&reference["point"]);
    let jacobian = factor::jacobian(program.kernel().unwrap());
    let (values, dense) = jacobian.eval(&point);
    let name = path.file_stem().expect("a file name").to_string_lossy();
    for (i, (a, b)) in values.iter().zip(numbers(&reference["values"])).enumerate() {
        assert!(close(*a, b), "{name}: value {i}: {a} vs reference {b}");
    }
    let rows = reference["jacobian"].as_array().expect("jacobian rows");
    assert_eq!(rows.len(), dense.len(), "{name}: rows");
    for (i, row) in rows.iter().enumerate() {
        for (k, b) in numbers(row).into_iter().enumerate() {
            let a = dense[i][k];
            assert!(close(a, b), "{name}: d out{i}/d x{k}: {a} vs reference {b}");
        }
    }
}

/// D* never costs more than plain forward or reverse accumulation.
fn check_cost(path: &Path) {
    let program = frontend::parse_program(&std::fs::read_to_string(path).expect("readable")).expect("parses");
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
    let name = path.file_stem().expect("a file name").to_string_lossy();
    assert!(
        jacobian.jacobian_ops() <= forward.min(reverse),
        "{name}: D* {} ops, forward {forward}, reverse {reverse}",
        jacobian.jacobian_ops()
    );
}

#[test]
fn corpus_jacobians_cost_at_most_forward_or_reverse_mode() {
    for path in corpus_files() {
        check_cost(&path);
    }
}

#[test]
fn corpus_jacobians_match_references() {
    let paths = corpus_files();
    assert!(!paths.is_empty(), "no problems in tests/corpus");
    for path in paths {
        check(&path);
    }
}
