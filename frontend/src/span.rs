//! Source positions and spans.

use std::fmt;

/// A position in source text. `line` and `column` start at 1; `column`
/// counts chars, `offset` counts bytes. In binary input (a binary `.nl`
/// file) there are no lines: `line` and `column` are 0 and only `offset`
/// says where.
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
/// Displays as `line:column` of its start, or `byte <offset>` in binary input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// First char.
    pub start: Pos,
    /// One past the last char.
    pub end: Pos,
}

impl Span {
    /// The bytes `start..end` of binary input.
    pub fn bytes(start: usize, end: usize) -> Span {
        let at =
            |offset: usize| Pos { offset: u32::try_from(offset).unwrap_or(u32::MAX), line: 0, column: 0 };
        Span { start: at(start), end: at(end) }
    }

    /// Whether the span is in binary input (it has no line).
    pub fn is_binary(&self) -> bool {
        self.start.line == 0
    }

    /// The span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start, end: other.end }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.start.line {
            0 => write!(f, "byte {}", self.start.offset),
            line => write!(f, "{line}:{}", self.start.column),
        }
    }
}
