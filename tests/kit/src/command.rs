//! Running a built binary, as a user would from a shell.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// What a finished process gave.
#[derive(Clone, Debug)]
pub struct Run {
    /// The exit code (-1 if killed by a signal).
    pub status: i32,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

/// Runs `exe` with `args` and no input; returns `(status, stdout, stderr)`.
pub fn run(exe: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(exe).args(args).output().unwrap_or_else(|e| panic!("running {exe}: {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `exe` with `args` in `dir`, `stdin` piped to it.
pub fn run_with_input(exe: &str, args: &[&str], dir: &Path, stdin: &[u8]) -> Run {
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {exe}: {e}"));
    child.stdin.take().expect("a piped stdin").write_all(stdin).expect("writing the input");
    let out = child.wait_with_output().expect("the process exits");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
