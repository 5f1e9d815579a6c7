//! The elementary functions a kernel calls instead of inlining: one
//! `extern "C"` wrapper per function, registered with the JIT under a
//! `dstar_*` symbol. Each wrapper calls exactly what [`Op::eval`] calls (a
//! `std` method, or a function of [`frontend::portable`]), so JIT and
//! interpreter agree bit for bit.

use frontend::Op;

/// A function the JIT imports rather than computing inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Libm {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Exp,
    Log,
    Log2,
    Log10,
    Cbrt,
    Erf,
    Pow,
    Atan2,
    Hypot,
}

/// A wrapper's address, typed by its arity.
#[derive(Clone, Copy)]
pub(crate) enum LibmFn {
    Unary(extern "C" fn(f64) -> f64),
    Binary(extern "C" fn(f64, f64) -> f64),
}

impl LibmFn {
    /// Number of `f64` arguments.
    pub(crate) fn arity(self) -> usize {
        match self {
            LibmFn::Unary(_) => 1,
            LibmFn::Binary(_) => 2,
        }
    }

    /// The code address to register with the JIT.
    pub(crate) fn address(self) -> *const u8 {
        match self {
            LibmFn::Unary(f) => f as *const u8,
            LibmFn::Binary(f) => f as *const u8,
        }
    }
}

impl Libm {
    /// Every imported function, each once.
    pub(crate) const ALL: [Libm; 21] = [
        Libm::Sin,
        Libm::Cos,
        Libm::Tan,
        Libm::Asin,
        Libm::Acos,
        Libm::Atan,
        Libm::Sinh,
        Libm::Cosh,
        Libm::Tanh,
        Libm::Asinh,
        Libm::Acosh,
        Libm::Atanh,
        Libm::Exp,
        Libm::Log,
        Libm::Log2,
        Libm::Log10,
        Libm::Cbrt,
        Libm::Erf,
        Libm::Pow,
        Libm::Atan2,
        Libm::Hypot,
    ];

    /// The operation this function computes.
    pub(crate) fn op(self) -> Op {
        match self {
            Libm::Sin => Op::Sin,
            Libm::Cos => Op::Cos,
            Libm::Tan => Op::Tan,
            Libm::Asin => Op::Asin,
            Libm::Acos => Op::Acos,
            Libm::Atan => Op::Atan,
            Libm::Sinh => Op::Sinh,
            Libm::Cosh => Op::Cosh,
            Libm::Tanh => Op::Tanh,
            Libm::Asinh => Op::Asinh,
            Libm::Acosh => Op::Acosh,
            Libm::Atanh => Op::Atanh,
            Libm::Exp => Op::Exp,
            Libm::Log => Op::Log,
            Libm::Log2 => Op::Log2,
            Libm::Log10 => Op::Log10,
            Libm::Cbrt => Op::Cbrt,
            Libm::Erf => Op::Erf,
            Libm::Pow => Op::Pow,
            Libm::Atan2 => Op::Atan2,
            Libm::Hypot => Op::Hypot,
        }
    }

    /// The symbol the JIT resolves calls to this function by. Prefixed so it
    /// can never bind to a differently behaving system function.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Libm::Sin => "dstar_sin",
            Libm::Cos => "dstar_cos",
            Libm::Tan => "dstar_tan",
            Libm::Asin => "dstar_asin",
            Libm::Acos => "dstar_acos",
            Libm::Atan => "dstar_atan",
            Libm::Sinh => "dstar_sinh",
            Libm::Cosh => "dstar_cosh",
            Libm::Tanh => "dstar_tanh",
            Libm::Asinh => "dstar_asinh",
            Libm::Acosh => "dstar_acosh",
            Libm::Atanh => "dstar_atanh",
            Libm::Exp => "dstar_exp",
            Libm::Log => "dstar_log",
            Libm::Log2 => "dstar_log2",
            Libm::Log10 => "dstar_log10",
            Libm::Cbrt => "dstar_cbrt",
            Libm::Erf => "dstar_erf",
            Libm::Pow => "dstar_pow",
            Libm::Atan2 => "dstar_atan2",
            Libm::Hypot => "dstar_hypot",
        }
    }

    /// The wrapper the symbol resolves to.
    pub(crate) fn function(self) -> LibmFn {
        use LibmFn::{Binary, Unary};
        match self {
            Libm::Sin => Unary(wrappers::sin),
            Libm::Cos => Unary(wrappers::cos),
            Libm::Tan => Unary(wrappers::tan),
            Libm::Asin => Unary(wrappers::asin),
            Libm::Acos => Unary(wrappers::acos),
            Libm::Atan => Unary(wrappers::atan),
            Libm::Sinh => Unary(wrappers::sinh),
            Libm::Cosh => Unary(wrappers::cosh),
            Libm::Tanh => Unary(wrappers::tanh),
            Libm::Asinh => Unary(wrappers::asinh),
            Libm::Acosh => Unary(wrappers::acosh),
            Libm::Atanh => Unary(wrappers::atanh),
            Libm::Exp => Unary(wrappers::exp),
            Libm::Log => Unary(wrappers::log),
            Libm::Log2 => Unary(wrappers::log2),
            Libm::Log10 => Unary(wrappers::log10),
            Libm::Cbrt => Unary(wrappers::cbrt),
            Libm::Erf => Unary(wrappers::erf),
            Libm::Pow => Binary(wrappers::pow),
            Libm::Atan2 => Binary(wrappers::atan2),
            Libm::Hypot => Binary(wrappers::hypot),
        }
    }
}

/// The wrappers, each the body of the matching arm of [`Op::eval`].
mod wrappers {
    pub(super) extern "C" fn sin(x: f64) -> f64 {
        x.sin()
    }
    pub(super) extern "C" fn cos(x: f64) -> f64 {
        x.cos()
    }
    pub(super) extern "C" fn tan(x: f64) -> f64 {
        x.tan()
    }
    pub(super) extern "C" fn asin(x: f64) -> f64 {
        x.asin()
    }
    pub(super) extern "C" fn acos(x: f64) -> f64 {
        x.acos()
    }
    pub(super) extern "C" fn atan(x: f64) -> f64 {
        x.atan()
    }
    pub(super) extern "C" fn sinh(x: f64) -> f64 {
        x.sinh()
    }
    pub(super) extern "C" fn cosh(x: f64) -> f64 {
        x.cosh()
    }
    pub(super) extern "C" fn tanh(x: f64) -> f64 {
        x.tanh()
    }
    pub(super) extern "C" fn asinh(x: f64) -> f64 {
        x.asinh()
    }
    pub(super) extern "C" fn acosh(x: f64) -> f64 {
        x.acosh()
    }
    pub(super) extern "C" fn atanh(x: f64) -> f64 {
        x.atanh()
    }
    pub(super) extern "C" fn exp(x: f64) -> f64 {
        x.exp()
    }
    pub(super) extern "C" fn log(x: f64) -> f64 {
        x.ln()
    }
    pub(super) extern "C" fn log2(x: f64) -> f64 {
        x.log2()
    }
    pub(super) extern "C" fn log10(x: f64) -> f64 {
        x.log10()
    }
    pub(super) extern "C" fn cbrt(x: f64) -> f64 {
        x.cbrt()
    }
    pub(super) extern "C" fn erf(x: f64) -> f64 {
        frontend::portable::erf(x)
    }
    pub(super) extern "C" fn pow(x: f64, y: f64) -> f64 {
        x.powf(y)
    }
    pub(super) extern "C" fn atan2(y: f64, x: f64) -> f64 {
        y.atan2(x)
    }
    pub(super) extern "C" fn hypot(x: f64, y: f64) -> f64 {
        x.hypot(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments spanning every function's domain, its edges and the specials.
    const SAMPLES: [f64; 16] = [
        0.0,
        -0.0,
        0.3,
        -0.7,
        1.0,
        -1.0,
        1.5,
        -2.25,
        10.0,
        -33.5,
        1e-300,
        1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        std::f64::consts::PI,
    ];

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn wrappers_match_the_reference_bit_for_bit() {
        for f in Libm::ALL {
            assert_eq!(f.function().arity(), f.op().arity(), "{f:?}");
            for a in SAMPLES {
                for b in SAMPLES {
                    let (got, args) = match f.function() {
                        LibmFn::Unary(g) => (g(a), vec![a]),
                        LibmFn::Binary(g) => (g(a, b), vec![a, b]),
                    };
                    let want = f.op().eval(&args);
                    assert!(same(got, want), "{f:?}{args:?}: {got} != {want}");
                }
            }
        }
    }

    #[test]
    fn symbols_are_distinct() {
        let mut names: Vec<_> = Libm::ALL.iter().map(|f| f.symbol()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Libm::ALL.len());
    }
}
