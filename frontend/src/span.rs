//! Source positions and spans.

use std::fmt;

/// A position in source text. `line` and `column` start at 1; `column`
/// counts chars, `offset` counts bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    /// Byte offset from the start of the source.
    pub offset: u32,
    /// Line number, from 1.
    pub line: u32,
    /// Column in chars, from 1.
    pub column: u32,
}

/// A range of source text, `start` inclusive, `end` exclusive.
/// Displays as `line:column` of its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First char.
    pub start: Pos,
    /// One past the last char.
    pub end: Pos,
}

impl Span {
    /// The span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start, end: other.end }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.start.line, self.start.column)
    }
}
