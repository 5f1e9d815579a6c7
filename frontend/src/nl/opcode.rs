//! The operation codes of the `.nl` format (`o<code>` lines), numbered and
//! named as AMPL's `opcode.hd` does, and what each becomes in the DAG.

use crate::op::{Cmp, Op};

/// What an o-code becomes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    /// An operation of the table on one operand.
    Unary(Op),
    /// An operation of the table on two operands.
    Binary(Op),
    /// `x^2` (`OP2POW`).
    Square,
    /// `sumlist`: the sum of its operands, of which a count line tells the number.
    Sum,
    /// `min` of a list.
    MinList,
    /// `max` of a list.
    MaxList,
    /// `less(a, b)`: `a - b` if positive, else 0.
    Less,
    /// `a div b`: the quotient truncated toward zero.
    IntDiv,
    /// `if c then a else b`.
    If,
    /// A comparison, 1 if it holds, else 0.
    Compare(Cmp),
    /// `a and b`, `a or b`, and their list forms.
    And { list: bool },
    /// `a or b`, or `exists` of a list.
    Or { list: bool },
    /// `not a`.
    Not,
    /// `c ==> a else b` (logical).
    Implies,
    /// `a <==> b`.
    Iff,
    /// An operation dstar does not compute.
    Unsupported,
}

impl Kind {
    /// The number of operands, or `None` when a count line gives it.
    pub fn arity(self) -> Option<usize> {
        match self {
            Kind::Unary(_) | Kind::Square | Kind::Not => Some(1),
            Kind::Binary(_) | Kind::Less | Kind::IntDiv | Kind::Compare(_) | Kind::Iff => Some(2),
            Kind::And { list } | Kind::Or { list } => (!list).then_some(2),
            Kind::If | Kind::Implies => Some(3),
            Kind::Sum | Kind::MinList | Kind::MaxList => None,
            Kind::Unsupported => Some(0),
        }
    }
}

/// The name (`opcode.hd`'s meaning) and kind of o-code `code`, if the
/// format defines it.
pub(super) fn opcode(code: u64) -> Option<(&'static str, Kind)> {
    use Kind::*;
    let no = Unsupported;
    Some(match code {
        0 => ("plus", Binary(Op::Add)),
        1 => ("minus", Binary(Op::Sub)),
        2 => ("mult", Binary(Op::Mul)),
        3 => ("div", Binary(Op::Div)),
        4 => ("rem", no),
        5 => ("pow", Binary(Op::Pow)),
        6 => ("less", Less),
        11 => ("min", MinList),
        12 => ("max", MaxList),
        13 => ("floor", Unary(Op::Floor)),
        14 => ("ceil", Unary(Op::Ceil)),
        15 => ("abs", Unary(Op::Abs)),
        16 => ("neg", Unary(Op::Neg)),
        20 => ("or", Or { list: false }),
        21 => ("and", And { list: false }),
        22 => ("lt", Compare(Cmp::Lt)),
        23 => ("le", Compare(Cmp::Le)),
        24 => ("eq", Compare(Cmp::Eq)),
        28 => ("ge", Compare(Cmp::Ge)),
        29 => ("gt", Compare(Cmp::Gt)),
        30 => ("ne", Compare(Cmp::Ne)),
        34 => ("not", Not),
        35 => ("if", If),
        37 => ("tanh", Unary(Op::Tanh)),
        38 => ("tan", Unary(Op::Tan)),
        39 => ("sqrt", Unary(Op::Sqrt)),
        40 => ("sinh", Unary(Op::Sinh)),
        41 => ("sin", Unary(Op::Sin)),
        42 => ("log10", Unary(Op::Log10)),
        43 => ("log", Unary(Op::Log)),
        44 => ("exp", Unary(Op::Exp)),
        45 => ("cosh", Unary(Op::Cosh)),
        46 => ("cos", Unary(Op::Cos)),
        47 => ("atanh", Unary(Op::Atanh)),
        48 => ("atan2", Binary(Op::Atan2)),
        49 => ("atan", Unary(Op::Atan)),
        50 => ("asinh", Unary(Op::Asinh)),
        51 => ("asin", Unary(Op::Asin)),
        52 => ("acosh", Unary(Op::Acosh)),
        53 => ("acos", Unary(Op::Acos)),
        54 => ("sumlist", Sum),
        55 => ("intdiv", IntDiv),
        56 => ("precision", no),
        57 => ("round", no),
        58 => ("trunc", no),
        59 => ("count", no),
        60 => ("numberof", no),
        61 => ("numberofs", no),
        62 => ("atleast", no),
        63 => ("atmost", no),
        64 => ("plterm", no),
        65 => ("ifsym", no),
        66 => ("exactly", no),
        67 => ("not atleast", no),
        68 => ("not atmost", no),
        69 => ("not exactly", no),
        70 => ("forall", And { list: true }),
        71 => ("exists", Or { list: true }),
        72 => ("implies", Implies),
        73 => ("iff", Iff),
        74 => ("alldiff", no),
        75 => ("somesame", no),
        76 => ("pow", Binary(Op::Pow)),
        77 => ("pow2", Square),
        78 => ("cpow", Binary(Op::Pow)),
        79 => ("funcall", no),
        80 => ("number", no),
        81 => ("string", no),
        82 => ("varval", no),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_opcode_hd() {
        assert_eq!(opcode(54), Some(("sumlist", Kind::Sum)));
        assert_eq!(opcode(74).map(|o| o.0), Some("alldiff"));
        assert_eq!(opcode(76), Some(("pow", Kind::Binary(Op::Pow))));
        assert_eq!(opcode(7), None);
        assert_eq!(opcode(83), None);
        let defined = (0..=82).filter(|&c| opcode(c).is_some()).count();
        assert_eq!(defined, 69, "opcode.hd defines 69 codes below N_OPS = 83");
    }
}
