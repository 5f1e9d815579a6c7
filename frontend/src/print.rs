//! Prints DAGs back to problem-format text.
//!
//! A node used more than once is printed once, bound to a name, so printing
//! never grows exponentially; so is any expression longer than a line, which
//! keeps the printer linear and the output readable. Parsing the printed text
//! gives the same DAG (see [`Program::same_as`]).

use crate::call::{called_functions, FunctionDef, FunctionId};
use crate::dag::{ExprDag, NodeId};
use crate::fresh::fresh_name;
use crate::op::Op;
use crate::program::Program;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::sync::Arc;

/// An inlined expression longer than this is bound to a name instead.
const MAX_INLINE: usize = 72;

/// Straight-line text for some roots of a DAG: named bindings, then one
/// expression per root.
#[derive(Clone, Debug, PartialEq)]
pub struct Printed {
    /// `(name, expression)` pairs, each using only earlier names.
    pub bindings: Vec<(String, String)>,
    /// The expression of each root.
    pub roots: Vec<String>,
}

const ATOM: u8 = 5;

/// The names functions are printed under, so that the text parses back:
/// a function's own name where the parser reads it as one and nothing else
/// printed has it, else one made from it (a derivative `f'` is `f_d`, a
/// second `f` is `f_2`).
#[derive(Debug, Default)]
pub struct FunctionNames(HashMap<FunctionId, String>);

impl FunctionNames {
    /// Names for `functions`, none of them in `taken`.
    pub fn new(functions: &[Arc<FunctionDef>], taken: &HashSet<String>) -> FunctionNames {
        let mut names = HashMap::new();
        let mut used: HashSet<String> = HashSet::new();
        for f in functions {
            let mut base = plain_name(f.name());
            if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                || crate::reserved(&base).is_some()
            {
                base = format!("f_{base}");
            }
            let name = fresh_name(&base, |n| taken.contains(n) || used.contains(n));
            used.insert(name.clone());
            names.insert(FunctionId::of(f), name);
        }
        FunctionNames(names)
    }

    /// The printed name of `f`: its own if it was not given one.
    pub fn of<'a>(&'a self, f: &'a FunctionDef) -> &'a str {
        self.0.get(&FunctionId::of(f)).map_or(f.name(), String::as_str)
    }

    /// Every name given.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.0.values()
    }
}

/// A function's name in ASCII letters, digits and `_`: each `'` of a
/// derivative's name written `d` after a `_` (`step''` is `step_dd`), any
/// other character `_`. The printer and the C and Rust emitters name
/// functions from it.
pub fn plain_name(name: &str) -> String {
    let primes = name.chars().rev().take_while(|&c| c == '\'').count();
    let base: String = name[..name.len() - primes]
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if primes == 0 {
        base
    } else {
        format!("{base}_{}", "d".repeat(primes))
    }
}

/// Prints `roots`, naming input `k` `inputs[k]`. Temporaries are named
/// `t1, t2, ...`, skipping any name in `taken`.
pub fn print_nodes(dag: &ExprDag, roots: &[NodeId], inputs: &[String], taken: &HashSet<String>) -> Printed {
    print_nodes_named(dag, roots, inputs, taken, &FunctionNames::default())
}

/// [`print_nodes`], calling each function by its name in `functions`.
pub fn print_nodes_named(
    dag: &ExprDag,
    roots: &[NodeId],
    inputs: &[String],
    taken: &HashSet<String>,
    functions: &FunctionNames,
) -> Printed {
    let uses = dag.use_counts(roots);
    let reach = dag.reachable(roots);
    let is_root: HashSet<NodeId> = roots.iter().copied().collect();
    // A set, not `inputs.contains`: programs with 10^4 inputs print 10^4 temporaries.
    let input_names: HashSet<&str> = inputs.iter().map(String::as_str).collect();
    // A root's terms: the sums down the left of a root that is a sum, each
    // used only there. They stay on the root's line, however long, and
    // write a constant term first (`1 + x + x^2 / 2`).
    let mut terms = vec![false; dag.len()];
    for &root in roots {
        let mut sum = root;
        while matches!(dag.op(sum), Op::Add | Op::Sub) {
            let left = dag.args(sum)[0];
            if !matches!(dag.op(left), Op::Add | Op::Sub) || uses[left.index()] != 1 {
                break;
            }
            terms[left.index()] = true;
            sum = left;
        }
    }
    let mut texts: Vec<Option<(String, u8)>> = vec![None; dag.len()];
    let mut bindings = vec![];
    let mut counter = 0;
    // Temporaries are `t1`, `t2`, ... ([`is_temporary`]).
    let fresh = |counter: &mut usize| loop {
        *counter += 1;
        let name = format!("t{counter}");
        if !taken.contains(&name) && !input_names.contains(name.as_str()) {
            break name;
        }
    };
    // The names bound to each call's results, by site.
    let mut called: Vec<Option<Vec<String>>> = vec![None; dag.sites().len()];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let node = dag.node(id);
        if let Op::Call(c) = node.op {
            // A call is a statement binding every result: `t3, t4 = f(x, y)`.
            let names = called[c.site as usize].get_or_insert_with(|| {
                let site = dag.site(c.site);
                let args: Vec<String> = site
                    .args
                    .iter()
                    .map(|a| {
                        let slot = &mut texts[a.index()];
                        let text = if uses[a.index()] == 1 { slot.take() } else { slot.clone() };
                        text.expect("arguments are printed before their parents").0
                    })
                    .collect();
                let called = site.called();
                let names: Vec<String> = called.results().iter().map(|_| fresh(&mut counter)).collect();
                bindings.push((names.join(", "), format!("{}({})", functions.of(&called), args.join(", "))));
                names
            });
            texts[id.index()] = Some((names[c.out as usize].clone(), ATOM));
            continue;
        }
        let mut args: Vec<(String, u8)> = Vec::with_capacity(node.args().len());
        for a in node.args() {
            let slot = &mut texts[a.index()];
            // A node used once is consumed by its only parent.
            let text = if uses[a.index()] == 1 { slot.take() } else { slot.clone() };
            args.push(text.expect("arguments are printed before their parents"));
        }
        let in_root = is_root.contains(&id) || terms[id.index()];
        let (text, prec) = node_text(node.op, args, inputs, terms[id.index()]);
        let leaf = node.op.is_leaf();
        let bind = !leaf && (uses[id.index()] > 1 || (text.len() > MAX_INLINE && !in_root));
        texts[id.index()] = Some(if bind {
            let name = fresh(&mut counter);
            bindings.push((name.clone(), text));
            (name, ATOM)
        } else {
            (text, prec)
        });
    }
    let roots = roots.iter().map(|r| texts[r.index()].clone().expect("roots are reachable").0).collect();
    Printed { bindings, roots }
}

/// Prints a whole program in problem format: every function it calls (its
/// own and any derivative of one) written once, above its first use.
pub fn print_program(program: &Program) -> String {
    let leaves = program.leaves();
    let roots = program.output_nodes();
    let mut taken: HashSet<String> =
        program.output_names().into_iter().chain(leaves.iter().cloned()).collect();
    let functions = called_functions(&program.dag, &roots, &program.functions);
    let names = FunctionNames::new(&functions, &taken);
    taken.extend(names.names().cloned());
    let printed = print_nodes_named(&program.dag, &roots, &leaves, &taken, &names);
    let mut s = String::new();
    if let Some(point) = &program.point {
        let values: Vec<String> = point.iter().map(|v| format!("{v:?}")).collect();
        let _ = writeln!(s, "# @point {}", values.join(" "));
    }
    if let Some(params) = &program.param_values {
        let values: Vec<String> = params.iter().map(|v| format!("{v:?}")).collect();
        let _ = writeln!(s, "# @params {}", values.join(" "));
    }
    if !program.params.is_empty() {
        let _ = writeln!(s, "param {}", crate::table::declarations(&program.params).join(", "));
    }
    let _ = writeln!(s, "in {}", crate::table::declarations(&program.inputs).join(", "));
    for function in &functions {
        s += &print_function(function, &names);
    }
    for (name, text) in &printed.bindings {
        let _ = writeln!(s, "{name} = {text}");
    }
    for (out, text) in program.outputs.iter().zip(&printed.roots) {
        let _ = writeln!(s, "out {} = {text}", out.name);
    }
    s
}

/// Prints a function as a block: `function f(a, b) -> (r, s)`, its body,
/// `end`; it and the functions it calls are named by `names`. A result
/// whose name another result, an argument or a function has is renamed.
pub fn print_function(function: &FunctionDef, names: &FunctionNames) -> String {
    let body = function.body();
    // Its own name is free in its body: the body is read before it is defined.
    let own = names.of(function);
    let functions: HashSet<&str> = names.names().map(String::as_str).filter(|&n| n != own).collect();
    let args: HashSet<&str> = function.args().iter().map(String::as_str).collect();
    let mut results: Vec<String> = vec![];
    for (k, r) in function.results().iter().enumerate() {
        let is_arg =
            |n: &str| args.contains(n) && body.dag().op(body.roots()[k]) != Op::Input(arg_index(function, n));
        let clash = |n: &str| results.iter().any(|q| q == n) || functions.contains(n) || is_arg(n);
        let name = fresh_name(r, clash);
        results.push(name);
    }
    let taken: HashSet<String> =
        function.args().iter().chain(&results).chain(names.names()).cloned().collect();
    let printed = print_nodes_named(body.dag(), body.roots(), function.args(), &taken, names);
    let mut s = format!("function {}({}) -> ({})\n", own, function.args().join(", "), results.join(", "));
    for (name, text) in &printed.bindings {
        let _ = writeln!(s, "  {name} = {text}");
    }
    for (result, text) in results.iter().zip(&printed.roots) {
        if result != text {
            let _ = writeln!(s, "  {result} = {text}");
        }
    }
    s + "end\n"
}

/// The position of argument `name` of `function`.
fn arg_index(function: &FunctionDef, name: &str) -> u32 {
    function.args().iter().position(|a| a == name).unwrap_or(usize::MAX) as u32
}

/// Prints a single root with no bindings if it has none to share, or as
/// `t1 = ...; t2 = ...; expression` otherwise.
pub fn print_expr(dag: &ExprDag, root: NodeId, inputs: &[String]) -> String {
    let printed = print_nodes(dag, &[root], inputs, &HashSet::new());
    let mut parts: Vec<String> = printed.bindings.into_iter().map(|(n, t)| format!("{n} = {t}")).collect();
    parts.extend(printed.roots);
    parts.join("; ")
}

/// A number as the parser reads it back exactly.
pub fn format_number(v: f64) -> (String, u8) {
    if v.is_nan() {
        ("0/0".into(), 2)
    } else if v.is_infinite() {
        (if v > 0.0 { "1/0" } else { "-1/0" }.into(), 2)
    } else {
        let mut s = format!("{:?}", v.abs());
        if let Some(stripped) = s.strip_suffix(".0") {
            s = stripped.to_string();
        }
        if v.is_sign_negative() {
            (format!("-{s}"), 3)
        } else {
            (s, ATOM)
        }
    }
}

fn is_number(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_digit())
}

/// `text` in parentheses if its precedence `prec` is below `min`, or if it
/// starts with a minus sign and stands right of an operator tighter than
/// `+` (`x * (-y)`, `2^(-x)`).
fn paren(text: String, prec: u8, min: u8) -> String {
    if prec < min || text.starts_with('-') && min > 1 {
        format!("({text})")
    } else {
        text
    }
}

/// Like [`paren`] for a left operand: a leading minus there binds tighter
/// than `*` and `/` already (`-2 * x` is `(-2) * x`).
fn paren_left(text: String, prec: u8, min: u8) -> String {
    if prec < min {
        format!("({text})")
    } else {
        text
    }
}

/// The text of one node from its arguments' texts and precedences:
/// 1 for `+ -`, 2 for `* /`, 3 for unary minus, 4 for `^`, 5 for atoms.
/// `first_term` puts a constant first instead of last, for the first terms
/// of a longer sum (`1 + x + x^2`).
fn node_text(op: Op, mut args: Vec<(String, u8)>, inputs: &[String], first_term: bool) -> (String, u8) {
    // Constant factors read best first (`2 * x`), constant terms last
    // (`x + 1`); the operands commute, so the DAG is the same.
    let number = |i: usize| {
        args.get(i).is_some_and(|(t, p)| match t.strip_prefix('-') {
            Some(magnitude) => *p == 3 && is_number(magnitude),
            None => *p == ATOM && is_number(t),
        })
    };
    // Operands that would need parentheses on the right read better on the
    // left, where the same precedence needs none: `2 * x * y`, not
    // `y * (2 * x)`.
    // A leading minus needs brackets on the right only (`-2 * x * y`, not
    // `y * (-2 * x)`).
    let bracketed = |i: usize, prec: u8| args.get(i).is_some_and(|(t, p)| *p < prec || t.starts_with('-'));
    let lower = |i: usize, prec: u8| args.get(i).is_some_and(|(_, p)| *p < prec);
    let leans = |prec: u8| bracketed(1, prec + 1) && !lower(1, prec) && !bracketed(0, prec + 1);
    let swap = match op {
        Op::Mul => number(1) && !number(0) || !number(0) && leans(2),
        Op::Add if first_term => number(1) && !number(0) || !number(0) && !number(1) && leans(1),
        Op::Add => number(0) && !number(1) || !number(1) && leans(1),
        _ => false,
    };
    if swap {
        args.swap(0, 1);
    }
    let mut arg = |i: usize| std::mem::take(&mut args[i]);
    // Appended to the left operand's text, which is moved, not copied: a
    // sum of many terms prints in linear time.
    let infix = |(a, pa): (String, u8), sym: &str, (b, pb): (String, u8), prec: u8, right_min: u8| {
        let mut text = paren_left(a, pa, prec);
        text.push(' ');
        text.push_str(sym);
        text.push(' ');
        text.push_str(&paren(b, pb, right_min));
        (text, prec)
    };
    match op {
        Op::Const(c) => format_number(c.get()),
        // A leaf without a name is a caller's mistake; `x7` keeps the text whole.
        Op::Input(k) => (inputs.get(k as usize).cloned().unwrap_or_else(|| format!("x{k}")), ATOM),
        Op::Neg => {
            let (a, pa) = arg(0);
            (format!("-{}", paren(a, pa, 4)), 3)
        }
        Op::Add => infix(arg(0), "+", arg(1), 1, 2),
        Op::Sub => infix(arg(0), "-", arg(1), 1, 2),
        Op::Mul => infix(arg(0), "*", arg(1), 2, 3),
        Op::Div => infix(arg(0), "/", arg(1), 2, 3),
        Op::Pow => {
            let ((a, pa), (b, pb)) = (arg(0), arg(1));
            (format!("{}^{}", paren(a, pa, 5), paren(b, pb, 4)), 4)
        }
        Op::Select(cmp) => {
            let texts: Vec<String> = (0..4).map(|i| arg(i).0).collect();
            (format!("ifelse({} {} {}, {}, {})", texts[0], cmp.symbol(), texts[1], texts[2], texts[3]), ATOM)
        }
        // Every other operation is a function call: `name(a, b)`.
        _ => {
            let texts: Vec<String> = (0..op.arity()).map(|i| arg(i).0).collect();
            (format!("{}({})", op.name(), texts.join(", ")), ATOM)
        }
    }
}

/// Whether the printer may bind `name` to a temporary: `t` and digits
/// (`t1`, `t2`, ...), the names a program printed next to others' must
/// leave it.
///
/// ```
/// assert!(frontend::print::is_temporary("t12"));
/// assert!(!frontend::print::is_temporary("t") && !frontend::print::is_temporary("tx"));
/// ```
pub fn is_temporary(name: &str) -> bool {
    name.strip_prefix('t').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::parse_program;

    fn round_trip(src: &str) -> String {
        let p = parse_program(src).unwrap();
        let text = print_program(&p);
        let q = parse_program(&text).unwrap_or_else(|e| panic!("{}\n{text}", e.render(&text)));
        assert!(p.same_as(&q), "{src}\n=>\n{text}");
        text
    }

    #[test]
    fn prints_with_minimal_parentheses() {
        assert_eq!(round_trip("in x, y\nout f = (x + y) * (x - y)"), "in x, y\nout f = (x + y) * (x - y)\n");
        assert_eq!(round_trip("in x\nout f = -x^2"), "in x\nout f = -x^2\n");
        assert_eq!(round_trip("in x\nout f = (-x)^2"), "in x\nout f = (-x)^2\n");
        assert_eq!(round_trip("in x\nout f = 2^3^x"), "in x\nout f = 2^3^x\n");
        assert_eq!(round_trip("in x\nout f = (2^x)^3"), "in x\nout f = (2^x)^3\n");
        assert_eq!(round_trip("in x, y\nout f = x - (y - 1)"), "in x, y\nout f = x - (y - 1)\n");
        round_trip("in x, y\nout f = x / (y * 2) + ifelse(x < y, x, -y)");
        round_trip("in x\nout f = 1/0 + 0/0 * -0 + 1e-300 + 6.02e23");
        assert_eq!(round_trip("in x, y\nout f = -2 * x + -x / y"), "in x, y\nout f = -2 * x + (-x / y)\n");
        // A product that starts with a minus moves left, where it needs no
        // brackets.
        assert_eq!(round_trip("in x, y\nout f = y * (-2 * x)"), "in x, y\nout f = -2 * x * y\n");
        assert_eq!(
            round_trip("in x, y\nout f = y * (2 * x) + (y + x^2)"),
            "in x, y\nout f = y + x^2 + 2 * x * y\n"
        );
    }

    /// Issue 31: a root's own terms stay on its line however long (the
    /// first terms of a Taylor polynomial were bound to a name, used once),
    /// and a constant first term of a longer sum is written first.
    #[test]
    fn a_roots_terms_stay_on_its_line() {
        let terms: Vec<String> = (2..=13).map(|k| format!("x^{k} / {}", 1000 * k)).collect();
        let text = round_trip(&format!("in x\nout f = {}", terms.join(" + ")));
        assert_eq!(text, format!("in x\nout f = {}\n", terms.join(" + ")));
        assert_eq!(round_trip("in x\nout f = 1 + x + x^2"), "in x\nout f = 1 + x + x^2\n");
        assert_eq!(round_trip("in x\nout f = 1 + x"), "in x\nout f = x + 1\n");
        // Other long expressions are still bound.
        let long = round_trip(&format!("in x\nout f = sin({})", terms.join(" + ")));
        assert!(long.lines().count() > 2, "{long}");
    }

    #[test]
    fn shared_nodes_are_bound_once() {
        let text = round_trip("in x\nt = sin(x)\nout f = t*t + t\nout g = t");
        assert_eq!(text, "in x\nt1 = sin(x)\nout f = t1 + t1 * t1\nout g = t1\n");
    }

    #[test]
    fn printing_is_linear_on_exponential_trees() {
        // Each line doubles the tree size; the printed text must not.
        let mut src = String::from("in x\nt0 = x\n");
        for i in 1..=60 {
            src += &format!("t{i} = t{} * t{} + 1\n", i - 1, i - 1);
        }
        src += "out t60";
        let text = round_trip(&src);
        assert!(text.len() < 4000, "{}", text.len());
    }
}
