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
