//! The corpus problems (`tests/corpus/` of the workspace), for the tests and
//! examples that walk all of them.

#![allow(dead_code)]

use std::path::PathBuf;

/// The `.dstar` files of the corpus, sorted by name.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/corpus exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dstar"))
        .collect();
    files.sort();
    files
}

/// Every corpus problem, parsed, with its name (the file stem).
pub fn corpus() -> Vec<(String, frontend::Program)> {
    corpus_files()
        .into_iter()
        .map(|path| {
            let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
            let source = std::fs::read_to_string(&path).expect("readable problem");
            (name, frontend::parse_program(&source).expect("corpus parses"))
        })
        .collect()
}
