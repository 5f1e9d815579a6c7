//! Binary `.nl` files (header `b`): each fixture of `tests/nl.rs` rewritten
//! in the binary variant (`tests/nl/binary/`, by `tests/nl/to_binary.py`,
//! whose output the ASL reads as it reads the text: see
//! `python/tests/test_asl_oracle.py`) reads as the same model as its text;
//! errors point at a byte; no prefix or changed byte panics.

use frontend::nl::{parse_nl, Format, NlModel, NlNames};
use std::path::PathBuf;

const FIXTURES: [&str; 5] = ["hs71", "chain", "mixed", "constraints_only", "functions"];

fn bytes(dir: &str, name: &str) -> Vec<u8> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/nl").join(dir).join(format!("{name}.nl"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(source: &[u8]) -> NlModel {
    parse_nl(source, &NlNames::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn binary_fixtures_read_as_their_text() {
    for name in FIXTURES {
        let (text, binary) = (read(&bytes("", name)), read(&bytes("binary", name)));
        assert_eq!(text.header.format, Format::Text);
        assert_eq!(binary.header.format, Format::Binary { big_endian: false });
        assert!(binary.program.same_as(&text.program), "{name}");
        assert_eq!(binary.program.point, text.program.point, "{name}");
        assert_eq!(binary.var_bounds, text.var_bounds, "{name}");
        assert_eq!(binary.constraint_bounds, text.constraint_bounds, "{name}");
        assert_eq!(binary.duals, text.duals, "{name}");
        assert_eq!(binary.objective, text.objective, "{name}");
        assert_eq!(
            frontend::print_program(&binary.program),
            frontend::print_program(&text.program),
            "{name}"
        );
    }
}

/// The segments' offset in a binary fixture: after the ten header lines.
fn segments_start(bytes: &[u8]) -> usize {
    bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n').nth(9).unwrap().0 + 1
}

#[test]
fn binary_errors_point_at_a_byte() {
    let hs71 = bytes("binary", "hs71");
    let start = segments_start(&hs71);
    assert_eq!(hs71[start], b'C');
    let mut bad = hs71.clone();
    bad[start + 1..start + 5].copy_from_slice(&7i32.to_le_bytes());
    let e = parse_nl(&bad, &NlNames::default()).expect_err("constraint 7");
    assert_eq!(
        e.to_string(),
        format!("byte {}: constraint 7 is out of range: the header declares 2", start + 1)
    );
    assert_eq!(e.render("ignored"), format!("{e}\n"));
    let e = parse_nl(&hs71[..hs71.len() - 3], &NlNames::default()).expect_err("truncated");
    assert!(e.to_string().starts_with(&format!("byte {}: the file ends where", hs71.len() - 3)), "{e}");
    let mut bad = hs71.clone();
    bad[start] = b'Q';
    let e = parse_nl(&bad, &NlNames::default()).expect_err("no segment Q");
    assert_eq!(e.span.start.offset as usize, start);
    assert!(e.to_string().contains("found 'Q' (byte 0x51)"), "{e}");
    // A count of operands past the end of the file is refused before any allocation.
    let at = hs71.windows(5).position(|w| w == [b'o', 54, 0, 0, 0]).expect("a sumlist");
    let mut bad = hs71.clone();
    bad[at + 5..at + 9].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = parse_nl(&bad, &NlNames::default()).expect_err("too many operands");
    assert!(e.to_string().contains("the file ends where an operand"), "{e}");
    // The header's arith count gives the byte order; others are refused.
    let text = String::from_utf8_lossy(&hs71[..start]).replacen(" 0 0 1 1", " 0 0 7 1", 1);
    let e = parse_nl(&[text.as_bytes(), &hs71[start..]].concat(), &NlNames::default()).expect_err("arith 7");
    assert!(e.to_string().contains("arithmetic kind 7"), "{e}");
}

/// A hand-built segment reads the same in either byte order (arith 2:
/// big-endian; 1: little-endian), with constants of each kind (`n` real,
/// `s` 2-byte and `l` 4-byte integers).
#[test]
fn either_byte_order_reads() {
    let mut body = Vec::new();
    body.extend(b"C");
    body.extend(0i32.to_be_bytes());
    body.extend(b"o");
    body.extend(0i32.to_be_bytes());
    body.extend(b"o");
    body.extend(2i32.to_be_bytes());
    body.extend(b"v");
    body.extend(0i32.to_be_bytes());
    body.extend(b"n");
    body.extend(2.5f64.to_be_bytes());
    body.extend(b"s");
    body.extend((-3i16).to_be_bytes());
    let header = "b3 1 1 0\n 1 1 0 0 0\n 1 0\n 0 0\n 1 0 0\n 0 0 2 1\n 0 0 0 0 0\n 1 0\n 0 0\n 0 0 0 0 0\n";
    let model = read(&[header.as_bytes(), &body].concat());
    assert_eq!(model.header.format, Format::Binary { big_endian: true });
    assert_eq!(frontend::eval_program(&model.program, &[2.0]), [2.0 * 2.5 - 3.0]);
    let mut little = Vec::new();
    little.extend(b"C");
    little.extend(0i32.to_le_bytes());
    little.extend(b"o");
    little.extend(0i32.to_le_bytes());
    little.extend(b"l");
    little.extend((-70_000i32).to_le_bytes());
    little.extend(b"s");
    little.extend((-3i16).to_le_bytes());
    let model = read(&[header.replacen(" 0 0 2 1", " 0 0 1 1", 1).as_bytes(), &little].concat());
    assert_eq!(frontend::eval_program(&model.program, &[2.0]), [-70_003.0]);
}

/// Every prefix of every binary fixture, and the fixtures with bytes
/// changed at random, read without a panic.
#[test]
fn no_binary_input_panics() {
    let mut rng = testkit::Rng::new(38);
    for name in FIXTURES {
        let source = bytes("binary", name);
        for end in 0..=source.len() {
            let _ = parse_nl(&source[..end], &NlNames::default());
        }
        let start = segments_start(&source);
        for _ in 0..testkit::cases(300, 5000) {
            let mut changed = source.clone();
            for _ in 0..1 + rng.below(4) {
                let at = start + rng.below(changed.len() - start);
                changed[at] = match rng.below(3) {
                    0 => rng.below(256) as u8,
                    1 => b"CObrxdkJGVSLFonvlsh012345"[rng.below(25)],
                    _ => [0, 0xff, 0x7f, 0x80][rng.below(4)],
                };
            }
            let _ = parse_nl(&changed, &NlNames::default());
        }
    }
}
