//! Source text: decoding a file's bytes, its lines, its byte-order mark.

use crate::error::{ParseError, ParseErrorKind};
use crate::span::{Pos, Span};

/// The byte-order mark some editors put first in a UTF-8 file; it is not
/// part of the text (columns do not count it).
pub const BOM: char = '\u{feff}';

/// The lines of `source` as the lexer numbers them: a line ends at `\n`,
/// `\r\n` or a lone `\r`, and a leading byte-order mark is no part of the
/// first line.
pub fn source_lines(source: &str) -> impl Iterator<Item = &str> {
    let mut rest = source.strip_prefix(BOM).unwrap_or(source);
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        // memchr: a pattern of two chars is searched a char at a time.
        match memchr::memchr2(b'\n', b'\r', rest.as_bytes()) {
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
                done = rest.is_empty();
                Some(line)
            }
            None => {
                done = true;
                Some(rest).filter(|r| !r.is_empty())
            }
        }
    })
}

/// `bytes` as UTF-8 text, or an error at the line and column of the first
/// byte that is not (so a file with one bad byte says where it is).
pub fn decode(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = e.valid_up_to();
        let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let mut lines = source_lines(text);
        let mut line = 0u32;
        let mut last = "";
        for l in lines.by_ref() {
            line += 1;
            last = l;
        }
        // `source_lines` drops an empty last line: a break just before the
        // bad byte starts a new one.
        if text.ends_with(['\n', '\r']) || line == 0 {
            line += 1;
            last = "";
        }
        let column = last.chars().count() as u32 + 1;
        let pos = Pos { offset: valid as u32, line, column };
        ParseError {
            kind: ParseErrorKind::InvalidUtf8 { byte: bytes[valid] },
            span: Span { start: pos, end: pos },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_reported_at_its_line_and_column() {
        let e = decode(b"in x\nout y = x\xff + 1\n").unwrap_err();
        assert_eq!((e.span.start.line, e.span.start.column), (2, 10));
        assert_eq!(e.kind, ParseErrorKind::InvalidUtf8 { byte: 0xff });
        // Columns count chars: a valid two-byte char before the bad byte is one column.
        let e = decode("\u{e9}".bytes().chain([0xc3]).collect::<Vec<_>>().as_slice()).unwrap_err();
        assert_eq!((e.span.start.line, e.span.start.column), (1, 2));
        let e = decode(b"a\rb\r\n\x80").unwrap_err();
        assert_eq!((e.span.start.line, e.span.start.column), (3, 1));
        assert_eq!(decode(b"in x").unwrap(), "in x");
    }

    #[test]
    fn lines_end_at_every_kind_of_line_break() {
        let lines = |s| source_lines(s).collect::<Vec<_>>();
        assert_eq!(lines("a\nb\r\nc\rd"), ["a", "b", "c", "d"]);
        assert_eq!(lines("\u{feff}in x\n"), ["in x"]);
        assert_eq!(lines("a\n\nb\n"), ["a", "", "b"]);
        assert_eq!(lines("\r\r"), ["", ""]);
        assert_eq!(lines(""), Vec::<&str>::new());
        // The same lines as `str::lines` wherever that one applies.
        for s in ["x\ny", "x\r\ny\n", "\n", "a\n\n"] {
            assert_eq!(lines(s), s.lines().collect::<Vec<_>>(), "{s:?}");
        }
    }
}
