//! Parse errors: a kind, a span, and a renderer that points at the source.

use crate::span::Span;
use std::fmt;

/// An error in a problem file or expression, with where it happened.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{span}: {kind}")]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// Where.
    pub span: Span,
}

/// What went wrong while parsing.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseErrorKind {
    /// A character that starts no token.
    #[error("unexpected character '{0}'")]
    UnexpectedChar(char),
    /// A token where another was expected.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows here.
        expected: &'static str,
        /// What the source has.
        found: String,
    },
    /// A number that does not parse.
    #[error("malformed number '{0}'")]
    BadNumber(String),
    /// No function has this name.
    #[error("unknown function '{name}'{hint}")]
    UnknownFunction {
        /// The name used.
        name: String,
        /// The closest function name, if any.
        hint: DidYouMean,
    },
    /// A name that is not bound anywhere.
    #[error("unknown name '{name}'{hint}")]
    UnknownName {
        /// The name used.
        name: String,
        /// The closest bound name, if any.
        hint: DidYouMean,
    },
    /// A name used on a line before the line that binds it.
    #[error("'{name}' is used before it is bound (on line {line})")]
    UsedBeforeBound {
        /// The name used.
        name: String,
        /// The line that binds it.
        line: u32,
    },
    /// A name bound twice.
    #[error("'{name}' is already bound (at {first})")]
    DuplicateBinding {
        /// The name.
        name: String,
        /// The earlier binding.
        first: Span,
    },
    /// An assignment to an input.
    #[error("'{name}' is an input and cannot be assigned")]
    AssignToInput {
        /// The input's name.
        name: String,
    },
    /// A name that is reserved: a function, a constant or a keyword.
    #[error("'{name}' is {what} and cannot be used as a name")]
    ReservedName {
        /// The name.
        name: String,
        /// "a function", "a constant" or "a keyword".
        what: &'static str,
    },
    /// A call with the wrong number of arguments.
    #[error("'{name}' takes {expected} argument{}, found {found}", if *.expected == 1 { "" } else { "s" })]
    WrongArity {
        /// The function.
        name: String,
        /// Its arity.
        expected: usize,
        /// The number given.
        found: usize,
    },
    /// A comparison outside the first argument of `ifelse`.
    #[error("a comparison is only allowed as the first argument of ifelse")]
    MisplacedComparison,
    /// `ifelse` whose first argument is not a comparison.
    #[error("the first argument of ifelse must be a comparison such as 'x < y'")]
    MissingComparison,
    /// An opening parenthesis never closed.
    #[error("unclosed '('")]
    Unclosed,
    /// A closing parenthesis without an opening one.
    #[error("unmatched ')'")]
    Unmatched,
    /// A program without outputs.
    #[error("the program has no outputs; add a line such as 'out y = x^2'")]
    NoOutputs,
    /// A program without inputs.
    #[error("the program has no inputs; declare them with a line such as 'in x, y'")]
    NoInputs,
    /// An input declared after statements that use names.
    #[error("inputs must be declared before the first assignment or output")]
    LateInput,
    /// Expression mode: a given variable list that lacks a used name.
    #[error("'{name}' is not one of the given variables")]
    NotAVariable {
        /// The name used.
        name: String,
    },
    /// A `# @point` comment that does not hold one number per input.
    #[error("'# @point' gives {found} numbers for {expected} input{}", if *.expected == 1 { "" } else { "s" })]
    BadPoint {
        /// Number of inputs.
        expected: usize,
        /// Numbers given.
        found: usize,
    },
    /// More nodes or inputs than the DAG can index.
    #[error("the program is too large")]
    TooLarge,
}

/// An optional suggestion, displayed as `; did you mean 'sin'?`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DidYouMean(pub Option<String>);

impl fmt::Display for DidYouMean {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(s) => write!(f, "; did you mean '{s}'?"),
            None => Ok(()),
        }
    }
}

impl DidYouMean {
    /// The candidate closest to `name` by edit distance, if close enough.
    pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> DidYouMean {
        let limit = (name.chars().count() / 3).max(1);
        let best = candidates
            .into_iter()
            .map(|c| (edit_distance(name, c), c))
            .filter(|(d, _)| *d <= limit)
            .min_by_key(|(d, _)| *d);
        DidYouMean(best.map(|(_, c)| c.to_string()))
    }
}

/// Edit distance over chars where an adjacent transposition costs one
/// (optimal string alignment), so `lgo` is one edit from `log`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for j in 0..=b.len() {
        d[0][j] = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j - 1] + cost).min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

impl ParseError {
    /// The message, then the source line and a `^^^` under the span:
    ///
    /// ```text
    /// 3:9: unknown function 'sine'; did you mean 'sin'?
    ///   |
    /// 3 | out y = sine(x)
    ///   |         ^^^^
    /// ```
    pub fn render(&self, source: &str) -> String {
        let line_no = self.span.start.line as usize;
        let text = source.lines().nth(line_no.saturating_sub(1)).unwrap_or("");
        let gutter = " ".repeat(line_no.to_string().len());
        let col = self.span.start.column.max(1) as usize;
        let width = if self.span.end.line == self.span.start.line {
            (self.span.end.column as usize).saturating_sub(col).max(1)
        } else {
            text.chars().count().saturating_sub(col - 1).max(1)
        };
        let pad: String = text.chars().take(col - 1).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        format!("{self}\n{gutter} |\n{line_no} | {text}\n{gutter} | {pad}{}\n", "^".repeat(width))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        assert_eq!(DidYouMean::closest("sine", ["sin", "cos"]).0.as_deref(), Some("sin"));
        assert_eq!(DidYouMean::closest("zzz", ["sin", "cos"]).0, None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("lgo", "log"), 1);
    }
}
