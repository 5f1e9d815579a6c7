//! A REPL line as typed statements, read with the frontend's lexer: every
//! span is the lexer's (char columns), so carets line up with the frontend's.
//!
//! Only the shape of a statement is read here (which tokens are the name, the
//! arguments, the body, a derivative form and its arguments); expressions
//! are parsed by the frontend over the spans found here. Brackets are matched
//! with a counter, never by recursion, so any nesting depth is safe.

use super::SessionError;
use dstar::frontend::lexer::{Lexer, Token};
use dstar::frontend::{ParseError, Pos, Span};

/// The names of the derivative forms; none can be defined.
pub const FORMS: [&str; 5] = ["diff", "grad", "jacobian", "hessian", "taylor"];

/// How deep derivative forms may nest (`diff(diff(f, x), y)` is 2).
pub const MAX_NESTED_FORMS: usize = 64;

/// The tokens of (a part of) one line, with their spans in the line.
///
/// Lexing stops at the first bad character; that error is kept, and the
/// statement holding it reaches to the end of the text, so the frontend,
/// which parses it, reports the first error in its own order, as it would
/// for the same text anywhere else.
pub struct Line<'s> {
    /// The whole line.
    pub text: &'s str,
    tokens: Vec<(Token<'s>, Span)>,
    /// Where the lexed text ends.
    end: Pos,
    /// The lexing error that stopped the tokens, if any.
    error: Option<ParseError>,
}

/// Tokens `start..end` of a [`Line`]: an expression, or the arguments of a
/// call. Empty only at the end of a line that failed to lex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    start: usize,
    end: usize,
}

/// A variable of a derivative form and its order.
#[derive(Clone, Copy, Debug)]
pub struct By<'s> {
    pub var: Name<'s>,
    pub order: u64,
    /// Whether an order could have been written where `var` is: it follows
    /// a variable whose order is not written (`two` in `diff(f, x, two)`),
    /// so a name that is no variable may have been meant as an order.
    pub in_order_place: bool,
}

/// A name and where it is written.
#[derive(Clone, Copy, Debug)]
pub struct Name<'s> {
    pub text: &'s str,
    pub span: Span,
}

/// One statement of a line.
pub enum Statement<'s> {
    /// `:name arg`: the rest of the line is the command's.
    Command { name: &'s str, name_span: Span, arg: &'s str, arg_start: Pos },
    /// `param a = 1, b`: parameters declared, each with its value if given.
    Param(Vec<(Name<'s>, Option<Part>)>),
    /// `f(x, y) = body` or `g = body`.
    Define { name: Name<'s>, args: Option<Vec<Name<'s>>>, body: Part },
    /// `f(1, 2)`: evaluated through a kernel when `f` is a definition and
    /// the arguments are numbers, else shown as an expression.
    Call { name: Name<'s>, args: Args, whole: Part },
    /// A derivative form alone, or applied to a point: `jacobian(f)(1, 2)`.
    Form { form: Form<'s>, point: Option<Args> },
    /// Any other expression, shown.
    Show(Part),
}

/// The arguments between a pair of parentheses.
pub struct Args {
    /// Each argument; empty for `()`.
    pub items: Vec<Part>,
    /// From the opening to the closing parenthesis.
    pub span: Span,
}

/// Which derivative form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormName {
    Diff,
    Grad,
    Jacobian,
    Hessian,
    Taylor,
}

impl FormName {
    fn of(name: &str) -> Option<FormName> {
        Some(match name {
            "diff" => FormName::Diff,
            "grad" => FormName::Grad,
            "jacobian" => FormName::Jacobian,
            "hessian" => FormName::Hessian,
            "taylor" => FormName::Taylor,
            _ => return None,
        })
    }

    /// How the form is written.
    pub fn word(self) -> &'static str {
        match self {
            FormName::Diff => "diff",
            FormName::Grad => "grad",
            FormName::Jacobian => "jacobian",
            FormName::Hessian => "hessian",
            FormName::Taylor => "taylor",
        }
    }

    /// Whether the form gives one expression (`diff`, `taylor`), which can
    /// be part of a larger one.
    pub fn is_scalar(self) -> bool {
        matches!(self, FormName::Diff | FormName::Taylor)
    }

    fn usage(self) -> &'static str {
        match self {
            FormName::Diff => "diff(f, x), diff(f, x, order) or diff(f, x, order, y, order, ...)",
            FormName::Grad => "grad(f)",
            FormName::Jacobian => "jacobian(f) or jacobian([f, g, ...])",
            FormName::Hessian => "hessian(f)",
            FormName::Taylor => "taylor(f, x, a, order)",
        }
    }
}

/// A derivative form as written: `diff(f, x, 2, y)`, `grad(f)`,
/// `jacobian([f, g])`, `hessian(f)`, `taylor(f, x, 0, 5)`. The functions
/// are expressions.
#[derive(Clone, Debug)]
pub struct Form<'s> {
    pub name: FormName,
    /// The functions: one, or a Jacobian's list.
    pub functions: Vec<Part>,
    /// The variables of `diff` (a mixed partial differentiates by each in
    /// turn) or `taylor`, each with its order.
    pub by: Vec<By<'s>>,
    /// Where `taylor` expands: a constant expression.
    pub at: Option<Part>,
    /// From the form's name to its closing parenthesis.
    pub whole: Part,
}

/// A token as a cache key: typed, and blind to spacing and comments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Atom {
    Name(String),
    Number(u64),
    Symbol(&'static str),
}

impl<'s> Line<'s> {
    /// The tokens of `text[start.offset..end]`, spans in `text`.
    pub fn lex(text: &'s str, start: Pos, end: usize) -> Line<'s> {
        let mut lexer = Lexer::starting_at(&text[..end], start);
        let mut tokens = vec![];
        let error = loop {
            match lexer.next_token() {
                Ok((Token::Eof, _)) => break None,
                Ok(token) => tokens.push(token),
                Err(e) => break Some(e),
            }
        };
        Line { text, tokens, end: pos_at(text, end), error }
    }

    /// An error of the statement parser, or the lexing error if there is
    /// one: what the statement parser saw was then cut short.
    fn fail(&self, e: SessionError) -> SessionError {
        match &self.error {
            Some(lexing) => SessionError::from_parse(lexing.clone()),
            None => e,
        }
    }

    /// Every token of the line, if there are any.
    pub fn all(&self) -> Option<Part> {
        (!self.tokens.is_empty() || self.error.is_some()).then_some(Part { start: 0, end: self.tokens.len() })
    }

    /// The span of `part`'s text.
    pub fn span(&self, part: Part) -> Span {
        let start = match &self.error {
            Some(e) if part.start == part.end => e.span.start,
            _ => self.tokens[part.start].1.start,
        };
        // A statement reaches to its `;` or the end of the text, blanks and
        // comments included, as it would for the frontend alone.
        let end = match self.tokens.get(part.end) {
            None => self.end,
            Some((Token::End, span)) => span.start,
            Some(_) => self.tokens[part.end - 1].1.end,
        };
        Span { start, end }
    }

    /// The source text of `part`, without blanks around it.
    pub fn text_of(&self, part: Part) -> &'s str {
        let span = self.span(part);
        self.text[span.start.offset as usize..span.end.offset as usize].trim()
    }

    /// `part` as cache-key atoms.
    pub fn atoms(&self, part: Part) -> Vec<Atom> {
        self.tokens[part.start..part.end].iter().map(|(t, _)| atom(*t)).collect()
    }

    fn token(&self, i: usize) -> Option<Token<'s>> {
        self.tokens.get(i).map(|t| t.0)
    }

    fn ident(&self, i: usize) -> Option<Name<'s>> {
        match self.tokens.get(i) {
            Some(&(Token::Ident(text), span)) => Some(Name { text, span }),
            _ => None,
        }
    }

    /// The index of the bracket closing the one at `open`, before `end`.
    fn closing(&self, open: usize, end: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in open..end {
            match self.tokens[i].0 {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Splits tokens `start..end` at the commas outside brackets.
    fn split_commas(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let mut parts = vec![];
        let (mut depth, mut from) = (0usize, start);
        for i in start..end {
            match self.tokens[i].0 {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
                Token::Comma if depth == 0 => {
                    parts.push((from, i));
                    from = i + 1;
                }
                _ => {}
            }
        }
        parts.push((from, end));
        parts
    }

    /// The arguments between the parenthesis at `open` and its match `close`.
    fn args(&self, open: usize, close: usize) -> Result<Args, SessionError> {
        let span = self.tokens[open].1.to(self.tokens[close].1);
        if close == open + 1 {
            return Ok(Args { items: vec![], span });
        }
        let mut items = vec![];
        for (start, end) in self.split_commas(open + 1, close) {
            if start == end {
                let at = self.tokens[start.min(close)].1;
                return Err(SessionError::at_span("expected an argument", at));
            }
            items.push(Part { start, end });
        }
        Ok(Args { items, span })
    }

    /// The statements of the line, split at `;`.
    pub fn statements(&self) -> Result<Vec<Statement<'s>>, SessionError> {
        let mut statements = vec![];
        let mut start = 0;
        for i in 0..=self.tokens.len() {
            if i == self.tokens.len() || self.tokens[i].0 == Token::End {
                let last = i == self.tokens.len() && self.error.is_some();
                if i > start || last {
                    statements
                        .push(self.statement(start, i).map_err(|e| if last { self.fail(e) } else { e })?);
                }
                start = i + 1;
            }
        }
        Ok(statements)
    }

    fn statement(&self, start: usize, end: usize) -> Result<Statement<'s>, SessionError> {
        let whole = Part { start, end };
        if start == end {
            return Ok(Statement::Show(whole)); // the bad character alone
        }
        // `param a, b = 1`; `param = 1` and `param(x) = 1` are definitions, refused.
        let declares =
            start + 1 < end && !matches!(self.token(start + 1), Some(Token::Assign | Token::LParen));
        if self.ident(start).is_some_and(|n| n.text == "param") && declares {
            return self.param(start + 1, end);
        }
        if let Some(assign) = self.assignment(start, end) {
            return self.definition(start, assign, end);
        }
        let (Some(name), Some(Token::LParen)) = (self.ident(start), self.token(start + 1)) else {
            return Ok(Statement::Show(whole));
        };
        let close = self.closing(start + 1, end);
        if let Some(form_name) = FormName::of(name.text) {
            let Some(close) = close else {
                return Err(SessionError::at_span("unclosed '('", self.tokens[start + 1].1));
            };
            let form = self.form(form_name, start, close)?;
            if close + 1 == end {
                return Ok(Statement::Form { form, point: None });
            }
            let open = close + 1;
            if self.token(open) == Some(Token::LParen) && self.closing(open, end) == Some(end - 1) {
                return Ok(Statement::Form { form, point: Some(self.args(open, end - 1)?) });
            }
            if form_name.is_scalar() {
                return Ok(Statement::Show(whole)); // `diff(f, x) + 1` is an expression
            }
            let rest = self.span(Part { start: open, end });
            return Err(SessionError::at_span("expected '(' and a point after the derivative", rest));
        }
        // Anything else, such as an empty argument, the frontend reports.
        match close.filter(|&c| c + 1 == end).map(|c| self.args(start + 1, c)) {
            Some(Ok(args)) => Ok(Statement::Call { name, args, whole }),
            _ => Ok(Statement::Show(whole)),
        }
    }

    /// The index of a definition's `=`: the first outside brackets.
    fn assignment(&self, start: usize, end: usize) -> Option<usize> {
        let mut depth = 0usize;
        (start..end).find(|&i| {
            match self.tokens[i].0 {
                Token::LParen | Token::LBracket => depth += 1,
                Token::RParen | Token::RBracket => depth = depth.saturating_sub(1),
                Token::Assign => return depth == 0,
                _ => {}
            }
            false
        })
    }

    fn definition(&self, start: usize, assign: usize, end: usize) -> Result<Statement<'s>, SessionError> {
        let lhs_error = || {
            let span =
                if assign == start { self.tokens[assign].1 } else { self.span(Part { start, end: assign }) };
            SessionError::at_span("the left side of '=' must be a name or name(x, y, ...)", span)
        };
        let name = self.ident(start).ok_or_else(lhs_error)?;
        let args = if assign == start + 1 {
            None
        } else {
            let close = assign - 1;
            if self.token(start + 1) != Some(Token::LParen) || self.token(close) != Some(Token::RParen) {
                return Err(lhs_error());
            }
            let mut args = vec![];
            if close > start + 2 {
                for (i, j) in self.split_commas(start + 2, close) {
                    match self.ident(i) {
                        Some(a) if j == i + 1 => args.push(a),
                        _ => return Err(lhs_error()),
                    }
                }
            }
            Some(args)
        };
        if assign + 1 == end {
            return Err(SessionError::at_span("expected an expression after '='", self.tokens[assign].1));
        }
        Ok(Statement::Define { name, args, body: Part { start: assign + 1, end } })
    }

    /// The rest of `param a = 1, b`, tokens `start..end`: each name with
    /// its value, if given.
    fn param(&self, start: usize, end: usize) -> Result<Statement<'s>, SessionError> {
        let mut items = vec![];
        for (i, j) in self.split_commas(start, end) {
            let Some(name) = self.ident(i).filter(|_| i < j) else {
                let at =
                    if i < j { self.span(Part { start: i, end: j }) } else { self.tokens[i.min(end - 1)].1 };
                return Err(SessionError::at_span("expected a parameter name", at));
            };
            let value = match self.token(i + 1) {
                _ if j == i + 1 => None,
                Some(Token::Assign) if j > i + 2 => Some(Part { start: i + 2, end: j }),
                Some(Token::Assign) => {
                    return Err(SessionError::at_span("expected a value after '='", self.tokens[i + 1].1))
                }
                _ => {
                    let rest = self.span(Part { start: i + 1, end: j });
                    return Err(SessionError::at_span("expected '=' and a value, or ','", rest));
                }
            };
            items.push((name, value));
        }
        Ok(Statement::Param(items))
    }

    /// The form whose name is token `start` and whose parentheses close at
    /// `close`.
    fn form(&self, name: FormName, start: usize, close: usize) -> Result<Form<'s>, SessionError> {
        let whole = Part { start, end: close + 1 };
        let usage = || SessionError::at_span(format!("usage: {}", name.usage()), self.span(whole));
        let args = self.args(start + 1, close).map_err(|_| usage())?.items;
        let variable = |part: &Part| match (self.ident(part.start), part.end - part.start) {
            (Some(v), 1) => Ok(v),
            _ => Err(SessionError::at_span("expected a variable name", self.span(*part))),
        };
        let (functions, by, at) = match (name, args.as_slice()) {
            (FormName::Diff, [f, rest @ ..]) if !rest.is_empty() => {
                // Variables, each followed by its order unless that is 1:
                // anything but a name after a variable is an order.
                let is_name = |part: &Part| part.end - part.start == 1 && self.ident(part.start).is_some();
                let mut by = vec![];
                let mut i = 0;
                let mut in_order_place = false;
                while i < rest.len() {
                    let var = variable(&rest[i])?;
                    let (order, written) = match rest.get(i + 1) {
                        Some(order) if !is_name(order) => {
                            i += 1;
                            (self.order(*order)?, true)
                        }
                        _ => (1, false),
                    };
                    by.push(By { var, order, in_order_place });
                    in_order_place = !written;
                    i += 1;
                }
                (vec![*f], by, None)
            }
            (FormName::Taylor, [f, var, at, order]) => {
                let by = By { var: variable(var)?, order: self.order(*order)?, in_order_place: false };
                (vec![*f], vec![by], Some(*at))
            }
            (FormName::Jacobian, [list]) => (self.list(*list)?, vec![], None),
            (FormName::Grad | FormName::Hessian, [f]) => (vec![*f], vec![], None),
            _ => return Err(usage()),
        };
        Ok(Form { name, functions, by, at, whole })
    }

    /// `[f, g, ...]` as its items, or any other expression as itself.
    fn list(&self, part: Part) -> Result<Vec<Part>, SessionError> {
        if self.token(part.start) != Some(Token::LBracket)
            || self.closing(part.start, part.end) != Some(part.end - 1)
        {
            return Ok(vec![part]);
        }
        let args = self.args(part.start, part.end - 1)?;
        if args.items.is_empty() {
            return Err(SessionError::at_span("expected at least one function", args.span));
        }
        Ok(args.items)
    }

    /// A derivative's order ([`crate::commands::order`]).
    fn order(&self, part: Part) -> Result<u64, SessionError> {
        crate::commands::order(self.text_of(part))
            .map_err(|message| SessionError::at_span(message, self.span(part)))
    }

    /// The derivative forms in `part`, innermost first: each comes before
    /// any form that holds it. Each form's function is parsed once per form
    /// around it, so nesting is bounded by [`MAX_NESTED_FORMS`].
    pub fn forms_inside(&self, part: Part) -> Result<Vec<Form<'s>>, SessionError> {
        let mut forms = vec![];
        // The open brackets: each with the form it starts, if any.
        let mut open: Vec<Option<(FormName, usize)>> = vec![];
        let mut depth = 0;
        for i in part.start..part.end {
            match self.tokens[i].0 {
                Token::LParen | Token::LBracket => {
                    let form = match (i.checked_sub(1).and_then(|j| self.ident(j)), self.tokens[i].0) {
                        (Some(name), Token::LParen) if i > part.start => {
                            FormName::of(name.text).map(|f| (f, i - 1))
                        }
                        _ => None,
                    };
                    if form.is_some() {
                        depth += 1;
                        if depth > MAX_NESTED_FORMS {
                            let message = format!("derivative forms nest at most {MAX_NESTED_FORMS} deep");
                            return Err(SessionError::at_span(message, self.tokens[i - 1].1));
                        }
                    }
                    open.push(form);
                }
                Token::RParen | Token::RBracket => {
                    if let Some(Some((name, start))) = open.pop() {
                        depth -= 1;
                        forms.push(self.form(name, start, i).map_err(|e| self.fail(e))?);
                    }
                }
                _ => {}
            }
        }
        if let Some(Some((_, start))) = open.iter().find(|f| f.is_some()) {
            return Err(self.fail(SessionError::at_span("unclosed '('", self.tokens[start + 1].1)));
        }
        Ok(forms)
    }
}

fn atom(token: Token<'_>) -> Atom {
    Atom::Symbol(match token {
        Token::Ident(name) => return Atom::Name(name.to_string()),
        Token::Number(v) => return Atom::Number(v.to_bits()),
        Token::Cmp(c) => c.symbol(),
        Token::Plus => "+",
        Token::Minus => "-",
        Token::Star => "*",
        Token::Slash => "/",
        Token::Caret => "^",
        Token::LParen => "(",
        Token::RParen => ")",
        Token::LBracket => "[",
        Token::RBracket => "]",
        Token::Comma => ",",
        Token::Assign => "=",
        Token::Arrow => "->",
        Token::End | Token::Eof => ";",
    })
}

/// The position of byte `offset` of a one-line `text`.
pub fn pos_at(text: &str, offset: usize) -> Pos {
    Pos { offset: offset as u32, line: 1, column: text[..offset].chars().count() as u32 + 1 }
}

/// Reads a line: a command, or statements separated by `;`.
pub fn parse(text: &str) -> Result<(Line<'_>, Vec<Statement<'_>>), SessionError> {
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix(':') {
        let at = text.len() - rest.len();
        let name_len = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let name = &rest[..name_len];
        let arg = rest[name_len..].split('#').next().unwrap_or("");
        let arg_offset = at + name_len + (arg.len() - arg.trim_start().len());
        let arg = arg.trim();
        let name_span = Span { start: pos_at(text, at - 1), end: pos_at(text, at + name_len) };
        let line = Line { text, tokens: vec![], end: pos_at(text, text.len()), error: None };
        let command = Statement::Command { name, name_span, arg, arg_start: pos_at(text, arg_offset) };
        return Ok((line, vec![command]));
    }
    let line = Line::lex(text, pos_at(text, 0), text.len());
    let statements = line.statements()?;
    Ok((line, statements))
}
