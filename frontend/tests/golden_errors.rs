//! Golden error tests: every `tests/golden/errors/*.dstar` fails to decode
//! (bytes that are not UTF-8) or parse with exactly the rendered message in
//! the `.err` file beside it. `BLESS=1 cargo test` rewrites the `.err` files.

use std::path::Path;

#[test]
fn bad_inputs_give_their_golden_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/errors");
    let cases = testkit::check_golden_bytes(&dir, "dstar", "err", |bytes| {
        match frontend::decode(bytes).map(frontend::parse_program) {
            Ok(Ok(_)) => "parsed without error\n".to_string(),
            Ok(Err(e)) | Err(e) => e.render(&String::from_utf8_lossy(bytes)),
        }
    });
    assert!(cases >= 15, "golden cases are missing");
}
