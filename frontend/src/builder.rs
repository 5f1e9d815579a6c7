//! Building a [`Program`] in Rust: a [`Builder`] holds the DAG, and hands
//! out [`Expr`] handles (`Copy`) that combine with `+ - * /`, unary `-`,
//! numbers on either side, and one method per function of the table of
//! operations (`x.sin()`, `x.pow(y)`, `x.atan2(y)`, generated from it).
//!
//! ```
//! use frontend::Builder;
//! let b = Builder::new();
//! let (x, y) = (b.input("x"), b.input("y"));
//! let g = b.param("g");
//! let t = x * y;
//! let program = b.finish(&[("f", t.sin() + x.powi(2) * g), ("h", 2.0 / (t + 1.0))])?;
//! assert_eq!((program.inputs.len(), program.params.len()), (2, 1));
//! let text = frontend::print_program(&program);
//! assert!(frontend::parse_program(&text)?.same_as(&program));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::dag::{ExprDag, NodeId};
use crate::op::{Cmp, Op};
use crate::program::{Output, Program};
use std::cell::RefCell;

/// Where parameters are numbered while a program is built (or parsed): far
/// above any input, so inputs declared after a parameter keep their
/// numbers; [`renumber`] puts them after the inputs.
pub(crate) const PARAM_BASE: u32 = 1 << 31;

/// The DAG with parameter `j` (`Op::Input(PARAM_BASE + j)`) as input
/// `n + j`, every node keeping its id; the same DAG without parameters.
pub(crate) fn renumber(dag: ExprDag, n: usize, params: usize) -> ExprDag {
    if params == 0 {
        return dag;
    }
    let n = n as u32;
    dag.renumber_inputs(|k| if k >= PARAM_BASE { n + (k - PARAM_BASE) } else { k })
}

/// A program being built: its DAG, inputs and parameters. Expressions
/// borrow it; [`finish`](Builder::finish) turns it into a [`Program`].
#[derive(Debug, Default)]
pub struct Builder {
    dag: RefCell<ExprDag>,
    inputs: RefCell<Vec<String>>,
    params: RefCell<Vec<String>>,
}

/// An expression of a [`Builder`]: a node of its DAG.
#[derive(Clone, Copy, Debug)]
pub struct Expr<'b> {
    node: NodeId,
    builder: &'b Builder,
}

/// Why a built program was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BuildError(String);

impl Builder {
    /// An empty program.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Declares the next input, `name`.
    pub fn input(&self, name: &str) -> Expr<'_> {
        let k = {
            let mut inputs = self.inputs.borrow_mut();
            inputs.push(name.to_string());
            inputs.len() - 1
        };
        self.expr(self.dag.borrow_mut().input(k))
    }

    /// Declares the next parameter, `name`: data given with each evaluation,
    /// never differentiated.
    pub fn param(&self, name: &str) -> Expr<'_> {
        let j = {
            let mut params = self.params.borrow_mut();
            params.push(name.to_string());
            params.len() - 1
        };
        self.expr(self.dag.borrow_mut().input(PARAM_BASE as usize + j))
    }

    /// The constant `c`.
    pub fn constant(&self, c: f64) -> Expr<'_> {
        self.expr(self.dag.borrow_mut().constant(c))
    }

    /// `ifelse(a cmp b, then, otherwise)`.
    pub fn ifelse<'b>(
        &'b self,
        a: Expr<'b>,
        cmp: Cmp,
        b: Expr<'b>,
        then: Expr<'b>,
        otherwise: Expr<'b>,
    ) -> Expr<'b> {
        self.apply(Op::Select(cmp), &[a.node, b.node, then.node, otherwise.node])
    }

    /// `op` applied to `args`, folding constants and exact identities as
    /// the parser does.
    pub fn apply(&self, op: Op, args: &[NodeId]) -> Expr<'_> {
        self.expr(self.dag.borrow_mut().apply(op, args))
    }

    fn expr(&self, node: NodeId) -> Expr<'_> {
        Expr { node, builder: self }
    }

    /// The program computing `outputs` (named, in order) from the inputs
    /// and parameters declared; the builder is empty afterwards.
    ///
    /// # Errors
    /// A name that is not an identifier or is reserved, or that names two
    /// inputs, parameters or outputs; no input; no output.
    pub fn finish(&self, outputs: &[(&str, Expr<'_>)]) -> Result<Program, BuildError> {
        let inputs = self.inputs.take();
        let params = self.params.take();
        let mut names = std::collections::HashSet::new();
        let all = inputs.iter().map(String::as_str).chain(params.iter().map(String::as_str));
        for name in all.chain(outputs.iter().map(|(name, _)| *name)) {
            if let Some(wrong) = crate::name::check_name(name) {
                return Err(BuildError(wrong.message(name, "an input, a parameter or an output")));
            }
            if !names.insert(name) {
                return Err(BuildError(format!("'{name}' names two things")));
            }
        }
        if inputs.is_empty() {
            return Err(BuildError("the program has no inputs".into()));
        }
        if outputs.is_empty() {
            return Err(BuildError("the program has no outputs".into()));
        }
        let outputs =
            outputs.iter().map(|(name, e)| Output { name: name.to_string(), node: e.node }).collect();
        let dag = renumber(self.dag.take(), inputs.len(), params.len());
        Ok(Program::new(dag, inputs, outputs).with_params(params, None))
    }
}

impl<'b> Expr<'b> {
    /// The node of the builder's DAG.
    pub fn node(self) -> NodeId {
        self.node
    }

    fn apply(self, op: Op, args: &[NodeId]) -> Expr<'b> {
        self.builder.apply(op, args)
    }

    fn unary(self, op: Op) -> Expr<'b> {
        self.apply(op, &[self.node])
    }

    fn binary(self, op: Op, other: impl Into<Operand<'b>>) -> Expr<'b> {
        let other = other.into().node(self.builder);
        self.apply(op, &[self.node, other])
    }

    /// `self^k` for a whole `k`.
    pub fn powi(self, k: i32) -> Expr<'b> {
        self.binary(Op::Pow, f64::from(k))
    }

    /// `self^c` for a number `c`.
    pub fn powf(self, c: f64) -> Expr<'b> {
        self.binary(Op::Pow, c)
    }
}

/// An operand of a binary operation: an expression or a number.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'b> {
    /// An expression.
    Expr(Expr<'b>),
    /// A number.
    Number(f64),
}

impl Operand<'_> {
    fn node(self, builder: &Builder) -> NodeId {
        match self {
            Operand::Expr(e) => e.node,
            Operand::Number(c) => builder.dag.borrow_mut().constant(c),
        }
    }
}

impl<'b> From<Expr<'b>> for Operand<'b> {
    fn from(e: Expr<'b>) -> Operand<'b> {
        Operand::Expr(e)
    }
}

impl From<f64> for Operand<'_> {
    fn from(c: f64) -> Self {
        Operand::Number(c)
    }
}

/// `+ - * /` between expressions and numbers, either side.
macro_rules! arithmetic {
    ($($trait:ident $method:ident $op:ident;)*) => {$(
        impl<'b, R: Into<Operand<'b>>> std::ops::$trait<R> for Expr<'b> {
            type Output = Expr<'b>;
            fn $method(self, other: R) -> Expr<'b> {
                self.binary(Op::$op, other)
            }
        }

        impl<'b> std::ops::$trait<Expr<'b>> for f64 {
            type Output = Expr<'b>;
            fn $method(self, other: Expr<'b>) -> Expr<'b> {
                let c = other.builder.constant(self);
                c.binary(Op::$op, other)
            }
        }
    )*};
}

arithmetic! {
    Add add Add;
    Sub sub Sub;
    Mul mul Mul;
    Div div Div;
}

impl<'b> std::ops::Neg for Expr<'b> {
    type Output = Expr<'b>;
    fn neg(self) -> Expr<'b> {
        self.unary(Op::Neg)
    }
}

/// One method per function of the table of operations.
macro_rules! function_method {
    (-, $variant:ident $arity:ident) => {};
    ($function:ident, $variant:ident unary) => {
        #[doc = concat!("`", stringify!($function), "(self)`.")]
        pub fn $function(self) -> Expr<'b> {
            self.unary(Op::$variant)
        }
    };
    ($function:ident, $variant:ident binary) => {
        #[doc = concat!("`", stringify!($function), "(self, other)`.")]
        pub fn $function(self, other: impl Into<Operand<'b>>) -> Expr<'b> {
            self.binary(Op::$variant, other)
        }
    };
}

macro_rules! define_methods {
    ($(
        $variant:ident $name:literal $function:tt [$arity:ident $reference:expr] $jit:ident
        $c:ident $c_name:literal $rust:ident $rust_name:literal;
    )*) => {
        impl<'b> Expr<'b> {
            $(function_method!($function, $variant $arity);)*
        }
    };
}

crate::for_each_op!(define_methods);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_programs_are_the_parsed_ones() {
        let b = Builder::new();
        let p = b.param("p");
        let (x, y) = (b.input("x"), b.input("y"));
        let f = (x * y).sin() + x.pow(2.0) - 3.0 / y + p.hypot(x).max(y) - (-x).exp();
        let g = b.ifelse(x, Cmp::Lt, y, x.atan2(2.0), y.powi(3));
        let built = b.finish(&[("f", f), ("g", g)]).unwrap();
        let parsed = crate::parse_program(
            "param p\nin x, y\nout f = sin(x*y) + x^2 - 3/y + max(hypot(p, x), y) - exp(-x)\n\
             out g = ifelse(x < y, atan2(x, 2), y^3)",
        )
        .unwrap();
        assert!(built.same_as(&parsed), "{}", crate::print_program(&built));
        let kernel = built.kernel().unwrap();
        assert_eq!((kernel.num_inputs(), kernel.num_variables()), (3, 2));
    }

    #[test]
    fn bad_names_are_errors() {
        let b = Builder::new();
        let x = b.input("x");
        assert!(b.finish(&[("x", x)]).unwrap_err().to_string().contains("names two things"));
        let b = Builder::new();
        let x = b.input("sin");
        assert!(b.finish(&[("y", x)]).unwrap_err().to_string().contains("a function"));
        let b = Builder::new();
        let x = b.input("a b");
        assert!(b.finish(&[("y", x)]).is_err());
        let b = Builder::new();
        let c = b.constant(1.0);
        assert!(b.finish(&[("y", c)]).unwrap_err().to_string().contains("no inputs"));
    }
}
