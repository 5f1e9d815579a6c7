//! Names a user gives (inputs, parameters, intermediates, outputs,
//! functions, symbols): the one check of a name ([`check_name`]), the one
//! wording of what is wrong with it ([`NameError::message`]), and the words
//! the language reserves ([`reserved`]); the parser, the builder and every
//! front door ask here.

use crate::op::Op;

/// Why `name` cannot name an input, a parameter, an intermediate, an output
/// or a function, or `None` when it can: the one check of names, for every
/// front door that takes them from a user.
///
/// ```
/// use frontend::name::{check_name, NameError};
/// assert_eq!(check_name("x_1"), None);
/// assert_eq!(check_name("2x"), Some(NameError::NotIdentifier));
/// assert_eq!(check_name("sin"), Some(NameError::Reserved("a function")));
/// ```
pub fn check_name(name: &str) -> Option<NameError> {
    let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Some(NameError::NotIdentifier);
    }
    reserved(name).map(NameError::Reserved)
}

/// What is wrong with a name ([`check_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameError {
    /// Not `[A-Za-z_][A-Za-z0-9_]*`.
    NotIdentifier,
    /// Reserved: the value says what it is (see [`reserved`]).
    Reserved(&'static str),
}

impl NameError {
    /// What is wrong with `name` for a user, `role` saying what it would
    /// name: the one wording of the front doors that take names.
    ///
    /// ```
    /// use frontend::name::{check_name, NameError};
    /// let not = check_name("2x").unwrap().message("2x", "a symbol");
    /// assert_eq!(not, "'2x' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)");
    /// let sin = check_name("sin").unwrap().message("sin", "a symbol");
    /// assert_eq!(sin, "'sin' is a function and cannot name a symbol");
    /// ```
    pub fn message(self, name: &str, role: &str) -> String {
        match self {
            NameError::NotIdentifier => {
                format!("'{}' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)", crate::shown::Shown(name))
            }
            NameError::Reserved(what) => format!("'{name}' is {what} and cannot name {role}"),
        }
    }
}

/// What a reserved name is, `"a function"`, `"a constant"` or `"a keyword"`,
/// or `None` for a name that may be bound: function names (of [`Op`],
/// `ifelse` and `sum`), `pi`, `e` and the keywords cannot name inputs,
/// parameters, intermediates or outputs.
pub fn reserved(name: &str) -> Option<&'static str> {
    if matches!(name, "ifelse" | "sum") || Op::from_function_name(name).is_some() {
        Some("a function")
    } else if name == "pi" || name == "e" {
        Some("a constant")
    } else if matches!(name, "in" | "out" | "param" | "function" | "end" | "for") {
        Some("a keyword")
    } else {
        None
    }
}
