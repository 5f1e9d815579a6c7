//! Gradients of the real spherical harmonics `Y_l^m`, `l < 10`, from the JIT
//! Jacobian kernel, checked against central differences of the compiled
//! function kernel and timed against them.
//!
//! The Jacobian kernel returns the 100 values and their 300 partial
//! derivatives from one call; central differences need the values plus `2n =
//! 6` more calls of the function kernel, and lose half the digits.
//!
//! ```text
//! cargo run --release --example spherical_harmonics
//! ```

use dstar::timing::median_ns;
use dstar::{Args, Compiled, Function, JitCompiler, JitKernel, Options, Request};

/// The problem: 100 harmonics of `(x, y, z)` (tests/corpus/sh_10.dstar).
pub const SH_10: &str = include_str!("../tests/corpus/sh_10.dstar");

/// The finite-difference step: about the cube root of machine epsilon, which
/// balances truncation (`h²`) against cancellation (`eps / h`).
pub const STEP: f64 = 6e-6;

/// Agreement demanded between the two gradients: `|a - b| <= REL * |a| + ABS`.
pub const REL: f64 = 1e-6;
/// See [`REL`].
pub const ABS: f64 = 1e-9;

/// The two kernels compiled from [`SH_10`].
#[derive(Debug)]
pub struct Kernels {
    /// Values and Jacobian together.
    pub jacobian: Compiled,
    /// Values only, for finite differences.
    pub function: JitKernel,
}

/// How the two gradients compared.
#[derive(Clone, Debug)]
pub struct Report {
    /// Points checked.
    pub points: usize,
    /// Gradient entries compared (dense, structural zeros included).
    pub entries: usize,
    /// The largest `|jit - fd| / max(|jit|, ABS / REL)` seen.
    pub max_rel_error: f64,
}

/// Compiles the function kernel and the Jacobian kernel of [`SH_10`].
pub fn kernels() -> Kernels {
    let program = dstar::parse_program(SH_10).expect("sh_10 parses");
    let function = Function::new(program.clone(), Options::default());
    let jacobian = function.compile(Request::Jacobian).expect("sh_10 compiles");
    let function = JitCompiler::new()
        .and_then(|c| c.compile(&program.kernel().expect("a parsed program")))
        .expect("the function compiles");
    Kernels { jacobian, function }
}

/// The file's `# @point` and points spread over the unit sphere (a golden
/// spiral), where the harmonics are what their names say.
pub fn points() -> Vec<[f64; 3]> {
    let mut points = vec![[0.48, -0.36, 0.8]];
    let count = 32;
    let golden_angle = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    for k in 0..count {
        let z = 1.0 - (2 * k + 1) as f64 / count as f64;
        let r = (1.0 - z * z).sqrt();
        let theta = golden_angle * k as f64;
        points.push([r * theta.cos(), r * theta.sin(), z]);
    }
    points
}

/// Central differences of a function kernel, with buffers allocated once so
/// that timing them measures the kernel calls.
#[derive(Debug)]
pub struct CentralDifferences {
    shifted: Vec<f64>,
    plus: Vec<f64>,
    minus: Vec<f64>,
    /// The last Jacobian computed: `m` rows of `n`, row-major.
    pub jacobian: Vec<f64>,
}

impl CentralDifferences {
    /// Buffers for `function`.
    pub fn new(function: &JitKernel) -> CentralDifferences {
        let (m, n) = (function.num_outputs(), function.num_inputs());
        CentralDifferences {
            shifted: vec![0.0; n],
            plus: vec![0.0; m],
            minus: vec![0.0; m],
            jacobian: vec![0.0; m * n],
        }
    }

    /// Approximates the Jacobian of `function` at `x` with `2n` calls.
    pub fn run(&mut self, function: &JitKernel, x: &[f64]) -> &[f64] {
        let n = x.len();
        self.shifted.copy_from_slice(x);
        for j in 0..n {
            self.shifted[j] = x[j] - STEP;
            function.eval(&self.shifted, &mut self.minus).expect("buffers fit the kernel");
            self.shifted[j] = x[j] + STEP;
            function.eval(&self.shifted, &mut self.plus).expect("buffers fit the kernel");
            self.shifted[j] = x[j];
            for (i, (p, m)) in self.plus.iter().zip(&self.minus).enumerate() {
                self.jacobian[i * n + j] = (p - m) / (2.0 * STEP);
            }
        }
        &self.jacobian
    }
}

/// Checks the JIT gradients against central differences at [`points`].
pub fn run(kernels: &Kernels) -> Report {
    let mut report = Report { points: 0, entries: 0, max_rel_error: 0.0 };
    let mut out = vec![0.0; kernels.function.num_outputs()];
    let mut differences = CentralDifferences::new(&kernels.function);
    for x in points() {
        let dense = kernels.jacobian.eval_dense(Args::x(&x)).expect("x has 3 values");
        let (values, exact) = (&dense[0][0], &dense[1]);
        kernels.function.eval(&x, &mut out).expect("buffers fit the kernel");
        assert_eq!(values, &out, "both kernels compute the same values");
        let approx = differences.run(&kernels.function, &x);
        for (i, (exact_row, approx_row)) in exact.iter().zip(approx.chunks(x.len())).enumerate() {
            for (j, (a, b)) in exact_row.iter().zip(approx_row).enumerate() {
                assert!(
                    (a - b).abs() <= REL * a.abs() + ABS,
                    "at {x:?}, d out{i} / d x{j}: JIT {a} vs central differences {b}"
                );
                let rel = (a - b).abs() / a.abs().max(ABS / REL);
                report.max_rel_error = report.max_rel_error.max(rel);
                report.entries += 1;
            }
        }
        report.points += 1;
    }
    report
}

/// Median nanoseconds for the values and gradients at one point: one call of
/// the Jacobian kernel, and the values plus central differences.
pub fn time(kernels: &Kernels) -> (f64, f64) {
    let x = points()[0];
    let mut out = vec![0.0; kernels.jacobian.out_len()];
    let jit = median_ns(|| {
        kernels.jacobian.eval(std::hint::black_box(Args::x(&x)), &mut out).expect("buffers fit")
    });
    let mut values = vec![0.0; kernels.function.num_outputs()];
    let mut differences = CentralDifferences::new(&kernels.function);
    let finite_differences = median_ns(|| {
        kernels.function.eval(std::hint::black_box(&x), &mut values).expect("buffers fit");
        std::hint::black_box(differences.run(&kernels.function, &x));
    });
    (jit, finite_differences)
}

fn main() {
    let kernels = kernels();
    let report = run(&kernels);
    println!(
        "{} harmonics, {} points: {} gradient entries agree, max relative difference {:.2e} (h = {STEP:e})",
        kernels.function.num_outputs(),
        report.points,
        report.entries,
        report.max_rel_error
    );
    let (jit, finite_differences) = time(&kernels);
    println!("JIT Jacobian kernel (values + gradients, 1 call):  {jit:>9.0} ns");
    println!("central differences (values + 6 calls):            {finite_differences:>9.0} ns");
    println!("speedup: {:.1}x", finite_differences / jit);
}
