//! How results read: expressions with their shared subexpressions bound to
//! names, derivatives with their rows and columns named, and numbers.

use super::form::Derived;
use crate::commands::counted;
use dstar::frontend::{print_nodes, NodeId, Program};
use std::collections::HashSet;
use std::fmt::Write;

/// `f(x, y)`, or `x` for a function of no variables (a constant), as it
/// is defined (`x = 5`) and used.
pub fn signature(name: &str, program: &Program) -> String {
    if program.inputs.is_empty() {
        return name.to_string();
    }
    format!("{name}({})", program.inputs.join(", "))
}

/// `param g = 9.81`, or `param g (no value)`: a parameter as it is declared,
/// echoed and listed.
pub fn parameter(name: &str, value: Option<f64>) -> String {
    format!("param {}", parameter_item(name, value))
}

/// `g = 9.81` or `g (no value)`, an item of a list of parameters.
pub fn parameter_item(name: &str, value: Option<f64>) -> String {
    match value {
        Some(value) => format!("{name} = {}", number(value)),
        None => format!("{name} (no value)"),
    }
}

/// `f(x, y) = ...`: a definition whole, as `:show` prints it.
pub fn definition(name: &str, program: &Program) -> String {
    signature(name, program) + " = " + &self::program(program)
}

/// Lines past which a definition is echoed (and listed by `:vars`) as a
/// summary: a derivative of high order can have 20,000 shared
/// subexpressions.
const MAX_LINES: usize = 24;
/// Characters past which a definition is echoed as a summary.
const MAX_CHARS: usize = 4_000;
/// Lines of a summary's head, and the characters shown of each.
const HEAD_LINES: usize = 8;
const HEAD_WIDTH: usize = 100;

/// A definition as it is echoed and listed: whole when short, else its
/// first lines (each clipped), how much more there is and how to see it.
pub fn definition_summary(name: &str, program: &Program) -> String {
    let whole = definition(name, program);
    let lines = whole.lines().count();
    if lines <= MAX_LINES && whole.len() <= MAX_CHARS {
        return whole;
    }
    let mut s = String::new();
    for line in whole.lines().take(HEAD_LINES) {
        s += &clipped(line);
        s.push('\n');
    }
    let _ = write!(
        s,
        "  … {} ({} in all); :show {name} prints it whole",
        counted(lines.saturating_sub(HEAD_LINES), "more line"),
        counted(program.count_ops(), "operation")
    );
    s
}

/// The definitions a file loaded, as `:load` reports them: their
/// signatures, or where they would pass [`MAX_CHARS`] (a model's thousands
/// of outputs, each over all its inputs: `gen.py cartpole 250 --flat` was
/// 9 MB of text) the first few, each clipped, and how many there are.
pub fn loaded(defs: &[(String, Program)]) -> String {
    // Counted up to the limit, not written: past it, the whole list would
    // be outputs × inputs names.
    let mut chars = 0;
    for (name, program) in defs {
        chars += name.len() + 4 + program.inputs.iter().map(|a| a.len() + 2).sum::<usize>();
        if chars > MAX_CHARS {
            break;
        }
    }
    if chars <= MAX_CHARS {
        let names: Vec<String> = defs.iter().map(|(name, p)| signature(name, p)).collect();
        return names.join(", ");
    }
    let mut s = counted(defs.len(), "definition") + ":";
    for (name, program) in defs.iter().take(HEAD_LINES) {
        s += "\n  ";
        s += &clipped(&signature_head(name, program));
    }
    let _ = write!(s, "\n  … {} more; :vars lists them", defs.len().saturating_sub(HEAD_LINES));
    s
}

/// [`signature`] up to its first [`HEAD_WIDTH`] characters and a little
/// more, without writing every argument of a function of thousands.
fn signature_head(name: &str, program: &Program) -> String {
    let mut s = name.to_string();
    let mut inputs = program.inputs.iter();
    if let Some(first) = inputs.next() {
        s.push('(');
        s += first;
        for input in inputs {
            if s.len() > HEAD_WIDTH {
                // Enough to be clipped.
                return s + ", …";
            }
            s += ", ";
            s += input;
        }
        s.push(')');
    }
    s
}

/// `line` up to [`HEAD_WIDTH`] characters, then `…` if there is more.
fn clipped(line: &str) -> String {
    let mut chars = line.chars();
    let mut s: String = chars.by_ref().take(HEAD_WIDTH).collect();
    if chars.next().is_some() {
        s.push('…');
    }
    s
}

/// A one-output program as readable text: the expression, then the shared
/// subexpressions as `where t1 = ...` lines.
pub fn program(program: &Program) -> String {
    nodes(program, &program.output_nodes(), |roots| roots[0].clone())
}

/// A derivative, symbolically: what its rows and columns are, its entries
/// laid out, then the shared subexpressions.
pub fn derived(derived: &Derived) -> String {
    let body = nodes(&derived.program, &derived.program.output_nodes(), |texts| derived.shape.layout(texts));
    with_header(derived.header(), body)
}

/// A derivative's values at the point `x`.
pub fn derived_values(derived: &Derived, x: &[f64], values: &[f64]) -> String {
    let texts: Vec<String> = values.iter().map(|v| number(*v)).collect();
    let mut header = derived.header();
    if header.is_empty() {
        // A scalar: say which value went to which variable.
        let at: Vec<String> = derived
            .program
            .inputs
            .iter()
            .zip(x)
            .map(|(name, v)| format!("{name} = {}", number(*v)))
            .collect();
        if !at.is_empty() {
            header = format!("# at {}", at.join(", "));
        }
    }
    with_header(header, derived.shape.layout(&texts))
}

fn with_header(header: String, body: String) -> String {
    if header.is_empty() {
        body
    } else {
        header + "\n" + &body
    }
}

/// Prints `roots` of `program`'s DAG, joined by `layout`, then the shared
/// subexpressions as `where t1 = ...` lines. Parameters print by name.
fn nodes(program: &Program, roots: &[NodeId], layout: impl Fn(&[String]) -> String) -> String {
    let leaves = program.leaves();
    let taken: HashSet<String> = leaves.iter().cloned().collect();
    let printed = print_nodes(&program.dag, roots, &leaves, &taken);
    // A value is shown as a number (`inf`, not the expression `1/0`).
    let texts: Vec<String> = (roots.iter().zip(printed.roots))
        .map(|(&root, text)| program.dag.as_const(root).map_or(text, number))
        .collect();
    let mut s = layout(&texts);
    for (i, (name, text)) in printed.bindings.iter().enumerate() {
        let word = if i == 0 { "where" } else { "     " };
        let _ = write!(s, "\n  {word} {name} = {text}");
    }
    s
}

/// A number as the REPL prints it ([`dstar::frontend::value::show`]).
pub fn number(v: f64) -> String {
    dstar::frontend::value::show(v)
}
