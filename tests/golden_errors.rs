//! Golden error tests: every `tests/golden/errors/*.dstar` fails to parse with
//! exactly the rendered message in the `.err` file beside it. `BLESS=1 cargo
//! test` rewrites the `.err` files.

use std::path::Path;

#[test]
fn bad_inputs_give_their_golden_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/errors");
    let bless = std::env::var_os("BLESS").is_some();
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dstar"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "golden cases are missing");
    let mut failures = vec![];
    for case in &cases {
        let bytes = std::fs::read(case).expect("read case");
        let actual = match dstar::frontend::decode(&bytes).map(dstar::parse_program) {
            Ok(Ok(_)) => "parsed without error\n".to_string(),
            Ok(Err(e)) | Err(e) => e.render(&String::from_utf8_lossy(&bytes)),
        };
        let golden = case.with_extension("err");
        if bless {
            std::fs::write(&golden, &actual).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                case.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    assert!(failures.is_empty(), "{} golden mismatches:\n{}", failures.len(), failures.join("\n"));
}
