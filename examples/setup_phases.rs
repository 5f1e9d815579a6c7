//! Where set-up time and memory go, phase by phase, for one problem: parse,
//! D* (its candidates), the competing eliminations, simplification, the JIT,
//! and `Function::compile(Jacobian)` end to end (which overlaps some of them). Built
//! with mimalloc, as the command line and the Python package are.
//!
//! ```text
//! cargo run --release --example setup_phases [FILE] [ROUNDS]
//! ```
//!
//! Defaults: `tests/corpus/nbody_acc_20.dstar`, 10 rounds. Times are the
//! fastest round (the first, cold one is printed apart); memory is the
//! process's resident set after each phase of the first round (`VmHWM`,
//! Linux only), which counts whole huge pages where the allocator uses them
//! (`MIMALLOC_ALLOW_THP=0` shows the bytes in use).

use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PHASES: [&str; 7] =
    ["parse", "D* candidates", "eliminations", "D* + eliminations", "simplify", "JIT", "Function::compile"];

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "tests/corpus/nbody_acc_20.dstar".to_string());
    let rounds: usize = args.next().map_or(10, |r| r.parse().expect("ROUNDS is a number"));
    let source = std::fs::read_to_string(&path).expect("a readable problem file");
    let mut best = [Duration::MAX; PHASES.len()];
    for round in 0..rounds {
        let times = one_round(&source, round == 0);
        if round == 0 {
            print_times("first round", &times);
        }
        for (b, t) in best.iter_mut().zip(times) {
            *b = (*b).min(t);
        }
    }
    print_times(&format!("fastest of {rounds}"), &best);
}

/// The phases' times; with `memory`, prints the peak resident set after each.
fn one_round(source: &str, memory: bool) -> [Duration; PHASES.len()] {
    let mut times = [Duration::ZERO; PHASES.len()];
    let mut phase = |index: usize, start: Instant| {
        times[index] = start.elapsed();
        if memory {
            println!("{:>18}: peak resident {}", PHASES[index], peak_resident());
        }
    };
    let start = Instant::now();
    let program = dstar::parse_program(source).expect("a valid problem");
    phase(0, start);
    let function = program.kernel().expect("a valid kernel");

    let start = Instant::now();
    drop(factor::dstar_jacobian(function.clone()));
    phase(1, start);

    let start = Instant::now();
    drop(factor::elimination_jacobian(&function));
    phase(2, start);

    let start = Instant::now();
    let mut jacobian = factor::jacobian(function);
    phase(3, start);

    let start = Instant::now();
    jacobian.simplify(&factor::plan::simplifier());
    phase(4, start);

    let start = Instant::now();
    let compiler = dstar::JitCompiler::new().expect("a supported host");
    drop(compiler.compile(jacobian.kernel()).expect("compiles"));
    phase(5, start);

    let start = Instant::now();
    let function = dstar::Function::new(program, dstar::Options::default());
    drop(function.compile(dstar::Request::Jacobian).expect("compiles"));
    phase(6, start);
    times
}

fn print_times(title: &str, times: &[Duration]) {
    println!("{title}:");
    for (name, t) in PHASES.iter().zip(times) {
        println!("{name:>18}: {:8.2} ms", t.as_secs_f64() * 1e3);
    }
}

/// `VmHWM` from `/proc/self/status`, or `?` where there is none.
fn peak_resident() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .map_or_else(|| "?".to_string(), |kb| kb.trim().to_string())
}
