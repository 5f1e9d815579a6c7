//! Tables and runs in the parser: declaring `in x[3, 2]`, reading and
//! binding entries (`x[i, 1]`, `s[i] = ...`), `sum(s)`, and reading a run
//! `for i in range(a, b) ... end` once for each value of its index.
//!
//! A run means its body written out once for each value, in order, and is
//! parsed so: its tokens are read once, then parsed again for each value
//! with the index standing for that value. So its calls are the calls a
//! written-out program has (same nodes, same order), and a run of calls of
//! one function becomes a map as the written-out calls do.

use super::{err, span_at, Parser, Target};
use crate::dag::NodeId;
use crate::error::{ParseError, ParseErrorKind};
use crate::lexer::{Lexer, Token, TokenStream};
use crate::op::Op;
use crate::span::Span;
use crate::table::{entries, entry_name, next_index, Kind, Table, MAX_ENTRIES, MAX_RUN_TOKENS};

/// An entry's indices (rarely more than four).
type Indices = smallvec::SmallVec<[i64; 4]>;

/// The run whose body is being read, and its index's value.
#[derive(Clone, Copy)]
pub(super) struct Run<'s> {
    pub(super) index: &'s str,
    pub(super) value: i64,
}

impl<'s> Parser<'s> {
    /// `NAME[n, m, ...]` of an `in` or `param` line, its name read:
    /// declares the table's entries, row by row, as the next inputs or
    /// parameters.
    pub(super) fn declare_table(
        &mut self,
        name: &'s str,
        span: Span,
        params: bool,
    ) -> Result<(), ParseError> {
        self.check_new_name(name, span)?;
        let (dims, close) = self.delimited([Token::LBracket, Token::RBracket], Self::integer)?;
        let dims: Vec<usize> = dims.iter().map(|&d| usize::try_from(d).unwrap_or(0)).collect();
        let count = entries(&dims).filter(|&n| n > 0).ok_or_else(|| {
            let saturated = dims.iter().fold(1u128, |n, &d| n.saturating_mul(d as u128));
            let kind = ParseErrorKind::TableSize { name: name.into(), entries: saturated.to_string() };
            ParseError { kind, span: span.to(close) }
        })?;
        let span = span.to(close);
        let mut nodes = Vec::with_capacity(count);
        let mut index = vec![0usize; dims.len()];
        for _ in 0..count {
            let entry = entry_name(name, &index.iter().map(|&i| i as i64).collect::<Indices>());
            let node = if params {
                let node = self.dag.input(crate::builder::PARAM_BASE as usize + self.params.len());
                self.params.push(entry);
                node
            } else {
                let node = self.dag.input(self.inputs.len());
                self.inputs.push(entry);
                node
            };
            self.spans.fill(&self.dag, span);
            nodes.push(node);
            next_index(&mut index, &dims);
        }
        let kind = if params { Kind::Param } else { Kind::Input };
        self.tables.insert(name, Table::declared(kind, dims, nodes, span.start.offset));
        Ok(())
    }

    /// Fails unless `name` may name something new: not reserved, not a
    /// function, a name, a table (in the main program) or a run's index.
    pub(super) fn check_new_name(&mut self, name: &'s str, span: Span) -> Result<(), ParseError> {
        super::check_reserved(name, span)?;
        if self.defined_index(name).is_some() {
            return err(ParseErrorKind::ReservedName { name: name.into(), what: "a function" }, span);
        }
        if self.run.is_some_and(|r| r.index == name) {
            return err(ParseErrorKind::ReservedName { name: name.into(), what: "the index of a run" }, span);
        }
        // A function's body has a scope of its own, without the tables.
        let table = if self.in_function.is_none() { self.tables.get(name) } else { None };
        let first = match (self.names.get(name), table) {
            (Some(b), _) => b.offset,
            (_, Some(t)) => t.offset,
            _ => return Ok(()),
        };
        let first = span_at(self.source, first, name.len());
        err(ParseErrorKind::DuplicateBinding { name: name.into(), first }, span)
    }

    /// The error for a name that is a table where one value is meant, if
    /// `name` is a table.
    pub(super) fn table_as_value(&self, name: &str, span: Span) -> Result<(), ParseError> {
        match self.tables.contains_key(name) {
            true => err(ParseErrorKind::TableAsValue { name: name.into() }, span),
            false => Ok(()),
        }
    }

    /// `[a, b, ...]` (or `(a, b, ...)`, as `[open, close]` says): the
    /// items `item` reads, one or more, and the span of the closing token.
    fn delimited(
        &mut self,
        [open, close]: [Token<'static>; 2],
        mut item: impl FnMut(&mut Self) -> Result<i64, ParseError>,
    ) -> Result<(Indices, Span), ParseError> {
        let (token, span) = self.next()?;
        if token != open {
            let expected = if open == Token::LBracket { "'['" } else { "'('" };
            return err(ParseErrorKind::Expected { expected, found: token.describe() }, span);
        }
        let mut items = Indices::new();
        items.push(item(self)?);
        loop {
            match self.next()? {
                (Token::Comma, _) => items.push(item(self)?),
                (token, end) if token == close => return Ok((items, end)),
                (token, span) => {
                    let expected = if close == Token::RBracket { "',' or ']'" } else { "',' or ')'" };
                    return err(ParseErrorKind::Expected { expected, found: token.describe() }, span);
                }
            }
        }
    }

    /// `[i, j, ...]` after a table's name: the entry's indices, and the span
    /// of `]`.
    fn indices(&mut self) -> Result<(Indices, Span), ParseError> {
        self.delimited([Token::LBracket, Token::RBracket], Self::index)
    }

    /// A whole number as written: a table's size or a run's bound.
    fn integer(&mut self) -> Result<i64, ParseError> {
        match self.next()? {
            (Token::Number(v), span) => self.whole(v, span),
            (token, span) => {
                err(ParseErrorKind::Expected { expected: "a whole number", found: token.describe() }, span)
            }
        }
    }

    /// `v`, written at `span`, if a whole number.
    fn whole(&self, v: f64, span: Span) -> Result<i64, ParseError> {
        if v.fract() == 0.0 && v < 9.0e15 {
            return Ok(v as i64);
        }
        let text = self.source[span.start.offset as usize..span.end.offset as usize].to_string();
        err(ParseErrorKind::NotAnInteger { text }, span)
    }

    /// An index: whole numbers and the run's index, joined by `+`, `-` and
    /// `*` (`i`, `i + 1`, `2*i - 1`, `3`), with an optional leading `-`.
    fn index(&mut self) -> Result<i64, ParseError> {
        let negative = self.peek()? == Token::Minus;
        if negative {
            self.next()?;
        }
        let mut sum = self.index_term()?;
        if negative {
            sum = sum.saturating_neg();
        }
        loop {
            match self.peek()? {
                Token::Plus => {
                    self.next()?;
                    sum = sum.saturating_add(self.index_term()?);
                }
                Token::Minus => {
                    self.next()?;
                    sum = sum.saturating_sub(self.index_term()?);
                }
                _ => return Ok(sum),
            }
        }
    }

    fn index_term(&mut self) -> Result<i64, ParseError> {
        let mut product = self.index_atom()?;
        while self.peek()? == Token::Star {
            self.next()?;
            product = product.saturating_mul(self.index_atom()?);
        }
        Ok(product)
    }

    fn index_atom(&mut self) -> Result<i64, ParseError> {
        match self.next()? {
            (Token::Number(v), span) => self.whole(v, span),
            (Token::Ident(name), _) if self.run.is_some_and(|r| r.index == name) => {
                Ok(self.run.map_or(0, |r| r.value))
            }
            (token, span) => {
                let expected = "an index: a whole number or a run's index, joined by '+', '-' and '*'";
                err(ParseErrorKind::Expected { expected, found: token.describe() }, span)
            }
        }
    }

    /// The entry `name[...]` read as a value; `name` is read.
    pub(super) fn entry(&mut self, name: &'s str, span: Span) -> Result<(), ParseError> {
        // A function's body sees no table of the main program.
        if self.in_function.is_some() || !self.tables.contains_key(name) {
            // An unknown name gets the error (and hint) of one.
            if self.names.get(name).is_none() && self.run.is_none_or(|r| r.index != name) {
                self.variable(name, span)?;
            }
            return err(ParseErrorKind::NotATable { name: name.into() }, span);
        }
        let (index, close) = self.indices()?;
        let span = span.to(close);
        let table = &self.tables[name];
        let at = self.position(name, table, &index, span)?;
        let node = table.node(at).ok_or_else(|| ParseError {
            kind: ParseErrorKind::UnboundEntry { entry: entry_name(name, &index) },
            span,
        })?;
        self.push_node(node, span)
    }

    /// Where entry `index` of `table` (named `name`) is, or the error.
    fn position(&self, name: &str, table: &Table, index: &[i64], span: Span) -> Result<usize, ParseError> {
        if index.len() != table.dims.len() {
            let kind = ParseErrorKind::IndexCount {
                name: name.into(),
                expected: table.dims.len(),
                found: index.len(),
            };
            return err(kind, span);
        }
        table.position(index).ok_or_else(|| {
            let (entry, shape) = (entry_name(name, index), table.shape());
            let shape = if table.kind == Kind::Bound { "at most 10,000,000 entries".into() } else { shape };
            ParseError { kind: ParseErrorKind::IndexOutOfRange { entry, name: name.into(), shape }, span }
        })
    }

    /// The entry `name[...]` an assignment, a call statement or an output
    /// binds; a new name starts a table of bound entries.
    pub(super) fn entry_target(&mut self) -> Result<Target<'s>, ParseError> {
        let (token, span) = self.next()?;
        let Token::Ident(name) = token else { unreachable!("callers peeked an identifier") };
        if !self.tables.contains_key(name) {
            if self.names.get(name).is_some() {
                return err(ParseErrorKind::NotATable { name: name.into() }, span);
            }
            self.check_new_name(name, span)?;
            self.tables.insert(name, Table::bound(span.start.offset));
        }
        let (index, close) = self.indices()?;
        let span = span.to(close);
        let table = &self.tables[name];
        let at = self.position(name, table, &index, span)?;
        let entry = || entry_name(name, &index);
        match table.kind {
            Kind::Input => err(ParseErrorKind::AssignToInput { name: entry() }, span),
            Kind::Param => err(ParseErrorKind::AssignToParameter { name: entry() }, span),
            Kind::Bound if table.node(at).is_some() => {
                let entry = entry();
                let first = span_at(self.source, table.offsets[at], entry.len());
                err(ParseErrorKind::DuplicateBinding { name: entry, first }, span)
            }
            Kind::Bound => Ok(Target::Entry { table: name, at, span }),
        }
    }

    /// Binds entry `at` of table `table` to `node`.
    pub(super) fn bind_entry(&mut self, table: &'s str, at: usize, span: Span, node: NodeId) {
        let table = self.tables.get_mut(table).expect("a target's table exists");
        table.bind(at, node, span.start.offset);
    }

    /// `sum(NAME)`: the table's entries added in order, row by row; `sum`
    /// is read and `(` is next.
    pub(super) fn table_sum(&mut self, span: Span) -> Result<(), ParseError> {
        self.next()?; // '('
        let (name, at) = match self.next()? {
            (Token::Ident(name), at) if self.tables.contains_key(name) => (name, at),
            (token, at) => {
                let expected = "the name of a table (sum(s) adds the entries of table s)";
                return err(ParseErrorKind::Expected { expected, found: token.describe() }, at);
            }
        };
        let close = match self.next()? {
            (Token::RParen, close) => close,
            (token, at) => {
                return err(ParseErrorKind::Expected { expected: "')'", found: token.describe() }, at)
            }
        };
        let table = &self.tables[name];
        if let Some(k) = table.nodes.iter().position(|&n| n == NodeId::NONE) {
            return err(ParseErrorKind::UnboundEntry { entry: entry_name(name, &[k as i64]) }, at);
        }
        let nodes = table.nodes.clone();
        let mut sum = nodes[0];
        for &node in &nodes[1..] {
            sum = self.dag.apply(Op::Add, &[sum, node]);
        }
        self.push_node(sum, span.to(close))
    }

    /// `for NAME in range(a, b)` (or `range(b)`, from 0), its body and
    /// `end`; the word `for` is read. The body is read once, then parsed
    /// for each value of the index from `a` up to `b`, `b` excluded.
    pub(super) fn run_block(&mut self, for_span: Span) -> Result<(), ParseError> {
        let (index, span) = match self.next()? {
            (Token::Ident(name), span) => (name, span),
            (token, span) => {
                return err(
                    ParseErrorKind::Expected { expected: "a run's index", found: token.describe() },
                    span,
                )
            }
        };
        self.check_new_name(index, span)?;
        for word in ["in", "range"] {
            match self.next()? {
                (Token::Ident(w), _) if w == word => {}
                (token, span) => {
                    let expected = if word == "in" { "'in range(...)'" } else { "'range(...)'" };
                    return err(ParseErrorKind::Expected { expected, found: token.describe() }, span);
                }
            }
        }
        let (bounds, _) = self.delimited([Token::LParen, Token::RParen], Self::integer)?;
        let (start, stop) = match bounds[..] {
            [stop] => (0, stop),
            [start, stop] => (start, stop),
            _ => {
                return err(
                    ParseErrorKind::WrongArity { name: "range".into(), expected: 2, found: bounds.len() },
                    span,
                )
            }
        };
        if stop <= start || (stop - start) as u64 > MAX_ENTRIES as u64 {
            return err(ParseErrorKind::RunSize { start, stop }, for_span);
        }
        self.end_statement()?;
        let (body, end) = self.run_body(for_span.start.line)?;
        let read = (body.len() - TokenStream::LOOK_AHEAD) as u64 * (stop - start) as u64;
        self.run_tokens = self.run_tokens.saturating_add(read);
        if self.run_tokens > MAX_RUN_TOKENS {
            return err(ParseErrorKind::RunsTooLong { tokens: self.run_tokens }, for_span);
        }
        let end_lexer = Lexer::starting_at(&self.source[..end.start.offset as usize], end.start);
        // The same tokens serve every value: lent to the stream and taken
        // back, copied again only if the stream read past them.
        let mut tokens = body.clone();
        for value in start..stop {
            let mut stream = TokenStream::replay(std::mem::take(&mut tokens), end_lexer);
            std::mem::swap(&mut self.tokens, &mut stream);
            self.run = Some(Run { index, value });
            let read = self.statements();
            self.run = None;
            std::mem::swap(&mut self.tokens, &mut stream);
            tokens = stream.replayed().unwrap_or_else(|| body.clone());
            read.map_err(|e| {
                let kind = ParseErrorKind::InRun { error: Box::new(e.kind), index: index.to_string(), value };
                ParseError { kind, span: e.span }
            })?;
        }
        Ok(())
    }

    /// The tokens of a run's body up to its `end` statement, which is read,
    /// and the span of that `end`. Statements a run cannot hold are errors
    /// here, before any is parsed.
    fn run_body(&mut self, line: u32) -> Result<(Vec<(Token<'s>, Span)>, Span), ParseError> {
        let mut body = vec![];
        let mut at_start = true;
        loop {
            let (token, span) = self.next()?;
            if at_start {
                let next = self.peek()?;
                let what = match token {
                    Token::Ident("end") if matches!(next, Token::End | Token::Eof) => {
                        self.end_statement()?;
                        // Room for the parser's look-ahead past the body.
                        body.extend(std::iter::repeat_n((Token::Eof, span), TokenStream::LOOK_AHEAD));
                        return Ok((body, span));
                    }
                    Token::Ident("for") if matches!(next, Token::Ident(_)) => Some("a run"),
                    Token::Ident("in") if matches!(next, Token::Ident(_)) => Some("'in'"),
                    Token::Ident("param") if matches!(next, Token::Ident(_)) => Some("'param'"),
                    Token::Ident("function") if matches!(next, Token::Ident(_)) => {
                        Some("a function definition")
                    }
                    Token::Ident(_) if next == Token::LParen => Some("a function definition"),
                    _ => None,
                };
                if let Some(what) = what {
                    return err(ParseErrorKind::NotInRun { what, line }, span);
                }
            }
            match token {
                Token::Eof => return err(ParseErrorKind::UnterminatedRun { line }, span),
                Token::End => at_start = true,
                _ => at_start = false,
            }
            body.push((token, span));
        }
    }
}
