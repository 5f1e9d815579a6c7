//! The REPL never panics nor hangs on whatever it is fed (issue 34):
//! generated piped sessions declare parameters (with values and without),
//! define functions (of arguments, of discovered variables, constants,
//! derivatives, calls of earlier ones), call them, take `diff`, `grad`,
//! `jacobian`, `hessian` and `taylor` symbolically and at points, evaluate
//! expressions, save and load (their own files, generated problem files with
//! functions and parameters, the corpus), run every `:command` that `:help`
//! lists, and mix in lines of random tokens and bytes. Each session ends
//! with status 0 or 2 (some lines failed), never Rust's panic status 101 or
//! "panicked" on stderr, and within a time limit (`timeout` kills it).
//!
//! `DSTAR_LONG=1` runs more sessions; a failure names the file holding the
//! session, to pipe into `dstar repl` again.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use testkit::command::{run_with_input, Run};
use testkit::Rng;

/// Seconds a session may take before `timeout` kills it (a few seconds is
/// usual; the margin is for a loaded machine).
const LIMIT_SECONDS: u32 = 180;

/// Functions of one argument and of two: every function `:help` lists must
/// be one of these (checked), so a new one is generated too.
const UNARY: [&str; 27] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
    "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "abs", "sign", "floor", "ceil", "erf",
    "-",
];
const BINARY: [&str; 5] = ["pow", "atan2", "hypot", "min", "max"];
const COMPARISONS: [&str; 6] = ["<", "<=", ">", ">=", "==", "!="];
const NUMBERS: [&str; 16] = [
    "0", "1", "2", "-1", "0.5", "3.25", "1e-300", "1e300", "pi", "e", "nan", "inf", "-inf", "-0", "1e-8", "7",
];
/// Names of variables, of definitions and of parameters, and names of
/// the others that each takes now and then, so that some statements clash.
const VARIABLES: [&str; 4] = ["x", "y", "z", "t"];
const DEFINITIONS: [&str; 6] = ["f", "g", "h", "k", "u", "df"];
const PARAMETERS: [&str; 3] = ["b", "c", "m"];
const CLASHES: [&str; 4] = ["x", "f", "b", "sin"];
/// Tokens for lines of noise.
const TOKENS: [&str; 30] = [
    "f", "x", "(", ")", "[", "]", ",", ";", "=", "+", "*", "^", "/", "-", "<", "diff", "grad", "jacobian",
    "hessian", "taylor", "param", "in", "out", ":", "#", "1", "nan", "é", "→", "\t",
];

/// Every command as `:help` lists it, and every function of its sentence
/// on expressions.
struct Help {
    commands: Vec<String>,
    functions: Vec<String>,
}

fn help(dir: &Path) -> Help {
    let run = repl(dir, b":help\n", false);
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    let commands = run.stdout.lines().filter_map(|l| l.trim_start().strip_prefix(':')).map(|l| {
        let name = l.split_whitespace().next().expect("a command has a name");
        format!(":{name}")
    });
    let text = run.stdout.replace('\n', " ");
    let start = text.find("the functions ").expect("help lists the functions") + "the functions ".len();
    let functions = text[start..text[start..].find(',').expect("a comma ends the list") + start]
        .split_whitespace()
        .map(String::from)
        .collect();
    Help { commands: commands.collect(), functions }
}

/// Pipes `script` into `dstar repl` in `dir`, killed past the time limit.
fn repl(dir: &Path, script: &[u8], echo: bool) -> Run {
    let limit = LIMIT_SECONDS.to_string();
    let mut args = vec!["-s", "KILL", limit.as_str(), env!("CARGO_BIN_EXE_dstar"), "repl"];
    if echo {
        args.push("--echo");
    }
    run_with_input("timeout", &args, dir, script)
}

/// What a session has made so far, as far as the generator knows (a line
/// may fail; then the REPL knows better, which is fine).
struct Session<'a> {
    rng: Rng,
    dir: &'a Path,
    /// Definitions and their numbers of arguments.
    defs: Vec<(String, usize)>,
    params: Vec<String>,
    /// Files a `:load` may read: saved ones, generated problem files, the
    /// corpus, and some that do not exist or are not problem files.
    files: Vec<String>,
    /// Files written so far, by their number.
    written: usize,
}

impl Session<'_> {
    fn pick(&mut self, items: &[&str]) -> String {
        self.rng.pick(items).to_string()
    }

    /// A name of `names`, or now and then one that may clash.
    fn name(&mut self, names: &[&str]) -> String {
        match self.rng.chance(0.1) {
            true => self.pick(&CLASHES),
            false => self.pick(names),
        }
    }

    fn def(&mut self) -> Option<(String, usize)> {
        if self.defs.is_empty() {
            return None;
        }
        let i = self.rng.below(self.defs.len());
        Some(self.defs[i].clone())
    }

    fn number(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("{:.3}", self.rng.uniform(-3.0, 3.0)),
            _ => self.pick(&NUMBERS),
        }
    }

    /// A name of a leaf: a variable of `vars`, a parameter, a number, or a
    /// definition of no arguments.
    fn leaf(&mut self, vars: &[String]) -> String {
        match self.rng.below(8) {
            0..=3 if !vars.is_empty() => self.rng.pick(vars).clone(),
            4 if !self.params.is_empty() => self.rng.pick(&self.params).clone(),
            5 => match self.def() {
                Some((name, 0)) => name,
                Some((name, n)) => self.call(&name, n, vars, 0),
                None => self.number(),
            },
            _ => self.number(),
        }
    }

    /// `name(...)` with `n` arguments, now and then one too many or few.
    fn call(&mut self, name: &str, n: usize, vars: &[String], depth: usize) -> String {
        let n = match self.rng.below(12) {
            0 => n + 1,
            1 => n.saturating_sub(1),
            _ => n,
        };
        let args: Vec<String> = (0..n).map(|_| self.expr(vars, depth)).collect();
        format!("{name}({})", args.join(", "))
    }

    /// A random expression over `vars`, the parameters and the definitions.
    fn expr(&mut self, vars: &[String], depth: usize) -> String {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf(vars);
        }
        let d = depth - 1;
        match self.rng.below(12) {
            0 => format!("{} + {}", self.expr(vars, d), self.expr(vars, d)),
            1 => format!("{} - {}", self.expr(vars, d), self.expr(vars, d)),
            2 => format!("{} * {}", self.expr(vars, d), self.expr(vars, d)),
            3 => format!("({}) / ({})", self.expr(vars, d), self.expr(vars, d)),
            4 => format!("({})^{}", self.expr(vars, d), self.pick(&["2", "3", "0.5", "-1", "x", "b"])),
            5 | 6 => match self.pick(&UNARY).as_str() {
                "-" => format!("-({})", self.expr(vars, d)),
                f => format!("{f}({})", self.expr(vars, d)),
            },
            7 => format!("{}({}, {})", self.pick(&BINARY), self.expr(vars, d), self.expr(vars, d)),
            8 => format!(
                "ifelse({} {} {}, {}, {})",
                self.expr(vars, d),
                self.pick(&COMPARISONS),
                self.expr(vars, d),
                self.expr(vars, d),
                self.expr(vars, d)
            ),
            9 => match self.def() {
                Some((name, n)) => self.call(&name, n, vars, d),
                None => self.leaf(vars),
            },
            // A derivative inside an expression (`diff` and `taylor` are values).
            10 => {
                let f = self.function(vars);
                let v = self.variable(vars);
                format!("diff({f}, {v}) + {}", self.leaf(vars))
            }
            _ => self.leaf(vars),
        }
    }

    /// Some of the variables, in a random order.
    fn variables(&mut self) -> Vec<String> {
        let mut vars: Vec<String> =
            VARIABLES.iter().filter(|_| self.rng.chance(0.45)).map(|v| v.to_string()).collect();
        if self.rng.chance(0.05) {
            vars.push(self.pick(&CLASHES));
        }
        for i in (1..vars.len()).rev() {
            let j = self.rng.below(i + 1);
            vars.swap(i, j);
        }
        vars
    }

    fn variable(&mut self, vars: &[String]) -> String {
        match vars.is_empty() || self.rng.chance(0.2) {
            true => self.pick(&VARIABLES),
            false => self.rng.pick(vars).clone(),
        }
    }

    /// What a derivative form differentiates: a definition, or an
    /// expression of its own.
    fn function(&mut self, vars: &[String]) -> String {
        match self.def() {
            Some((name, _)) if self.rng.chance(0.7) => name,
            _ => self.expr(vars, 2),
        }
    }

    /// A point of `n` values, or of a wrong number of them; some values are
    /// parameters or variables.
    fn point(&mut self, n: usize) -> String {
        let n = if self.rng.chance(0.1) { self.rng.below(4) } else { n };
        let args: Vec<String> = (0..n)
            .map(|_| match self.rng.below(10) {
                0 if !self.params.is_empty() => self.rng.pick(&self.params).clone(),
                1 => self.pick(&VARIABLES),
                2 => format!("2*{}", self.number()),
                _ => self.number(),
            })
            .collect();
        format!("({})", args.join(", "))
    }

    /// A derivative form, symbolically or at a point.
    fn form(&mut self) -> String {
        let vars = self.variables();
        let f = self.function(&vars);
        let arity = self.defs.iter().find(|(n, _)| *n == f).map_or(vars.len().max(1), |(_, n)| *n);
        let order = |rng: &mut Rng| match rng.below(20) {
            0 => "40".to_string(),
            1 => "0".to_string(),
            2 => "2.5".to_string(),
            _ => (1 + rng.below(4)).to_string(),
        };
        let form = match self.rng.below(6) {
            0 => {
                let v = self.variable(&vars);
                match self.rng.below(3) {
                    0 => format!("diff({f}, {v})"),
                    1 => format!("diff({f}, {v}, {})", order(&mut self.rng)),
                    _ => {
                        let w = self.variable(&vars);
                        format!("diff({f}, {v}, {}, {w})", order(&mut self.rng))
                    }
                }
            }
            1 => format!("grad({f})"),
            2 => {
                let g = self.function(&vars);
                match self.rng.chance(0.5) {
                    true => format!("jacobian([{f}, {g}])"),
                    false => format!("jacobian({f})"),
                }
            }
            3 => format!("hessian({f})"),
            4 => {
                let v = self.variable(&vars);
                let at = self.number();
                format!("taylor({f}, {v}, {at}, {})", order(&mut self.rng))
            }
            _ => {
                let inner = format!("diff({f}, {})", self.variable(&vars));
                format!("diff({inner}, {})", self.variable(&vars))
            }
        };
        match self.rng.chance(0.5) {
            true => form.clone() + &self.point(arity),
            false => form,
        }
    }

    /// `param a = 1, b`: new parameters and values, none, or a bad one.
    fn param(&mut self) -> String {
        let count = 1 + self.rng.below(3);
        let mut items = vec![];
        for _ in 0..count {
            let name = self.name(&PARAMETERS);
            if !self.params.contains(&name) && !self.defs.iter().any(|(d, _)| *d == name) {
                self.params.push(name.clone());
            }
            items.push(match self.rng.below(6) {
                0 | 1 => name,
                2 => format!("{name} = 2*pi"),
                3 => format!("{name} = x + 1"),
                _ => format!("{name} = {}", self.number()),
            });
        }
        format!("param {}", items.join(", "))
    }

    /// A definition: of arguments, of the variables it uses, a constant, or
    /// a derivative.
    fn define(&mut self) -> String {
        let name = self.name(&DEFINITIONS);
        let vars = self.variables();
        let (line, arity) = match self.rng.below(5) {
            0 | 1 => {
                let body = self.expr(&vars, 3);
                (format!("{name}({}) = {body}", vars.join(", ")), vars.len())
            }
            2 => (format!("{name} = {}", self.expr(&vars, 3)), vars.len()),
            3 => (format!("{name} = {}", self.expr(&[], 2)), 0),
            _ => {
                let form = self.form();
                (format!("{name}({}) = {form}", vars.join(", ")), vars.len())
            }
        };
        self.defs.retain(|(d, _)| *d != name);
        if !self.params.contains(&name) {
            self.defs.push((name, arity));
        }
        line
    }

    /// A file for `:save` or `:dot` in the session's directory.
    fn new_file(&mut self, ext: &str) -> String {
        self.written += 1;
        let file = self.dir.join(format!("{}.{ext}", self.written)).display().to_string();
        if ext == "dstar" {
            self.files.push(file.clone());
        }
        file
    }

    /// One use of `command` (as `:help` writes it).
    fn command(&mut self, command: &str) -> String {
        let vars = self.variables();
        match command {
            ":help" => self.pick(&[":help", ":h", ":?"]),
            ":vars" => ":vars".into(),
            ":show" | ":clear" => {
                let mut names: Vec<String> = self.defs.iter().map(|(n, _)| n.clone()).collect();
                names.extend(self.params.iter().cloned());
                names.push(self.pick(&DEFINITIONS));
                let names: Vec<String> = names.into_iter().filter(|_| self.rng.chance(0.3)).collect();
                if command == ":clear" {
                    let all = names.is_empty();
                    self.defs.retain(|(d, _)| !all && !names.contains(d));
                    self.params.retain(|p| !all && !names.contains(p));
                }
                format!("{command} {}", names.join(" "))
            }
            ":ops" => format!(":ops {}", self.expr(&vars, 3)),
            ":time" => format!(":time {}", self.expr(&vars, 2)),
            ":dot" => {
                let file = self.new_file("dot");
                format!(":dot {} {file}", self.expr(&vars, 2))
            }
            ":save" => format!(":save {}", self.new_file("dstar")),
            ":load" => {
                let file = self.rng.pick(&self.files).clone();
                format!(":load {file}")
            }
            ":reset" => {
                self.defs.clear();
                self.params.clear();
                ":reset".into()
            }
            ":quit" => self.pick(&[":quit", ":q", ":exit"]),
            other => panic!(
                "`:help` lists {other}, which this test does not know: teach `Session::command` to use it"
            ),
        }
    }

    /// A line of random tokens, now and then with a byte that is not UTF-8.
    fn noise(&mut self) -> Vec<u8> {
        let mut line = String::new();
        for _ in 0..1 + self.rng.below(12) {
            let _ = write!(line, "{} ", self.pick(&TOKENS));
        }
        let mut bytes = line.into_bytes();
        if self.rng.chance(0.2) {
            let at = self.rng.below(bytes.len() + 1);
            bytes.insert(at, 0xff);
        }
        bytes
    }

    /// A line of one statement (or several, separated by `;`).
    fn line(&mut self) -> Vec<u8> {
        let statements = if self.rng.chance(0.15) { 2 + self.rng.below(2) } else { 1 };
        let mut parts = vec![];
        for _ in 0..statements {
            let vars = self.variables();
            parts.push(match self.rng.below(10) {
                0 => self.param(),
                1 | 2 => self.define(),
                3 => match self.def() {
                    Some((name, n)) => self.call(&name, n, &[], 1),
                    None => self.expr(&vars, 2),
                },
                4 => match self.def() {
                    Some((name, n)) => self.call(&name, n, &vars, 1),
                    None => self.expr(&vars, 2),
                },
                5 | 6 => self.form(),
                7 => self.expr(&vars, 3),
                8 => self.expr(&[], 2),
                _ if self.rng.chance(0.3) => return extreme(&mut self.rng).into_bytes(),
                _ => return self.noise(),
            });
        }
        parts.join("; ").into_bytes()
    }
}

/// A line at a limit: nesting, orders, sizes, derivatives of no variables.
fn extreme(rng: &mut Rng) -> String {
    let deep = 1 + rng.below(20_000);
    match rng.below(10) {
        0 => format!("{}x{}", "(".repeat(deep), ")".repeat(deep)),
        1 => format!("f({}1{})", "f(".repeat(deep % 3000), ")".repeat(deep % 3000)),
        2 => {
            let n = 60 + rng.below(10);
            format!("{}x*y{}", "diff(".repeat(n), ", x)".repeat(n))
        }
        3 => {
            format!("diff(sin(x), x, {})", rng.pick(&["99999999999999999999", "18446744073709551615", "400"]))
        }
        4 => format!("taylor(exp(x), x, 0, {})", rng.pick(&["100000000000", "171", "1000"])),
        5 => {
            let n = 1 + rng.below(300);
            let sum: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
            let ones = vec!["1"; n].join(", ");
            format!("w = {}; grad(w)({ones}); hessian(w)", sum.join(" * "))
        }
        6 => rng
            .pick(&["grad(1)()", "hessian(2)", "jacobian([1, 2])()", "taylor(3, x, 0, 2)(1)", ":ops 1"])
            .to_string(),
        7 => format!(
            "param {}",
            (0..1 + rng.below(200)).map(|i| format!("p{i} = {i}")).collect::<Vec<_>>().join(", ")
        ),
        8 => rng.pick(&["", " ", ";;;", ":", ": ", "#", "x # comment", "\r", "f(x) = x;"]).to_string(),
        _ => "x + ".repeat(deep) + "1",
    }
}

/// A problem file with functions and parameters (`testkit::functions`),
/// with its `# @params` line or without.
fn problem_file(rng: &mut Rng, path: &Path) {
    let ops = 12 + rng.below(20);
    let program = testkit::functions::generate(rng, ops);
    let text = match rng.chance(0.5) {
        true => program.structured,
        false => {
            program.structured.lines().filter(|l| !l.contains("@params")).map(|l| format!("{l}\n")).collect()
        }
    };
    std::fs::write(path, text).unwrap();
}

/// A session of about `lines` generated lines, with every command of
/// `commands` somewhere among them, ending in `:quit` or not.
fn script(rng: Rng, dir: &Path, commands: &[String], lines: usize) -> Vec<u8> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files = vec![
        corpus.join("lyons.dstar").display().to_string(),
        corpus.join("sh_5.dstar").display().to_string(),
        dir.join("missing.dstar").display().to_string(),
        dir.display().to_string(),
    ];
    let mut s = Session { rng, dir, defs: vec![], params: vec![], files: vec![], written: 0 };
    for k in 0..2 {
        let path = dir.join(format!("problem{k}.dstar"));
        problem_file(&mut s.rng, &path);
        files.push(path.display().to_string());
    }
    std::fs::write(dir.join("garbage.dstar"), b"in x\nout = = sin(\n\xff\n").unwrap();
    files.push(dir.join("garbage.dstar").display().to_string());
    s.files = files;
    // Where each command goes: one line each, `:quit` only last.
    let mut at: Vec<(usize, &str)> =
        commands.iter().filter(|c| *c != ":quit").map(|c| (s.rng.below(lines), c.as_str())).collect();
    at.sort();
    let mut out = vec![];
    for i in 0..lines {
        if s.rng.chance(0.08) {
            let command = s.rng.pick(commands).clone();
            if command != ":quit" && command != ":time" {
                out.extend(s.command(&command).into_bytes());
                out.push(b'\n');
            }
        }
        while let Some(&(_, command)) = at.first().filter(|(j, _)| *j == i) {
            out.extend(s.command(command).into_bytes());
            out.push(b'\n');
            at.remove(0);
        }
        out.extend(s.line());
        out.push(b'\n');
    }
    if s.rng.chance(0.5) {
        out.extend(s.command(":quit").into_bytes());
        out.extend(b"\nf(1)\n");
    }
    out
}

#[test]
fn issue_34_generated_sessions_never_panic_nor_hang() {
    let scratch = testkit::scratch("dstar-repl-no-panic");
    let root = scratch.path().to_path_buf();
    let help = help(&root);
    for f in &help.functions {
        assert!(
            UNARY.contains(&f.as_str()) || BINARY.contains(&f.as_str()),
            "`:help` lists the function {f}, which this test does not generate: add it to UNARY or BINARY"
        );
    }
    assert!(help.commands.len() >= 11, "{:?}", help.commands);
    let sessions = testkit::cases(6, 200);
    for seed in 0..sessions as u64 {
        let dir: PathBuf = root.join(seed.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let script = script(Rng::new(0x5e55_1011 + seed), &dir, &help.commands, 40);
        let run = repl(&dir, &script, seed % 2 == 1);
        let saved = dir.join("session.in");
        std::fs::write(&saved, &script).unwrap();
        let tail: String = {
            let chars: Vec<char> = run.stdout.chars().collect();
            chars[chars.len().saturating_sub(3000)..].iter().collect()
        };
        let replay = format!("the session is {} (pipe it into `dstar repl`)", saved.display());
        assert!(run.status != 137, "killed after {LIMIT_SECONDS} s: a hang? {replay}\n{tail}");
        assert!(
            run.status != 101 && !run.stderr.contains("panicked"),
            "a panic (status {}): {replay}\n{}\n{tail}",
            run.status,
            run.stderr
        );
        assert!(matches!(run.status, 0 | 2), "status {}: {replay}\n{}\n{tail}", run.status, run.stderr);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
