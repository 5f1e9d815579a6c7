//! The ten header lines of an `.nl` file, text in either variant: `g`
//! (text) or `b` (binary) and the options, then the counts (variables,
//! constraints, objectives, ..., common expressions).

use super::error::NlError;
use super::lines::Lines;
use crate::error::ParseError;

/// Which variant of the format a file is in: the first line's letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `g`: text, an item a line.
    Text,
    /// `b`: binary, integers of 4 bytes and reals of 8 in the byte order
    /// the header's `arith` count gives (1: little-endian IEEE, 2:
    /// big-endian IEEE, 0: unstated, this machine's, as the ASL reads it).
    Binary {
        /// Whether the numbers are big-endian.
        big_endian: bool,
    },
}

/// The counts of the header that the reader uses, and the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Text or binary.
    pub format: Format,
    /// Variables (`n_var`).
    pub vars: usize,
    /// Algebraic constraints (`n_con`).
    pub constraints: usize,
    /// Objectives (`n_obj`).
    pub objectives: usize,
    /// Logical constraints (`n_lcon`, the optional sixth count of line 2).
    pub logical: usize,
    /// Nonlinear constraints (`nlc`).
    pub nonlinear_constraints: usize,
    /// Nonlinear objectives (`nlo`).
    pub nonlinear_objectives: usize,
    /// Defined variables (common expressions): the sum of line 10's five counts.
    pub defined: usize,
}

/// What each header line after the first holds, and how many of its
/// numbers must be there.
const LINES: [(&str, usize); 9] = [
    ("the counts of variables, constraints, objectives, ranges and equalities", 3),
    ("the counts of nonlinear constraints and objectives", 2),
    ("the counts of network constraints", 1),
    ("the counts of nonlinear variables", 1),
    ("the counts of linear network variables, functions, arith and flags", 1),
    ("the counts of discrete variables", 1),
    ("the counts of nonzeros in the Jacobian and gradients", 1),
    ("the maximum name lengths", 1),
    ("the counts of common expressions", 5),
];

/// Reads the header of a file of `bytes` bytes. A count is refused when
/// the file is too small to describe that many things, so no count can
/// make the reader allocate more than the file's size.
pub(super) fn read_header(lines: &mut Lines<'_>, bytes: usize) -> Result<Header, ParseError> {
    let first = lines.expect("the header line 'g...'")?;
    let binary = match first.text.as_bytes().first() {
        Some(b'g') => false,
        Some(b'b') => true,
        _ => return Err(first.error(NlError::NotNl)),
    };
    let mut counts = Vec::with_capacity(LINES.len());
    for (what, required) in LINES {
        let line = lines.expect(what)?;
        let mut fields = line.fields(0);
        let mut numbers = Vec::new();
        for _ in 0..required {
            numbers.push(fields.int(what)?);
        }
        while let Ok(n) = fields.int(what) {
            numbers.push(n);
        }
        counts.push((line, numbers));
    }
    let count = |line: usize, i: usize| counts[line].1.get(i).copied().unwrap_or(0);
    let checked = |line: usize, i: usize, what: &'static str| -> Result<usize, ParseError> {
        let n = count(line, i);
        // Every such thing takes a line of the file at least.
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= bytes && n < u32::MAX as usize / 4)
            .ok_or_else(|| counts[line].0.error(NlError::TooLarge { what, count: n, bytes }))
    };
    let defined: u64 = (0..5).map(|i| count(8, i)).fold(0, u64::saturating_add);
    let too_large = |what| counts[8].0.error(NlError::TooLarge { what, count: defined, bytes });
    let defined = usize::try_from(defined)
        .ok()
        .filter(|&n| n <= bytes)
        .ok_or_else(|| too_large("common expressions"))?;
    let format = match (binary, count(4, 2)) {
        (false, _) => Format::Text,
        (true, 0) => Format::Binary { big_endian: cfg!(target_endian = "big") },
        (true, 1) => Format::Binary { big_endian: false },
        (true, 2) => Format::Binary { big_endian: true },
        (true, arith) => return Err(counts[4].0.error(NlError::Arithmetic { arith })),
    };
    Ok(Header {
        format,
        vars: checked(0, 0, "variables")?,
        constraints: checked(0, 1, "constraints")?,
        objectives: checked(0, 2, "objectives")?,
        logical: checked(0, 5, "logical constraints")?,
        nonlinear_constraints: checked(1, 0, "nonlinear constraints")?,
        nonlinear_objectives: checked(1, 1, "nonlinear objectives")?,
        defined,
    })
}
