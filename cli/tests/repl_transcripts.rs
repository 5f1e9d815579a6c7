//! Scripted REPL sessions: each `tests/golden/repl/*.in` is piped into
//! `dstar repl --echo` and the transcript, ended by the exit status and what
//! went to stderr, must equal the `.out` beside it. `BLESS=1 cargo test`
//! rewrites the transcripts.

use std::path::Path;

#[test]
fn scripted_sessions_match_their_transcripts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = root.join("..");
    let cases = testkit::golden::check_golden_bytes(&root.join("tests/golden/repl"), "in", "out", |script| {
        let run = testkit::command::run_with_input(
            env!("CARGO_BIN_EXE_dstar"),
            &["repl", "--echo"],
            &workspace,
            script,
        );
        assert!(run.status >= 0, "the REPL exits by itself: {}", run.stderr);
        format!("{}--- exit status {}\n{}", run.stdout, run.status, run.stderr)
    });
    assert!(cases >= 4);
}

/// The README's REPL transcript (parameters, issue 27) is what the REPL
/// prints, line for line.
#[test]
fn the_readme_transcript_is_what_the_repl_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../README.md")).unwrap();
    let section = &readme[readme.find("## The REPL").expect("a REPL section")..];
    let start = section.find("```text\n> ").expect("a transcript in the REPL section") + "```text\n".len();
    let transcript = &section[start..start + section[start..].find("```").expect("a closing fence")];
    let script: String =
        transcript.lines().filter_map(|l| l.strip_prefix("> ")).map(|l| format!("{l}\n")).collect();
    let run = testkit::command::run_with_input(
        env!("CARGO_BIN_EXE_dstar"),
        &["repl", "--echo"],
        &root.join(".."),
        script.as_bytes(),
    );
    assert_eq!(run.stdout, transcript, "README.md's transcript (right) against the REPL's (left)");
}
