//! What can be wrong in a `.nl` file, beyond a malformed number or a token
//! where another was expected (which are [`ParseErrorKind`](crate::ParseErrorKind)s of their own).

/// An error particular to the `.nl` format; it is a
/// [`ParseErrorKind::Nl`](crate::ParseErrorKind::Nl), with the line it is
/// on (the byte offset in a binary file).
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NlError {
    /// A binary file whose numbers are not IEEE reals in either byte order
    /// (the header's `arith` count is not 0, 1 or 2).
    #[error("binary .nl file of arithmetic kind {arith}: only IEEE numbers (1: little-endian, 2: big-endian) are read")]
    Arithmetic {
        /// The header's `arith` count.
        arith: u64,
    },
    /// The first line does not start with `g` or `b`.
    #[error("not an .nl file: the first line must start with 'g' (text format) or 'b' (binary)")]
    NotNl,
    /// The file ends inside the header or a segment.
    #[error("the file ends where {expected} was expected")]
    Truncated {
        /// What was expected.
        expected: &'static str,
    },
    /// A line that starts no segment.
    #[error("expected a segment (a line starting with one of F S V C L O d x r b k J G), found {found}")]
    UnknownSegment {
        /// The line's first characters, quoted (in binary, the key byte).
        found: String,
    },
    /// An operation code of the format that dstar has no operation for.
    #[error("o-code o{code} ({name}) is not supported")]
    UnsupportedOpcode {
        /// The code.
        code: u32,
        /// Its meaning, as AMPL's `opcode.hd` names it.
        name: &'static str,
    },
    /// A number after `o` that is no operation code of the format.
    #[error("unknown o-code o{code}")]
    UnknownOpcode {
        /// The code.
        code: u64,
    },
    /// A construct of the format that the reader rejects.
    #[error("{what} are not supported")]
    Unsupported {
        /// What it is, in the plural ("imported functions (F segments)").
        what: &'static str,
    },
    /// An index past the count the header declares.
    #[error("{what} {index} is out of range: the header declares {count}")]
    OutOfRange {
        /// "variable", "constraint", "objective", "defined variable".
        what: &'static str,
        /// The index found.
        index: u64,
        /// How many there are.
        count: usize,
    },
    /// A defined variable used before its `V` segment.
    #[error("defined variable v{index} is used before its V segment")]
    UsedBeforeDefined {
        /// Its index in the expression numbering (at least the number of variables).
        index: usize,
    },
    /// A second segment for the same constraint, objective or defined variable.
    #[error("a second {segment} segment for {what} {index}")]
    Duplicate {
        /// The segment letter.
        segment: char,
        /// "constraint", "objective", "defined variable".
        what: &'static str,
        /// Its index.
        index: usize,
    },
    /// A bound or range type outside 0..=5 (0..=4 for variables).
    #[error("bound type {code} is not one of {allowed}")]
    BadBoundType {
        /// The type found.
        code: u64,
        /// The types allowed here.
        allowed: &'static str,
    },
    /// Counts in the header that no file of this size can hold.
    #[error("the header declares {count} {what}, more than a file of {bytes} bytes can describe")]
    TooLarge {
        /// What is counted.
        what: &'static str,
        /// The count.
        count: u64,
        /// The file's size.
        bytes: usize,
    },
    /// An n-ary operation with no operands.
    #[error("o{code} ({name}) has no operands")]
    NoOperands {
        /// The code.
        code: u32,
        /// Its meaning.
        name: &'static str,
    },
    /// A model without variables.
    #[error("the model has no variables")]
    NoVariables,
    /// A model without objectives and constraints.
    #[error("the model has neither an objective nor a constraint")]
    NoOutputs,
}
