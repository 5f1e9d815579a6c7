//! Every kind of kernel of a program (function, gradient, vJ, Jv,
//! Hessians, H·v, scarcity J·V, Taylor), compiled every way the library
//! compiles one, against the interpreter bit for bit: shared by the tests
//! of real shapes and of functions.

#![allow(dead_code)]

use dstar::factor;
use dstar::frontend::{Kernel, Program};
use dstar::JitCompiler;
use std::collections::BTreeMap;
use testkit::{same, Rng};

/// Kernels compared, by kind.
#[derive(Default)]
pub struct Tally(BTreeMap<&'static str, usize>);

impl Tally {
    pub fn count(&mut self, kind: &'static str) {
        *self.0.entry(kind).or_default() += 1;
    }

    pub fn report(&self, what: &str) {
        let total: usize = self.0.values().sum();
        let kinds: Vec<String> = self.0.iter().map(|(k, n)| format!("{k} {n}")).collect();
        eprintln!("{what}: {total} kernel evaluations compared with the interpreter ({})", kinds.join(", "));
    }
}

/// A kernel of the program and how the library hands it its inputs.
pub struct KernelKind {
    pub name: &'static str,
    pub kernel: Kernel,
    pub parts: Vec<usize>,
}

/// Every kind of kernel of `program`, but the Jacobian (compiled apart).
/// `second_order` adds the Hessians and H·v, `directions` the scarcity
/// J·V, `taylor` the Taylor series: the costly ones to build.
pub fn kinds(program: &Program, second_order: bool, directions: bool, taylor: bool) -> Vec<KernelKind> {
    let f = program.kernel().expect("a kernel");
    // Inputs and parameters come as one part `x` of `n` values; directions
    // are over the `d` variables.
    let (n, d, m) = (f.num_inputs(), f.num_variables(), f.num_outputs());
    let mut kinds = vec![
        KernelKind { name: "function", kernel: f.clone(), parts: vec![n] },
        KernelKind { name: "gradient", kernel: factor::gradient(f.clone()), parts: vec![n] },
        KernelKind { name: "vjp", kernel: factor::vjp(f.clone(), 3), parts: vec![n, 3 * m] },
        KernelKind { name: "jvp", kernel: factor::jvp(f.clone(), 2), parts: vec![n, 2 * d] },
    ];
    if second_order {
        let hessian = factor::lagrangian_hessian(f.clone());
        kinds.push(KernelKind { name: "hessian", kernel: hessian.kernel().clone(), parts: vec![n, m] });
        kinds.push(KernelKind { name: "hessian_lower", kernel: hessian.lower_kernel(), parts: vec![n, m] });
        kinds.push(KernelKind { name: "hvp", kernel: factor::hvp(f.clone(), 2), parts: vec![n, m, 2 * d] });
    }
    if directions {
        let remainder = factor::plan::directions_remainder(&f);
        kinds.push(KernelKind {
            name: "directions",
            kernel: remainder.directions_kernel(4),
            parts: vec![n + 4 * d],
        });
    }
    if taylor {
        let budget = dstar::Budget::default();
        if let Ok(series) = factor::taylor_series(f, 3, &budget) {
            kinds.push(KernelKind { name: "taylor", kernel: series, parts: vec![n, d] });
        }
    }
    kinds
}

/// Inputs of `kernel` near the program's point `x`: `x` moved by up to
/// 1%, then the other blocks (weights, directions) in [-1, 1].
pub fn input(rng: &mut Rng, x: &[f64], kernel: &Kernel) -> Vec<f64> {
    let mut input: Vec<f64> =
        x.iter().map(|v| v * rng.uniform(0.99, 1.01) + rng.uniform(-1e-3, 1e-3)).collect();
    input.extend((x.len()..kernel.num_inputs()).map(|_| rng.uniform(-1.0, 1.0)));
    input
}

/// Panics unless `compiled` is the interpreter's value of `kernel` at `x`, bit for bit.
pub fn assert_same(kernel: &Kernel, x: &[f64], compiled: &[f64], what: &str) {
    let interpreted = kernel.eval(x);
    if let Some(k) = compiled.iter().zip(&interpreted).position(|(a, b)| !same(*a, *b)) {
        panic!(
            "{what}: output {k} of {}: compiled {:e}, interpreter {:e}",
            compiled.len(),
            compiled[k],
            interpreted[k]
        );
    }
}

/// Compiles `kind` whole, in small chunks and in its parts, and compares
/// each with the interpreter at two points, and in a batch of five.
pub fn check_kind(
    compiler: &JitCompiler,
    kind: &KernelKind,
    x: &[f64],
    rng: &mut Rng,
    what: &str,
    tally: &mut Tally,
) {
    let kernel = &kind.kernel;
    let m = kernel.num_outputs();
    for chunk_size in [JitCompiler::DEFAULT_CHUNK_SIZE, 97] {
        let compiler = compiler.clone().with_chunk_size(chunk_size);
        let whole = compiler.compile(kernel).expect("compiles");
        compiler.compile_two_points(kernel, &whole).expect("compiles");
        for _ in 0..2 {
            let input = input(rng, x, kernel);
            let mut out = vec![0.0; m];
            whole.eval(&input, &mut out).expect("lengths");
            assert_same(kernel, &input, &out, &format!("{what} {} (chunks of {chunk_size})", kind.name));
            tally.count(kind.name);
        }
        // Five points: two pairs in the two-point kernel, and one alone.
        let points: Vec<Vec<f64>> = (0..5).map(|_| input(rng, x, kernel)).collect();
        let mut outs = vec![0.0; 5 * m];
        whole.eval_batch(&points.concat(), &mut outs).expect("shapes");
        for (p, point) in points.iter().enumerate() {
            let name = format!("{what} {} in a batch, point {p} (chunks of {chunk_size})", kind.name);
            assert_same(kernel, point, &outs[p * m..(p + 1) * m], &name);
        }
        tally.count("batch");
    }
    if kind.parts.len() > 1 {
        let parted = compiler.compile_parts(kernel, &kind.parts).expect("compiles");
        let input = input(rng, x, kernel);
        let mut parts = Vec::new();
        let mut start = 0;
        for &len in &kind.parts {
            parts.push(&input[start..start + len]);
            start += len;
        }
        let mut out = vec![0.0; m];
        parted.eval_parts(&parts, &mut out).expect("lengths");
        assert_same(kernel, &input, &out, &format!("{what} {} in parts", kind.name));
        tally.count(kind.name);
    }
}
