//! The `dstar` command-line tool.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
