//! Issue 35: the work of every symbolic stage grows with the size asked
//! (inlined operations plus the result's nonzeros) no faster than
//! `size · log size`, on every family of the shape zoo (`testkit::zoo`), in
//! both forms, for the Jacobian (with its common-subchain pass), the
//! Lagrangian Hessian, the gradient, `J·v`, `H·v` and every output's own
//! Hessian (`dstar eval --hessian`: nodes swept plus entries pushed).
//!
//! Work is what the stages count ([`factor::Ledger`]: pairs visited,
//! entries pushed, e-nodes searched; the kernel's operations for the
//! products, which are built in one sweep), never time, so a stage that
//! turns super-linear fails here on any machine. The short run takes each
//! family at N, 2N and 4N for a small N; `DSTAR_LONG=1` at 8N too, from
//! 4N for the families whose results are sparse. Time and memory across sizes are the benchmark's
//! (`cargo run --release --example scaling`).

use factor::{Ledger, Stage};
use frontend::Kernel;
use testkit::zoo::{Form, Zoo};

/// The smallest size of each family in the short run.
fn base(zoo: Zoo) -> usize {
    match zoo {
        Zoo::SingleShooting { .. } => 16,
        Zoo::DenseBlock => 16,
        Zoo::SharedArguments => 20,
        _ => 256,
    }
}

/// One request's work, per stage where the ledger counts stages.
struct Work {
    total: u64,
    stages: Vec<(Stage, u64)>,
    size: u64,
}

fn measure(function: &Kernel, request: &str) -> Work {
    let ops = function.count_ops() as u64;
    let of_ledger = |ledger: &Ledger, nnz: usize| Work {
        total: ledger.total(),
        stages: Stage::ALL.into_iter().map(|s| (s, ledger.spent(s))).collect(),
        size: ops + nnz as u64,
    };
    let of_kernel = |kernel: Kernel| Work { total: kernel.count_ops() as u64, stages: Vec::new(), size: ops };
    match request {
        "jacobian" => {
            let mut jacobian = factor::jacobian(function.clone());
            jacobian.simplify(&factor::plan::simplifier());
            of_ledger(jacobian.ledger(), jacobian.nnz())
        }
        "hessian" => {
            let hessian = factor::lagrangian_hessian(function.clone());
            of_ledger(hessian.ledger(), hessian.lower_pattern().nnz())
        }
        "gradient" => of_kernel(factor::gradient(function.clone())),
        "jvp" => of_kernel(factor::jvp(function.clone(), 1)),
        "output_hessians" => {
            let hessians = factor::output_hessians(function.clone());
            Work { total: hessians.work(), stages: Vec::new(), size: ops + hessians.nnz() as u64 }
        }
        _ => of_kernel(factor::hvp(function.clone(), 1)),
    }
}

/// Work per unit of size at `large` over that at `small` may be at most
/// `log large / log small`, with half again on top for the constant terms
/// (a quadratic stage gives `large / small`: 4 at 4N, 8 at 8N).
fn allowed(small: u64, large: u64) -> f64 {
    1.5 * (large.max(2) as f64).ln() / (small.max(2) as f64).ln()
}

fn check(zoo: Zoo, form: Form, request: &str, sizes: &[usize], failures: &mut Vec<String>) {
    let works: Vec<(usize, Work)> = sizes
        .iter()
        .map(|&n| {
            let program = frontend::parse_program(&zoo.generate(n, form)).expect("the zoo parses");
            (n, measure(&program.kernel().expect("a valid kernel").inlined(), request))
        })
        .collect();
    let what = format!("{} {} {request}", zoo.name(), form.name());
    let (n0, first) = &works[0];
    for (n, work) in &works[1..] {
        let bound = allowed(first.size, work.size);
        let ratio = |a: u64, b: u64| (b as f64 / work.size as f64) / (a.max(1) as f64 / first.size as f64);
        if ratio(first.total, work.total) > bound {
            failures.push(format!(
                "{what}: work {} at N = {n0} (size {}), {} at N = {n} (size {}): {:.2}x per unit of size, \
                 allowed {bound:.2}x",
                first.total,
                first.size,
                work.total,
                work.size,
                ratio(first.total, work.total)
            ));
        }
        // A stage may grow within the total's allowance from the larger of
        // its own share and a twentieth of the total at the first size.
        for (&(stage, a), &(_, b)) in first.stages.iter().zip(&work.stages) {
            let floor = a.max(first.total / 20);
            if ratio(floor, b) > bound {
                failures.push(format!(
                    "{what}: stage {stage} spent {a} at N = {n0} (total {}), {b} at N = {n}: {:.2}x per unit \
                     of size, allowed {bound:.2}x",
                    first.total,
                    ratio(floor, b)
                ));
            }
        }
    }
}

#[test]
fn the_work_of_every_stage_follows_the_size_on_the_shape_zoo() {
    let long = std::env::var_os("DSTAR_LONG").is_some();
    let mut failures = Vec::new();
    for zoo in Zoo::ALL {
        let n = base(zoo) * if long { 4 } else { 1 };
        let sizes: Vec<usize> =
            if long { vec![n, 2 * n, 4 * n, 8 * n, 16 * n] } else { vec![n, 2 * n, 4 * n] };
        for form in [Form::Functions, Form::Flat] {
            for request in ["jacobian", "hessian", "gradient", "jvp", "hvp", "output_hessians"] {
                check(zoo, form, request, &sizes, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{} super-linear:\n{}", failures.len(), failures.join("\n"));
}

/// The check itself fails on work that grows as the square of the size.
#[test]
fn quadratic_work_fails_the_allowance() {
    let (small, large) = (1000u64, 4000u64);
    let per_size = |work: u64, size: u64| work as f64 / size as f64;
    let quadratic = per_size(large * large, large) / per_size(small * small, small);
    assert!(quadratic > allowed(small, large), "{quadratic} within {}", allowed(small, large));
    let linear_log = per_size(large * 12, large) / per_size(small * 10, small);
    assert!(linear_log <= allowed(small, large), "{linear_log}");
}

/// The zoo itself grows: every family in both forms has at least three
/// times the operations at 4N as at N, for N past the lengths at which its
/// constants (coefficients, data points) could start to repeat and
/// hash-cons whole terms into one (they repeated every 1,000, and
/// `many_outputs` stopped at 1,000 outputs, `dense_block` at 31 rows).
#[test]
fn every_family_of_the_zoo_grows_with_its_size() {
    for zoo in Zoo::ALL {
        let n = match zoo {
            Zoo::DenseBlock => 40,
            Zoo::SingleShooting { .. } | Zoo::SharedArguments => 300,
            _ => 600,
        };
        for form in [Form::Functions, Form::Flat] {
            let ops = |n: usize| {
                let program =
                    frontend::parse_program(&zoo.generate(n, form)).expect("the zoo writes valid programs");
                program.kernel().expect("a kernel").inlined().count_ops()
            };
            let (small, large) = (ops(n), ops(4 * n));
            assert!(
                large >= 3 * small,
                "{} {}: {small} ops at {n}, {large} at {}",
                zoo.name(),
                form.name(),
                4 * n
            );
        }
    }
}
