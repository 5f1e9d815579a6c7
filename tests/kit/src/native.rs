//! Emitted C compiled with the system C compiler and loaded in-process, the
//! reference the JIT is checked and timed against. The only `unsafe` outside
//! `backend/src/kernel.rs`: loading a library and calling into it is unsafe
//! by nature.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

type KernelFn = unsafe extern "C" fn(*const f64, *mut f64);

/// A kernel emitted by `backend::emit_c`, compiled and `dlopen`ed.
#[derive(Debug)]
pub struct CKernel {
    function: KernelFn,
    num_inputs: usize,
    num_outputs: usize,
    // Dropped after `function`, which points into it.
    _library: libloading::Library,
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
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir: PathBuf = std::env::temp_dir().join(format!(
            "dstar-c-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a writable temp dir");
        let c_file = dir.join("kernel.c");
        let so_file = dir.join("kernel.so");
        std::fs::write(&c_file, source).expect("writing the C file");
        let status = Command::new(cc)
            .args(flags)
            .args(["-shared", "-fPIC", "-o"])
            .arg(&so_file)
            .arg(&c_file)
            .arg("-lm")
            .status()
            .expect("running the C compiler");
        assert!(status.success(), "{cc} failed on {}", c_file.display());
        // SAFETY: the library is our own emitted C: it has no initializers.
        let library = unsafe { libloading::Library::new(&so_file) }.expect("loading the compiled kernel");
        // SAFETY: `emit_c` defines `fn_name` with exactly this C signature.
        let function: KernelFn =
            *unsafe { library.get::<KernelFn>(fn_name.as_bytes()) }.expect("the kernel symbol");
        let _ = std::fs::remove_dir_all(&dir); // the mapping stays valid once loaded
        CKernel { function, num_inputs, num_outputs, _library: library }
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
