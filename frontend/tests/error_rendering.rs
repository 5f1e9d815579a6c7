//! Whatever the source, a rendered parse error is a few short lines of
//! plain text: generated sources with long lines, long names, long runs of
//! one character, control characters and stray bytes render to four lines
//! at most, none longer than a bound independent of the input's size,
//! with no control character but the line breaks and tabs.

use testkit::Rng;

/// Characters of a rendered line at most: the gutter, the source window
/// with two ellipses and escapes (`\u{1b}` is 6 characters for one), and
/// quoted names in the message.
const MAX_RENDERED_LINE: usize = 1000;

/// A piece of a generated line.
fn piece(rng: &mut Rng, long: usize) -> String {
    let run = |c: &str, n: usize| c.repeat(n);
    match rng.below(10) {
        0 => run("(", 1 + rng.below(long)),
        1 => run("y", 1 + rng.below(long)),
        2 => run("x+", 1 + rng.below(long)),
        3 => char::from_u32(rng.below(0x20) as u32).unwrap().to_string(),
        4 => ['\u{7f}', '\u{85}', '\u{9b}', '\u{1b}', '\t', '\u{fffd}', 'é', '\u{200b}'][rng.below(8)]
            .to_string(),
        5 => format!("1e{}", rng.below(1000)),
        6 => ["sin(", ")", ",", " + ", "*", "^", "=", "$", "ifelse(", "<"][rng.below(10)].to_string(),
        7 => format!("f{}(", "g".repeat(rng.below(long))),
        8 => " ".repeat(rng.below(long)),
        _ => "x".to_string(),
    }
}

fn check(source: &str) {
    let Err(e) = frontend::parse_program(source) else { return };
    let rendered = e.render(source);
    let lines: Vec<&str> = rendered.lines().collect();
    assert!(lines.len() <= 4, "{} lines:\n{rendered}", lines.len());
    for line in &lines {
        let len = line.chars().count();
        assert!(
            len <= MAX_RENDERED_LINE,
            "a line of {len} characters for a source of {} bytes",
            source.len()
        );
        let control = line.chars().find(|&c| c.is_control() && c != '\t');
        assert_eq!(control, None, "a control character in {line:?}");
    }
}

#[test]
fn rendered_errors_stay_short_and_plain() {
    let long = if testkit::long_run() { 100_000 } else { 5_000 };
    let mut rng = Rng::new(0x5eed_e440);
    for case in 0..if testkit::long_run() { 20_000 } else { 2_000 } {
        let statements = 1 + rng.below(3);
        let mut source = String::from("in x\n");
        for _ in 0..statements {
            source.push_str(if rng.chance(0.5) { "out " } else { "t = " });
            // Mostly short lines, some far past the window.
            let reach = if case % 4 == 0 { long } else { 30 };
            for _ in 0..1 + rng.below(6) {
                source.push_str(&piece(&mut rng, reach));
            }
            source.push('\n');
        }
        check(&source);
    }
}
