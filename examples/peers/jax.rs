//! JAX's peers: a Python script (`jax_gmm.py`, `jax_ba.py`) that builds its
//! jitted kernel, prints one JSON line (its first call's time and its
//! results at the problem's point), then serves timing requests, pinned to
//! CPU 1 with XLA on one thread.

use crate::serve::ask;
use std::cell::RefCell;
use std::io::BufReader;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A JAX script serving its kernels from a child process.
pub struct JaxPeer {
    /// The script's first line: `setup_s` and its results.
    pub first: serde_json::Value,
    child: Child,
    io: RefCell<(ChildStdin, BufReader<ChildStdout>)>,
}

impl JaxPeer {
    /// Starts `examples/peers/SCRIPT PROBLEM` and reads its first line.
    pub fn start(script: &str, problem: &Path) -> Result<JaxPeer, String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/peers").join(script);
        let mut command = Command::new("taskset");
        command
            .args(["-c", "1", "python3"])
            .arg(path)
            .arg(problem)
            .env("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
            .env("JAX_PLATFORMS", "cpu")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = command.spawn().map_err(|e| e.to_string())?;
        let input = child.stdin.take().expect("piped");
        let mut output = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        std::io::BufRead::read_line(&mut output, &mut line).map_err(|e| e.to_string())?;
        let first = serde_json::from_str(&line).map_err(|_| format!("{script} failed"))?;
        Ok(JaxPeer { first, child, io: RefCell::new((input, output)) })
    }

    /// The number `key` of the first line (NaN when missing).
    pub fn number(&self, key: &str) -> f64 {
        self.first[key].as_f64().unwrap_or(f64::NAN)
    }

    /// The list of numbers `key` of the first line.
    pub fn numbers(&self, key: &str) -> Vec<f64> {
        self.first[key].as_array().into_iter().flatten().filter_map(serde_json::Value::as_f64).collect()
    }

    /// ns taken by `calls` calls of the script's kernel `kernel`.
    pub fn run(&self, kernel: &str, calls: u64) -> f64 {
        ask(&mut self.io.borrow_mut(), &format!("run {kernel} {calls}")).parse().expect("ns")
    }
}

impl Drop for JaxPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `python3` imports jax; prints a note when not.
pub fn jax_available() -> bool {
    let ok = Command::new("python3").args(["-c", "import jax"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        println!("note: python3 cannot import jax (pip install jax); skipping the JAX peer");
    }
    ok
}
