use super::*;

fn run(s: &mut Session, line: &str) -> String {
    s.execute(line).unwrap_or_else(|e| panic!("{line}: {}", e.render(line)))
}

#[test]
fn defines_and_differentiates() {
    let mut s = Session::new();
    assert_eq!(run(&mut s, "f(x, y) = sin(x*y) + x^2"), "f(x, y) = sin(x * y) + x^2");
    assert_eq!(run(&mut s, "g = f(x, 2*x)"), "g(x) = sin(x * (2 * x)) + x^2");
    assert_eq!(run(&mut s, "diff(f, y)"), "x * cos(x * y)");
    assert_eq!(run(&mut s, "diff(x^3, x, 2)"), "3 * (2 * x)");
    assert_eq!(run(&mut s, "diff(f, z)"), "0");
    assert_eq!(run(&mut s, "grad(x*y)"), "[y, x]");
    assert_eq!(run(&mut s, "hessian(x*y)"), "[[0, 1],\n [1, 0]]");
    assert_eq!(run(&mut s, "jacobian([x*y, x + z])"), "[[y, x, 0],\n [1, 0, 1]]");
}

#[test]
fn evaluates_through_cached_kernels() {
    let mut s = Session::new();
    run(&mut s, "f(x, y) = x*y + 1");
    assert_eq!(run(&mut s, "f(2, 3)"), "7");
    assert_eq!(run(&mut s, "f(4, -1/2)"), "-1");
    assert_eq!(s.cached_kernels(), 1, "the second call reuses the kernel");
    assert_eq!(run(&mut s, "jacobian(f)(2, 3)"), "[[3, 2]]");
    assert_eq!(run(&mut s, "grad(f)(1, 5)"), "[5, 1]");
    assert_eq!(s.cached_kernels(), 3);
    // Redefinition replaces the function and drops the kernels built on it.
    run(&mut s, "f(x, y) = x - y");
    assert_eq!(run(&mut s, "f(2, 3)"), "-1");
    assert_eq!(run(&mut s, "jacobian(f)(2, 3)"), "[[1, -1]]");
    assert_eq!(run(&mut s, "2^10 + pi*0"), "1024");
}

#[test]
fn derivatives_can_be_defined() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x^3");
    assert_eq!(run(&mut s, "df(x) = diff(f, x)"), "df(x) = 3 * x^2");
    assert_eq!(run(&mut s, "df(2)"), "12");
    assert!(s.execute("g = grad(f)").is_err());
}

#[test]
fn errors_point_into_the_line_and_keep_the_state() {
    let mut s = Session::new();
    run(&mut s, "f(x) = x + 1");
    let e = s.execute("g(x) = sine(x)").unwrap_err();
    assert_eq!(e.span, Some((7, 11)));
    assert_eq!(
        e.render("g(x) = sine(x)"),
        "  g(x) = sine(x)\n         ^^^^\nerror: unknown function 'sine'; did you mean 'sin'?\n"
    );
    assert!(s.execute("f(1, 2)").is_err());
    assert!(s.execute("diff(f)").is_err());
    assert!(s.execute(":nope").is_err());
    assert_eq!(run(&mut s, "f(1)"), "2");
    assert_eq!(run(&mut s, ":vars"), "f(x) = x + 1");
}

#[test]
fn loads_and_saves_problem_files() {
    let dir = std::env::temp_dir().join(format!("dstar-session-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("p.dstar");
    std::fs::write(&file, "in x, y\nt = x*y\nout f = sin(t)\nout g = t + y\n").unwrap();
    let mut s = Session::new();
    assert_eq!(run(&mut s, &format!(":load {}", file.display())), "loaded f(x, y), g(x, y)");
    assert_eq!(run(&mut s, "g(2, 3)"), "9");
    run(&mut s, "h(z) = z^2");
    let saved = dir.join("saved.dstar");
    run(&mut s, &format!(":save {}", saved.display()));
    let text = std::fs::read_to_string(&saved).unwrap();
    let p = dstar::frontend::parse_program(&text).unwrap();
    assert_eq!(p.inputs, ["x", "y", "z"]);
    assert_eq!(p.output_names(), ["f", "g", "h"]);
}

#[test]
fn completes_commands_functions_and_names() {
    let mut s = Session::new();
    run(&mut s, "speed(v) = v*2");
    assert_eq!(s.complete(":he"), [":help"]);
    assert_eq!(s.complete("si"), ["sign", "sin", "sinh"]);
    assert_eq!(s.complete("sp"), ["speed"]);
}

#[test]
fn help_lists_every_function_of_the_table() {
    let help = run(&mut Session::new(), ":help");
    let words: HashSet<&str> = help.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    for f in Op::function_names() {
        assert!(words.contains(f), "{f} is missing from\n{help}");
    }
    let functions =
        help.lines().skip_while(|l| !l.starts_with("Expressions")).take_while(|l| *l != "Commands:");
    assert!(functions.clone().count() > 1 && functions.clone().all(|l| l.len() <= 79), "{help}");
}
