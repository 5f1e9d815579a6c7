//! Names of emitted functions: identifiers of the target language only, so
//! a name can never inject code into the emitted source.

use crate::error::CodegenError;

/// C99 keywords (and `_Bool`-era reserved words).
pub(crate) const C_KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "_Imaginary",
];

/// Rust's strict and reserved keywords.
pub(crate) const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try", "typeof",
    "unsized", "virtual", "yield",
];

/// The helpers emitted beside a kernel, in C and in Rust.
const HELPERS: &[&str] = &["dstar_min", "dstar_max", "dstar_sign", "dstar_functions"];

/// Checks that `name` is an ASCII identifier of `language`, not one of its
/// `keywords` and not the name of an emitted helper.
pub(crate) fn check_name(name: &str, language: &'static str, keywords: &[&str]) -> Result<(), CodegenError> {
    let invalid = |reason| Err(CodegenError::InvalidName { name: name.to_string(), language, reason });
    let mut chars = name.chars();
    let Some(first) = chars.next() else { return invalid("it is empty") };
    if !(first.is_ascii_alphabetic() || first == '_') || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return invalid("only ASCII letters, digits and '_' are allowed, not starting with a digit");
    }
    if keywords.contains(&name) {
        return invalid("it is a keyword");
    }
    if HELPERS.contains(&name) {
        return invalid("an emitted helper has that name");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_identifiers_pass() {
        for good in ["f", "_kernel", "jacobian_2", "F00", "dstar_kernel"] {
            assert!(check_name(good, "C", C_KEYWORDS).is_ok(), "{good}");
        }
        for bad in
            ["", "2f", "f(void){} void g", "a-b", "é", "int", "dstar_min", "dstar_functions", "f g", "f\n"]
        {
            assert!(check_name(bad, "C", C_KEYWORDS).is_err(), "{bad:?}");
        }
        assert!(check_name("fn", "Rust", RUST_KEYWORDS).is_err());
        assert!(check_name("int", "Rust", RUST_KEYWORDS).is_ok());
    }
}
