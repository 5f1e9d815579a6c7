//! The golden-file check: each input file beside its expected output; a new
//! case is a new file pair.

use std::path::Path;

/// Checks every `dir/*.{ext_in}` against the `.{ext_out}` file beside it:
/// `render` turns the input's text into the actual output. On mismatches,
/// panics listing each with its expected and actual text. With `BLESS` set
/// in the environment, writes the actual outputs instead (`BLESS=1 cargo
/// test`). Returns the number of cases, for a test to insist on a minimum.
pub fn check_golden(
    dir: &Path,
    ext_in: &str,
    ext_out: &str,
    mut render: impl FnMut(&str) -> String,
) -> usize {
    check_golden_bytes(dir, ext_in, ext_out, |bytes| {
        render(
            std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("a golden input in {}: {e}", dir.display())),
        )
    })
}

/// [`check_golden`] for inputs that need not be UTF-8 (a REPL script with a
/// bad line): `render` gets the input's bytes.
pub fn check_golden_bytes(
    dir: &Path,
    ext_in: &str,
    ext_out: &str,
    mut render: impl FnMut(&[u8]) -> String,
) -> usize {
    let bless = std::env::var_os("BLESS").is_some();
    let cases = crate::corpus::files_with_extension(dir, ext_in);
    let mut failures = vec![];
    for case in &cases {
        let input = std::fs::read(case).unwrap_or_else(|e| panic!("reading {}: {e}", case.display()));
        let actual = render(&input);
        let golden = case.with_extension(ext_out);
        if bless {
            std::fs::write(&golden, &actual).unwrap_or_else(|e| panic!("writing {}: {e}", golden.display()));
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != actual {
            let name = case.file_name().unwrap_or_default().to_string_lossy();
            failures.push(format!("{name}:\n--- expected\n{expected}--- actual\n{actual}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches in {} (BLESS=1 rewrites them):\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
    cases.len()
}
