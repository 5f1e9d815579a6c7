//! Splits source text into tokens with spans.

use crate::error::{ParseError, ParseErrorKind};
use crate::op::Cmp;
use crate::source::BOM;
use crate::span::{Pos, Span};

/// A token; identifiers borrow the source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Token<'s> {
    /// A name or keyword.
    Ident(&'s str),
    /// A numeric literal.
    Number(f64),
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `^` or `**`
    Caret,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`: not part of the problem format; the REPL writes lists with it
    /// (`jacobian([f, g])`).
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `=`
    Assign,
    /// `->`, between a function's arguments and its results.
    Arrow,
    /// `<`, `<=`, `>`, `>=`, `==`, `!=`
    Cmp(Cmp),
    /// End of a statement: newline or `;`.
    End,
    /// End of the source.
    Eof,
}

impl Token<'_> {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(s) => format!("'{}'", crate::shown::Shown(s)),
            Token::Number(_) => "a number".into(),
            Token::Plus => "'+'".into(),
            Token::Minus => "'-'".into(),
            Token::Star => "'*'".into(),
            Token::Slash => "'/'".into(),
            Token::Caret => "'^'".into(),
            Token::LParen => "'('".into(),
            Token::RParen => "')'".into(),
            Token::LBracket => "'['".into(),
            Token::RBracket => "']'".into(),
            Token::Comma => "','".into(),
            Token::Assign => "'='".into(),
            Token::Arrow => "'->'".into(),
            Token::Cmp(c) => format!("'{}'", c.symbol()),
            Token::End => "end of statement".into(),
            Token::Eof => "end of input".into(),
        }
    }
}

/// The bytes of an identifier after its first: `[A-Za-z0-9_]`.
static IDENTIFIER: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// A streaming lexer.
#[derive(Clone, Copy, Debug)]
pub struct Lexer<'s> {
    src: &'s str,
    pos: Pos,
}

impl<'s> Lexer<'s> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'s str) -> Lexer<'s> {
        let offset = if src.starts_with(BOM) { BOM.len_utf8() as u32 } else { 0 };
        Lexer { src, pos: Pos { offset, line: 1, column: 1 } }
    }

    /// A lexer over `src` that starts at `start` (a position of `src`, on a
    /// char boundary), so that the spans of a part of a text are those of
    /// the whole text.
    ///
    /// # Panics
    /// If `start.offset` is not a char boundary of `src`.
    pub fn starting_at(src: &'s str, start: Pos) -> Lexer<'s> {
        assert!(src.is_char_boundary(start.offset as usize), "a lexer starts on a char boundary");
        Lexer { src, pos: start }
    }

    fn rest(&self) -> &'s str {
        &self.src[self.pos.offset as usize..]
    }

    #[inline(always)]
    fn peek_byte(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos.offset as usize).copied()
    }

    #[inline(always)]
    fn bump(&mut self) -> Option<char> {
        let c = match self.peek_byte()? {
            b if b.is_ascii() => char::from(b),
            _ => self.rest().chars().next()?,
        };
        self.pos.offset += c.len_utf8() as u32;
        // A line ends at `\n`, `\r\n` (whose `\r` `scan` skips as a
        // blank) or a lone `\r`, as `span::source_lines` splits them.
        if c == '\n' || c == '\r' {
            self.pos.line += 1;
            self.pos.column = 1;
        } else {
            self.pos.column += 1;
        }
        Some(c)
    }

    /// Advances over ASCII bytes while `f` accepts them (blanks, digits,
    /// identifiers' characters), a column each. `f` must reject `\n`, `\r`
    /// and every byte that is not ASCII.
    #[inline(always)]
    fn bump_ascii_while(&mut self, f: impl Fn(u8) -> bool) {
        let bytes = self.src.as_bytes();
        let start = self.pos.offset as usize;
        let mut i = start;
        while i < bytes.len() && f(bytes[i]) {
            i += 1;
        }
        self.pos.offset = i as u32;
        self.pos.column += (i - start) as u32;
    }

    /// The position at the end of the line (past a comment); columns
    /// count chars.
    ///
    /// This and the other helpers that `scan` does not inline take the
    /// lexer by value and return positions: were its address taken, its
    /// position would live in memory, written field by field and read
    /// back whole, which stalls store forwarding on every token.
    fn line_end(self) -> Pos {
        let start = self.pos.offset as usize;
        let rest = &self.src.as_bytes()[start..];
        let end = start + memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
        let comment = &self.src[start..end];
        let chars = if comment.is_ascii() { comment.len() } else { comment.chars().count() };
        Pos { offset: end as u32, column: self.pos.column + chars as u32, ..self.pos }
    }

    /// The next token and its span.
    pub fn next_token(&mut self) -> Result<(Token<'s>, Span), ParseError> {
        let mut slot = (Token::Eof, Span::default());
        self.scan_into(&mut slot).map_err(|e| *e)?;
        Ok(slot)
    }

    /// Reads tokens into `out` until it holds `len` of them (past the end
    /// of the source, [`Token::Eof`] again and again) or a token is
    /// malformed: then it returns its error.
    ///
    /// One call lexes a batch, with the position in registers throughout,
    /// and each token is written in place where the parser reads it: a
    /// position written field by field and read back whole (a returned
    /// tuple, copied) stalls store forwarding on every token.
    fn fill(&mut self, out: &mut Vec<(Token<'s>, Span)>, len: usize) -> Option<ParseError> {
        let mut lexer = *self;
        let mut error = None;
        while out.len() < len {
            out.push((Token::Eof, Span::default()));
            let slot = out.last_mut().expect("just pushed");
            if let Err(e) = lexer.scan_into(slot) {
                out.pop();
                error = Some(*e);
                break;
            }
        }
        *self = lexer;
        error
    }

    /// Reads the next token and its span into `slot`. Errors are boxed, so
    /// that the result stays a word.
    #[inline(always)]
    fn scan_into(&mut self, slot: &mut (Token<'s>, Span)) -> Result<(), Box<ParseError>> {
        // Skip blanks and comments, but not newlines: they end statements.
        loop {
            self.bump_ascii_while(|c| c == b' ' || c == b'\t');
            match self.peek_byte() {
                Some(b'#') => self.pos = self.line_end(),
                Some(b'\r') if self.src.as_bytes().get(self.pos.offset as usize + 1) == Some(&b'\n') => {
                    self.pos.offset += 1;
                }
                _ => break,
            }
        }
        let start = self.pos;
        let Some(c) = self.bump() else {
            *slot = (Token::Eof, Span { start, end: start });
            return Ok(());
        };
        let token = match c {
            '\n' | '\r' | ';' => Token::End,
            '+' => Token::Plus,
            '-' if self.peek_byte() == Some(b'>') => {
                self.bump();
                Token::Arrow
            }
            '-' => Token::Minus,
            '*' if self.peek_byte() == Some(b'*') => {
                self.bump();
                Token::Caret
            }
            '*' => Token::Star,
            '/' => Token::Slash,
            '^' => Token::Caret,
            '(' => Token::LParen,
            ')' => Token::RParen,
            '[' => Token::LBracket,
            ']' => Token::RBracket,
            ',' => Token::Comma,
            '<' | '>' | '=' | '!' => {
                let eq = self.peek_byte() == Some(b'=');
                if eq {
                    self.bump();
                }
                match (c, eq) {
                    ('<', false) => Token::Cmp(Cmp::Lt),
                    ('<', true) => Token::Cmp(Cmp::Le),
                    ('>', false) => Token::Cmp(Cmp::Gt),
                    ('>', true) => Token::Cmp(Cmp::Ge),
                    ('=', false) => Token::Assign,
                    ('=', true) => Token::Cmp(Cmp::Eq),
                    ('!', true) => Token::Cmp(Cmp::Ne),
                    _ => return Err(self.error(start, ParseErrorKind::UnexpectedChar('!'))),
                }
            }
            c if c.is_ascii_digit() || c == '.' => {
                *slot = self.number(start)?;
                self.pos = slot.1.end;
                return Ok(());
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                self.bump_ascii_while(|c| IDENTIFIER[usize::from(c)]);
                Token::Ident(&self.src[start.offset as usize..self.pos.offset as usize])
            }
            c => return Err(self.error(start, ParseErrorKind::UnexpectedChar(c))),
        };
        *slot = (token, Span { start, end: self.pos });
        Ok(())
    }

    /// The number that starts at `start` (its first char read).
    #[inline(never)]
    fn number(mut self, start: Pos) -> Result<(Token<'s>, Span), Box<ParseError>> {
        self.bump_ascii_while(|c| c.is_ascii_digit() || c == b'.');
        if matches!(self.peek_byte(), Some(b'e' | b'E')) {
            let mut ahead = self.rest().chars().skip(1);
            let next = ahead.next();
            let exponent = match next {
                Some(d) if d.is_ascii_digit() => true,
                Some('+' | '-') => ahead.next().is_some_and(|d| d.is_ascii_digit()),
                _ => false,
            };
            if exponent {
                self.bump();
                if matches!(self.peek_byte(), Some(b'+' | b'-')) {
                    self.bump();
                }
                self.bump_ascii_while(|c| c.is_ascii_digit());
            }
        }
        let text = &self.src[start.offset as usize..self.pos.offset as usize];
        let span = Span { start, end: self.pos };
        match text.parse::<f64>() {
            Ok(v) if v.is_infinite() => {
                Err(Box::new(ParseError { kind: ParseErrorKind::NumberOutOfRange(text.to_string()), span }))
            }
            Ok(v) if text != "." => Ok((Token::Number(v), span)),
            _ => Err(Box::new(ParseError { kind: ParseErrorKind::BadNumber(text.to_string()), span })),
        }
    }

    #[cold]
    fn error(self, start: Pos, kind: ParseErrorKind) -> Box<ParseError> {
        Box::new(ParseError { kind, span: Span { start, end: self.pos } })
    }
}

/// Tokens read ahead in batches, for the parser: the lexer fills a small
/// buffer and the parser reads it a token at a time. A token is written
/// well before it is read, which keeps the processor from stalling on
/// reading back a span the lexer has just written field by field. A lexing
/// error is kept and returned when the parser reaches its position.
#[derive(Debug)]
pub struct TokenStream<'s> {
    lexer: Lexer<'s>,
    tokens: Vec<(Token<'s>, Span)>,
    next: usize,
    error: Option<ParseError>,
    /// Whether a batch was read after the first tokens.
    refilled: bool,
}

impl<'s> TokenStream<'s> {
    /// Tokens read per batch.
    const BATCH: usize = 64;

    /// The most tokens a parser looks ahead (`peek(n)` with `n` below it).
    pub const LOOK_AHEAD: usize = Self::BATCH;

    /// The tokens of `src`.
    pub fn new(src: &'s str) -> TokenStream<'s> {
        TokenStream::from_lexer(Lexer::new(src))
    }

    /// The tokens `lexer` reads from where it stands.
    pub fn from_lexer(lexer: Lexer<'s>) -> TokenStream<'s> {
        TokenStream { lexer, tokens: Vec::with_capacity(Self::BATCH), next: 0, error: None, refilled: false }
    }

    /// `tokens` (read before: a run's body, read once for each value of its
    /// index), then those `lexer` reads from where it stands.
    pub fn replay(tokens: Vec<(Token<'s>, Span)>, lexer: Lexer<'s>) -> TokenStream<'s> {
        TokenStream { lexer, tokens, next: 0, error: None, refilled: false }
    }

    /// The tokens [`TokenStream::replay`] was given, unless it read past
    /// them (a parser looks at most [`TokenStream::LOOK_AHEAD`] tokens
    /// ahead, so tokens that end with as many [`Token::Eof`] are never
    /// read past).
    pub fn replayed(self) -> Option<Vec<(Token<'s>, Span)>> {
        (!self.refilled).then_some(self.tokens)
    }

    /// Token `n` ahead (0 is the next one) and its span, or the lexing
    /// error met before it.
    #[inline]
    pub fn peek(&mut self, n: usize) -> Result<&(Token<'s>, Span), ParseError> {
        if self.next + n >= self.tokens.len() {
            self.refill();
        }
        match self.tokens.get(self.next + n) {
            Some(token) => Ok(token),
            None => Err(self.lexing_error()),
        }
    }

    #[cold]
    fn lexing_error(&self) -> ParseError {
        self.error.clone().expect("a batch stops early only at an error")
    }

    /// Moves past the next token (which [`TokenStream::peek`] returned).
    pub fn advance(&mut self) {
        self.next += 1;
    }

    #[inline(never)]
    fn refill(&mut self) {
        self.refilled = true;
        self.tokens.drain(..self.next);
        self.next = 0;
        if self.error.is_none() {
            self.error = self.lexer.fill(&mut self.tokens, Self::BATCH);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Token<'_>> {
        let mut lx = Lexer::new(src);
        let mut out = vec![];
        loop {
            let (t, _) = lx.next_token().unwrap();
            out.push(t);
            if t == Token::Eof {
                return out;
            }
        }
    }

    #[test]
    fn lexes_numbers_operators_and_comments() {
        use Token::*;
        assert_eq!(
            tokens("x**2 + .5e-3*y # c\n1e3;2.5E+2 <= e"),
            vec![
                Ident("x"),
                Caret,
                Number(2.0),
                Plus,
                Number(0.0005),
                Star,
                Ident("y"),
                End,
                Number(1000.0),
                End,
                Number(250.0),
                Cmp(crate::op::Cmp::Le),
                Ident("e"),
                Eof
            ]
        );
        // `2e` is the number 2 followed by the name e.
        assert_eq!(tokens("2e"), vec![Number(2.0), Ident("e"), Eof]);
    }

    #[test]
    fn columns_count_chars_in_comments_and_bytes_elsewhere() {
        // Only a comment may hold chars beyond ASCII; a token after one, on
        // its line or at the end, is at the column its chars give.
        for (src, line, column) in
            [("ab_1 # é€x", 1, 11), ("ab_1 # é€x\r\n", 2, 1), ("ab_1 # é€x\r", 2, 1), ("x # \u{1f600}", 1, 6)]
        {
            let mut lexer = Lexer::new(src);
            let (first, span) = lexer.next_token().unwrap();
            assert_eq!(
                (first, span.end.column),
                (
                    Token::Ident(src.split(' ').next().unwrap()),
                    span.start.column + span.end.offset - span.start.offset
                )
            );
            let mut last = lexer.next_token().unwrap();
            while last.0 != Token::Eof {
                last = lexer.next_token().unwrap();
            }
            assert_eq!((last.1.start.line, last.1.start.column), (line, column), "{src:?}");
        }
    }

    #[test]
    fn stream_matches_the_lexer_across_batches_and_defers_errors() {
        // 201 tokens before the bad character: several batches of 64.
        let src: String = (0..100).map(|i| format!("a{i}\n")).collect::<String>() + "x $ y";
        let mut stream = TokenStream::new(&src);
        let mut lexer = Lexer::new(&src);
        for _ in 0..201 {
            let expected = lexer.next_token().unwrap();
            assert_eq!(stream.peek(1).map(|t| t.0), lexer.clone().next_token().map(|t| t.0));
            assert_eq!(*stream.peek(0).unwrap(), expected);
            stream.advance();
        }
        // The bad character is reported only when reached, with its span.
        let err = stream.peek(0).unwrap_err();
        assert_eq!(err.to_string(), "101:3: unexpected character '$'");
        assert_eq!(stream.peek(0).unwrap_err(), err, "and again when asked again");
    }

    #[test]
    fn rejects_malformed_numbers() {
        let mut lx = Lexer::new("1.2.3");
        assert!(lx.next_token().is_err());
        let mut lx = Lexer::new("  $");
        let err = lx.next_token().unwrap_err();
        assert_eq!(err.to_string(), "1:3: unexpected character '$'");
    }
}
