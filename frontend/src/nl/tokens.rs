//! The tokens of the segments after the header, as the one segment parser
//! reads them from either variant of the format: [`LineTokens`](super::lines::LineTokens)
//! for text (an item a line, numbers written out) and
//! [`BinaryTokens`](super::binary::BinaryTokens) for binary (a key a byte,
//! integers of 4 bytes, reals of 8, no line breaks).

use super::error::NlError;
use crate::error::{ParseError, ParseErrorKind};

/// A source of tokens. A segment or an expression node starts with a key
/// letter (`C`, `o`, `n`, ...); an item without one (a linear term, a
/// bound, an `index value` pair, a list's count) starts with
/// [`Tokens::item`]. Every error points at the token or the item at fault.
pub(super) trait Tokens {
    /// The next segment's key letter, or `None` at the end of the file.
    fn segment(&mut self) -> Result<Option<u8>, ParseError>;

    /// The key letter of the next expression node.
    fn node(&mut self) -> Result<u8, ParseError>;

    /// Starts the next item without a key; `expected` names it if the file ends.
    fn item(&mut self, expected: &'static str) -> Result<(), ParseError>;

    /// The next token as a nonnegative integer.
    fn int(&mut self, expected: &'static str) -> Result<u64, ParseError>;

    /// The next token as an integer of either sign (suffix values,
    /// complementarity flags).
    fn signed(&mut self, expected: &'static str) -> Result<i64, ParseError>;

    /// The next token as a real number.
    fn real(&mut self, expected: &'static str) -> Result<f64, ParseError>;

    /// The value of a constant node whose key is `key` (`n`, `l` or `s`):
    /// in binary a real, an integer of 4 bytes or one of 2.
    fn constant(&mut self, key: u8) -> Result<f64, ParseError>;

    /// A bound's type, 0 to 5: a number in text, a digit char in binary.
    fn bound_type(&mut self) -> Result<u64, ParseError>;

    /// Skips a suffix's name (the rest of the `S` line; a counted string in binary).
    fn skip_name(&mut self) -> Result<(), ParseError>;

    /// An error of `kind` at the last token read.
    fn token_error(&self, kind: ParseErrorKind) -> ParseError;

    /// An error of `kind` at the item (segment line, node) being read.
    fn item_error(&self, kind: ParseErrorKind) -> ParseError;

    /// The item being read as an error message quotes it.
    fn shown_item(&self) -> String;

    /// Bytes not read yet: an upper bound on the items left.
    fn remaining(&self) -> usize;

    /// The next token as an index below `count` of `what`.
    fn index(&mut self, what: &'static str, count: usize) -> Result<usize, ParseError> {
        let index = self.int(what)?;
        match usize::try_from(index) {
            Ok(i) if i < count => Ok(i),
            _ => Err(self.token_error(NlError::OutOfRange { what, index, count }.into())),
        }
    }
}
