//! What the self-check costs: set-up of the Jacobian kernel
//! (`compile_program`) and of the Lagrangian Hessian kernel, with and
//! without `self_check`, on every corpus problem and NLP. The two are timed
//! in alternation, the fastest of ROUNDS each, so that a busy moment of a
//! shared machine hits both alike. The check's own share is printed too:
//! the interpreter's evaluations at the check point (the check's cost but
//! for one call of the kernel) over the set-up without the check.
//!
//! ```text
//! cargo run --release --example self_check_cost [ROUNDS]
//! ```

use dstar::{check_point, differentiate, Function, Kernel, Options, Request};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(5, |r| r.parse().expect("ROUNDS is a number"));
    println!("set-up, fastest of {rounds} alternating rounds; ratio = with check / without");
    let row = |cells: [&str; 9]| {
        println!(
            "{:<22} {:>9} {:>9} {:>6} {:>6}   {:>9} {:>9} {:>6} {:>6}",
            cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8]
        )
    };
    row(["", "Jacobian", "", "", "", "Hessian", "", "", ""]);
    row(["problem", "off ms", "on ms", "ratio", "share", "off ms", "on ms", "ratio", "share"]);
    let (mut ratios, mut shares) = (Vec::new(), Vec::new());
    for problem in testkit::corpus().into_iter().chain(testkit::nlp()) {
        let program = &problem.program;
        let set_up = |request: Request, self_check: bool| {
            let function = Function::new(program.clone(), Options { self_check, ..Options::default() });
            timed(|| drop(function.compile(request).expect("compiles")))
        };
        let jacobian = |self_check| set_up(Request::Jacobian, self_check);
        let hessian = |self_check| set_up(Request::Hessian, self_check);
        let [j_off, j_on] = fastest(rounds, jacobian);
        let [h_off, h_on] = fastest(rounds, hessian);
        // The kernels the checks interpret: the Jacobian's, the Hessian's.
        let derived = differentiate(program, &Options::default()).expect("differentiates");
        let j_check = interpreted(rounds, &[derived.jacobian.kernel().clone()]);
        let lagrangian = factor::lagrangian_hessian(program.kernel().expect("a kernel"));
        let h_check = interpreted(rounds, &[lagrangian.lower_kernel()]);
        let (j, h) = (ratio(j_on, j_off), ratio(h_on, h_off));
        let (js, hs) = (ratio(j_check, j_off), ratio(h_check, h_off));
        ratios.extend([j, h]);
        shares.extend([js, hs]);
        println!(
            "{:<22} {:>9.2} {:>9.2} {:>6.3} {:>5.2}%   {:>9.2} {:>9.2} {:>6.3} {:>5.2}%",
            problem.name,
            ms(j_off),
            ms(j_on),
            j,
            100.0 * js,
            ms(h_off),
            ms(h_on),
            h,
            100.0 * hs
        );
    }
    let geomean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let largest = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "set-up with / without the check: geometric mean {geomean:.3}, largest {:.3}; the check's share: \
         largest {:.2}%",
        largest(&ratios),
        100.0 * largest(&shares)
    );
}

/// The fastest of `rounds` interpretations of `kernels` at the check point.
fn interpreted(rounds: usize, kernels: &[Kernel]) -> Duration {
    (0..rounds)
        .map(|_| {
            timed(|| {
                for kernel in kernels {
                    std::hint::black_box(kernel.eval(&check_point(kernel.num_inputs())));
                }
            })
        })
        .min()
        .expect("at least one round")
}

/// The fastest time of `rounds` runs of `run(false)` and of `run(true)`, alternating.
fn fastest(rounds: usize, run: impl Fn(bool) -> Duration) -> [Duration; 2] {
    let mut best = [Duration::MAX; 2];
    for _ in 0..rounds {
        for (on, b) in best.iter_mut().enumerate() {
            *b = (*b).min(run(on == 1));
        }
    }
    best
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn ratio(on: Duration, off: Duration) -> f64 {
    on.as_secs_f64() / off.as_secs_f64()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
