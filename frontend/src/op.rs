//! The one table of operations, [`for_each_op!`](crate::for_each_op): one
//! row per operation gives its name, arity, reference evaluation, whether
//! the JIT imports it, and its C and Rust spellings; the [`Op`] enum and
//! everything the parser, the interpreter, the JIT's imports and the
//! emitters need derive from it. Derivative rules (`derivative::rules`),
//! Cranelift lowering (`backend::lower`) and the e-graph language each
//! `match` on [`Op`] exhaustively, so a new operation fails to compile where
//! a decision is due.

use crate::call::CallOut;
use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::OnceLock;

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

/// The table of operations. `for_each_op!(callback)` invokes `callback!` with
/// one row per operation applying a function or an operator to `f64`
/// arguments: every [`Op`] but the leaves `Const` and `Input`, and `Select`,
/// whose comparison makes it syntax rather than a function. `frontend`
/// derives [`Op`] from the rows; `backend` derives the JIT's imports.
///
/// A row reads `Variant "name" function [arity reference] jit C Rust;`:
/// - `"name"`: how the operation prints (the operator for arithmetic);
/// - `function`: its name in the source language (an identifier, also the
///   name of the builder's method, [`Expr::sin`](crate::Expr::sin)), or `-` for an operator;
/// - `[unary f]` or `[binary f]`: the reference implementation, a
///   `fn(f64) -> f64` or `fn(f64, f64) -> f64` that [`Op::eval`] calls;
/// - `native` (the JIT lowers it to instructions) or `call` (the JIT imports
///   the reference itself as `dstar_<function>`, so results are identical);
/// - C: `prefix "-"`, `infix "+"` or `call "sin"` (`<math.h>`, or a helper
///   the C emitter defines);
/// - Rust: `prefix "-"`, `infix "+"`, `method "sin"` (`a.sin()`) or
///   `portable "erf"` (a function of [`portable`](crate::portable), whose
///   text the Rust emitter copies).
#[macro_export]
macro_rules! for_each_op {
    ($callback:ident) => { $callback! {
    //  Op    name    function [arity reference]                  jit    C                 Rust
        Neg   "neg"   -        [unary |a| -a]                     native prefix "-"        prefix "-";
        Add   "+"     -        [binary |a, b| a + b]              native infix "+"         infix "+";
        Sub   "-"     -        [binary |a, b| a - b]              native infix "-"         infix "-";
        Mul   "*"     -        [binary |a, b| a * b]              native infix "*"         infix "*";
        Div   "/"     -        [binary |a, b| a / b]              native infix "/"         infix "/";
        Pow   "^"     pow      [binary $crate::portable::pow]     call   call "dstar_pow"  portable "pow";
        Sin   "sin"   sin      [unary f64::sin]                   call   call "sin"        method "sin";
        Cos   "cos"   cos      [unary f64::cos]                   call   call "cos"        method "cos";
        Tan   "tan"   tan      [unary f64::tan]                   call   call "tan"        method "tan";
        Asin  "asin"  asin     [unary f64::asin]                  call   call "asin"       method "asin";
        Acos  "acos"  acos     [unary f64::acos]                  call   call "acos"       method "acos";
        Atan  "atan"  atan     [unary f64::atan]                  call   call "atan"       method "atan";
        Sinh  "sinh"  sinh     [unary f64::sinh]                  call   call "sinh"       method "sinh";
        Cosh  "cosh"  cosh     [unary f64::cosh]                  call   call "cosh"       method "cosh";
        Tanh  "tanh"  tanh     [unary f64::tanh]                  call   call "tanh"       method "tanh";
        Asinh "asinh" asinh    [unary $crate::portable::asinh]    call   call "asinh"      portable "asinh";
        Acosh "acosh" acosh    [unary $crate::portable::acosh]    call   call "acosh"      portable "acosh";
        Atanh "atanh" atanh    [unary $crate::portable::atanh]    call   call "atanh"      portable "atanh";
        Exp   "exp"   exp      [unary f64::exp]                   call   call "exp"        method "exp";
        Expm1 "expm1" expm1    [unary f64::exp_m1]                call   call "expm1"      method "exp_m1";
        Exp2  "exp2"  exp2     [unary f64::exp2]                  call   call "exp2"       method "exp2";
        Log   "log"   log      [unary f64::ln]                    call   call "log"        method "ln";
        Log1p "log1p" log1p    [unary f64::ln_1p]                 call   call "log1p"      method "ln_1p";
        Log2  "log2"  log2     [unary f64::log2]                  call   call "log2"       method "log2";
        Log10 "log10" log10    [unary f64::log10]                 call   call "log10"      method "log10";
        Sqrt  "sqrt"  sqrt     [unary f64::sqrt]                  native call "sqrt"       method "sqrt";
        Cbrt  "cbrt"  cbrt     [unary f64::cbrt]                  call   call "cbrt"       method "cbrt";
        Abs   "abs"   abs      [unary f64::abs]                   native call "fabs"       method "abs";
        Sign  "sign"  sign     [unary $crate::portable::sign]     native call "dstar_sign" portable "sign";
        Floor "floor" floor    [unary f64::floor]                 native call "floor"      method "floor";
        Ceil  "ceil"  ceil     [unary f64::ceil]                  native call "ceil"       method "ceil";
        Erf   "erf"   erf      [unary $crate::portable::erf]      call   call "erf"        portable "erf";
        Atan2 "atan2" atan2    [binary f64::atan2]                call   call "atan2"      method "atan2";
        Hypot "hypot" hypot    [binary f64::hypot]                call   call "hypot"      method "hypot";
        Min   "min"   min      [binary $crate::portable::minimum] native call "dstar_min"  portable "minimum";
        Max   "max"   max      [binary $crate::portable::maximum] native call "dstar_max"  portable "maximum";
    } };
}

/// How C spells an operation applied to its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CSpelling {
    /// `-a`
    Prefix(&'static str),
    /// `a + b`
    Infix(&'static str),
    /// `f(a)` or `f(a, b)`: a `<math.h>` function or a helper the emitter defines.
    Call(&'static str),
}

/// How Rust spells an operation applied to its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RustSpelling {
    /// `-a`
    Prefix(&'static str),
    /// `a + b`
    Infix(&'static str),
    /// `a.f()` or `a.f(b)`: an `f64` method.
    Method(&'static str),
    /// `f(a)` or `f(a, b)`: a function of [`portable`](crate::portable).
    Portable(&'static str),
}

/// `Some(name)` for a source-language function, `None` for `-` (an operator).
macro_rules! function_name {
    (-) => {
        None
    };
    ($name:ident) => {
        Some(stringify!($name))
    };
}

macro_rules! arity {
    (unary) => {
        1
    };
    (binary) => {
        2
    };
}

/// Calls a row's reference on `args`, as a function pointer of its arity.
macro_rules! apply {
    (unary $reference:expr, $args:ident) => {{
        let f: fn(f64) -> f64 = $reference;
        f($args[0])
    }};
    (binary $reference:expr, $args:ident) => {{
        let f: fn(f64, f64) -> f64 = $reference;
        f($args[0], $args[1])
    }};
}

macro_rules! libm_symbol {
    (native $function:tt) => {
        None
    };
    (call $function:ident) => {
        Some(concat!("dstar_", stringify!($function)))
    };
}

macro_rules! c_spelling {
    (prefix $s:literal) => {
        CSpelling::Prefix($s)
    };
    (infix $s:literal) => {
        CSpelling::Infix($s)
    };
    (call $s:literal) => {
        CSpelling::Call($s)
    };
}

macro_rules! rust_spelling {
    (prefix $s:literal) => {
        RustSpelling::Prefix($s)
    };
    (infix $s:literal) => {
        RustSpelling::Infix($s)
    };
    (method $s:literal) => {
        RustSpelling::Method($s)
    };
    (portable $s:literal) => {
        RustSpelling::Portable($s)
    };
}

/// Collects the rows whose `jit` column is `native` into [`Native`] and
/// [`Op::native`] (a muncher over `jit Variant` pairs).
macro_rules! native_ops {
    ([$($native:ident)*]) => {
        /// The operations the JIT computes with instructions: the table's
        /// `native` rows, derived from it. The back end matches them
        /// exhaustively, so a new `native` row does not compile until it is
        /// lowered; every other operation is a call of its reference.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Native {
            $(
                #[doc = concat!("[`Op::", stringify!($native), "`]")]
                $native,
            )*
        }

        impl Op {
            /// The operation as a [`Native`] one, if the JIT computes it with
            /// instructions (`None` for calls, leaves and `Select`).
            pub fn native(self) -> Option<Native> {
                match self {
                    $(Op::$native => Some(Native::$native),)*
                    _ => None,
                }
            }
        }
    };
    ([$($native:ident)*] native $variant:ident $($rest:tt)*) => {
        native_ops!([$($native)* $variant] $($rest)*);
    };
    ([$($native:ident)*] call $variant:ident $($rest:tt)*) => {
        native_ops!([$($native)*] $($rest)*);
    };
}

/// Generates [`Op`] and its table-derived methods from the rows.
macro_rules! define_ops {
    ($(
        $variant:ident $name:literal $function:tt [$arity:ident $reference:expr] $jit:ident
        $c:ident $c_name:literal $rust:ident $rust_name:literal;
    )*) => {
        /// An operation of the language. Leaves (`Const`, `Input`) have arity 0.
        ///
        /// `Select(cmp)` is `ifelse(a cmp b, x, y)` with arguments `[a, b, x, y]`: the
        /// comparison lives inside the operation, so a condition is never a value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Op {
            /// A constant.
            Const(Real),
            /// The `k`-th input of the function, counting from 0.
            Input(u32),
            /// A result of a call of a function ([`crate::call`]): its
            /// arguments are those of the call site, which the DAG holds
            /// ([`ExprDag::args`](crate::ExprDag::args)), and its value is
            /// the interpreter's or the JIT's to find, as an input's is.
            Call(CallOut),
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
            /// `ifelse(a cmp b, x, y)`.
            Select(Cmp),
        }

        native_ops!([] $($jit $variant)*);

        /// The rows in table order: `Row::X as usize` is `Op::X`'s index.
        #[derive(Clone, Copy)]
        enum Row {
            $($variant,)*
        }

        /// Number of rows in the table.
        const ROWS: usize = [$(Row::$variant),*].len();

        impl Op {
            /// Every operation that is not a leaf, in table order, then
            /// `Select` once per comparison.
            pub const ALL: [Op; ROWS + Cmp::ALL.len()] = {
                let rows = [$(Op::$variant),*];
                let mut all = [Op::Select(Cmp::Lt); ROWS + Cmp::ALL.len()];
                let mut i = 0;
                while i < ROWS {
                    all[i] = rows[i];
                    i += 1;
                }
                let mut k = 0;
                while k < Cmp::ALL.len() {
                    all[ROWS + k] = Op::Select(Cmp::ALL[k]);
                    k += 1;
                }
                all
            };

            /// The position of the operation in [`Op::ALL`], for arrays with
            /// one entry per operation; `None` for leaves.
            pub fn index(self) -> Option<usize> {
                match self {
                    Op::Const(_) | Op::Input(_) | Op::Call(_) => None,
                    $(Op::$variant => Some(Row::$variant as usize),)*
                    Op::Select(cmp) => Some(ROWS + cmp as usize),
                }
            }

            /// The name of a function-call operation (`"sin"`), or the operator for
            /// arithmetic (`"+"`); leaves are named `"const"` and `"input"`.
            pub fn name(self) -> &'static str {
                match self {
                    Op::Const(_) => "const",
                    Op::Input(_) => "input",
                    Op::Call(_) => "call",
                    $(Op::$variant => $name,)*
                    Op::Select(_) => "ifelse",
                }
            }

            /// The operation's name as a function of the source language
            /// (`"sin"`, `"pow"`); `None` for operators, leaves and `Select`
            /// (`ifelse`, whose first argument is a comparison).
            pub fn function_name(self) -> Option<&'static str> {
                match self {
                    $(Op::$variant => function_name!($function),)*
                    Op::Const(_) | Op::Input(_) | Op::Call(_) | Op::Select(_) => None,
                }
            }

            /// Number of arguments a [`Node`](crate::Node) holds itself: a
            /// call's are its site's ([`ExprDag::args`](crate::ExprDag::args)).
            pub fn arity(self) -> usize {
                match self {
                    Op::Const(_) | Op::Input(_) | Op::Call(_) => 0,
                    $(Op::$variant => arity!($arity),)*
                    Op::Select(_) => 4,
                }
            }

            /// The reference evaluation: IEEE double precision, the `f64` methods
            /// and [`portable`](crate::portable). `args` has exactly
            /// `self.arity()` values; a leaf `Input` and a `Call` read nothing
            /// and return NaN (inputs and results are looked up by the caller).
            pub fn eval(self, args: &[f64]) -> f64 {
                debug_assert_eq!(args.len(), self.arity(), "{self:?}");
                match self {
                    Op::Const(c) => c.get(),
                    Op::Input(_) | Op::Call(_) => f64::NAN,
                    $(Op::$variant => apply!($arity $reference, args),)*
                    Op::Select(cmp) => {
                        if cmp.holds(args[0], args[1]) {
                            args[2]
                        } else {
                            args[3]
                        }
                    }
                }
            }

            /// The symbol under which the JIT imports the operation's reference
            /// implementation (`"dstar_sin"`), or `None` if it computes the
            /// operation with instructions.
            pub fn libm_symbol(self) -> Option<&'static str> {
                match self {
                    $(Op::$variant => libm_symbol!($jit $function),)*
                    Op::Const(_) | Op::Input(_) | Op::Call(_) | Op::Select(_) => None,
                }
            }

            /// How C spells the operation; `None` for leaves and `Select`,
            /// which the emitter writes itself.
            pub fn c_spelling(self) -> Option<CSpelling> {
                match self {
                    $(Op::$variant => Some(c_spelling!($c $c_name)),)*
                    Op::Const(_) | Op::Input(_) | Op::Call(_) | Op::Select(_) => None,
                }
            }

            /// How Rust spells the operation; `None` for leaves and `Select`,
            /// which the emitter writes itself.
            pub fn rust_spelling(self) -> Option<RustSpelling> {
                match self {
                    $(Op::$variant => Some(rust_spelling!($rust $rust_name)),)*
                    Op::Const(_) | Op::Input(_) | Op::Call(_) | Op::Select(_) => None,
                }
            }

            /// The text of the row's reference implementation, for tests.
            #[cfg(test)]
            fn reference_text(self) -> Option<&'static str> {
                match self {
                    $(Op::$variant => Some(stringify!($reference)),)*
                    Op::Const(_) | Op::Input(_) | Op::Call(_) | Op::Select(_) => None,
                }
            }
        }
    };
}

for_each_op!(define_ops);

impl Op {
    /// The operation a source-language function name denotes (`pow` is
    /// [`Op::Pow`]). `ifelse` is not listed: its comparison makes it special.
    /// A lookup in a table built from [`Op::ALL`] once: the parser asks
    /// it of every name a program binds.
    pub fn from_function_name(name: &str) -> Option<Op> {
        static BY_NAME: OnceLock<FxHashMap<&'static str, Op>> = OnceLock::new();
        let table = BY_NAME
            .get_or_init(|| Op::ALL.into_iter().filter_map(|op| Some((op.function_name()?, op))).collect());
        table.get(name).copied()
    }

    /// Every function name of the source language, in table order, with
    /// `ifelse` last.
    pub fn function_names() -> impl Iterator<Item = &'static str> {
        Op::ALL.into_iter().filter_map(Op::function_name).chain(["ifelse"])
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_positions_in_all() {
        for (i, op) in Op::ALL.into_iter().enumerate() {
            assert_eq!(op.index(), Some(i), "{op:?}");
        }
        assert_eq!(Op::Input(3).index(), None);
    }

    #[test]
    fn function_names_map_back_to_their_ops() {
        let names: Vec<&str> = Op::function_names().collect();
        assert_eq!(names.last(), Some(&"ifelse"));
        for name in &names[..names.len() - 1] {
            let op = Op::from_function_name(name).expect("a table function");
            assert_eq!(op.name(), if op == Op::Pow { "^" } else { name });
        }
        assert_eq!(Op::from_function_name("ifelse"), None);
        assert_eq!(Op::from_function_name("+"), None);
    }

    /// The spellings name what the reference calls, so that emitted code
    /// computes what [`Op::eval`] does.
    #[test]
    fn spellings_agree_with_references() {
        for op in Op::ALL.into_iter().filter(|op| op.function_name().is_some()) {
            let reference = op.reference_text().expect("a row").replace(' ', "");
            match op.rust_spelling().expect("a row") {
                RustSpelling::Method(m) => assert_eq!(reference, format!("f64::{m}"), "{op:?}"),
                RustSpelling::Portable(f) => {
                    assert!(reference.ends_with(&format!("portable::{f}")), "{op:?}")
                }
                spelling => panic!("{op:?} is a function spelled {spelling:?}"),
            }
        }
    }

    #[test]
    fn real_canonicalizes_nan_only() {
        assert_eq!(Real::new(f64::NAN), Real::new(-f64::NAN));
        assert_ne!(Real::new(0.0), Real::new(-0.0));
    }
}
