//! The interactive REPL in a pseudo-terminal (driven by Python's `pty`
//! module, `tests/terminal/session.py`): Ctrl-C stops a long computation
//! and keeps the session, Ctrl-C while typing cancels the line, and the
//! history is on disk line by line.

use std::path::Path;
use std::process::Command;

#[test]
fn ctrl_c_stops_a_computation_and_keeps_the_session() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/terminal/session.py");
    let scratch = testkit::scratch("dstar-history");
    let history = scratch.path().join("history");
    let out = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_dstar"))
        .arg(&history)
        .output()
        .expect("python3 runs (the machine's Python drives the pseudo-terminal)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), "ok");
}
