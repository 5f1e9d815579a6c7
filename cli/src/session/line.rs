//! Splits a REPL line into its kind: a command, a definition, or something
//! to show. Offsets are byte columns of the line, so errors can point.

use super::SessionError;

/// One line of input.
pub enum Line<'a> {
    /// Nothing but blanks or a comment.
    Empty,
    /// `:name arg`
    Command { name: &'a str, arg: &'a str, offset: usize },
    /// `name(params) = rhs` or `name = rhs`
    Define { name: &'a str, params: Option<Vec<&'a str>>, rhs: &'a str, offset: usize },
    /// An expression or derivative form to print or evaluate.
    Show { rhs: &'a str, offset: usize },
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `text` without leading blanks, and how many bytes were skipped.
fn trim_start_at(text: &str) -> (&str, usize) {
    let trimmed = text.trim_start();
    (trimmed, text.len() - trimmed.len())
}

/// Classifies a line.
pub fn parse(text: &str) -> Result<Line<'_>, SessionError> {
    let body = text.split('#').next().unwrap_or("").trim_end();
    let (body, lead) = trim_start_at(body);
    if body.is_empty() {
        return Ok(Line::Empty);
    }
    if let Some(rest) = body.strip_prefix(':') {
        let (name, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let (arg, skip) = trim_start_at(arg);
        let offset = lead + 1 + name.len() + (rest.len() - name.len()).min(1) + skip;
        return Ok(Line::Command { name, arg, offset });
    }
    // A definition: the first '=' at depth 0 that is not part of a comparison.
    if let Some(eq) = definition_sign(body) {
        let lhs = body[..eq].trim_end();
        let (rhs, skip) = trim_start_at(&body[eq + 1..]);
        let offset = lead + eq + 1 + skip;
        if rhs.is_empty() {
            return Err(SessionError::at("expected an expression after '='", offset, offset + 1));
        }
        if is_ident(lhs) {
            return Ok(Line::Define { name: lhs, params: None, rhs, offset });
        }
        if let Some((name, args, _)) = call(lhs) {
            let params: Vec<&str> = args.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
            if is_ident(name) && params.iter().all(|p| is_ident(p)) {
                return Ok(Line::Define { name, params: Some(params), rhs, offset });
            }
        }
        return Err(SessionError::at(
            "the left side of '=' must be a name or name(x, y, ...)",
            lead,
            lead + lhs.len(),
        ));
    }
    Ok(Line::Show { rhs: body, offset: lead })
}

/// The byte index of a definition's `=`: not `==`, `<=`, `>=`, `!=`, and not
/// inside parentheses.
fn definition_sign(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' if depth == 0 => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + 1).copied();
                if !matches!(before, Some(b'=' | b'<' | b'>' | b'!')) && after != Some(b'=') {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `name(args)` spanning all of `text`: the name, the text between the
/// parentheses, and the byte offset of that text.
pub fn call(text: &str) -> Option<(&str, &str, usize)> {
    let open = text.find('(')?;
    let name = text[..open].trim();
    if !is_ident(name) || !text.ends_with(')') {
        return None;
    }
    let close = matching_paren(text, open)?;
    (close == text.len() - 1).then(|| (name, &text[open + 1..close], open + 1))
}

/// The index of the parenthesis or bracket closing the one at `open`.
pub fn matching_paren(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits at `sep` outside parentheses and brackets; each part comes with its
/// byte offset in `text`.
pub fn split_top_level(text: &str, sep: char) -> Vec<(&str, usize)> {
    let mut parts = vec![];
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push((&text[start..i], start));
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push((&text[start..], start));
    parts
        .into_iter()
        .map(|(p, at)| {
            let (t, skip) = trim_start_at(p);
            (t.trim_end(), at + skip)
        })
        .collect()
}
