//! The benchmark problems of `tests/corpus/` and the nonlinear programs of
//! `tests/nlp/`: each `.dstar` file parsed, with the reference values (other
//! systems') of the `.ref.json` beside it.
//!
//! ```
//! let problems = testkit::corpus();
//! let lyons = problems.iter().find(|p| p.name == "lyons").expect("in the corpus");
//! assert_eq!(lyons.reference.point, [0.7, 1.3]);
//! assert_eq!(lyons.reference.jacobian.len(), lyons.program.outputs.len());
//! ```

use frontend::Program;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One corpus problem.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The file stem (`"lyons"`).
    pub name: String,
    /// The `.dstar` file.
    pub path: PathBuf,
    /// Its text.
    pub source: String,
    /// Its program.
    pub program: Program,
    /// Its reference values.
    pub reference: Reference,
}

/// The `.ref.json` of a problem: the point and the values and Jacobian
/// there. Non-finite numbers are written as the strings `"nan"`, `"inf"`
/// and `"-inf"`.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The point.
    pub point: Vec<f64>,
    /// The outputs' values.
    pub values: Vec<f64>,
    /// The dense Jacobian, one row per output.
    pub jacobian: Vec<Vec<f64>>,
    /// The whole file, for the fields above and the rest (`inputs`,
    /// `outputs`: the names).
    pub json: Value,
}

impl Problem {
    /// The program's `# @point`, or a fixed point in `(0.5, 1.5)` if it has
    /// none.
    pub fn point(&self) -> Vec<f64> {
        point_of(&self.program)
    }

    /// The path as a string, for command lines.
    pub fn path_str(&self) -> &str {
        self.path.to_str().expect("corpus paths are UTF-8")
    }
}

/// The corpus directory (`tests/corpus` of the workspace).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// One corpus file by name: `corpus_file("lyons.dstar")`.
pub fn corpus_file(name: &str) -> PathBuf {
    corpus_dir().join(name)
}

/// Every corpus problem, sorted by name.
pub fn corpus() -> Vec<Problem> {
    load_dir(&corpus_dir())
}

/// Every nonlinear program of `tests/nlp/`, sorted by name: output 1 is the
/// objective, the rest are constraints; beside the point, values and
/// Jacobian, the reference's `json` holds the Lagrangian's `weights`, its
/// dense `lagrangian_hessian` and `sizes` (`hessian_lower_nnz`).
///
/// ```
/// let hs071 = testkit::nlp().into_iter().find(|p| p.name == "hs071").expect("in tests/nlp");
/// let weights = testkit::as_vec(&hs071.reference.json["weights"]);
/// assert_eq!(weights.len(), hs071.program.outputs.len());
/// ```
pub fn nlp() -> Vec<Problem> {
    load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../nlp"))
}

/// Every problem of `dir`, sorted by name.
fn load_dir(dir: &Path) -> Vec<Problem> {
    let paths = files_with_extension(dir, "dstar");
    assert!(!paths.is_empty(), "no problems in {}", dir.display());
    paths.into_iter().map(|path| load(&path)).collect()
}

/// Reads and parses one problem file and its reference.
pub fn load(path: &Path) -> Problem {
    let source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let program = frontend::parse_program(&source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
    let reference = reference(path);
    Problem { name, path: path.to_path_buf(), source, program, reference }
}

/// The reference beside a problem file.
pub fn reference(problem: &Path) -> Reference {
    let file = problem.with_extension("ref.json");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    Reference {
        point: as_vec(&json["point"]),
        values: as_vec(&json["values"]),
        jacobian: as_matrix(&json["jacobian"]),
        json,
    }
}

/// The program's `# @point`, or a fixed point in `(0.5, 1.5)` if it has none.
pub fn point_of(program: &Program) -> Vec<f64> {
    program
        .point
        .clone()
        .unwrap_or_else(|| (0..program.inputs.len()).map(|i| 0.5 + i as f64 * 0.01).collect())
}

/// A JSON number, or a non-finite number written as a string.
pub fn as_f64(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            other => panic!("not a number: {other}"),
        },
        other => other.as_f64().expect("a number"),
    }
}

/// A JSON array of numbers.
pub fn as_vec(v: &Value) -> Vec<f64> {
    v.as_array().expect("an array").iter().map(as_f64).collect()
}

/// A JSON array of arrays of numbers: a dense matrix, row by row.
pub fn as_matrix(v: &Value) -> Vec<Vec<f64>> {
    v.as_array().expect("an array of rows").iter().map(as_vec).collect()
}

/// The files of `dir` ending in `.ext`, sorted.
pub(crate) fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}
