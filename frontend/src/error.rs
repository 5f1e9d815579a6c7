//! Parse errors: a kind, a span, and a renderer that points at the source.

use crate::shown::{excerpt, Shown, ShownChar};
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
    #[error("unexpected character '{}'", ShownChar(*.0))]
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
    #[error("malformed number '{}'", Shown(.0))]
    BadNumber(String),
    /// A number too large for double precision (`1e400`): it would read as
    /// infinity, which is never what a literal means.
    #[error("the number '{}' is too large for double precision (the largest is about 1.8e308)", Shown(.0))]
    NumberOutOfRange(String),
    /// No function has this name.
    #[error("unknown function '{}'{hint}", Shown(.name))]
    UnknownFunction {
        /// The name used.
        name: String,
        /// The closest function name, if any.
        hint: DidYouMean,
    },
    /// A name that is not bound anywhere.
    #[error("unknown name '{}'{hint}", Shown(.name))]
    UnknownName {
        /// The name used.
        name: String,
        /// The closest bound name, if any.
        hint: DidYouMean,
    },
    /// A name used on a line before the line that binds it.
    #[error("'{}' is used before it is bound (on line {line})", Shown(.name))]
    UsedBeforeBound {
        /// The name used.
        name: String,
        /// The line that binds it.
        line: u32,
    },
    /// A name bound twice.
    #[error("'{}' is already bound (at {first})", Shown(.name))]
    DuplicateBinding {
        /// The name.
        name: String,
        /// The earlier binding.
        first: Span,
    },
    /// An assignment to an input.
    #[error("'{}' is an input and cannot be assigned", Shown(.name))]
    AssignToInput {
        /// The input's name.
        name: String,
    },
    /// An assignment to a parameter.
    #[error("'{}' is a parameter and cannot be assigned; its value comes with each evaluation", Shown(.name))]
    AssignToParameter {
        /// The parameter's name.
        name: String,
    },
    /// A name that is reserved: a function, a constant or a keyword.
    #[error("'{}' is {what} and cannot be used as a name", Shown(.name))]
    ReservedName {
        /// The name.
        name: String,
        /// "a function", "a constant" or "a keyword".
        what: &'static str,
    },
    /// A call with the wrong number of arguments.
    #[error("'{}' takes {expected} argument{}, found {found}", Shown(.name), if *.expected == 1 { "" } else { "s" })]
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
    #[error("'{}' is not one of the given variables", Shown(.name))]
    NotAVariable {
        /// The name used.
        name: String,
    },
    /// Expression mode: a parameter of a function called in the expression
    /// whose name the expression binds as a variable.
    #[error("'{}' is a parameter of a function called here and a variable of the expression", Shown(.name))]
    ParameterAndVariable {
        /// The name.
        name: String,
    },
    /// A `# @point` comment that does not hold one number per input.
    #[error("'# @point' gives {found} number{} for {expected} input{}", if *.found == 1 { "" } else { "s" }, if *.expected == 1 { "" } else { "s" })]
    BadPoint {
        /// Number of inputs.
        expected: usize,
        /// Numbers given.
        found: usize,
    },
    /// A second `# @point` comment: which point is meant would be a guess.
    #[error("a second '# @point' line; the first is line {first}")]
    SecondPoint {
        /// The line of the first.
        first: u32,
    },
    /// A `# @params` comment that does not hold one number per parameter.
    #[error("'# @params' gives {found} number{} for {expected} parameter{}", if *.found == 1 { "" } else { "s" }, if *.expected == 1 { "" } else { "s" })]
    BadParams {
        /// Number of parameters.
        expected: usize,
        /// Numbers given.
        found: usize,
    },
    /// A second `# @params` comment.
    #[error("a second '# @params' line; the first is line {first}")]
    SecondParams {
        /// The line of the first.
        first: u32,
    },
    /// Two outputs of the same name, one of them named by its position
    /// (`out x` is `out1`).
    #[error("two outputs are named '{}': output {other} is named so by its position", Shown(.name))]
    DuplicateOutput {
        /// The name.
        name: String,
        /// The position, from 1, of the output named by position.
        other: usize,
    },
    /// Bytes that are not UTF-8, at the span's position.
    #[error("the file is not UTF-8 text (byte 0x{byte:02x})")]
    InvalidUtf8 {
        /// The first offending byte.
        byte: u8,
    },
    /// A call of a function with several results inside an expression.
    #[error("'{}' has {count} results; bind them all with a statement such as 'a, b = {}(...)'", Shown(.name), Shown(.name))]
    SeveralResults {
        /// The function.
        name: String,
        /// Its results.
        count: usize,
    },
    /// A call statement binding another number of names than the results.
    #[error("'{}' has {expected} result{}, found {found} name{}", Shown(.name), if *.expected == 1 { "" } else { "s" }, if *.found == 1 { "" } else { "s" })]
    WrongResults {
        /// The function.
        name: String,
        /// Its results.
        expected: usize,
        /// The names given.
        found: usize,
    },
    /// `a, b = ...` whose right side is not a call of a function.
    #[error("expected a call of a function after 'a, b =', found an expression")]
    NotACall,
    /// A function defined twice.
    #[error("'{}' is already a function (defined on line {line})", Shown(.name))]
    DuplicateFunction {
        /// The name.
        name: String,
        /// The line of the first definition.
        line: u32,
    },
    /// A result a function's body never binds.
    #[error("result '{}' of '{}' is not bound in its body", Shown(.name), Shown(.function))]
    UnboundResult {
        /// The result.
        name: String,
        /// The function.
        function: String,
    },
    /// A call of the function whose body it is in.
    #[error("'{}' calls itself: recursion is not supported (a body calls only functions defined above it)", Shown(.name))]
    Recursion {
        /// The function.
        name: String,
    },
    /// A call of a function defined further down the file.
    #[error("'{}' is defined below, on line {line}; a function can only be called after (below) its definition", Shown(.name))]
    DefinedBelow {
        /// The function.
        name: String,
        /// The line of its definition.
        line: u32,
    },
    /// A statement only the main program has (`in`, `out`, `param`, a
    /// function definition) inside a function's body.
    #[error("{what} cannot appear inside function '{}' (line {line}): a body holds only 'name = expression' and 'a, b = f(...)' lines; is its 'end' missing above?", Shown(.function))]
    NotInFunction {
        /// What the statement is: "'in'", "a function definition", ...
        what: &'static str,
        /// The function whose body it is in.
        function: String,
        /// The line of the function's header.
        line: u32,
    },
    /// A function block without its `end`.
    #[error("function '{}' has no 'end'", Shown(.function))]
    Unterminated {
        /// The function.
        function: String,
    },
    /// A name a function body cannot see.
    #[error("'{}' is not an argument of '{}' nor assigned above in it; a function sees only its arguments, its own assignments and the functions defined before it{hint}", Shown(.name), Shown(.function))]
    OutsideFunction {
        /// The name used.
        name: String,
        /// The function.
        function: String,
        /// The closest name it sees, if any.
        hint: DidYouMean,
    },
    /// A function's name used as a value.
    #[error("'{}' is a function; call it as '{}(...)'", Shown(.name), Shown(.name))]
    FunctionAsValue {
        /// The name.
        name: String,
    },
    /// More nodes or inputs than the DAG can index.
    #[error("the program is too large")]
    TooLarge,
    /// A name with indices that names no table.
    #[error("'{}' is not a table; only a table (declared as 'in x[3]', or bound entry by entry as 's[i] = ...') takes indices", Shown(.name))]
    NotATable {
        /// The name.
        name: String,
    },
    /// A table's name used as one value.
    #[error("'{}' is a table; use one entry, such as '{}[0]', or all of them summed, 'sum({})'", Shown(.name), Shown(.name), Shown(.name))]
    TableAsValue {
        /// The table.
        name: String,
    },
    /// A table's entry with another number of indices than the table has.
    #[error("'{}' takes {expected} ind{}, found {found}", Shown(.name), if *.expected == 1 { "ex" } else { "ices" })]
    IndexCount {
        /// The table.
        name: String,
        /// Its indices.
        expected: usize,
        /// The indices given.
        found: usize,
    },
    /// An entry outside its table.
    #[error("'{}' is outside the table '{}' of {shape} (indices from 0)", Shown(.entry), Shown(.name))]
    IndexOutOfRange {
        /// The entry, as written with its indices' values.
        entry: String,
        /// The table.
        name: String,
        /// Its shape, `10 × 3 entries`.
        shape: String,
    },
    /// An entry of a bound table read before it is bound.
    #[error("'{}' is not bound", Shown(.entry))]
    UnboundEntry {
        /// The entry.
        entry: String,
    },
    /// A number where a whole number is needed: an index, a table's size,
    /// a run's range.
    #[error("'{}' is not a whole number: indices, table sizes and ranges are integers", Shown(.text))]
    NotAnInteger {
        /// The number as written.
        text: String,
    },
    /// A table declared with more entries than [`crate::table::MAX_ENTRIES`],
    /// or with none.
    #[error("'{}' would have {entries} entries; a table has from 1 to 10,000,000", Shown(.name))]
    TableSize {
        /// The table.
        name: String,
        /// Its entries (saturated).
        entries: String,
    },
    /// A run over no values, or over more than [`crate::table::MAX_ENTRIES`].
    #[error("range({start}, {stop}) {}", if .stop <= .start { "is empty: a run takes at least one value" } else { "has more than 10,000,000 values" })]
    RunSize {
        /// The first value.
        start: i64,
        /// One past the last value.
        stop: i64,
    },
    /// Runs that would read more than [`crate::table::MAX_RUN_TOKENS`]
    /// tokens, every value of every run counted.
    #[error("the runs up to here read {tokens} tokens written out, more than the 100,000,000 a program's runs may read")]
    RunsTooLong {
        /// Tokens read, with this run's.
        tokens: u64,
    },
    /// A run without its `end`.
    #[error("the run on line {line} has no 'end'")]
    UnterminatedRun {
        /// The line of its `for`.
        line: u32,
    },
    /// A statement a run cannot hold.
    #[error("{what} cannot appear inside the run on line {line}: a run holds only 'name[i] = expression', 'a[i], b[i] = f(...)' and 'out' lines; is its 'end' missing above?")]
    NotInRun {
        /// What the statement is: "'in'", "a function definition", ...
        what: &'static str,
        /// The line of the run's `for`.
        line: u32,
    },
    /// An error in a run's body, at one value of its index.
    #[error("{error}, where {index} = {value}")]
    InRun {
        /// The error.
        error: Box<ParseErrorKind>,
        /// The run's index.
        index: String,
        /// Its value.
        value: i64,
    },
    /// An error particular to an AMPL `.nl` file ([`crate::nl`]).
    #[error(transparent)]
    Nl(crate::nl::NlError),
}

/// An optional suggestion, displayed as `; did you mean 'sin'?`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DidYouMean(pub Option<String>);

impl fmt::Display for DidYouMean {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(s) => write!(f, "; did you mean '{}'?", Shown(s)),
            None => Ok(()),
        }
    }
}

impl DidYouMean {
    /// The candidate closest to `name` by edit distance, if close enough:
    /// at most a third of its length and never more than [`MAX_EDITS`]
    /// (a name further off is no typo), so the search is linear in the
    /// lengths of the names, whatever their size.
    pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> DidYouMean {
        let name: Vec<char> = name.chars().collect();
        let limit = (name.len() / 3).clamp(1, MAX_EDITS);
        let mut best: Option<(usize, &str)> = None;
        let mut candidate = Vec::new();
        for c in candidates {
            candidate.clear();
            candidate.extend(c.chars());
            let bound = best.map_or(limit, |(d, _)| d.saturating_sub(1));
            if let Some(d) = edit_distance_within(&name, &candidate, bound) {
                best = Some((d, c));
            }
        }
        DidYouMean(best.map(|(_, c)| c.to_string()))
    }
}

/// The most edits a suggestion may be away from the name typed.
pub const MAX_EDITS: usize = 3;

/// Edit distance over chars where an adjacent transposition costs one
/// (optimal string alignment), so `lgo` is one edit from `log`; `None` when
/// it exceeds `limit`. Only the band of cells within `limit` of the
/// diagonal can stay within it, so three rows of that band are kept:
/// O((|a| + |b|)·limit) time and O(|b|) memory.
fn edit_distance_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let over = limit + 1; // any value past the limit; cells outside the band
    let width = b.len() + 1;
    let (mut before, mut prev, mut row) = (vec![over; width], vec![over; width], vec![over; width]);
    for (j, cell) in prev.iter_mut().enumerate().take(limit + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (lo, hi) = (i.saturating_sub(limit).max(1), (i + limit).min(b.len()));
        // The cells either side of the band, read by this row and the next;
        // the band moves one cell right per row, so nothing else is stale.
        row[lo - 1] = if lo == 1 && i <= limit { i } else { over };
        if hi < b.len() {
            row[hi + 1] = over;
        }
        let mut row_min = row[lo - 1];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d.min(over);
            row_min = row_min.min(row[j]);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    Some(prev[b.len()]).filter(|&d| d <= limit)
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
    ///
    /// A long line is shown as a window around the span, and control
    /// characters escaped ([`excerpt`]). An error in binary input (a
    /// binary `.nl` file) is the message alone, at its byte offset.
    pub fn render(&self, source: &str) -> String {
        if self.span.is_binary() {
            return format!("{self}\n");
        }
        let line_no = self.span.start.line as usize;
        let text = crate::source::source_lines(source).nth(line_no.saturating_sub(1)).unwrap_or("");
        let gutter = " ".repeat(line_no.to_string().len());
        let start = self.span.start.column.max(1) as usize - 1;
        let end = if self.span.end.line == self.span.start.line {
            (self.span.end.column as usize).saturating_sub(1)
        } else {
            usize::MAX
        };
        let (shown, carets) = excerpt(text, start, end);
        format!("{self}\n{gutter} |\n{line_no} | {shown}\n{gutter} | {carets}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names() {
        assert_eq!(DidYouMean::closest("sine", ["sin", "cos"]).0.as_deref(), Some("sin"));
        assert_eq!(DidYouMean::closest("zzz", ["sin", "cos"]).0, None);
        let d = |a: &str, b: &str, limit| {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            edit_distance_within(&a, &b, limit)
        };
        assert_eq!(d("kitten", "sitting", 3), Some(3));
        assert_eq!(d("kitten", "sitting", 2), None);
        assert_eq!(d("lgo", "log", 1), Some(1));
        assert_eq!(d("", "ab", 2), Some(2));
        assert_eq!(d("abcdef", "abcdef", 0), Some(0));
    }

    /// The banded distance equals the full dynamic programme wherever that
    /// is within the limit, over generated pairs of short strings.
    #[test]
    fn banded_distance_matches_the_full_table() {
        fn full(a: &[char], b: &[char]) -> usize {
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
        let mut rng = testkit::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let (la, lb) = (rng.below(9), rng.below(9));
            let a: Vec<char> = (0..la).map(|_| char::from(b'a' + rng.below(3) as u8)).collect();
            let b: Vec<char> = (0..lb).map(|_| char::from(b'a' + rng.below(3) as u8)).collect();
            let limit = rng.below(5);
            let exact = full(&a, &b);
            let want = (exact <= limit).then_some(exact);
            assert_eq!(edit_distance_within(&a, &b, limit), want, "{a:?} {b:?} limit {limit}");
        }
    }

    /// A 100,000-char misspelling against long and short names: linear
    /// work and memory (this ran out of memory with the full table).
    #[test]
    fn long_names_are_searched_in_linear_space() {
        let long: String = "x".repeat(100_000);
        let mut typo = long.clone();
        typo.replace_range(50_000..50_001, "y");
        let hint = DidYouMean::closest(&typo, [long.as_str(), "sin", "x"]);
        assert_eq!(hint.0.as_deref(), Some(long.as_str()));
    }
}
