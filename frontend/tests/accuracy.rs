//! `Op::eval` against exact values at the extremes of each function's
//! range: huge, tiny and subnormal arguments, arguments next to poles and
//! overflow thresholds, and the worst arguments found by sampling 30,000
//! bit patterns per function against mpmath. The JIT and the emitted Rust
//! compute what `Op::eval` computes, bit for bit, so this holds for them too.

use frontend::Op;
use std::f64::consts::{FRAC_PI_2, PI};

/// Relative error allowed: about 2 ulp. The functions are within 2 ulp of
/// the exact value (most within 1), and the references are the exact values
/// correctly rounded.
const TOLERANCE: f64 = 4e-16;

/// `(op, x, op(x))`, with `op(x)` computed by Python's mpmath 1.3 at
/// `mp.dps = 50` as `float(f(mpf(x)))`, the exact value correctly rounded
/// (`f` = `mpmath.asinh`, ...; `log(x, 2)` for `log2`; `sign(x)·cbrt(|x|)`).
/// Every result is a normal number, where a relative error means something.
const CASES: &[(Op, f64, f64)] = &[
    (Op::Sin, 1e+22, -0.8522008497671888),
    (Op::Sin, f64::MAX, 0.004961954789184062),
    (Op::Cos, 1e+22, 0.523214785395139),
    (Op::Cos, f64::MAX, -0.9999876894265599),
    (Op::Tan, FRAC_PI_2, 1.633123935319537e+16),
    (Op::Tan, 1e+22, -1.6287782256068988),
    (Op::Asin, 1.0, FRAC_PI_2),
    (Op::Asin, -0.9999999999999999, -1.5707963118937354),
    (Op::Asin, 1e-310, 1e-310),
    (Op::Acos, -1.0, PI),
    (Op::Acos, 0.9999999999999999, 1.4901161193847656e-08),
    (Op::Atan, 1e+300, FRAC_PI_2),
    (Op::Atan, -f64::MAX, -FRAC_PI_2),
    (Op::Sinh, 710.4758600739439, 1.7976931348621744e+308),
    (Op::Sinh, -710.4758600739439, -1.7976931348621744e+308),
    (Op::Sinh, 1e-08, 1e-08),
    (Op::Cosh, 710.4758600739439, 1.7976931348621744e+308),
    (Op::Cosh, -710.4758600739439, 1.7976931348621744e+308),
    (Op::Tanh, 19.0, 0.9999999999999999),
    (Op::Tanh, 1e-20, 1e-20),
    (Op::Asinh, 1.5e+308, 710.2948209308341),
    (Op::Asinh, -1.5e+308, -710.2948209308341),
    (Op::Asinh, f64::MAX, 710.475860073944),
    (Op::Asinh, 1e+154, 355.291251501643),
    (Op::Asinh, 0.427990303328015, 0.4158965803408566),
    (Op::Asinh, -1e-300, -1e-300),
    (Op::Acosh, 1.5e+308, 710.2948209308341),
    (Op::Acosh, f64::MAX, 710.475860073944),
    (Op::Acosh, 1.0000000000000002, 2.1073424255447014e-08),
    (Op::Acosh, 1.0000000001, 1.4142136208675862e-05),
    (Op::Acosh, 1.0294209707675772, 0.2419827532567369),
    (Op::Atanh, -0.9999999999, -11.859499013855018), // -1 + 1e-10
    (Op::Atanh, 0.9999999999, 11.859499013855018),   // 1 - 1e-10
    (Op::Atanh, -0.9999999999999999, -18.714973875118524),
    (Op::Atanh, 0.9999999999999999, 18.714973875118524),
    (Op::Atanh, -0.2315446211029042, -0.23582097566858087),
    (Op::Atanh, 1e-300, 1e-300),
    (Op::Exp, 709.782712893384, 1.7976931348622732e+308),
    (Op::Exp, -708.4, 2.217119081664265e-308),
    (Op::Expm1, 709.782712893384, 1.7976931348622732e+308),
    (Op::Expm1, 1e-300, 1e-300),
    (Op::Expm1, -1e-10, -9.999999999500001e-11),
    (Op::Expm1, 1e-05, 1.0000050000166668e-05),
    (Op::Expm1, -37.5, -1.0),
    (Op::Expm1, -1.0, -0.6321205588285577),
    (Op::Exp2, 1023.9999999999999, 1.7976931348621742e+308),
    (Op::Exp2, -1022.0, 2.2250738585072014e-308),
    (Op::Exp2, 1e-20, 1.0),
    (Op::Exp2, -0.75, 0.5946035575013605),
    (Op::Exp2, 10.3, 1260.691879265195),
    (Op::Log1p, -0.9999999999999999, -36.7368005696771),
    (Op::Log1p, -0.9999999999, -23.02585084720009), // -1 + 1e-10
    (Op::Log1p, 1e-300, 1e-300),
    (Op::Log1p, -1e-10, -1.00000000005e-10),
    (Op::Log1p, f64::MAX, 709.782712893384),
    (Op::Log1p, 3.0, 1.3862943611198906),
    (Op::Log, 5e-324, -744.4400719213812),
    (Op::Log, f64::MAX, 709.782712893384),
    (Op::Log, 0.9999999999999999, -1.1102230246251565e-16),
    (Op::Log2, 5e-324, -1074.0),
    (Op::Log2, f64::MAX, 1024.0),
    (Op::Log2, 0.9999999999999999, -1.6017132519074588e-16),
    (Op::Log10, 5e-324, -323.3062153431158),
    (Op::Log10, f64::MAX, 308.25471555991675),
    (Op::Log10, 0.9999999999999999, -4.821637332766436e-17),
    (Op::Sqrt, 5e-324, 2.2227587494850775e-162),
    (Op::Sqrt, f64::MAX, 1.3407807929942596e+154),
    (Op::Cbrt, -5e-324, -1.7031839360032603e-108),
    (Op::Cbrt, f64::MAX, 5.643803094122362e+102),
    (Op::Erf, 1e-300, 1.1283791670955126e-300),
    (Op::Erf, -1.3491268946606185, -0.943602780125651),
    (Op::Erf, 0.012886933457311152, 0.014540542305765009),
    (Op::Erf, 5.9, 0.9999999999999999),
];

#[test]
fn unary_functions_are_accurate_at_extreme_arguments() {
    let failures: Vec<String> = CASES.iter().filter_map(|&(op, x, want)| inaccuracy(op, x, want)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What is wrong with `op(x)`, if it is not within [`TOLERANCE`] of `want`.
fn inaccuracy(op: Op, x: f64, want: f64) -> Option<String> {
    let got = op.eval(&[x]);
    let error = ((got - want) / want).abs();
    // A NaN error is wrong too.
    let right = error <= TOLERANCE;
    (!right).then(|| format!("{}({x:e}) = {got:e}, want {want:e} (relative error {error:.1e})", op.name()))
}

/// Regression: `asinh` and `acosh` (Rust's `f64` methods) overflowed to
/// infinity above `f64::MAX / 2`, where they form `2x`, and `atanh` lost
/// digits near -1, where `1 + 2x/(1 - x)` cancels.
#[test]
fn issue_12_inverse_hyperbolic_functions_hold_over_the_whole_range() {
    // The exact values, rounded: see CASES.
    assert_eq!(inaccuracy(Op::Asinh, 1.5e308, 710.2948209308341), None);
    assert_eq!(inaccuracy(Op::Acosh, 1.5e308, 710.2948209308341), None);
    assert_eq!(inaccuracy(Op::Atanh, -1.0 + 1e-10, -11.859499013855018), None);
    assert_eq!(Op::Asinh.eval(&[f64::INFINITY]), f64::INFINITY);
    assert_eq!(Op::Acosh.eval(&[f64::INFINITY]), f64::INFINITY);
    assert_eq!(Op::Atanh.eval(&[-1.0]), f64::NEG_INFINITY);
    assert_eq!(Op::Acosh.eval(&[1.0]), 0.0);
    for x in [0.5, -1.0, -1e300, f64::NEG_INFINITY, f64::NAN] {
        assert!(Op::Acosh.eval(&[x]).is_nan(), "acosh({x})");
    }
    for x in [1.5, -1.0000000000000002, f64::INFINITY, f64::NAN] {
        assert!(Op::Atanh.eval(&[x]).is_nan(), "atanh({x})");
    }
    assert!(Op::Asinh.eval(&[-0.0]).is_sign_negative());
    assert!(Op::Atanh.eval(&[-0.0]).is_sign_negative());
}
