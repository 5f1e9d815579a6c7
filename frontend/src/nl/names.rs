//! Names of a `.nl` model's variables and constraints: from the `.col` and
//! `.row` files a writer puts beside it (one name a line, in `.nl` order;
//! `.row` lists the constraints, then the objectives), else `x0, x1, ...`,
//! `c0, c1, ...` and `obj`; and the same names made identifiers of the
//! problem format for the [`Program`](crate::Program).

use std::collections::HashSet;

/// The names in a model's `.col` and `.row` files, if it has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NlNames {
    /// The `.col` file's lines: variables' names.
    pub cols: Option<Vec<String>>,
    /// The `.row` file's lines: constraints' names, then objectives'.
    pub rows: Option<Vec<String>>,
}

impl NlNames {
    /// The names in the texts of a `.row` and a `.col` file (either may be absent).
    pub fn from_files(row: Option<&str>, col: Option<&str>) -> NlNames {
        let lines = |text: &str| crate::source::source_lines(text).map(|l| l.trim().to_string()).collect();
        NlNames { cols: col.map(lines), rows: row.map(lines) }
    }

    /// The names in the `.row` and `.col` files beside the `.nl` file
    /// `path` (`model.nl` -> `model.row`, `model.col`), those that exist
    /// and read as text.
    pub fn beside(path: &std::path::Path) -> NlNames {
        let read = |ext: &str| std::fs::read_to_string(path.with_extension(ext)).ok();
        NlNames::from_files(read("row").as_deref(), read("col").as_deref())
    }

    /// The names of `n` variables: the `.col` file's, then `x<k>` for any it lacks.
    pub(super) fn vars(&self, n: usize) -> Vec<String> {
        given_or(self.cols.as_deref().unwrap_or(&[]), n, "x")
    }

    /// The names of `n` constraints, and of the first objective if there
    /// is one of `objectives`.
    pub(super) fn rows(&self, n: usize, objectives: usize) -> (Vec<String>, Option<String>) {
        let rows = self.rows.as_deref().unwrap_or(&[]);
        let objective = (objectives > 0).then(|| {
            rows.get(n).filter(|name| !name.is_empty()).cloned().unwrap_or_else(|| "obj".to_string())
        });
        (given_or(rows, n, "c"), objective)
    }
}

/// `given[k]` where present and not empty, else `<prefix><k>`, for `k < n`.
fn given_or(given: &[String], n: usize, prefix: &str) -> Vec<String> {
    (0..n)
        .map(|k| match given.get(k) {
            Some(name) if !name.is_empty() => name.clone(),
            _ => format!("{prefix}{k}"),
        })
        .collect()
}

/// The inputs' and outputs' names made distinct identifiers that no
/// keyword or function of the language takes: each char that is not a
/// letter, digit or `_` becomes `_` (trailing ones dropped, so `x[1]` is
/// `x_1`), a leading digit gets a `_` before it, a reserved word a `_`
/// after it, and a name taken already `_2`, `_3`, ...
pub(super) fn identifiers<'a>(
    inputs: &[String],
    outputs: impl Iterator<Item = &'a String>,
) -> (Vec<String>, Vec<String>) {
    let mut taken = HashSet::new();
    let mut fresh = crate::fresh::FreshNames::default();
    let mut name = |given: &str| {
        let name = fresh.name(&base_identifier(given), |n| taken.contains(n));
        taken.insert(name.clone());
        name
    };
    let inputs = inputs.iter().map(|n| name(n)).collect();
    let outputs = outputs.map(|n| name(n)).collect();
    (inputs, outputs)
}

/// `given` as an identifier, before making it distinct.
fn base_identifier(given: &str) -> String {
    let mapped: String =
        given.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    let mut base = mapped.trim_end_matches('_').to_string();
    if base.is_empty() {
        base.push('_');
    }
    if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, '_');
    }
    if crate::parser::reserved(&base).is_some() {
        base.push('_');
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_distinct_identifiers() {
        let inputs: Vec<String> =
            ["x[1]", "x[1,2]", "x_1", "sin", "2y", "", "a.b[c]"].map(String::from).to_vec();
        let outputs: Vec<String> = ["x[1]", "obj"].map(String::from).to_vec();
        let (i, o) = identifiers(&inputs, outputs.iter());
        assert_eq!(i, ["x_1", "x_1_2", "x_1_3", "sin_", "_2y", "_", "a_b_c"]);
        assert_eq!(o, ["x_1_4", "obj"]);
    }

    #[test]
    fn missing_names_are_numbered() {
        let names = NlNames::from_files(Some("c\nd\nf\n"), Some("u\n"));
        assert_eq!(names.vars(2), ["u", "x1"]);
        assert_eq!(names.rows(2, 1), (vec!["c".to_string(), "d".to_string()], Some("f".to_string())));
        assert_eq!(NlNames::default().rows(1, 1), (vec!["c0".to_string()], Some("obj".to_string())));
    }
}
