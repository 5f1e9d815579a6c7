//! The problem files a user's editor may write: any line ending (`\n`,
//! `\r\n`, a lone `\r`), with or without a UTF-8 byte-order mark, parse to
//! the same program, and an error anywhere in them is reported at the same
//! line and column. Checked over every corpus file, each with an error put
//! on each of its lines in turn.

use frontend::{decode, parse_program, print_program, ParseErrorKind};

/// Every corpus file's name and text.
fn corpus() -> Vec<(String, String)> {
    let problems = testkit::corpus();
    assert!(problems.len() > 10, "the corpus has its problems");
    problems.into_iter().map(|p| (p.path.display().to_string(), p.source)).collect()
}

/// `source` with its line breaks written as `eol`, and a BOM if asked.
fn restyle(source: &str, eol: &str, bom: bool) -> String {
    let mut out = String::from(if bom { "\u{feff}" } else { "" });
    for line in source.lines() {
        out.push_str(line);
        out.push_str(eol);
    }
    out
}

const STYLES: [(&str, bool); 6] =
    [("\n", false), ("\r\n", false), ("\r", false), ("\n", true), ("\r\n", true), ("\r", true)];

#[test]
fn every_line_ending_and_a_bom_parse_to_the_same_program() {
    for (name, source) in corpus() {
        let reference = parse_program(&source).unwrap();
        for (eol, bom) in STYLES {
            let text = restyle(&source, eol, bom);
            let program = parse_program(&text).unwrap_or_else(|e| panic!("{name} {eol:?} bom {bom}: {e}"));
            assert_eq!(program.inputs, reference.inputs, "{name} {eol:?} bom {bom}");
            assert_eq!(program.point, reference.point, "{name} {eol:?} bom {bom}");
            assert_eq!(print_program(&program), print_program(&reference), "{name} {eol:?} bom {bom}");
            assert_eq!(decode(text.as_bytes()).unwrap(), text);
        }
    }
}

#[test]
fn errors_are_at_the_same_line_and_column_in_every_style() {
    for (name, source) in corpus() {
        let lines: Vec<&str> = source.lines().collect();
        // An error at the end of some 25 lines spread over the file.
        for target in (0..lines.len()).step_by((lines.len() / 25).max(1)) {
            if lines[target].trim().is_empty() || lines[target].contains('#') {
                continue;
            }
            let broken: Vec<String> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| if i == target { format!("{l} $") } else { l.to_string() })
                .collect();
            let broken = broken.join("\n");
            let want = parse_program(&broken).unwrap_err();
            assert_eq!(want.span.start.line as usize, target + 1, "{name}: {want}");
            for (eol, bom) in STYLES {
                let text = restyle(&broken, eol, bom);
                let got = parse_program(&text).unwrap_err();
                assert_eq!(got.kind, want.kind, "{name} line {target} {eol:?} bom {bom}");
                assert_eq!(got.span.start.line, want.span.start.line, "{name} {eol:?} bom {bom}");
                assert_eq!(got.span.start.column, want.span.start.column, "{name} {eol:?} bom {bom}");
                // The rendered message shows the offending line (its end,
                // if it is too long to show whole), without the BOM or a stray CR.
                let rendered = got.render(&text);
                let line = lines[target];
                let shown = if line.chars().count() + 2 <= frontend::shown::MAX_LINE {
                    format!("| {line} $\n")
                } else {
                    let tail: Vec<char> = line.chars().rev().take(30).collect();
                    format!("{} $\n", tail.iter().rev().collect::<String>())
                };
                assert!(rendered.contains(&shown), "{rendered}");
                assert!(!rendered.contains(['\r', frontend::source::BOM]), "{rendered:?}");
            }
        }
    }
}

#[test]
fn a_comment_ends_at_a_lone_carriage_return() {
    // Before, CR-only files were one long comment line and had no outputs.
    let p = parse_program("# a comment\rin x\rout y = 2*x\r").unwrap();
    assert_eq!(p.inputs, ["x"]);
    assert_eq!(p.outputs.len(), 1);
}

#[test]
fn a_second_point_is_an_error_naming_the_first() {
    let e = parse_program("# @point 1\nin x\n# @point 2\nout x").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::SecondPoint { first: 1 });
    assert_eq!(e.span.start.line, 3);
    let p = parse_program("# @point 1\rin x\rout x").unwrap();
    assert_eq!(p.point, Some(vec![1.0]));
}

#[test]
fn outputs_named_by_position_and_by_name_must_differ() {
    let e = parse_program("in x\nout x*3\nout out1 = 2*x").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::DuplicateOutput { name: "out1".into(), other: 1 });
    assert_eq!((e.span.start.line, e.span.start.column), (3, 5));
    let e = parse_program("in x\nout out2 = 2*x\nout x*3").unwrap_err();
    assert_eq!(e.kind, ParseErrorKind::DuplicateOutput { name: "out2".into(), other: 2 });
    assert_eq!(e.span.start.line, 3);
    // Names that cannot meet are fine, and a positional name may shadow nothing.
    assert!(parse_program("in x\nout out2 = 2*x\nout out1 = x").is_ok());
    assert!(parse_program("in x\nout x\nout out3 = x").is_ok());
    // Every way two outputs could share a name, generated: the k-th output
    // by position against an explicit name at each other position.
    for n in 2..6 {
        for k in 1..=n {
            for j in 1..=n {
                if j == k {
                    continue;
                }
                let mut text = String::from("in x\n");
                for i in 1..=n {
                    if i == j {
                        text += &format!("out out{k} = x + {i}\n");
                    } else {
                        text += &format!("out x * {i}\n");
                    }
                }
                let clash = parse_program(&text).unwrap_err();
                assert!(
                    matches!(clash.kind, ParseErrorKind::DuplicateOutput { other, .. } if other == k),
                    "{text}"
                );
            }
        }
    }
}
