//! The `dstar` command-line tool and REPL, built on the `dstar` library's
//! public API.

mod commands;
mod session;

fn main() -> std::process::ExitCode {
    commands::main()
}
