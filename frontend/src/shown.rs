//! User text as error messages show it. A message quotes names, tokens and
//! the source line it points at; whatever the input, it stays a few lines
//! of plain text: long text is clipped to a window (a 100,000-character
//! line or name is not printed whole, nor a caret line as long), and
//! control characters are escaped (`\u{1b}`), so that a file cannot drive
//! the terminal it is reported on.

use std::fmt;

/// Characters of a quoted name or token shown at most, an ellipsis after.
pub const MAX_QUOTED: usize = 60;

/// Characters of a source line shown at most around the place an error
/// points at.
pub const MAX_LINE: usize = 100;

/// Characters kept before that place when a long line is clipped.
const BEFORE: usize = 40;

/// `text` quoted in a message: at most [`MAX_QUOTED`] characters, then
/// `…`; control characters escaped.
///
/// ```
/// use frontend::shown::Shown;
/// assert_eq!(Shown("x\u{1b}[31m").to_string(), "x\\u{1b}[31m");
/// assert_eq!(Shown(&"y".repeat(1000)).to_string().chars().count(), 61);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(MAX_QUOTED) {
            write!(f, "{}", ShownChar(c))?;
        }
        if chars.next().is_some() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

/// Names listed in a message, `x, y, z`: at most [`MAX_LISTED`] of them
/// (the first ones, `…` and the last), each as [`Shown`], so that a list of
/// a 10,000-input function's inputs stays short.
///
/// ```
/// let names: Vec<String> = (0..100).map(|i| format!("x{i}")).collect();
/// assert_eq!(frontend::shown::list(&names[..2]), "x0, x1");
/// assert_eq!(frontend::shown::list(&names), "x0, x1, x2, x3, x4, x5, x6, …, x99");
/// ```
pub fn list(names: &[String]) -> String {
    let shown = |name: &String| Shown(name).to_string();
    if names.len() <= MAX_LISTED {
        return names.iter().map(shown).collect::<Vec<_>>().join(", ");
    }
    let first: Vec<String> = names[..MAX_LISTED - 1].iter().map(shown).collect();
    format!("{}, …, {}", first.join(", "), shown(&names[names.len() - 1]))
}

/// Names a list in a message shows at most.
pub const MAX_LISTED: usize = 8;

/// One character in a message: itself, or escaped if it is a control
/// character (a tab too: in a quotation it would read as spaces).
#[derive(Debug, Clone, Copy)]
pub struct ShownChar(pub char);

impl fmt::Display for ShownChar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_control() {
            write!(f, "{}", self.0.escape_default())
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// The source line `line` as printed under a message, and the caret line
/// beneath it that marks characters `start..end` (counted in `char`s from
/// 0; `end` past the line is clipped, at least one caret is drawn, and
/// `start` may be the line's end). A line longer than [`MAX_LINE`]
/// characters is shown as a window around `start`, `…` where it is cut.
/// Control characters are escaped, except tabs, which stay tabs in both
/// lines so that the caret lines up under them.
///
/// ```
/// let (shown, carets) = frontend::shown::excerpt("out y = sine(x)", 8, 12);
/// assert_eq!(shown, "out y = sine(x)");
/// assert_eq!(carets, "        ^^^^");
/// ```
pub fn excerpt(line: &str, start: usize, end: usize) -> (String, String) {
    let len = line.chars().count();
    let start = start.min(len);
    let (from, to) = if len <= MAX_LINE {
        (0, len)
    } else {
        let from = start.saturating_sub(BEFORE).min(len - MAX_LINE);
        (from, from + MAX_LINE)
    };
    let end = end.clamp(start + 1, to.max(start + 1));
    let (mut shown, mut carets) = (String::new(), String::new());
    if from > 0 {
        shown.push('…');
        carets.push(' ');
    }
    for (i, c) in line.chars().enumerate().skip(from).take(to - from) {
        let text = if c == '\t' { "\t".to_string() } else { ShownChar(c).to_string() };
        let mark = match (i >= start && i < end, c == '\t') {
            (true, _) => "^",
            (false, true) => "\t",
            (false, false) => " ",
        };
        for _ in 0..text.chars().count() {
            carets.push_str(mark);
        }
        shown.push_str(&text);
    }
    if to < len {
        shown.push('…');
    }
    // Carets past the text: at the line's end.
    for _ in to.max(start)..end {
        carets.push('^');
    }
    (shown, carets.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_whole() {
        assert_eq!(excerpt("x + y", 4, 5), ("x + y".to_string(), "    ^".to_string()));
        // The end of the line.
        assert_eq!(excerpt("x +", 3, 3), ("x +".to_string(), "   ^".to_string()));
        assert_eq!(excerpt("", 0, 0), (String::new(), "^".to_string()));
        // Tabs stay tabs under the text.
        assert_eq!(excerpt("\tx\t+ y", 3, 4), ("\tx\t+ y".to_string(), "\t \t^".to_string()));
    }

    #[test]
    fn control_characters_are_escaped_and_carets_follow() {
        let (shown, carets) = excerpt("x \u{1b}[31m+", 2, 3);
        assert_eq!(shown, "x \\u{1b}[31m+");
        assert_eq!(carets, "  ^^^^^^");
        let (_, carets) = excerpt("\u{7}\u{7} y", 3, 4);
        assert_eq!(carets, format!("{}^", " ".repeat(11)));
    }

    /// Every place in lines of every length up to well past the window:
    /// at most `MAX_LINE` characters and two ellipses shown, the carets
    /// under the characters they mark.
    #[test]
    fn long_lines_are_clipped_around_the_place() {
        for len in [0, 1, 50, MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, 3 * MAX_LINE, 100_000] {
            let line: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let places = [0, 1, BEFORE, len / 2, len.saturating_sub(1), len];
            for start in places {
                for end in [start, start + 1, start + 7, len + 5] {
                    let (shown, carets) = excerpt(&line, start, end);
                    assert!(shown.chars().count() <= MAX_LINE + 2, "{len} {start}");
                    assert!(carets.chars().count() <= MAX_LINE + 2, "{len} {start} {end}");
                    let first = carets.find('^').expect("a caret");
                    let marked: String = shown.chars().skip(first).take(1).collect();
                    let want = line.chars().nth(start).map(String::from).unwrap_or_default();
                    assert_eq!(marked, want, "{len} {start} {end}: {shown} / {carets}");
                }
            }
        }
    }

    #[test]
    fn quotations_are_clipped_and_escaped() {
        assert_eq!(Shown("sin").to_string(), "sin");
        assert_eq!(Shown(&"y".repeat(MAX_QUOTED)).to_string(), "y".repeat(MAX_QUOTED));
        assert_eq!(Shown(&"y".repeat(MAX_QUOTED + 1)).to_string(), format!("{}…", "y".repeat(MAX_QUOTED)));
        assert_eq!(Shown("a\tb\u{7}").to_string(), "a\\tb\\u{7}");
        assert_eq!(ShownChar('\u{1b}').to_string(), "\\u{1b}");
        assert_eq!(ShownChar('é').to_string(), "é");
    }
}
