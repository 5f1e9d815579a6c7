//! The `.nl` text as numbered lines: each holds one item (a header line, a
//! segment's first line, one expression node, one `index value` pair),
//! written before an optional `#` comment; and those lines as the
//! [`Tokens`] of the segments.

use super::error::NlError;
use super::tokens::Tokens;
use crate::error::{ParseError, ParseErrorKind};
use crate::span::{Pos, Span};

/// One line: its number, where it starts, and its text before any `#`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    /// The line number, from 1.
    pub no: u32,
    /// The byte offset of its first char.
    offset: usize,
    /// The text before `#`, without blanks at either end.
    pub text: &'a str,
    /// Chars before `text` on the line.
    indent: usize,
}

impl<'a> Line<'a> {
    /// The span of `part`, a sub-slice of `text` (the whole text if it is not one).
    pub fn span_of(&self, part: &str) -> Span {
        let inside = (part.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize);
        let (start, len) = match inside {
            Some(start) if start + part.len() <= self.text.len() => (start, part.len()),
            _ => (0, self.text.len()),
        };
        Span { start: self.pos(start), end: self.pos(start + len) }
    }

    /// The position of byte `byte` of the text (blanks before it are one
    /// byte and one column each).
    fn pos(&self, byte: usize) -> Pos {
        let column = self.indent + self.text[..byte].chars().count() + 1;
        Pos {
            offset: u32::try_from(self.offset + self.indent + byte).unwrap_or(u32::MAX),
            line: self.no,
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }

    /// The span of the whole text.
    pub fn span(&self) -> Span {
        self.span_of(self.text)
    }

    /// An error of `kind` spanning the line's text.
    pub fn error(&self, kind: impl Into<ParseErrorKind>) -> ParseError {
        ParseError { kind: kind.into(), span: self.span() }
    }

    /// The blank-separated fields after the first `skip` bytes of the text.
    pub fn fields(&self, skip: usize) -> Fields<'a> {
        Fields { line: *self, rest: self.text.get(skip..).unwrap_or("").split_ascii_whitespace() }
    }
}

/// The fields of a line, read one by one as numbers.
#[derive(Debug)]
pub(super) struct Fields<'a> {
    line: Line<'a>,
    rest: std::str::SplitAsciiWhitespace<'a>,
}

impl<'a> Fields<'a> {
    /// The next field, or an error saying `expected` is missing.
    pub fn next(&mut self, expected: &'static str) -> Result<&'a str, ParseError> {
        self.rest.next().ok_or_else(|| {
            let end = self.line.span_of(&self.line.text[self.line.text.len()..]);
            ParseError {
                kind: ParseErrorKind::Expected { expected, found: "the end of the line".into() },
                span: end,
            }
        })
    }

    /// The next field as an unsigned integer (`expected` names it).
    pub fn int(&mut self, expected: &'static str) -> Result<u64, ParseError> {
        let field = self.next(expected)?;
        self.line.int_of(field, expected)
    }
}

impl<'a> Line<'a> {
    /// `field`, a part of the text, as an unsigned integer.
    pub fn int_of(&self, field: &str, expected: &'static str) -> Result<u64, ParseError> {
        field.parse().map_err(|_| ParseError {
            kind: ParseErrorKind::Expected { expected, found: format!("'{}'", crate::shown::Shown(field)) },
            span: self.span_of(field),
        })
    }

    /// `field`, a part of the text, as a real number (`strtod`'s syntax:
    /// `Infinity` and `nan` too).
    pub fn real_of(&self, field: &str) -> Result<f64, ParseError> {
        field.parse().map_err(|_| ParseError {
            kind: ParseErrorKind::BadNumber(field.to_string()),
            span: self.span_of(field),
        })
    }
}

/// A cursor over the lines of a `.nl` text.
#[derive(Debug)]
pub(super) struct Lines<'a> {
    source: &'a str,
    /// Byte offset of the next line.
    pos: usize,
    /// Number of the last line returned.
    no: u32,
}

impl<'a> Lines<'a> {
    /// The lines of `source` (after a byte-order mark), ending at `\n`,
    /// `\r\n` or a lone `\r`, as [`crate::source_lines`] numbers them.
    pub fn new(source: &'a str) -> Lines<'a> {
        let pos = if source.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        Lines { source, pos, no: 0 }
    }

    /// Bytes not read yet: an upper bound on the lines left.
    pub fn remaining(&self) -> usize {
        self.source.len() - self.pos
    }

    /// The next line, if any.
    pub fn next_line(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.source.len() {
            return None;
        }
        let rest = &self.source[self.pos..];
        let (raw, skip) = match rest.find(['\n', '\r']) {
            Some(i) if rest[i..].starts_with("\r\n") => (&rest[..i], i + 2),
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        let offset = self.pos;
        self.pos += skip;
        self.no += 1;
        let content = raw.find('#').map_or(raw, |i| &raw[..i]);
        let trimmed = content.trim_start_matches([' ', '\t']);
        let indent = content.len() - trimmed.len();
        Some(Line { no: self.no, offset, text: trimmed.trim_end(), indent })
    }

    /// The next line that is not blank, or an error saying the file ends
    /// where `expected` was due.
    pub fn expect(&mut self, expected: &'static str) -> Result<Line<'a>, ParseError> {
        loop {
            match self.next_line() {
                Some(line) if line.text.is_empty() => continue,
                Some(line) => return Ok(line),
                None => return Err(self.end_error(expected)),
            }
        }
    }

    /// An error at the end of the file: `expected` is missing.
    pub fn end_error(&self, expected: &'static str) -> ParseError {
        self.end_error_kind(NlError::Truncated { expected })
    }

    /// An error of `kind` at the last line read.
    pub fn end_error_kind(&self, kind: NlError) -> ParseError {
        let last = crate::source::source_lines(self.source).nth(self.no.max(1) as usize - 1).unwrap_or("");
        let column = u32::try_from(last.chars().count() + 1).unwrap_or(u32::MAX);
        let offset = u32::try_from(self.pos).unwrap_or(u32::MAX);
        let end = Pos { offset, line: self.no.max(1), column };
        ParseError { kind: kind.into(), span: Span { start: end, end } }
    }
}

/// The segments of a text file as [`Tokens`]: an item a line, its fields
/// blank-separated, a key letter glued to the first (`o54`, `J0 2`).
#[derive(Debug)]
pub(super) struct LineTokens<'a> {
    lines: Lines<'a>,
    /// The item's line and its fields not read yet.
    fields: Option<Fields<'a>>,
    /// The span of the last token read.
    last: Span,
}

impl<'a> LineTokens<'a> {
    /// The tokens of the lines after the header.
    pub fn new(lines: Lines<'a>) -> LineTokens<'a> {
        LineTokens { lines, fields: None, last: Span::default() }
    }

    /// Makes `line` the item, its fields after the first `skip` bytes;
    /// returns its first byte.
    fn start(&mut self, line: Line<'a>, skip: usize) -> u8 {
        self.last = line.span();
        self.fields = Some(line.fields(skip));
        line.text.as_bytes().first().copied().unwrap_or(b' ')
    }

    /// The next field of the item, or an error saying `expected` is missing.
    fn field(&mut self, expected: &'static str) -> Result<(&'a str, Line<'a>), ParseError> {
        let Some(fields) = self.fields.as_mut() else {
            return Err(self.lines.end_error(expected));
        };
        let field = fields.next(expected)?;
        self.last = fields.line.span_of(field);
        Ok((field, fields.line))
    }
}

impl Tokens for LineTokens<'_> {
    fn segment(&mut self) -> Result<Option<u8>, ParseError> {
        while let Some(line) = self.lines.next_line() {
            if !line.text.is_empty() {
                return Ok(Some(self.start(line, 1)));
            }
        }
        Ok(None)
    }

    fn node(&mut self) -> Result<u8, ParseError> {
        let line = self.lines.expect("an expression node (a line starting with o, n or v)")?;
        Ok(self.start(line, 1))
    }

    fn item(&mut self, expected: &'static str) -> Result<(), ParseError> {
        let line = self.lines.expect(expected)?;
        self.start(line, 0);
        Ok(())
    }

    fn int(&mut self, expected: &'static str) -> Result<u64, ParseError> {
        let (field, line) = self.field(expected)?;
        line.int_of(field, expected)
    }

    fn signed(&mut self, expected: &'static str) -> Result<i64, ParseError> {
        let (field, _) = self.field(expected)?;
        field.parse().map_err(|_| {
            let found = format!("'{}'", crate::shown::Shown(field));
            self.token_error(ParseErrorKind::Expected { expected, found })
        })
    }

    fn real(&mut self, expected: &'static str) -> Result<f64, ParseError> {
        let (field, line) = self.field(expected)?;
        line.real_of(field)
    }

    fn constant(&mut self, _key: u8) -> Result<f64, ParseError> {
        self.real("a number")
    }

    fn bound_type(&mut self) -> Result<u64, ParseError> {
        self.int("a bound type")
    }

    fn skip_name(&mut self) -> Result<(), ParseError> {
        Ok(())
    }

    fn token_error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { kind, span: self.last }
    }

    fn item_error(&self, kind: ParseErrorKind) -> ParseError {
        let span = self.fields.as_ref().map_or(self.last, |f| f.line.span());
        ParseError { kind, span }
    }

    fn shown_item(&self) -> String {
        let text = self.fields.as_ref().map_or("", |f| f.line.text);
        format!("'{}'", crate::shown::Shown(text))
    }

    fn remaining(&self) -> usize {
        self.lines.remaining()
    }
}

impl From<NlError> for ParseErrorKind {
    fn from(e: NlError) -> ParseErrorKind {
        ParseErrorKind::Nl(e)
    }
}
