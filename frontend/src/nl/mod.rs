//! Reads AMPL `.nl` files, text (header `g`) or binary (header `b`), as
//! Pyomo, AMPL and JuMP write them for a solver, into a [`Program`] and the
//! solver data beside it ([`NlModel`]). One segment parser reads both, from
//! tokens (`nl/tokens.rs`) of either variant. The format is D. M. Gay's "Writing .nl Files"
//! (Sandia report SAND2005-7907P); the repository's `docs/nl.md` says what
//! is read and how it maps.
//!
//! ```
//! let text = "g3 1 1 0\n 1 1 1 0 0\n 1 1\n 0 0\n 1 1 1\n 0 0 0 1\n 0 0 0 0 0\n 1 1\n 0 0\n 0 0 0 0 0\n\
//!             C0\no5\nv0\nn2\nO0 0\no41\nv0\nx1\n0 0.5\nr\n1 4\nb\n3\nJ0 1\n0 0\nG0 1\n0 2\n";
//! let model = frontend::nl::parse_nl(text, &frontend::nl::NlNames::default())?;
//! assert_eq!(model.program.output_names(), ["obj", "c0"]);
//! let y = frontend::eval_program(&model.program, &[0.5]);
//! assert_eq!(y, [0.5f64.sin() + 2.0 * 0.5, 0.25]);
//! # Ok::<(), frontend::ParseError>(())
//! ```

mod binary;
mod error;
mod expr;
mod header;
mod lines;
mod names;
mod opcode;
mod segments;
mod tokens;

pub use error::NlError;
pub use header::{Format, Header};
pub use names::NlNames;

use crate::error::ParseError;
use crate::program::{Output, Program};
use binary::BinaryTokens;
use lines::{LineTokens, Lines};
use tokens::Tokens;

/// A bound on a variable (`b` segment) or a range of a constraint's body
/// (`r` segment), by the format's type codes 0 to 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// Type 0: `lower <= body <= upper`.
    Range {
        /// The lower bound.
        lower: f64,
        /// The upper bound.
        upper: f64,
    },
    /// Type 1: `body <= upper`.
    Upper(f64),
    /// Type 2: `body >= lower`.
    Lower(f64),
    /// Type 3: no bound.
    Free,
    /// Type 4: `body == value`.
    Equal(f64),
    /// Type 5 (constraints only): the body is complementary to variable
    /// `var` (counted from 0; the file counts from 1); `flags` tell which
    /// of its bounds are infinite.
    Complement {
        /// The format's `k`: 1 for an infinite upper bound, 2 for an infinite lower one.
        flags: u32,
        /// The complemented variable.
        var: usize,
    },
}

impl Bound {
    /// The format's type code, 0 to 5.
    pub fn code(self) -> u8 {
        match self {
            Bound::Range { .. } => 0,
            Bound::Upper(_) => 1,
            Bound::Lower(_) => 2,
            Bound::Free => 3,
            Bound::Equal(_) => 4,
            Bound::Complement { .. } => 5,
        }
    }

    /// The lower bound: `-inf` where there is none (and for a complementarity).
    pub fn lower(self) -> f64 {
        match self {
            Bound::Range { lower, .. } | Bound::Lower(lower) | Bound::Equal(lower) => lower,
            _ => f64::NEG_INFINITY,
        }
    }

    /// The upper bound: `inf` where there is none (and for a complementarity).
    pub fn upper(self) -> f64 {
        match self {
            Bound::Range { upper, .. } | Bound::Upper(upper) | Bound::Equal(upper) => upper,
            _ => f64::INFINITY,
        }
    }
}

/// Whether an objective is minimized or maximized (the `O` segment's
/// second number, 0 or 1). It does not change the objective's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    /// 0: minimize.
    Minimize,
    /// 1: maximize.
    Maximize,
}

/// The objective that is the program's first output.
#[derive(Clone, Debug, PartialEq)]
pub struct Objective {
    /// Its name as the `.row` file gives it (or `obj`).
    pub name: String,
    /// Minimized or maximized.
    pub sense: Sense,
}

/// A `.nl` model: the [`Program`] computing the objective (if any) then
/// each constraint's body, from the variables in `.nl` order, with the
/// initial point as its point; and what a solver needs beside it.
#[derive(Clone, Debug)]
pub struct NlModel {
    /// Inputs: the variables; outputs: the first objective, then the
    /// constraints' bodies. Names are those of [`NlModel::var_names`] and
    /// [`NlModel::constraint_names`] made identifiers (`x[1]` is `x_1`).
    pub program: Program,
    /// The header's counts.
    pub header: Header,
    /// The variables' names as given (`.col`), else `x0, x1, ...`.
    pub var_names: Vec<String>,
    /// The constraints' names as given (`.row`), else `c0, c1, ...`.
    pub constraint_names: Vec<String>,
    /// The first objective, if the model has one (later ones are read and
    /// checked, not computed).
    pub objective: Option<Objective>,
    /// Per variable, its bounds (`b`).
    pub var_bounds: Vec<Bound>,
    /// Per constraint, the range of its body (`r`).
    pub constraint_bounds: Vec<Bound>,
    /// Per constraint, its initial dual value (`d`; 0 where not given).
    pub duals: Vec<f64>,
}

impl NlModel {
    /// The program with the objective as output 1, as a solver wants it:
    /// [`NlModel::program`] itself when the model has an objective, else
    /// the same program with a constant 0 named `obj` before the constraints.
    pub fn program_with_objective(&self) -> Program {
        if self.objective.is_some() {
            return self.program.clone();
        }
        let program = &self.program;
        let taken: std::collections::HashSet<&str> = program
            .inputs
            .iter()
            .chain(program.outputs.iter().map(|o| &o.name))
            .map(String::as_str)
            .collect();
        let name = std::iter::once("obj".to_string())
            .chain((2..).map(|k| format!("obj_{k}")))
            .find(|name| !taken.contains(name.as_str()))
            .expect("an unbounded list of names has a free one");
        let mut program = program.clone();
        let zero = std::sync::Arc::make_mut(&mut program.dag).constant(0.0);
        program.outputs.insert(0, Output { name, node: zero });
        program
    }
}

/// Reads an `.nl` file, text or binary (the bytes of a text file are
/// UTF-8), naming variables and constraints from `names` (the `.col` and
/// `.row` files, when there are some).
///
/// # Errors
/// A [`ParseError`] at the line at fault (at the byte, in the segments of
/// a binary file): a malformed or truncated file, an index out of range,
/// or a construct dstar does not compute (imported functions, logical
/// constraints, o-codes without an operation of dstar's, such as `o74`
/// (alldiff)).
pub fn parse_nl(source: &(impl AsRef<[u8]> + ?Sized), names: &NlNames) -> Result<NlModel, ParseError> {
    let bytes = source.as_ref();
    if bytes.first() == Some(&b'b') {
        let head = binary::header_bytes(bytes);
        let mut lines = Lines::new(crate::source::decode(head)?);
        let header = read_header(&mut lines, bytes.len())?;
        let big_endian = matches!(header.format, Format::Binary { big_endian: true });
        return read_model(BinaryTokens::new(bytes, head.len(), big_endian), header, names);
    }
    let mut lines = Lines::new(crate::source::decode(bytes)?);
    let header = read_header(&mut lines, bytes.len())?;
    read_model(LineTokens::new(lines), header, names)
}

/// The header, checked for variables and outputs.
fn read_header(lines: &mut Lines<'_>, bytes: usize) -> Result<Header, ParseError> {
    let header = header::read_header(lines, bytes)?;
    if header.vars == 0 {
        return Err(lines.end_error_kind(NlError::NoVariables));
    }
    if header.objectives + header.constraints == 0 {
        return Err(lines.end_error_kind(NlError::NoOutputs));
    }
    Ok(header)
}

/// The model whose segments `tokens` hold.
fn read_model(mut tokens: impl Tokens, header: Header, names: &NlNames) -> Result<NlModel, ParseError> {
    let mut s = segments::read_segments(&mut tokens, &header)?;
    let var_names = names.vars(header.vars);
    let (constraint_names, objective_name) = names.rows(header.constraints, header.objectives);
    let mut outputs = Vec::with_capacity(header.constraints + 1);
    if let Some(body) = s.objectives.first() {
        outputs.push(body.node(&mut s.dag));
    }
    for body in &s.constraints {
        outputs.push(body.node(&mut s.dag));
    }
    let out_names = objective_name.iter().chain(&constraint_names);
    let (inputs, out_names) = names::identifiers(&var_names, out_names);
    let outputs = out_names.into_iter().zip(outputs).map(|(name, node)| Output { name, node }).collect();
    let mut program = Program::new(s.dag, inputs, outputs);
    program.point = Some(s.primal);
    Ok(NlModel {
        program,
        header,
        var_names,
        constraint_names,
        objective: objective_name.map(|name| Objective { name, sense: s.senses[0] }),
        var_bounds: s.var_bounds,
        constraint_bounds: s.constraint_bounds,
        duals: s.duals,
    })
}

/// Whether `text` starts as a `.nl` file does: `g` or `b`, digits, then a
/// blank or the end of the line (`g3 1 1 0`). No problem-format file starts
/// so: its first statement is `in`, `param`, a function or a comment.
pub fn looks_like_nl(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix(['g', 'b']) else {
        return false;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && rest[digits..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '#' | '\n' | '\r'))
}
