//! Golden error tests: every `tests/golden/errors/*.dstar` fails to parse with
//! exactly the rendered message in the `.err` file beside it. `BLESS=1 cargo
//! test` rewrites the `.err` files.

use std::path::Path;

#[test]
fn bad_inputs_give_their_golden_messages() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/errors");
    let cases = testkit::check_golden(&dir, "dstar", "err", |source| match frontend::parse_program(source) {
        Ok(_) => "parsed without error\n".to_string(),
        Err(e) => e.render(source),
    });
    assert!(cases >= 15, "golden cases are missing");
}
