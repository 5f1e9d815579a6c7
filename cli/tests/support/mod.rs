//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The corpus problem files, sorted by name.
pub fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/corpus exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dstar"))
        .collect();
    files.sort();
    files
}

/// The reference JSON beside a problem file.
pub fn reference(problem: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(problem.with_extension("ref.json")).expect("reference file");
    serde_json::from_str(&text).expect("reference JSON")
}

/// A JSON number, or a non-finite number written as a string.
pub fn as_f64(v: &serde_json::Value) -> f64 {
    match v {
        serde_json::Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("not a number: {other}"),
        },
        other => other.as_f64().expect("a number"),
    }
}

/// A JSON array of numbers.
pub fn as_vec(v: &serde_json::Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(as_f64).collect()
}

/// Whether `a` and `b` agree to relative tolerance `rel` (absolute near 0).
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    a == b || (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300) || (a - b).abs() <= rel * 1e-3
}

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
pub fn dstar(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dstar")).args(args).output().expect("run dstar");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
