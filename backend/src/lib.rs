//! The back end of dstar: compiles a [`Kernel`](frontend::Kernel) (outputs of
//! an [`ExprDag`](frontend::ExprDag) over its inputs) into native code with
//! Cranelift, and emits the same kernel as C99 or Rust source.
//!
//! [`JitCompiler`] (the one long-lived object: allocator, chunk size,
//! self-check and stop) turns a kernel into a [`JitKernel`], a function
//! `out = f(x)` whose input comes as up to [`MAX_PARTS`] arrays (the
//! argument blocks `x`, `p`, `w`, `v` of [`frontend::ARG_BLOCKS`]), that
//! checks slice lengths, allocates nothing per call and may be shared
//! across threads. Its batches run many points in parallel ([`Rows`]), two
//! per call in the lanes of `f64x2` once the compiler gave it its two-point
//! variant ([`JitCompiler::compile_two_points`]): a finished kernel only
//! calls code, it never compiles. [`MappedKernel`] runs the body of each
//! map ([`frontend::map`]) in a loop. Large kernels are split into chunks
//! of operations, each its own Cranelift function, so compile time stays
//! linear; one file, `convention.rs`, says how a chunk's arguments are laid
//! out and passed, and holds, with `kernel.rs` and `module.rs`, all the
//! crate's `unsafe`.
//! Elementary functions call the exact functions the interpreter
//! ([`frontend::eval()`]) calls, so results agree bit for bit; integer
//! powers `x^k`, `|k| <= 16`, are inlined as the very steps of the
//! interpreter's power ([`frontend::portable::pow`]);
//! `sin(a)` and `cos(a)` of one argument share one call to glibc's `sincos`,
//! and like operations stored side by side run two at a time in `f64x2`.
//! [`emit_c()`] and [`emit_rust()`] write the kernel as a self-contained C99
//! or Rust file, a map kernel's bodies in loops over their instances
//! ([`SourceKernel`]).
//!
//! ```
//! let program = frontend::parse_program("in x, y\nout sin(x) * y\nout x / y")?;
//! let kernel = backend::JitCompiler::new()?.compile(&program.kernel()?)?;
//! let mut out = [0.0; 2];
//! kernel.eval(&[0.5, 2.0], &mut out)?;
//! assert_eq!(out, [0.5f64.sin() * 2.0, 0.25]);
//! assert_eq!(out.to_vec(), frontend::eval_program(&program, &[0.5, 2.0]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
mod blocks;
mod calls;
mod chunk;
pub mod compiler;
mod convention;
pub mod emit_c;
pub mod emit_rust;
pub mod error;
mod function_first;
mod header;
pub mod kernel;
mod lanes;
mod libm;
mod looped;
mod lower;
pub mod mapped;
mod module;
mod name;
mod order;
mod pairs;
mod power;
mod scalar;
pub mod self_check;
mod sincos;
mod source_functions;
mod source_kernel;
mod source_loops;

pub use batch::{check_parts, eval_each_point, Rows};
pub use compiler::{FunctionChunks, JitCompiler, Regalloc};
pub use convention::MAX_PARTS;
pub use emit_c::{c_signature, emit_c};
pub use emit_rust::{emit_rust, rust_signature};
pub use error::{CodegenError, KernelError};
pub use header::emit_c_header;
pub use kernel::JitKernel;
pub use mapped::MappedKernel;
pub use self_check::{check_point, SelfCheckFailure};
pub use source_kernel::SourceKernel;
