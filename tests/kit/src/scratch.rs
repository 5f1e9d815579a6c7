//! Scratch directories for tests that write files: each a fresh directory
//! under the system's temporary directory, removed with everything in it
//! when the value is dropped, so a test run leaves nothing behind (it left
//! six directories and files per run before, thousands on a machine that
//! runs the tests often).

pub use tempfile::TempDir as Scratch;

/// A new scratch directory named `prefix` and a random suffix; keep the
/// value alive while the files are used (`let dir = scratch(..)`, never
/// `let _ = ..`).
pub fn scratch(prefix: &str) -> Scratch {
    tempfile::Builder::new().prefix(prefix).tempdir().expect("a writable temporary directory")
}
