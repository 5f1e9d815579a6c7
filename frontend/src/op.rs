//! The one table of operations: every operation's name, arity and reference
//! evaluation. Derivative rules (`factor::rules`), code generation
//! (`backend::lower`) and the e-graph language each `match` on [`Op`]
//! exhaustively, so a new operation fails to compile where a decision is due.

use crate::portable;
use std::fmt;

/// A floating-point constant that can be hashed and compared bit for bit.
///
/// All NaNs are stored as one canonical NaN so that hash-consing treats them as
/// one value; `0.0` and `-0.0` stay distinct because they behave differently
/// (`1/-0 = -inf`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Real(u64);

impl Real {
    /// Wraps `value`, canonicalizing NaN.
    pub fn new(value: f64) -> Real {
        if value.is_nan() {
            Real(f64::NAN.to_bits())
        } else {
            Real(value.to_bits())
        }
    }

    /// The wrapped value.
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl fmt::Debug for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.get())
    }
}

/// A comparison, the condition of `ifelse(a < b, x, y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl Cmp {
    /// Every comparison, in a fixed order.
    pub const ALL: [Cmp; 6] = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne];

    /// The source spelling, `"<"` for [`Cmp::Lt`].
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }

    /// IEEE comparison: every comparison with a NaN is false except `!=`.
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }
}

/// An operation of the language. Leaves (`Const`, `Input`) have arity 0.
///
/// `Select(cmp)` is `ifelse(a cmp b, x, y)` with arguments `[a, b, x, y]`: the
/// comparison lives inside the operation, so a condition is never a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)] // the variants are the language's own names
pub enum Op {
    Const(Real),
    /// The `k`-th input of the function, counting from 0.
    Input(u32),
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
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
    Sqrt,
    Cbrt,
    Abs,
    Sign,
    Floor,
    Ceil,
    Erf,
    Atan2,
    Hypot,
    Min,
    Max,
    Select(Cmp),
}

/// Functions callable by name in the source language, with their arity.
/// `ifelse` is listed too; its first argument is a comparison.
pub const FUNCTIONS: [(&str, usize); 29] = [
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("asinh", 1),
    ("acosh", 1),
    ("atanh", 1),
    ("exp", 1),
    ("log", 1),
    ("log2", 1),
    ("log10", 1),
    ("sqrt", 1),
    ("cbrt", 1),
    ("abs", 1),
    ("sign", 1),
    ("floor", 1),
    ("ceil", 1),
    ("erf", 1),
    ("pow", 2),
    ("atan2", 2),
    ("hypot", 2),
    ("min", 2),
    ("max", 2),
    ("ifelse", 3),
];

impl Op {
    /// Every operation that is not a leaf, `Select` once per comparison.
    pub fn all_applied() -> Vec<Op> {
        let mut ops = vec![
            Op::Neg,
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::Div,
            Op::Pow,
            Op::Sin,
            Op::Cos,
            Op::Tan,
            Op::Asin,
            Op::Acos,
            Op::Atan,
            Op::Sinh,
            Op::Cosh,
            Op::Tanh,
            Op::Asinh,
            Op::Acosh,
            Op::Atanh,
            Op::Exp,
            Op::Log,
            Op::Log2,
            Op::Log10,
            Op::Sqrt,
            Op::Cbrt,
            Op::Abs,
            Op::Sign,
            Op::Floor,
            Op::Ceil,
            Op::Erf,
            Op::Atan2,
            Op::Hypot,
            Op::Min,
            Op::Max,
        ];
        ops.extend(Cmp::ALL.map(Op::Select));
        ops
    }

    /// The name of a function-call operation (`"sin"`), or the operator for
    /// arithmetic (`"+"`); leaves are named `"const"` and `"input"`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Const(_) => "const",
            Op::Input(_) => "input",
            Op::Neg => "neg",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Pow => "^",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Tan => "tan",
            Op::Asin => "asin",
            Op::Acos => "acos",
            Op::Atan => "atan",
            Op::Sinh => "sinh",
            Op::Cosh => "cosh",
            Op::Tanh => "tanh",
            Op::Asinh => "asinh",
            Op::Acosh => "acosh",
            Op::Atanh => "atanh",
            Op::Exp => "exp",
            Op::Log => "log",
            Op::Log2 => "log2",
            Op::Log10 => "log10",
            Op::Sqrt => "sqrt",
            Op::Cbrt => "cbrt",
            Op::Abs => "abs",
            Op::Sign => "sign",
            Op::Floor => "floor",
            Op::Ceil => "ceil",
            Op::Erf => "erf",
            Op::Atan2 => "atan2",
            Op::Hypot => "hypot",
            Op::Min => "min",
            Op::Max => "max",
            Op::Select(_) => "ifelse",
        }
    }

    /// The operation a source-language function name denotes; `pow` maps to
    /// [`Op::Pow`]. `ifelse` is not listed: its comparison makes it special.
    pub fn from_function_name(name: &str) -> Option<Op> {
        Some(match name {
            "sin" => Op::Sin,
            "cos" => Op::Cos,
            "tan" => Op::Tan,
            "asin" => Op::Asin,
            "acos" => Op::Acos,
            "atan" => Op::Atan,
            "sinh" => Op::Sinh,
            "cosh" => Op::Cosh,
            "tanh" => Op::Tanh,
            "asinh" => Op::Asinh,
            "acosh" => Op::Acosh,
            "atanh" => Op::Atanh,
            "exp" => Op::Exp,
            "log" => Op::Log,
            "log2" => Op::Log2,
            "log10" => Op::Log10,
            "sqrt" => Op::Sqrt,
            "cbrt" => Op::Cbrt,
            "abs" => Op::Abs,
            "sign" => Op::Sign,
            "floor" => Op::Floor,
            "ceil" => Op::Ceil,
            "erf" => Op::Erf,
            "pow" => Op::Pow,
            "atan2" => Op::Atan2,
            "hypot" => Op::Hypot,
            "min" => Op::Min,
            "max" => Op::Max,
            _ => return None,
        })
    }

    /// Number of arguments.
    pub fn arity(self) -> usize {
        match self {
            Op::Const(_) | Op::Input(_) => 0,
            Op::Neg
            | Op::Sin
            | Op::Cos
            | Op::Tan
            | Op::Asin
            | Op::Acos
            | Op::Atan
            | Op::Sinh
            | Op::Cosh
            | Op::Tanh
            | Op::Asinh
            | Op::Acosh
            | Op::Atanh
            | Op::Exp
            | Op::Log
            | Op::Log2
            | Op::Log10
            | Op::Sqrt
            | Op::Cbrt
            | Op::Abs
            | Op::Sign
            | Op::Floor
            | Op::Ceil
            | Op::Erf => 1,
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Pow | Op::Atan2 | Op::Hypot | Op::Min | Op::Max => 2,
            Op::Select(_) => 4,
        }
    }

    /// Whether swapping the two arguments never changes the result, bit for
    /// bit (so the DAG may store them in a canonical order).
    pub fn is_commutative(self) -> bool {
        matches!(self, Op::Add | Op::Mul | Op::Hypot | Op::Min | Op::Max)
    }

    /// Whether this is a leaf (`Const` or `Input`).
    pub fn is_leaf(self) -> bool {
        matches!(self, Op::Const(_) | Op::Input(_))
    }

    /// The reference evaluation: IEEE double precision, libm semantics.
    /// `args` has exactly `self.arity()` values; a leaf `Input` reads nothing
    /// and returns NaN (inputs are looked up by the caller).
    pub fn eval(self, args: &[f64]) -> f64 {
        debug_assert_eq!(args.len(), self.arity(), "{self:?}");
        let a = || args[0];
        let b = || args[1];
        match self {
            Op::Const(c) => c.get(),
            Op::Input(_) => f64::NAN,
            Op::Neg => -a(),
            Op::Add => a() + b(),
            Op::Sub => a() - b(),
            Op::Mul => a() * b(),
            Op::Div => a() / b(),
            Op::Pow => a().powf(b()),
            Op::Sin => a().sin(),
            Op::Cos => a().cos(),
            Op::Tan => a().tan(),
            Op::Asin => a().asin(),
            Op::Acos => a().acos(),
            Op::Atan => a().atan(),
            Op::Sinh => a().sinh(),
            Op::Cosh => a().cosh(),
            Op::Tanh => a().tanh(),
            Op::Asinh => a().asinh(),
            Op::Acosh => a().acosh(),
            Op::Atanh => a().atanh(),
            Op::Exp => a().exp(),
            Op::Log => a().ln(),
            Op::Log2 => a().log2(),
            Op::Log10 => a().log10(),
            Op::Sqrt => a().sqrt(),
            Op::Cbrt => a().cbrt(),
            Op::Abs => a().abs(),
            Op::Sign => portable::sign(a()),
            Op::Floor => a().floor(),
            Op::Ceil => a().ceil(),
            Op::Erf => portable::erf(a()),
            Op::Atan2 => a().atan2(b()),
            Op::Hypot => a().hypot(b()),
            Op::Min => portable::minimum(a(), b()),
            Op::Max => portable::maximum(a(), b()),
            Op::Select(cmp) => {
                if cmp.holds(args[0], args[1]) {
                    args[2]
                } else {
                    args[3]
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_table_agrees_with_ops() {
        for (name, arity) in FUNCTIONS {
            match Op::from_function_name(name) {
                Some(op) => {
                    assert_eq!(op.arity(), arity, "{name}");
                    assert_eq!(op.name(), if op == Op::Pow { "^" } else { name });
                }
                None => assert_eq!(name, "ifelse"),
            }
        }
    }

    #[test]
    fn real_canonicalizes_nan_only() {
        assert_eq!(Real::new(f64::NAN), Real::new(-f64::NAN));
        assert_ne!(Real::new(0.0), Real::new(-0.0));
    }
}
