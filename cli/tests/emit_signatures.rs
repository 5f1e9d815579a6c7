//! `dstar help emit` gives the signatures `dstar emit` writes (issue 34,
//! item 13: it gave `(x, out)` alone, and the kernel of a program with
//! parameters or of `--hessian` takes `p` and `w` too).

use std::collections::BTreeMap;
use std::path::Path;

/// Runs the `dstar` binary with `args`; returns (status, stdout, stderr).
fn dstar(args: &[&str]) -> (i32, String, String) {
    testkit::command::run(env!("CARGO_BIN_EXE_dstar"), args)
}

/// The signature lines of emitted C or Rust, or of a header: those that
/// declare or define `NAME` (not the `static` functions it calls), without
/// the `{` or `;` that follows.
fn signatures(code: &str) -> Vec<String> {
    code.lines()
        .filter(|l| l.starts_with("void NAME(") || l.starts_with("pub fn NAME("))
        .map(|l| l.trim_end_matches(" {").trim_end_matches(';').to_string())
        .collect()
}

/// The help's signatures by case (`no parameters:`, `--hessian, with
/// parameters:`, ...), each case's lines in the order given.
fn help_signatures(help: &str) -> BTreeMap<String, Vec<String>> {
    let (_, tail) =
        help.split_once("Signatures of the C and Rust function").expect("the signatures in the help");
    let mut cases = BTreeMap::new();
    let mut case = String::new();
    for line in tail.lines().skip(1) {
        let trimmed = line.trim();
        if let Some(name) = trimmed.strip_suffix(':') {
            case = name.to_string();
        } else if !trimmed.is_empty() {
            cases.entry(case.clone()).or_insert_with(Vec::new).push(trimmed.to_string());
        }
    }
    cases
}

#[test]
fn issue_34_help_gives_the_signatures_emit_writes() {
    let scratch = testkit::scratch("dstar-emit-signatures");
    let dir = scratch.path();
    let plain = dir.join("plain.dstar");
    let with_params = dir.join("params.dstar");
    std::fs::write(&plain, "in x, y\nout sin(x) * y\nout x / y\n").unwrap();
    std::fs::write(&with_params, "param a, b\nin x, y\nout a * sin(x) * y\nout x / (y + b)\n").unwrap();
    let header = dir.join("NAME.h");

    let (status, help, stderr) = dstar(&["help", "emit"]);
    assert_eq!(status, 0, "{stderr}");
    let help = help_signatures(&help);
    let cases: [(&str, &Path, &[&str]); 4] = [
        ("no parameters", &plain, &[]),
        ("with parameters", &with_params, &[]),
        ("--hessian, no parameters", &plain, &["--hessian"]),
        ("--hessian, with parameters", &with_params, &["--hessian"]),
    ];
    assert_eq!(help.len(), cases.len(), "one entry per case in the help: {help:?}");
    for (case, file, flags) in cases {
        let mut written = Vec::new();
        for target in ["c", "rust"] {
            let mut args = vec!["emit", file.to_str().unwrap(), "--target", target, "--name", "NAME"];
            args.extend(flags);
            if target == "c" {
                args.extend(["--header", header.to_str().unwrap()]);
            }
            let (status, code, stderr) = dstar(&args);
            assert_eq!(status, 0, "{args:?}: {stderr}");
            let found = signatures(&code);
            assert_eq!(found.len(), 1, "{args:?} defines NAME once:\n{code}");
            if target == "c" {
                let declared = signatures(&std::fs::read_to_string(&header).unwrap());
                assert_eq!(declared, found, "{args:?}: the header declares what the C file defines");
            }
            written.extend(found);
        }
        assert_eq!(help.get(case), Some(&written), "'{case}' in `dstar help emit` against what emit writes");
    }
}
