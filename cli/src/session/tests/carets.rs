//! The REPL reads a line with the frontend's lexer and parser: on any
//! expression, shown or defined, it fails exactly where and as the frontend
//! fails on the same text; and its printed errors stay short plain text.

use super::*;
use proptest::prelude::*;

/// Pieces of lines: names, numbers, operators, calls, blanks (tabs too),
/// and characters that start no token, some of them wider than a byte.
const PIECES: [&str; 24] = [
    "x", "y", "2", "1.5", "+", "-", "*", "^", "(", ")", ",", "<", " ", "  ", "\t", "sin(", "sine(", "atan2(",
    "pi", "ä", "中", "$", "é", "🙂",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(testkit::cases(600, 20_000) as u32))]

    #[test]
    fn the_repl_fails_where_and_as_the_frontend_fails(
        pieces in prop::collection::vec(prop::sample::select(PIECES.to_vec()), 1..14),
        prefix in prop::sample::select(vec!["", "g = ", "g(x, y) = ", "  h\t=\t"]),
    ) {
        let expr: String = pieces.concat();
        prop_assume!(!expr.trim().is_empty());
        let line = format!("{prefix}{expr}");
        let repl = Session::new().execute(&line);
        // The same text where the line has it, blanks before it.
        let padded = format!("{}{expr}", " ".repeat(prefix.chars().count()));
        let frontend = if prefix.contains('(') {
            dstar::frontend::parse_expr_with_inputs(&padded, &["x", "y"])
        } else {
            dstar::frontend::parse_expr(&padded)
        };
        match (repl, frontend) {
            (Ok(_), Ok(_)) => {}
            (Err(e), Err(f)) => {
                let start = f.span.start.column as usize - 1;
                // A definition's unknown name: the REPL says how it could be known.
                let message = match &f.kind {
                    dstar::frontend::ParseErrorKind::NotAVariable { name } => format!(
                        "'{name}' is neither an argument nor a parameter; add it to the arguments, \
                         or declare it with 'param {name}'"
                    ),
                    kind => kind.to_string(),
                };
                prop_assert_eq!(&e.message, &message, "{:?}", line);
                prop_assert_eq!(e.span.map(|s| s.0), Some(start), "{:?}", line);
            }
            (repl, frontend) => prop_assert!(false, "{:?}: REPL {:?}, frontend {:?}", line, repl, frontend),
        }
    }
}

/// Pieces of adversarial lines: long runs, control characters, a terminal
/// escape sequence.
fn adversarial_pieces() -> Vec<String> {
    let mut pieces: Vec<String> = PIECES.iter().map(|p| p.to_string()).collect();
    pieces.extend(["\u{1b}[31m", "\u{7}", "\u{85}", "\u{7f}"].map(String::from));
    pieces.extend(["(".repeat(3000), "y".repeat(3000), "x+".repeat(2000), " ".repeat(500)]);
    pieces
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(testkit::cases(300, 10_000) as u32))]

    /// However long the line and whatever it holds, the printed error is
    /// the line (a window of it), the carets and the message: three lines
    /// of bounded length, no control character but tabs.
    #[test]
    fn a_printed_error_is_three_short_plain_lines(
        pieces in prop::collection::vec(prop::sample::select(adversarial_pieces()), 1..8),
        prefix in prop::sample::select(vec!["", "g = ", "g(x, y) = "]),
    ) {
        let line = format!("{prefix}{}", pieces.concat());
        if let Err(e) = Session::new().execute(&line) {
            let printed = e.render(&line);
            prop_assert!(printed.lines().count() <= 3, "{}", printed);
            for l in printed.lines() {
                prop_assert!(l.chars().count() <= 1000, "{} characters", l.chars().count());
                prop_assert!(!l.chars().any(|c| c.is_control() && c != '\t'), "{:?}", l);
            }
        }
    }
}
