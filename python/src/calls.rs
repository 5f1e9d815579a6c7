//! A `dstar.Function` called on expressions: the function as a
//! [`FunctionDef`] (its inputs, then its parameters, the arguments; its
//! outputs the results), and the functions a built program calls, named
//! so that its text parses again.

use dstar::frontend::copy::{copy, Calls};
use dstar::frontend::print::is_temporary;
use dstar::frontend::{ExprDag, FunctionDef, FunctionId, Kernel, NodeId};
use dstar::Program;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// An error unless `name` is an identifier that is not reserved; `role`
/// says what it would name (`"a symbol"`).
pub(crate) fn check_name(name: &str, role: &str) -> Result<(), String> {
    match dstar::frontend::parser::check_name(name) {
        Some(wrong) => Err(wrong.message(name, role)),
        None => Ok(()),
    }
}

/// `program` as the function `name`: its arguments the inputs, then the
/// parameters (all of them arguments, as the problem format passes data to
/// a function), its results the outputs. Its body keeps the program's calls.
pub(crate) fn definition(name: &str, program: &Program) -> Arc<FunctionDef> {
    let body = program.kernel().expect("a Function's program reads only its inputs and parameters");
    Arc::new(FunctionDef::new(name.to_string(), program.leaves(), program.output_names(), body))
}

/// `program` with the functions its DAG calls, and those their bodies
/// call, as its functions (callees first), each named apart from the
/// others and from every name of the program and of the functions'
/// arguments and results: two Functions named alike become `f` and `f_2`.
pub(crate) fn with_functions(mut program: Program) -> Program {
    if program.dag.sites().is_empty() {
        return program;
    }
    let mut functions = Vec::new();
    collect(&program.dag, &mut functions, &mut HashSet::new());
    let mut taken: HashSet<String> = program.leaves().into_iter().chain(program.output_names()).collect();
    for f in &functions {
        taken.extend(f.args().iter().chain(f.results()).cloned());
    }
    let mut renamed: HashMap<FunctionId, Arc<FunctionDef>> = HashMap::new();
    let mut relinked = Vec::with_capacity(functions.len());
    for f in functions {
        let name = distinct(f.name(), &taken);
        taken.insert(name.clone());
        let calls_renamed = f.body().dag().sites().iter().any(|s| renamed.contains_key(&key(&s.function)));
        if name == f.name() && !calls_renamed {
            relinked.push(f);
            continue;
        }
        let body = f.body();
        let (dag, roots) = relink(body.dag(), body.roots(), &renamed);
        let body = Kernel::new(dag, roots, f.args().len()).expect("relinking keeps the inputs");
        let g = Arc::new(FunctionDef::new(name, f.args().to_vec(), f.results().to_vec(), body));
        renamed.insert(key(&f), Arc::clone(&g));
        relinked.push(g);
    }
    if !renamed.is_empty() {
        let (dag, roots) = relink(&program.dag, &program.output_nodes(), &renamed);
        for (output, root) in program.outputs.iter_mut().zip(roots) {
            output.node = root;
        }
        program.dag = dag;
    }
    program.functions = relinked;
    program
}

/// A function's identity.
fn key(f: &Arc<FunctionDef>) -> FunctionId {
    FunctionId::of(f)
}

/// Appends to `order` the functions `dag` calls not `seen` yet, each after
/// those its body calls.
fn collect(dag: &ExprDag, order: &mut Vec<Arc<FunctionDef>>, seen: &mut HashSet<FunctionId>) {
    for site in dag.sites() {
        if seen.insert(key(&site.function)) {
            collect(site.function.body().dag(), order, seen);
            order.push(Arc::clone(&site.function));
        }
    }
}

/// `name`, or `name_2`, `name_3` ... the first not `taken` and not a
/// printer's temporary (`t1`).
fn distinct(name: &str, taken: &HashSet<String>) -> String {
    dstar::frontend::fresh::fresh_name(name, |n| taken.contains(n) || is_temporary(n))
}

/// A copy of `dag` (its `roots`' new ids) whose calls of a function of
/// `renamed` call its renamed copy; every node kept as it is.
fn relink(
    dag: &ExprDag,
    roots: &[NodeId],
    renamed: &HashMap<FunctionId, Arc<FunctionDef>>,
) -> (ExprDag, Vec<NodeId>) {
    let mut out = ExprDag::new();
    let relinked = |f: &Arc<FunctionDef>| renamed.get(&key(f)).cloned();
    let roots = copy(&mut out, dag, roots, None, Calls::Relink(&relinked));
    (out, roots)
}
