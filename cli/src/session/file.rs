//! Sessions as problem files. `:save` writes every definition as an output
//! of one valid problem file (so `dstar eval` reads it), the parameters they
//! read as its `param` line, and says in a `# @def NAME(ARGS) = OUTPUT`
//! comment which output is which definition over which arguments, in order;
//! `:load` restores exactly those, each with the parameters it reads. The
//! parameters' values are the file's `# @params` line when each has one,
//! else a `# @value NAME = VALUE` comment for each that has one (a line of
//! `# @params` holds a value for every parameter). A problem file without
//! such comments loads each output as a function of all the inputs.

use super::statement::FORMS;
use super::SessionError;
use dstar::frontend::fresh::fresh_name;
use dstar::frontend::lexer::{Lexer, Token};
use dstar::frontend::shown::Shown;
use dstar::frontend::{print_nodes, ExprDag, Node, NodeId, Output, Program};
use std::collections::HashSet;
use std::fmt::Write;

const DEF: &str = "# @def ";
const VALUE: &str = "# @value ";

/// What a problem file holds for a session.
pub struct Contents {
    /// The definitions `(name, program)`, in order.
    pub defs: Vec<(String, Program)>,
    /// The file's parameters, in order, with their values if it has some:
    /// its `# @params` line's, or those of its `# @value` lines.
    pub params: Vec<(String, Option<f64>)>,
}

/// The definitions `(name, program)` and the parameters they read (in the
/// order of the programs' parameters, with their values) as a problem
/// file. Each program's inputs are its arguments and its first output its
/// value.
pub fn write(defs: &[(&str, &Program)], params: &[(&str, Option<f64>)]) -> String {
    // Names of the file that are neither inputs nor temporaries.
    let named: HashSet<&str> = defs.iter().map(|(n, _)| *n).chain(params.iter().map(|(p, _)| *p)).collect();
    // The file's inputs: every argument, in order of first appearance.
    let mut inputs: Vec<String> = vec![];
    let mut seen: HashSet<&str> = HashSet::new();
    for (_, p) in defs {
        for arg in &p.inputs {
            if seen.insert(arg) {
                inputs.push(arg.clone());
            }
        }
    }
    if inputs.is_empty() {
        // A problem file has at least one input; nothing reads this one.
        inputs.push(fresh_name("_", |n| named.contains(n)));
    }
    // Outputs are named after their definitions unless that names an input.
    let mut taken: HashSet<String> =
        inputs.iter().cloned().chain(named.iter().map(|n| n.to_string())).collect();
    let mut outputs = vec![];
    for (name, _) in defs {
        let output = if seen.contains(name) {
            let output = fresh_name(&format!("{name}_"), |n| taken.contains(n));
            taken.insert(output.clone());
            output
        } else {
            name.to_string()
        };
        outputs.push(output);
    }
    let mut text = String::from(
        "# A dstar REPL session, written by :save. ':load FILE' restores each definition from\n\
         # its '# @def NAME(ARGUMENTS) = OUTPUT' line; 'dstar eval FILE --at ...' evaluates it.\n",
    );
    if !params.is_empty() {
        let values: Option<Vec<String>> =
            params.iter().map(|(_, v)| v.map(dstar::frontend::value::show)).collect();
        match values {
            Some(values) => {
                let _ = writeln!(text, "# @params {}", values.join(" "));
            }
            None => {
                text += "# Not every parameter has a value: each '# @value NAME = VALUE' line gives one.\n";
                for (name, value) in params {
                    if let Some(value) = value {
                        let _ = writeln!(text, "{VALUE}{name} = {}", dstar::frontend::value::show(*value));
                    }
                }
            }
        }
        let names: Vec<&str> = params.iter().map(|(p, _)| *p).collect();
        let _ = writeln!(text, "param {}", names.join(", "));
    }
    let _ = writeln!(text, "in {}", inputs.join(", "));
    // Each definition is written as it prints on its own (see `canonical`),
    // its temporaries renamed apart from every other name of the file.
    let mut counter = 0;
    for ((name, program), output) in defs.iter().zip(&outputs) {
        let (own, value) = standalone(&program.dag, program.outputs[0].node, &program.leaves());
        let mut names = std::collections::HashMap::from([(value, output.clone())]);
        for line in own.lines() {
            let temp = line.split(' ').next().unwrap_or("");
            if line.contains(" = ") && !line.starts_with("out ") {
                let global = loop {
                    counter += 1;
                    let candidate = format!("t{counter}");
                    if !taken.contains(&candidate) {
                        break candidate;
                    }
                };
                names.insert(temp.to_string(), global);
            }
        }
        let _ = writeln!(text, "{DEF}{name}({}) = {output}", program.inputs.join(", "));
        text += &rename(&own, &names);
    }
    text
}

/// `text` with the names that `names` maps replaced, found by the lexer.
fn rename(text: &str, names: &std::collections::HashMap<String, String>) -> String {
    let mut lexer = Lexer::new(text);
    let (mut out, mut copied) = (String::new(), 0);
    while let Ok((token, span)) = lexer.next_token() {
        match token {
            Token::Eof => break,
            Token::Ident(name) => {
                if let Some(new) = names.get(name) {
                    out += &text[copied..span.start.offset as usize];
                    out += new;
                    copied = span.end.offset as usize;
                }
            }
            _ => {}
        }
    }
    out + &text[copied..]
}

/// `program`'s value as `:load` reads it back from a saved file, with only
/// the nodes the value needs and its output named `name`.
///
/// Printing and parsing again can change a DAG (the parser folds constants
/// that inlining left, and orders the operands of `x * y` by creation), so
/// the text is printed and parsed until it comes round again: usually the
/// same text at once, but some DAGs alternate between two texts (or more)
/// for ever. Of the texts of that cycle the least (shortest, then first in
/// order) is the one kept, whichever text the cycle was entered by: the
/// session then holds exactly what its file holds, and `:load` of that
/// text, parsed the same way ([`parse_definition`]), gives it back.
pub fn canonical(program: &Program, name: &str) -> Program {
    let (dag, mut root) = in_tree_order(&program.dag, program.outputs[0].node);
    // Printed and parsed over the arguments it reads, in their order: the
    // same text and tree as over them all (their nodes come first, in the
    // same order), in time for the value, not for every argument (a file's
    // thousands of outputs, each over all its inputs).
    let n = program.inputs.len();
    let mut read = dag.input_indices();
    read.retain(|&k| (k as usize) < n);
    let r = read.len() as u32;
    let at = |k: u32| read.binary_search(&k).expect("an argument read") as u32;
    let n32 = n as u32;
    let mut dag = dag.renumber_inputs(|k| if k < n32 { at(k) } else { r + (k - n32) });
    let args: Vec<&str> = read.iter().map(|&k| program.inputs[k as usize].as_str()).collect();
    let params: Vec<&str> = program.params.iter().map(String::as_str).collect();
    let leaves: Vec<String> = args.iter().chain(&params).map(|s| s.to_string()).collect();
    // The texts printed so far, in order; a cycle closes within a few
    // rounds on every program the printer's round-trip tests cover.
    let mut texts: Vec<String> = Vec::new();
    let mut keep: Option<String> = None;
    for _ in 0..MAX_ROUNDS {
        let (text, value) = standalone(&dag, root, &leaves);
        match &keep {
            Some(kept) if *kept == text => break,
            Some(_) => {}
            None => {
                if let Some(first) = texts.iter().position(|t| *t == text) {
                    let least = texts[first..].iter().min_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
                    let least = least.expect("a cycle has a text").clone();
                    if least == text {
                        break;
                    }
                    keep = Some(least);
                }
            }
        }
        match parse_definition(&text, &args, &params, &value) {
            Some((d, r)) => (dag, root) = (d, r),
            None => {
                debug_assert!(false, "printed text parses: {text}");
                break;
            }
        }
        texts.push(text);
    }
    let dag = dag.renumber_inputs(|k| if k < r { read[k as usize] } else { n32 + (k - r) });
    let outputs = vec![Output { name: name.to_string(), node: root }];
    let canonical =
        Program::new(dag, program.inputs.clone(), outputs).with_params(program.params.clone(), None);
    // Parsed, a value may read fewer parameters than it did (`ifelse(pi < 3,
    // q, 3)` folds): it has those it reads, as it will when loaded.
    super::parameters::params_read(canonical, |_| 0)
}

/// Rounds of printing and parsing [`canonical`] makes at most.
const MAX_ROUNDS: usize = 32;

/// One definition as the statements of a problem file of its own, its
/// input nodes named `leaves` (its arguments, then its parameters): its
/// temporaries, and `out` the name of its value (also returned).
fn standalone(dag: &ExprDag, root: NodeId, leaves: &[String]) -> (String, String) {
    let value = fresh_name("value", |n| leaves.iter().any(|l| l == n));
    let printed = print_nodes(dag, &[root], leaves, &HashSet::from([value.clone()]));
    let mut text = String::new();
    for (temp, expr) in &printed.bindings {
        let _ = writeln!(text, "{temp} = {expr}");
    }
    let _ = writeln!(text, "out {value} = {}", printed.roots[0]);
    (text, value)
}

/// The statements `text` of one definition parsed on their own, over
/// `args` and then `params` in those orders: the DAG of output `value`, in
/// tree order, or `None` if they do not parse so.
fn parse_definition(text: &str, args: &[&str], params: &[&str], value: &str) -> Option<(ExprDag, NodeId)> {
    // A problem file has at least one input: without arguments, one that
    // nothing reads stands first.
    let placeholder = args.is_empty().then(|| fresh_name("_", |n| params.contains(&n)));
    let mut header = format!("in {}\n", placeholder.clone().unwrap_or_else(|| args.join(", ")));
    if !params.is_empty() {
        let _ = writeln!(header, "param {}", params.join(", "));
    }
    let program = dstar::frontend::parse_program(&(header + text)).ok()?;
    let output = program.outputs.iter().find(|o| o.name == value)?;
    let (dag, root) = in_tree_order(&program.dag, output.node);
    // The placeholder is no node of the tree: parameter j is input 1 + j.
    let dag = match placeholder {
        Some(_) if !params.is_empty() => dag.renumber_inputs(|k| k - 1),
        _ => dag,
    };
    Some((dag, root))
}

/// The nodes `root` needs, numbered in post-order from the root (operands
/// left to right): an order that depends only on the expression, not on the
/// order its nodes were made in, which names the printed temporaries. The
/// walk keeps its own stack, so depth is safe.
fn in_tree_order(dag: &ExprDag, root: NodeId) -> (ExprDag, NodeId) {
    let mut ordered = ExprDag::new();
    let mut map: Vec<Option<NodeId>> = vec![None; dag.len()];
    let mut stack = vec![(root, 0usize)];
    while let Some((id, next)) = stack.pop() {
        if map[id.index()].is_some() {
            continue;
        }
        let args = dag.args(id);
        match args[next..].iter().position(|a| map[a.index()].is_none()) {
            Some(i) => {
                stack.push((id, next + i + 1));
                stack.push((args[next + i], 0));
            }
            None => {
                let mapped: Vec<NodeId> = args.iter().map(|a| map[a.index()].expect("done before")).collect();
                map[id.index()] = Some(ordered.intern(Node::new(dag.op(id), &mapped)));
            }
        }
    }
    (ordered, map[root.index()].expect("the root is done last"))
}

/// `program` with its tables' entries named as a session can type them:
/// `x[0]` is `x_0`, `d[2,1]` is `d_2_1` (brackets write lists there). An
/// error if such a name is one the program already has.
fn plain_names(mut program: Program) -> Result<Program, String> {
    let mut taken: HashSet<String> = program.inputs.iter().chain(&program.params).cloned().collect();
    taken.extend(program.outputs.iter().map(|o| o.name.clone()));
    let mut plain = |name: &mut String| {
        let renamed = dstar::frontend::table::plain(name);
        if renamed == *name {
            return Ok(());
        }
        if !taken.insert(renamed.clone()) {
            return Err(format!(
                "'{}' and another name of the file would both be '{}' in a session (a table's entries are named so here); rename one",
                Shown(name),
                Shown(&renamed)
            ));
        }
        *name = renamed;
        Ok(())
    };
    program.inputs.iter_mut().chain(program.params.iter_mut()).try_for_each(&mut plain)?;
    program.outputs.iter_mut().try_for_each(|o| plain(&mut o.name))?;
    Ok(program)
}

/// A `# @def` line read: the definition's name, its arguments, the output
/// holding its value, and its line number.
struct DefLine<'s> {
    name: &'s str,
    args: Vec<&'s str>,
    output: &'s str,
    line: usize,
}

/// The definitions and parameters a problem file holds; errors name the
/// file's line.
pub fn read(source: &str, path: &str) -> Result<Contents, SessionError> {
    let parsed = dstar::frontend::parse_program(source)
        .map_err(|e| SessionError::new(format!("{path}:{}", e.render(source).trim_end())))?;
    // A session's definitions are functions written out: a file's calls are
    // inlined, and each of its one-result functions is a definition too.
    let functions = function_definitions(&parsed);
    let program = plain_names(parsed.inlined()).map_err(|m| SessionError::new(format!("{path}: {m}")))?;
    let values = program.param_values.as_ref();
    let mut params: Vec<(String, Option<f64>)> =
        program.params.iter().enumerate().map(|(j, p)| (p.clone(), values.map(|v| v[j]))).collect();
    let source_lines: Vec<&str> = source.lines().collect();
    let mut lines = vec![];
    for (i, line) in source_lines.iter().enumerate() {
        let at = |message: String| SessionError::new(format!("{path}:{}: {message}", i + 1));
        if let Some(rest) = line.trim_start().strip_prefix(DEF) {
            lines.push(def_line(rest, i + 1).map_err(at)?);
        } else if let Some(rest) = line.trim_start().strip_prefix(VALUE) {
            value_line(rest, &mut params).map_err(at)?;
        }
    }
    if lines.is_empty() {
        // A problem file: each output over all the inputs.
        let inputs: Vec<&str> = program.inputs.iter().map(String::as_str).collect();
        let position: Vec<Option<usize>> = (0..inputs.len()).map(Some).collect();
        let outputs: Vec<(String, Program)> = program
            .outputs
            .iter()
            .map(|o| {
                let f = function(&program, o.node, &inputs, &position).expect("a function of every input");
                (o.name.clone(), f)
            })
            .collect();
        // An output of a function's name is the definition kept.
        let mut defs: Vec<(String, Program)> =
            functions.into_iter().filter(|(name, _)| !outputs.iter().any(|(n, _)| n == name)).collect();
        defs.extend(outputs);
        return Ok(Contents { defs, params });
    }
    let mut defs: Vec<(String, Program)> = vec![];
    for d in &lines {
        let at = |message: String| SessionError::new(format!("{path}:{}: {message}", d.line));
        if defs.iter().any(|(n, _)| n == d.name) {
            return Err(at(format!("'{}' is defined twice", Shown(d.name))));
        }
        let output = program
            .outputs
            .iter()
            .find(|o| o.name == d.output)
            .ok_or_else(|| at(format!("the file has no output '{}'", Shown(d.output))))?;
        if let Some(p) = d.args.iter().find(|p| !program.inputs.iter().any(|i| i == *p)) {
            return Err(at(format!("the argument '{}' is not an input of the file", Shown(p))));
        }
        let mut f =
            function(&program, output.node, &d.args, &positions(&program, &d.args)).map_err(|input| {
                at(format!(
                    "'{}' reads the input '{}', which is not one of its arguments",
                    Shown(d.output),
                    Shown(&input)
                ))
            })?;
        // As `:save` writes it, a definition's lines (up to the next '# @def')
        // parse on their own, over its arguments and the parameters it reads:
        // read so, it is what it was when saved, untouched by the nodes other
        // definitions share.
        let end = lines.iter().map(|l| l.line - 1).find(|&l| l >= d.line).unwrap_or(source_lines.len());
        let block = source_lines[d.line..end].join("\n");
        let reads: Vec<&str> = f.params.iter().map(String::as_str).collect();
        if let Some((dag, root)) = parse_definition(&block, &d.args, &reads, d.output) {
            let outputs = vec![Output { name: "f".into(), node: root }];
            f = Program::new(dag, f.inputs, outputs).with_params(f.params, None);
        }
        defs.push((d.name.to_string(), f));
    }
    Ok(Contents { defs, params })
}

/// The one-result functions of `program` as definitions over their
/// arguments, in order, each with its calls written out.
fn function_definitions(program: &Program) -> Vec<(String, Program)> {
    let one_result = program.functions.iter().filter(|f| f.results().len() == 1);
    one_result
        .map(|f| {
            let (dag, roots) = f.body().inlined().into_parts();
            let outputs = vec![Output { name: "f".into(), node: roots[0] }];
            (f.name().to_string(), Program::new(dag, f.args().to_vec(), outputs))
        })
        .collect()
}

/// Reads `NAME = VALUE`, the rest of a `# @value` line, into the value of
/// the parameter `NAME` of `params`, which has none yet.
fn value_line(text: &str, params: &mut [(String, Option<f64>)]) -> Result<(), String> {
    let usage = || "expected '# @value NAME = VALUE'".to_string();
    let (name, value) = text.split_once('=').ok_or_else(usage)?;
    let name = name.trim();
    let Some((_, slot)) = params.iter_mut().find(|(p, _)| p == name) else {
        return Err(format!("'{}' is not a parameter of the file", Shown(name)));
    };
    if slot.is_some() {
        return Err(format!("'{}' has a value already", Shown(name)));
    }
    let value = dstar::frontend::value::parse(value.trim()).map_err(|e| e.to_string())?;
    *slot = Some(value);
    Ok(())
}

/// Reads `NAME(P1, P2, ...) = OUTPUT`, the rest of a `# @def` line.
fn def_line(text: &str, line: usize) -> Result<DefLine<'_>, String> {
    let mut lexer = Lexer::new(text);
    let mut tokens = vec![];
    loop {
        match lexer.next_token().map_err(|e| e.kind.to_string())?.0 {
            Token::Eof => break,
            t => tokens.push(t),
        }
    }
    let usage = || "expected '# @def NAME(ARGUMENTS) = OUTPUT'".to_string();
    let (Some(Token::Ident(name)), Some(Token::LParen)) = (tokens.first(), tokens.get(1)) else {
        return Err(usage());
    };
    let mut args = vec![];
    let mut i = 2;
    while let Some(Token::Ident(p)) = tokens.get(i) {
        args.push(*p);
        i += 1;
        if tokens.get(i) == Some(&Token::Comma) {
            i += 1;
        }
    }
    let (Some(Token::RParen), Some(Token::Assign), Some(Token::Ident(output)), None) =
        (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3))
    else {
        return Err(usage());
    };
    if let Some(what) = dstar::frontend::reserved(name) {
        return Err(format!("'{}' is {what} and cannot be defined", Shown(name)));
    }
    if FORMS.contains(name) {
        return Err(format!("'{}' is a derivative form and cannot be defined", Shown(name)));
    }
    if let Some(p) = args.iter().enumerate().find_map(|(i, p)| args[..i].contains(p).then_some(p)) {
        return Err(format!("the argument '{}' is listed twice", Shown(p)));
    }
    Ok(DefLine { name, args, output, line })
}

/// `node` of `program` as a function of `args` (inputs of `program`, in
/// that order; `position[k]` says where input `k` is among them, if it is)
/// and of the parameters of `program` it reads (in their order), or the
/// name of an input it reads that is not among `args`. It costs the
/// node's cone plus the file's inputs and parameters, never the file's DAG
/// or a search of the arguments per input: a file's thousands of outputs
/// each become one (`:load` of 1,000 outputs over 1,250 inputs took 3.7 s,
/// twice that 22 s).
fn function(
    program: &Program,
    node: NodeId,
    args: &[&str],
    position: &[Option<usize>],
) -> Result<Program, String> {
    // The cone alone, over the program's inputs: which of them it reads.
    let mut cone = ExprDag::new();
    let cone_root = cone.import(&program.dag, &[node], None)[0];
    let n = program.inputs.len();
    let mut reads = vec![false; n + program.params.len()];
    for k in cone.input_indices() {
        reads[k as usize] = true;
    }
    let params: Vec<String> =
        program.params.iter().enumerate().filter(|&(j, _)| reads[n + j]).map(|(_, p)| p.clone()).collect();
    let mut dag = ExprDag::new();
    // An input the cone does not read gets no node: any node will do (an
    // output over all of a model's inputs reads a few of them).
    let mut unread = None;
    let mut leaves = Vec::with_capacity(reads.len());
    for (k, input) in program.inputs.iter().enumerate() {
        match position[k] {
            Some(j) if reads[k] => leaves.push(dag.input(j)),
            None if reads[k] => return Err(input.clone()),
            _ => leaves.push(*unread.get_or_insert_with(|| dag.constant(0.0))),
        }
    }
    let mut param = args.len();
    for &read in &reads[n..] {
        if read {
            leaves.push(dag.input(param));
            param += 1;
        } else {
            leaves.push(*unread.get_or_insert_with(|| dag.constant(0.0)));
        }
    }
    let root = dag.import(&cone, &[cone_root], Some(&leaves))[0];
    let inputs = args.iter().map(|p| p.to_string()).collect();
    Ok(Program::new(dag, inputs, vec![Output { name: "f".into(), node: root }]).with_params(params, None))
}

/// Where each input of `program` is among `args`, if it is one.
fn positions(program: &Program, args: &[&str]) -> Vec<Option<usize>> {
    let at: std::collections::HashMap<&str, usize> = args.iter().enumerate().map(|(j, &a)| (a, j)).collect();
    program.inputs.iter().map(|input| at.get(input.as_str()).copied()).collect()
}
