//! The binary variant of the format (header `b`, AMPL's `write b`): the
//! ten header lines as in text, then the segments as bytes, read as
//! [`Tokens`]. A key letter (segment, expression node, bound type digit)
//! is one byte; an integer is 4 bytes, a real 8, in the header's byte
//! order; a string is its length then its bytes; nothing ends a line.
//! Positions are byte offsets from the start of the file.

use super::error::NlError;
use super::tokens::Tokens;
use crate::error::{ParseError, ParseErrorKind};
use crate::span::Span;

/// The header lines of a binary file: the bytes up to and including the
/// tenth line break, if the file has ten.
pub(super) fn header_bytes(bytes: &[u8]) -> &[u8] {
    let end =
        bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n').nth(9).map_or(bytes.len(), |(i, _)| i + 1);
    &bytes[..end]
}

/// A cursor over the bytes of the segments.
#[derive(Debug)]
pub(super) struct BinaryTokens<'a> {
    bytes: &'a [u8],
    /// The next byte to read.
    pos: usize,
    /// Where the last token starts.
    token: usize,
    /// Where the item being read starts.
    item: usize,
    big_endian: bool,
}

impl<'a> BinaryTokens<'a> {
    /// The tokens of `bytes` (the whole file) from offset `start`.
    pub fn new(bytes: &'a [u8], start: usize, big_endian: bool) -> BinaryTokens<'a> {
        BinaryTokens { bytes, pos: start, token: start, item: start, big_endian }
    }

    /// The next `N` bytes, or an error saying the file ends where
    /// `expected` was due.
    fn take<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N], ParseError> {
        let Some(taken) = self.bytes.get(self.pos..self.pos + N) else {
            let end = self.bytes.len();
            return Err(ParseError {
                kind: NlError::Truncated { expected }.into(),
                span: Span::bytes(end, end),
            });
        };
        self.token = self.pos;
        self.pos += N;
        Ok(taken.try_into().expect("a slice of N bytes"))
    }

    /// The next 4 bytes as a signed integer.
    fn i32(&mut self, expected: &'static str) -> Result<i32, ParseError> {
        let b = self.take::<4>(expected)?;
        Ok(if self.big_endian { i32::from_be_bytes(b) } else { i32::from_le_bytes(b) })
    }
}

impl Tokens for BinaryTokens<'_> {
    fn segment(&mut self) -> Result<Option<u8>, ParseError> {
        if self.pos == self.bytes.len() {
            return Ok(None);
        }
        self.item = self.pos;
        Ok(Some(self.take::<1>("a segment")?[0]))
    }

    fn node(&mut self) -> Result<u8, ParseError> {
        self.item = self.pos;
        Ok(self.take::<1>("an expression node (o, n or v)")?[0])
    }

    fn item(&mut self, _expected: &'static str) -> Result<(), ParseError> {
        self.item = self.pos;
        Ok(())
    }

    fn int(&mut self, expected: &'static str) -> Result<u64, ParseError> {
        let n = self.i32(expected)?;
        u64::try_from(n)
            .map_err(|_| self.token_error(ParseErrorKind::Expected { expected, found: n.to_string() }))
    }

    fn signed(&mut self, expected: &'static str) -> Result<i64, ParseError> {
        Ok(i64::from(self.i32(expected)?))
    }

    fn real(&mut self, expected: &'static str) -> Result<f64, ParseError> {
        let b = self.take::<8>(expected)?;
        Ok(if self.big_endian { f64::from_be_bytes(b) } else { f64::from_le_bytes(b) })
    }

    fn constant(&mut self, key: u8) -> Result<f64, ParseError> {
        match key {
            b'l' => Ok(f64::from(self.i32("an integer constant")?)),
            b's' => {
                let b = self.take::<2>("a short integer constant")?;
                Ok(f64::from(if self.big_endian { i16::from_be_bytes(b) } else { i16::from_le_bytes(b) }))
            }
            _ => self.real("a number"),
        }
    }

    fn bound_type(&mut self) -> Result<u64, ParseError> {
        let [c] = self.take::<1>("a bound type")?;
        if c.is_ascii_digit() {
            return Ok(u64::from(c - b'0'));
        }
        let found = format!("byte 0x{c:02x}");
        Err(self.token_error(ParseErrorKind::Expected { expected: "a bound type (a digit 0 to 5)", found }))
    }

    fn skip_name(&mut self) -> Result<(), ParseError> {
        let length = self.int("the length of a suffix's name")?;
        match usize::try_from(length) {
            Ok(n) if n <= self.remaining() => {
                self.token = self.pos;
                self.pos += n;
                Ok(())
            }
            _ => Err(self.token_error(NlError::Truncated { expected: "a suffix's name" }.into())),
        }
    }

    fn token_error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { kind, span: Span::bytes(self.token, self.pos) }
    }

    fn item_error(&self, kind: ParseErrorKind) -> ParseError {
        ParseError { kind, span: Span::bytes(self.item, self.pos) }
    }

    fn shown_item(&self) -> String {
        match self.bytes.get(self.item) {
            Some(&b) if b.is_ascii_graphic() => format!("'{}' (byte 0x{b:02x})", b as char),
            Some(b) => format!("byte 0x{b:02x}"),
            None => "the end of the file".to_string(),
        }
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }
}
