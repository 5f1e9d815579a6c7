//! The `dstar` command-line tool and REPL, built on the `dstar` library's
//! public API.

mod commands;
mod memory;
mod session;

fn main() -> std::process::ExitCode {
    memory::purge_later();
    commands::main()
}

/// The symbolic stages build and drop many small vectors and maps; glibc's
/// allocator spent a tenth of their time in page faults and trimming
/// (nbody_acc_20, text to a compiled Jacobian: 166 -> 150 ms). The memory
/// guard counts what it hands out ([`memory`]).
#[global_allocator]
static ALLOCATOR: memory::Guarded<mimalloc::MiMalloc> = memory::Guarded(mimalloc::MiMalloc);
