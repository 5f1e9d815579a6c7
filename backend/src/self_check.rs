//! A compiled kernel checks itself before it is handed out: evaluated once
//! at a fixed point by the JIT and by the interpreter, it must agree bit for
//! bit (two NaNs agree). A disagreement is a bug of the back end; it is
//! reported as an error, never passed on as a wrong number. The check costs
//! one interpreted evaluation, a small part of compiling
//! ([`JitCompiler::with_self_check`](crate::JitCompiler::with_self_check)
//! switches it off).

use frontend::Kernel;

/// The first output on which a compiled kernel and the interpreter disagreed.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfCheckFailure {
    /// Points per call of the variant that disagreed: 1, or 2 for the
    /// two-point variant of batches.
    pub points: usize,
    /// Whether it was a map's body compiled with its loop over the
    /// instances; `output` is then a place the instances add into (the
    /// map's output, then its sums).
    pub looped: bool,
    /// The output, from 0, in the kernel's order.
    pub output: usize,
    /// What the compiled kernel computed.
    pub compiled: f64,
    /// What the interpreter computed.
    pub interpreted: f64,
}

impl std::fmt::Display for SelfCheckFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variant = match (self.looped, self.points) {
            (true, _) => " (a map's body in its loop)",
            (false, 2) => " (two points per call)",
            _ => "",
        };
        write!(
            f,
            "self-check failed: the compiled kernel{variant} computes output {} as {:e} where the \
             interpreter gives {:e}, at the check point; this is a bug in dstar, please report it \
             with the input (the check can be switched off, at the risk of wrong numbers)",
            self.output, self.compiled, self.interpreted
        )
    }
}

impl std::error::Error for SelfCheckFailure {}

/// The point a kernel of `num_inputs` inputs is checked at: each input in
/// `[0.5, 1.5)`, where logarithms and square roots are defined, drawn by
/// SplitMix64 from its index, so the same on every machine and run.
pub fn check_point(num_inputs: usize) -> Vec<f64> {
    (0..num_inputs as u64)
        .map(|k| {
            let mut z = k.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            0.5 + (z >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// A second check point for the two-point variant: each input mirrored in
/// `[0.5, 1.5)`, so that the lanes see different values.
fn mirrored(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| 2.0 - v).collect()
}

/// Compares `compiled` (the kernel's outputs at `x`) with the interpreter's.
fn compare(kernel: &Kernel, x: &[f64], compiled: &[f64], points: usize) -> Result<(), SelfCheckFailure> {
    same(compiled, &kernel.eval(x), points, false)
}

/// Whether `compiled` and `interpreted` agree bit for bit (two NaNs
/// agree); else the first output where they do not.
pub(crate) fn same(
    compiled: &[f64],
    interpreted: &[f64],
    points: usize,
    looped: bool,
) -> Result<(), SelfCheckFailure> {
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    match compiled.iter().zip(interpreted).position(|(&a, &b)| !same(a, b)) {
        None => Ok(()),
        Some(output) => Err(SelfCheckFailure {
            points,
            looped,
            output,
            compiled: compiled[output],
            interpreted: interpreted[output],
        }),
    }
}

/// Checks a one-point kernel: `eval` computes its outputs at a point.
pub(crate) fn one_point(
    kernel: &Kernel,
    eval: impl FnOnce(&[f64], &mut [f64]),
) -> Result<(), SelfCheckFailure> {
    let x = check_point(kernel.num_inputs());
    let mut out = vec![0.0; kernel.roots().len()];
    eval(&x, &mut out);
    compare(kernel, &x, &out, 1)
}

/// Checks a two-point kernel: `eval` computes its outputs at two points,
/// which have the same value at each input `k` with `shared[k]`.
pub(crate) fn two_points(
    kernel: &Kernel,
    shared: &[bool],
    eval: impl FnOnce(&[f64], &[f64], &mut [f64], &mut [f64]),
) -> Result<(), SelfCheckFailure> {
    let x0 = check_point(kernel.num_inputs());
    let mut x1 = mirrored(&x0);
    for (k, _) in shared.iter().enumerate().filter(|(_, &same)| same) {
        x1[k] = x0[k];
    }
    let m = kernel.roots().len();
    let (mut out0, mut out1) = (vec![0.0; m], vec![0.0; m]);
    eval(&x0, &x1, &mut out0, &mut out1);
    compare(kernel, &x0, &out0, 2)?;
    compare(kernel, &x1, &out1, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_points_are_fixed_and_inside_the_box() {
        let x = check_point(1000);
        assert_eq!(x, check_point(1000));
        assert_eq!(x[..10], check_point(10)[..]);
        assert!(x.iter().all(|v| (0.5..1.5).contains(v)));
        assert!(mirrored(&x).iter().all(|v| (0.5..=1.5).contains(v)));
        let distinct: std::collections::HashSet<u64> = x.iter().map(|v| v.to_bits()).collect();
        assert_eq!(distinct.len(), 1000);
    }

    #[test]
    fn a_wrong_output_is_named_with_both_values() {
        let program = frontend::parse_program("in x, y\nout x * y\nout 0/0\nout x + y").unwrap();
        let kernel = program.kernel().unwrap();
        // Two NaNs agree.
        let right = |x: &[f64], out: &mut [f64]| out.copy_from_slice(&kernel.eval(x));
        assert_eq!(one_point(&kernel, right), Ok(()));
        let wrong = |x: &[f64], out: &mut [f64]| {
            out.copy_from_slice(&kernel.eval(x));
            out[2] = f64::from_bits(out[2].to_bits() + 1);
        };
        let failure = one_point(&kernel, wrong).unwrap_err();
        assert_eq!((failure.points, failure.output), (1, 2));
        assert_eq!(failure.compiled.to_bits(), failure.interpreted.to_bits() + 1);
        assert!(failure.to_string().contains("output 2"), "{failure}");
    }
}
