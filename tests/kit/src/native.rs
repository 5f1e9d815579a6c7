//! Emitted C compiled with the system C compiler and loaded in-process, the
//! reference the JIT is checked and timed against. The only `unsafe` outside
//! `backend/src/kernel.rs`: loading a library and calling into it is unsafe
//! by nature.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

type KernelFn = unsafe extern "C" fn(*const f64, *mut f64);

/// A kernel emitted by `backend::emit_c`, compiled and `dlopen`ed.
#[derive(Debug)]
pub struct CKernel {
    function: KernelFn,
    num_inputs: usize,
    num_outputs: usize,
    // Dropped after `function`, which points into it.
    _library: Arc<libloading::Library>,
}

/// One C file to build into a [`CKernel`]: its source, defining `void
/// fn_name(const double *, double *)`, and the lengths of its arrays.
#[derive(Clone, Copy, Debug)]
pub struct CSource<'a> {
    /// The C file.
    pub source: &'a str,
    /// The function called.
    pub fn_name: &'a str,
    /// The length of its input.
    pub num_inputs: usize,
    /// The length of its output.
    pub num_outputs: usize,
}

/// The C compiler: `$CC`, else `cc`; `None` (with a note) if it does not run.
pub fn c_compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    match Command::new(&cc).arg("--version").output() {
        Ok(out) if out.status.success() => Some(cc),
        _ => {
            eprintln!("note: no working C compiler ({cc}); skipping the C comparison");
            None
        }
    }
}

impl CKernel {
    /// Compiles `source` (defining `void fn_name(const double *, double *)`)
    /// with `cc <flags> -shared -fPIC` and loads it. Panics if compiling fails.
    pub fn build(
        cc: &str,
        source: &str,
        fn_name: &str,
        flags: &[&str],
        num_inputs: usize,
        num_outputs: usize,
    ) -> CKernel {
        let file = CSource { source, fn_name, num_inputs, num_outputs };
        CKernel::build_all(cc, &[file], flags).pop().expect("one kernel")
    }

    /// [`build`](Self::build) of many files by one run of the compiler,
    /// into one library: each file its own translation unit, so their
    /// `static` functions stay apart (their `fn_name`s must differ).
    pub fn build_all(cc: &str, files: &[CSource<'_>], flags: &[&str]) -> Vec<CKernel> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir: PathBuf = std::env::temp_dir().join(format!(
            "dstar-c-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a writable temp dir");
        let so_file = dir.join("kernel.so");
        let c_files: Vec<PathBuf> = (0..files.len()).map(|k| dir.join(format!("kernel{k}.c"))).collect();
        for (file, path) in files.iter().zip(&c_files) {
            std::fs::write(path, file.source).expect("writing the C file");
        }
        let status = Command::new(cc)
            .args(flags)
            .args(["-shared", "-fPIC", "-o"])
            .arg(&so_file)
            .args(&c_files)
            .arg("-lm")
            .status()
            .expect("running the C compiler");
        assert!(status.success(), "{cc} failed on {}", dir.display());
        // SAFETY: the library is our own emitted C: it has no initializers.
        let library =
            Arc::new(unsafe { libloading::Library::new(&so_file) }.expect("loading the compiled kernel"));
        let _ = std::fs::remove_dir_all(&dir); // the mapping stays valid once loaded
        files
            .iter()
            .map(|file| {
                // SAFETY: `emit_c` defines `fn_name` with exactly this C signature.
                let function: KernelFn =
                    *unsafe { library.get::<KernelFn>(file.fn_name.as_bytes()) }.expect("the kernel symbol");
                CKernel {
                    function,
                    num_inputs: file.num_inputs,
                    num_outputs: file.num_outputs,
                    _library: Arc::clone(&library),
                }
            })
            .collect()
    }

    /// `out = f(x)`; panics on wrong lengths.
    #[inline]
    pub fn eval(&self, x: &[f64], out: &mut [f64]) {
        assert_eq!(x.len(), self.num_inputs);
        assert_eq!(out.len(), self.num_outputs);
        // SAFETY: the C kernel reads `num_inputs` values of `x` and writes
        // `num_outputs` values of `out` (lengths checked above); the library is loaded.
        unsafe { (self.function)(x.as_ptr(), out.as_mut_ptr()) }
    }
}
