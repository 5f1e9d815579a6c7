//! Integer powers `x^k` with `|k| <= 16`, lowered inline as the steps of
//! the language's power ([`frontend::portable::pow`]): one instruction for
//! `k` = 0, 1, 2, -1, else multiplications in double-double arithmetic (each
//! product's rounding error recovered with an `fma`), within 1 ulp of the
//! true power; a plain multiplication chain is not (`x*x*x*x` is up to 2 ulp
//! off, `x^16` up to 12). Where an intermediate could overflow or lose its
//! error term to underflow, the kernel calls the reference instead, in a
//! cold block, as the reference itself calls `powf` there: interpreter and
//! kernels agree bit for bit.
//!
//! The one-point kernel ([`crate::lower`]) and the two-point kernel
//! ([`crate::lanes`]) build the same steps here, on `f64` and on `f64x2`, so
//! each lane gives the one-point kernel's bits; each builds its own cold path.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;
use frontend::portable::{POWER_MAX_INLINE, POWER_MIN, RECIPROCAL_POWER_MAX};
use frontend::{ExprDag, NodeId};

/// The exponent `k` of `x^k` when it is a small integer lowered inline.
pub(crate) fn inline_power(dag: &ExprDag, exponent: NodeId) -> Option<i32> {
    let k = dag.as_const(exponent)?;
    (k.fract() == 0.0 && k.abs() <= POWER_MAX_INLINE).then_some(k as i32)
}

/// `a^k` for an exponent [`inline_power`] accepts, as [`inline`] built it.
pub(crate) enum Inline {
    /// The power, in one step that holds for every `a`.
    Done(Value),
    /// The compensated power; where it does not hold, the caller calls `pow`.
    Compensated(Compensated),
}

/// `a^k` for an exponent [`inline_power`] accepts. `a` is an `f64` or an
/// `f64x2`, and `constant` builds a constant of its type.
pub(crate) fn inline(
    b: &mut FunctionBuilder<'_>,
    a: Value,
    k: i32,
    constant: impl Fn(&mut FunctionBuilder<'_>, f64) -> Value,
) -> Inline {
    Inline::Done(match k {
        // pow(x, ±0) = 1 and pow(x, 1) = x for every x, NaN included.
        0 => constant(b, 1.0),
        1 => a,
        // One correctly rounded operation.
        2 => b.ins().fmul(a, a),
        -1 => {
            let one = constant(b, 1.0);
            b.ins().fdiv(one, a)
        }
        _ => return Inline::Compensated(compensated(b, a, k, constant)),
    })
}

/// `a^k` for `2 <= |k| <= 16` by compensated powering, and where it holds.
pub(crate) struct Compensated {
    /// The power, within 1 ulp of the true power where `in_range` is true.
    pub(crate) value: Value,
    /// True (per lane) where `value` may be used; false for NaN, zero,
    /// infinities and magnitudes near the limits, where `pow` must be called.
    pub(crate) in_range: Value,
}

/// Builds `a^k` in double-double arithmetic by left-to-right binary
/// powering: `(h, l)` holds `a^m` as `h + l`, and each product's exact error
/// is `fma(h, a, -h*a)`: the steps of `frontend::portable::pow`, which
/// `tests/power.rs` checks bit for bit.
fn compensated(
    b: &mut FunctionBuilder<'_>,
    a: Value,
    k: i32,
    constant: impl Fn(&mut FunctionBuilder<'_>, f64) -> Value,
) -> Compensated {
    let n = k.unsigned_abs();
    debug_assert!((2..=POWER_MAX_INLINE as u32).contains(&n), "x^{k} is not compensated");
    let (mut h, mut l): (Value, Option<Value>) = (a, None);
    for bit in (0..31 - n.leading_zeros()).rev() {
        // (h + l)^2 = h*h + (2*h*l + err(h*h))
        let p = b.ins().fmul(h, h);
        let minus_p = b.ins().fneg(p);
        let err = b.ins().fma(h, h, minus_p);
        l = Some(match l {
            Some(l) => {
                let twice = b.ins().fadd(h, h);
                b.ins().fma(twice, l, err)
            }
            None => err,
        });
        h = p;
        if (n >> bit) & 1 == 1 {
            // (h + l)*a = h*a + (l*a + err(h*a))
            let p = b.ins().fmul(h, a);
            let minus_p = b.ins().fneg(p);
            let err = b.ins().fma(h, a, minus_p);
            let lo = l.expect("a square precedes every multiplication");
            l = Some(b.ins().fma(lo, a, err));
            h = p;
        }
    }
    let l = l.expect("|k| >= 2 squares at least once");
    let magnitude = b.ins().fabs(h);
    let low = constant(b, POWER_MIN);
    let (value, high) = if k > 0 {
        (b.ins().fadd(h, l), constant(b, f64::MAX))
    } else {
        // 1/(h + l): q = 1/h, corrected by q*(1 - q*h - q*l).
        let one = constant(b, 1.0);
        let q = b.ins().fdiv(one, h);
        let minus_q = b.ins().fneg(q);
        let residual = b.ins().fma(minus_q, h, one);
        let ql = b.ins().fmul(q, l);
        let r = b.ins().fsub(residual, ql);
        (b.ins().fma(q, r, q), constant(b, RECIPROCAL_POWER_MAX))
    };
    // False for NaN, zero, infinities and magnitudes near the limits.
    let above = b.ins().fcmp(FloatCC::GreaterThanOrEqual, magnitude, low);
    let below = b.ins().fcmp(FloatCC::LessThanOrEqual, magnitude, high);
    let in_range = b.ins().band(above, below);
    Compensated { value, in_range }
}
