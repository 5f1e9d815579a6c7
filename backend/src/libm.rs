//! The elementary functions a kernel calls instead of inlining: one
//! `extern "C"` wrapper per `call` row of the table of operations,
//! registered with the JIT under the row's `dstar_*` symbol. Each wrapper
//! calls the row's reference, exactly what [`Op::eval`] calls (a `std`
//! method, or a function of [`frontend::portable`]), so JIT and interpreter
//! agree bit for bit.

use frontend::Op;

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

/// A function the JIT imports rather than computing inline: an operation
/// whose row in the table ([`frontend::for_each_op!`]) says `call`.
#[derive(Clone, Copy)]
pub(crate) struct Libm {
    /// The operation.
    pub op: Op,
    /// The symbol calls resolve by, `dstar_*` so that it can never bind to a
    /// differently behaving system function.
    pub symbol: &'static str,
    /// The wrapper the symbol resolves to.
    pub function: LibmFn,
}

impl Libm {
    /// Every imported function, in table order.
    pub(crate) fn all() -> impl Iterator<Item = Libm> {
        let import = |op: Op| Some(Libm { op, symbol: op.libm_symbol()?, function: wrapper(op)? });
        Op::ALL.into_iter().filter_map(import)
    }

    /// The operation's index in [`Op::ALL`], by which lowering finds its declaration.
    pub(crate) fn index(self) -> usize {
        self.op.index().expect("a leaf is never imported")
    }
}

/// One `extern "C"` wrapper per `call` row, calling the row's reference:
/// the function [`Op::eval`] calls, so JIT and interpreter agree bit for bit.
macro_rules! wrapper {
    (native $arity:ident $reference:expr) => {
        None
    };
    (call unary $reference:expr) => {{
        extern "C" fn wrapper(x: f64) -> f64 {
            let f: fn(f64) -> f64 = $reference;
            f(x)
        }
        Some(LibmFn::Unary(wrapper))
    }};
    (call binary $reference:expr) => {{
        extern "C" fn wrapper(x: f64, y: f64) -> f64 {
            let f: fn(f64, f64) -> f64 = $reference;
            f(x, y)
        }
        Some(LibmFn::Binary(wrapper))
    }};
}

macro_rules! define_wrappers {
    ($(
        $variant:ident $name:literal $function:tt [$arity:ident $reference:expr] $jit:ident
        $c:ident $c_name:literal $rust:ident $rust_name:literal;
    )*) => {
        /// The wrapper of `op`'s reference, if the JIT imports it.
        fn wrapper(op: Op) -> Option<LibmFn> {
            match op {
                $(Op::$variant => wrapper!($jit $arity $reference),)*
                Op::Const(_) | Op::Input(_) | Op::Call(_) | Op::Select(_) => None,
            }
        }
    };
}

frontend::for_each_op!(define_wrappers);

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
        for f in Libm::all() {
            let op = f.op;
            assert_eq!(f.function.arity(), op.arity(), "{op:?}");
            for a in SAMPLES {
                for b in SAMPLES {
                    let (got, args) = match f.function {
                        LibmFn::Unary(g) => (g(a), vec![a]),
                        LibmFn::Binary(g) => (g(a, b), vec![a, b]),
                    };
                    let want = op.eval(&args);
                    assert!(same(got, want), "{op:?}{args:?}: {got} != {want}");
                }
            }
        }
    }

    #[test]
    fn every_call_row_is_imported_under_a_distinct_symbol() {
        let imported: Vec<Op> = Libm::all().map(|f| f.op).collect();
        let calls: Vec<Op> = Op::ALL.into_iter().filter(|op| op.libm_symbol().is_some()).collect();
        assert_eq!(imported, calls);
        let mut names: Vec<_> = Libm::all().map(|f| f.symbol).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), calls.len());
    }
}
