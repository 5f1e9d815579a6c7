//! The functions of the language that `f64`'s methods lack or compute
//! differently, in plain Rust that calls nothing but `f64` methods. The
//! interpreter calls them, the JIT imports them, and the Rust emitter copies
//! this file's text into emitted kernels, so all three run the same code.
#![allow(clippy::excessive_precision)] // msun's constants, digit for digit

/// `sign(x)`: -1, 0 or 1, and `x` itself for `±0` and NaN.
pub fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// `a^b`, the language's power. A whole exponent `|b| <= 16` is computed
/// from products: `a^0 = 1`, `a^1 = a`, `a^2 = a*a` and `a^-1 = 1/a` in one
/// step, and other such powers in double-double arithmetic, each product's
/// rounding error recovered with a fused multiply-add (within 1 ulp of the
/// true power, and more often right than `powf`, which `a*a` already beats);
/// where an intermediate could overflow or lose its error term to underflow,
/// and for every other exponent, `f64::powf`. The JIT lowers whole powers to
/// these very steps, so interpreter and kernels agree bit for bit.
pub fn pow(a: f64, b: f64) -> f64 {
    if b.fract() != 0.0 || b.abs() > POWER_MAX_INLINE {
        return a.powf(b);
    }
    match b as i32 {
        0 => 1.0,
        1 => a,
        2 => a * a,
        -1 => 1.0 / a,
        k => compensated_power(a, k).unwrap_or_else(|| a.powf(b)),
    }
}

/// The largest `|k|` for which `a^k` is computed from products.
pub const POWER_MAX_INLINE: f64 = 16.0;
/// Below this magnitude of `|a|^|k|` the error terms of the products may
/// underflow: 2^-968 = 2^(emin + 54).
pub const POWER_MIN: f64 = f64::from_bits(((1023 - 968) as u64) << 52);
/// Above this magnitude of `|a|^|k|`, with `k < 0`, the reciprocal's
/// correction may underflow: 2^1000.
pub const RECIPROCAL_POWER_MAX: f64 = f64::from_bits(((1023 + 1000) as u64) << 52);

/// `a^k` for `2 <= |k| <= 16` by left-to-right binary powering in
/// double-double arithmetic: `(h, l)` holds `a^m` as `h + l`, and each
/// product's exact error is `fma(h, a, -h*a)`. `None` for NaN, zero,
/// infinities and magnitudes near the limits, where `powf` must answer.
fn compensated_power(a: f64, k: i32) -> Option<f64> {
    let n = k.unsigned_abs();
    let (mut h, mut l): (f64, Option<f64>) = (a, None);
    for bit in (0..31 - n.leading_zeros()).rev() {
        // (h + l)^2 = h*h + (2*h*l + err(h*h))
        let p = h * h;
        let err = h.mul_add(h, -p);
        l = Some(match l {
            Some(l) => (h + h).mul_add(l, err),
            None => err,
        });
        h = p;
        if (n >> bit) & 1 == 1 {
            // (h + l)*a = h*a + (l*a + err(h*a))
            let p = h * a;
            let err = h.mul_add(a, -p);
            l = l.map(|l| l.mul_add(a, err));
            h = p;
        }
    }
    let l = l?; // |k| >= 2 squares at least once
    let (value, high) = if k > 0 {
        (h + l, f64::MAX)
    } else {
        // 1/(h + l): q = 1/h, corrected by q*(1 - q*h - q*l).
        let q = 1.0 / h;
        let residual = (-q).mul_add(h, 1.0);
        let r = residual - q * l;
        (q.mul_add(r, q), RECIPROCAL_POWER_MAX)
    };
    (h.abs() >= POWER_MIN && h.abs() <= high).then_some(value)
}

/// IEEE 754-2019 `minimum`: NaN if either argument is NaN, and `-0 < +0`.
/// This is what Cranelift's `fmin` computes, so interpreter and JIT agree.
pub fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a < b {
        a
    } else if b < a {
        b
    } else if a.is_sign_negative() {
        a
    } else {
        b
    }
}

/// IEEE 754-2019 `maximum`: NaN if either argument is NaN, and `+0 > -0`.
pub fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b {
        a
    } else if b > a {
        b
    } else if a.is_sign_positive() {
        a
    } else {
        b
    }
}

/// The inverse hyperbolic sine, within 1.5 ulp over the whole range: musl's
/// `asinh` (FreeBSD msun's method) on `f64::ln` and `f64::ln_1p`. The
/// textbook `ln(x + sqrt(x² + 1))` overflows for `|x|` above about 1e154
/// and cancels for negative `x`.
pub fn asinh(x: f64) -> f64 {
    let a = x.abs();
    let y = if a >= TWO_POW_26 {
        // sqrt(a² + 1) = a to double precision: ln(2a), without forming 2a.
        a.ln() + std::f64::consts::LN_2
    } else if a >= 2.0 {
        // ln(a + sqrt(a² + 1)) = ln(2a + 1/(sqrt(a² + 1) + a)).
        (2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a)).ln()
    } else if a >= 1.0 / TWO_POW_26 {
        // ln(1 + t) with t = a + a²/(sqrt(a² + 1) + 1) = a + sqrt(a² + 1) - 1.
        (a + a * a / ((a * a + 1.0).sqrt() + 1.0)).ln_1p()
    } else {
        // asinh(a) = a - a³/6 + ..., and a³/6 is below half an ulp of a.
        a
    };
    if x.is_sign_negative() {
        -y
    } else {
        y
    }
}

/// The inverse hyperbolic cosine, within 2 ulp over the whole range: musl's
/// `acosh` on `f64::ln` and `f64::ln_1p`; NaN below 1. The textbook
/// `ln(x + sqrt(x² - 1))` overflows for `x` above about 1e154 and loses
/// digits near 1.
pub fn acosh(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else if x < 2.0 {
        // ln(1 + t) with t = (x - 1) + sqrt((x - 1)² + 2(x - 1)); x - 1 is exact.
        let d = x - 1.0;
        (d + (d * d + 2.0 * d).sqrt()).ln_1p()
    } else if x < TWO_POW_26 {
        // ln(x + sqrt(x² - 1)) = ln(2x - 1/(x + sqrt(x² - 1))).
        (2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt())).ln()
    } else {
        // sqrt(x² - 1) = x to double precision: ln(2x), without forming 2x.
        x.ln() + std::f64::consts::LN_2
    }
}

/// The inverse hyperbolic tangent, within 1.5 ulp over the whole range:
/// musl's `atanh` on `f64::ln_1p`, on `|x|` so that `1 - |x|` is exact near
/// both poles. The textbook `ln((1 + x)/(1 - x))/2` loses digits near 0 and
/// near -1.
pub fn atanh(x: f64) -> f64 {
    let a = x.abs();
    let y = if a < 0.5 {
        if a < 1.0 / TWO_POW_32 {
            // atanh(a) = a + a³/3 + ..., and a³/3 is below half an ulp of a.
            a
        } else {
            // ln((1 + a)/(1 - a))/2 = ln(1 + 2a + 2a²/(1 - a))/2.
            0.5 * (2.0 * a + 2.0 * a * a / (1.0 - a)).ln_1p()
        }
    } else {
        // = ln(1 + 2a/(1 - a))/2, with 1 - a exact for a in [0.5, 1].
        0.5 * (2.0 * (a / (1.0 - a))).ln_1p()
    };
    if x.is_sign_negative() {
        -y
    } else {
        y
    }
}

const TWO_POW_26: f64 = 67108864.0;
const TWO_POW_32: f64 = 4294967296.0;

/// The error function: FreeBSD msun's `s_erf.c` (as ported by the `libm`
/// crate), with `f64::exp` for its exponentials. Within 1 ulp.
pub fn erf(x: f64) -> f64 {
    let bits = x.to_bits();
    let negative = bits >> 63 != 0;
    // The high word of |x|: its exponent and top 20 mantissa bits.
    let high = (bits >> 32) as u32 & 0x7fff_ffff;
    if high >= 0x7ff0_0000 {
        // erf(NaN) = NaN, erf(±inf) = ±1.
        let one = if negative { -1.0 } else { 1.0 };
        return one + 1.0 / x;
    }
    if high < 0x3feb_0000 {
        // |x| < 0.84375: x + x·P(x²)/Q(x²).
        if high < 0x3e30_0000 {
            // |x| < 2^-28: x·2/√π, scaled so that nothing underflows early.
            return 0.125 * (8.0 * x + EFX8 * x);
        }
        let z = x * x;
        let r = PP0 + z * (PP1 + z * (PP2 + z * (PP3 + z * PP4)));
        let s = 1.0 + z * (QQ1 + z * (QQ2 + z * (QQ3 + z * (QQ4 + z * QQ5))));
        return x + x * (r / s);
    }
    let y = if high < 0x4018_0000 { 1.0 - erfc_from(high, x.abs()) } else { 1.0 - f64::MIN_POSITIVE };
    if negative {
        -y
    } else {
        y
    }
}

/// `erfc(a)` for `0.84375 <= a < 6`, `high` being `a`'s high word.
fn erfc_from(high: u32, a: f64) -> f64 {
    if high < 0x3ff4_0000 {
        // a < 1.25: erf(1 + s) = ERX + P(s)/Q(s).
        let s = a - 1.0;
        let p = PA0 + s * (PA1 + s * (PA2 + s * (PA3 + s * (PA4 + s * (PA5 + s * PA6)))));
        let q = 1.0 + s * (QA1 + s * (QA2 + s * (QA3 + s * (QA4 + s * (QA5 + s * QA6)))));
        return 1.0 - ERX - p / q;
    }
    // erfc(a) = exp(-a² - 0.5625 + R(1/a²)/S(1/a²)) / a.
    let s = 1.0 / (a * a);
    let (r, big_s) = if high < 0x4006_db6d {
        // a < 1/0.35
        (
            RA0 + s * (RA1 + s * (RA2 + s * (RA3 + s * (RA4 + s * (RA5 + s * (RA6 + s * RA7)))))),
            1.0 + s * (SA1 + s * (SA2 + s * (SA3 + s * (SA4 + s * (SA5 + s * (SA6 + s * (SA7 + s * SA8))))))),
        )
    } else {
        (
            RB0 + s * (RB1 + s * (RB2 + s * (RB3 + s * (RB4 + s * (RB5 + s * RB6))))),
            1.0 + s * (SB1 + s * (SB2 + s * (SB3 + s * (SB4 + s * (SB5 + s * (SB6 + s * SB7)))))),
        )
    };
    // -a² = -z² + (z - a)(z + a) with z = a cut to 21 mantissa bits, so z² is exact.
    let z = f64::from_bits(a.to_bits() & 0xffff_ffff_0000_0000);
    (-z * z - 0.5625).exp() * ((z - a) * (z + a) + r / big_s).exp() / a
}

const ERX: f64 = 8.45062911510467529297e-01;
// erf on [0, 0.84375]
const EFX8: f64 = 1.02703333676410069053e+00;
const PP0: f64 = 1.28379167095512558561e-01;
const PP1: f64 = -3.25042107247001499370e-01;
const PP2: f64 = -2.84817495755985104766e-02;
const PP3: f64 = -5.77027029648944159157e-03;
const PP4: f64 = -2.37630166566501626084e-05;
const QQ1: f64 = 3.97917223959155352819e-01;
const QQ2: f64 = 6.50222499887672944485e-02;
const QQ3: f64 = 5.08130628187576562776e-03;
const QQ4: f64 = 1.32494738004321644526e-04;
const QQ5: f64 = -3.96022827877536812320e-06;
// erf on [0.84375, 1.25]
const PA0: f64 = -2.36211856075265944077e-03;
const PA1: f64 = 4.14856118683748331666e-01;
const PA2: f64 = -3.72207876035701323847e-01;
const PA3: f64 = 3.18346619901161753674e-01;
const PA4: f64 = -1.10894694282396677476e-01;
const PA5: f64 = 3.54783043256182359371e-02;
const PA6: f64 = -2.16637559486879084300e-03;
const QA1: f64 = 1.06420880400844228286e-01;
const QA2: f64 = 5.40397917702171048937e-01;
const QA3: f64 = 7.18286544141962662868e-02;
const QA4: f64 = 1.26171219808761642112e-01;
const QA5: f64 = 1.36370839120290507362e-02;
const QA6: f64 = 1.19844998467991074170e-02;
// erfc on [1.25, 1/0.35]
const RA0: f64 = -9.86494403484714822705e-03;
const RA1: f64 = -6.93858572707181764372e-01;
const RA2: f64 = -1.05586262253232909814e+01;
const RA3: f64 = -6.23753324503260060396e+01;
const RA4: f64 = -1.62396669462573470355e+02;
const RA5: f64 = -1.84605092906711035994e+02;
const RA6: f64 = -8.12874355063065934246e+01;
const RA7: f64 = -9.81432934416914548592e+00;
const SA1: f64 = 1.96512716674392571292e+01;
const SA2: f64 = 1.37657754143519042600e+02;
const SA3: f64 = 4.34565877475229228821e+02;
const SA4: f64 = 6.45387271733267880336e+02;
const SA5: f64 = 4.29008140027567833386e+02;
const SA6: f64 = 1.08635005541779435134e+02;
const SA7: f64 = 6.57024977031928170135e+00;
const SA8: f64 = -6.04244152148580987438e-02;
// erfc on [1/0.35, 6]
const RB0: f64 = -9.86494292470009928597e-03;
const RB1: f64 = -7.99283237680523006574e-01;
const RB2: f64 = -1.77579549177547519889e+01;
const RB3: f64 = -1.60636384855821916062e+02;
const RB4: f64 = -6.37566443368389627722e+02;
const RB5: f64 = -1.02509513161107724954e+03;
const RB6: f64 = -4.83519191608651397019e+02;
const SB1: f64 = 3.03380607434824582924e+01;
const SB2: f64 = 3.25792512996573918826e+02;
const SB3: f64 = 1.53672958608443695994e+03;
const SB4: f64 = 3.19985821950859553908e+03;
const SB5: f64 = 2.55305040643316442583e+03;
const SB6: f64 = 4.74528541206955367215e+02;
const SB7: f64 = -2.24409524465858183362e+01;
