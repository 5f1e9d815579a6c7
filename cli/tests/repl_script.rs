//! A piped REPL session is a script: every error says which input line it
//! is on, `3:9:` (line and column) or `3:` (a line), as an error in a
//! problem file does (issue 34, item 10).

use std::path::Path;
use testkit::command::{run_with_input, Run};

/// Pipes `script` into `dstar repl`.
fn repl(script: &[u8]) -> Run {
    run_with_input(env!("CARGO_BIN_EXE_dstar"), &["repl"], Path::new(env!("CARGO_MANIFEST_DIR")), script)
}

/// The lines of `stdout` that start with `error:`.
fn errors(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("error:")).collect()
}

#[test]
fn issue_34_every_error_of_a_piped_session_names_its_line() {
    // Blank lines and comments are lines too; a line's earlier statements
    // print before the error of a later one.
    let script = b"f(x) = x^2\n\n# a comment\nf(1, 2)\n:frobnicate\n:load /nonexistent/dstar.dstar\n\
                   a = 1; sine(a)\nf(\xff)\n   diff(f, y)\n:save\nf(3)\n";
    let out = repl(script);
    assert_eq!(
        errors(&out.stdout),
        [
            "error: 4:1: 'f' takes 1 argument, found 2",
            "error: 5:1: unknown command ':frobnicate'; :help lists the commands",
            "error: 6: cannot read /nonexistent/dstar.dstar: No such file or directory (os error 2)",
            "error: 7:8: unknown function 'sine'; did you mean 'sin'?",
            "error: 8:3: the line is not valid UTF-8 (byte 0xff); it was skipped",
            "error: 9:12: 'y' is not a variable of the function (its variables: x); did you mean 'x'?",
            "error: 10:1: usage: :save FILE",
        ],
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("a = 1\n  a = 1; sine(a)\n"), "{}", out.stdout);
    assert!(out.stdout.ends_with("\n9\n"), "the session goes on: {}", out.stdout);
    assert_eq!(out.status, 2);
    assert_eq!(out.stderr, "error: 7 of 11 lines failed\n");
}
