//! Scripted REPL sessions: each `tests/golden/repl/*.in` is piped into
//! `dstar repl --echo` and the transcript, ended by the exit status and what
//! went to stderr, must equal the `.out` beside it. `BLESS=1 cargo test`
//! rewrites the transcripts.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn scripted_sessions_match_their_transcripts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/golden/repl");
    let bless = std::env::var_os("BLESS").is_some();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("transcript directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "in"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4);
    let mut failures = vec![];
    for case in &cases {
        let input = std::fs::read(case).expect("read script");
        let mut child = Command::new(env!("CARGO_BIN_EXE_dstar"))
            .args(["repl", "--echo"])
            .current_dir(root.join(".."))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start dstar repl");
        child.stdin.take().expect("stdin").write_all(&input).expect("write script");
        let out = child.wait_with_output().expect("repl exits");
        let mut actual = String::from_utf8_lossy(&out.stdout).into_owned();
        let status = out.status.code().expect("the REPL exits by itself");
        actual += &format!("--- exit status {status}\n{}", String::from_utf8_lossy(&out.stderr));
        let golden = case.with_extension("out");
        if bless {
            std::fs::write(&golden, &actual).expect("write transcript");
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != actual {
            failures.push(format!("{}:\n--- expected\n{expected}--- actual\n{actual}", case.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
