//! The problems of `../shared/structured/gen.py` (cart-pole shooting with
//! nested functions, a data fit and a Gaussian mixture with data as
//! parameters, a minimal-surface grid, a dense block) as text, for the tests
//! that run them: one runner instead of one per test file.

use std::process::Command;

/// `python3 ../shared/structured/gen.py FAMILY N FORM...` (no `FORM`: the
/// structured form; `--inline` or `--flat` the others). Panics, with the
/// script's error, if it fails.
pub fn gen_py(family: &str, n: usize, form: &[&str]) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/structured/gen.py");
    let output = Command::new("python3")
        .arg(script)
        .args([family, &n.to_string()])
        .args(form)
        .output()
        .unwrap_or_else(|e| panic!("python3 {script}: {e}"));
    assert!(output.status.success(), "{script} {family} {n}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("gen.py writes text")
}
