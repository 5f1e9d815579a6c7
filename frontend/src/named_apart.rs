//! The functions a built program calls (a builder's calls, Python's
//! `Function` called on expressions) made its own: collected callees
//! first and named apart from each other and from the program's names, so
//! that its text ([`crate::print`]) parses again.

use crate::call::{callees_first, FunctionDef, FunctionId};
use crate::copy::{copy, Calls};
use crate::dag::{ExprDag, NodeId};
use crate::kernel::Kernel;
use crate::print::is_temporary;
use crate::program::Program;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// `program` with the functions its DAG calls, and those their bodies
/// call, as its functions (callees first), each named apart from the
/// others and from every name of the program and of the functions'
/// arguments and results: two functions named alike become `f` and `f_2`.
pub fn with_functions(mut program: Program) -> Program {
    if program.dag.sites().is_empty() {
        return program;
    }
    let sites = |dag: &ExprDag| dag.sites().iter().map(|s| Arc::clone(&s.function)).collect::<Vec<_>>();
    let functions = callees_first(sites(&program.dag), |f| sites(f.body().dag()));
    let mut taken: HashSet<String> = program.leaves().into_iter().chain(program.output_names()).collect();
    for f in &functions {
        taken.extend(f.args().iter().chain(f.results()).cloned());
    }
    let mut renamed: HashMap<FunctionId, Arc<FunctionDef>> = HashMap::new();
    let mut relinked = Vec::with_capacity(functions.len());
    for f in functions {
        let name = crate::fresh::fresh_name(f.name(), |n| taken.contains(n) || is_temporary(n));
        taken.insert(name.clone());
        let calls_renamed =
            f.body().dag().sites().iter().any(|s| renamed.contains_key(&FunctionId::of(&s.function)));
        if name == f.name() && !calls_renamed {
            relinked.push(f);
            continue;
        }
        let body = f.body();
        let (dag, roots) = relink(body.dag(), body.roots(), &renamed);
        let body = Kernel::new(dag, roots, f.args().len()).expect("relinking keeps the inputs");
        let g = Arc::new(FunctionDef::new(name, f.args().to_vec(), f.results().to_vec(), body));
        renamed.insert(FunctionId::of(&f), Arc::clone(&g));
        relinked.push(g);
    }
    if !renamed.is_empty() {
        let (dag, roots) = relink(&program.dag, &program.output_nodes(), &renamed);
        for (output, root) in program.outputs.iter_mut().zip(roots) {
            output.node = root;
        }
        program.dag = dag.into();
    }
    program.functions = relinked;
    program
}

/// A copy of `dag` (its `roots`' new ids) whose calls of a function of
/// `renamed` call its renamed copy; every node kept as it is.
fn relink(
    dag: &ExprDag,
    roots: &[NodeId],
    renamed: &HashMap<FunctionId, Arc<FunctionDef>>,
) -> (ExprDag, Vec<NodeId>) {
    let mut out = ExprDag::new();
    let relinked = |f: &Arc<FunctionDef>| renamed.get(&FunctionId::of(f)).cloned();
    let roots = copy(&mut out, dag, roots, None, Calls::Relink(&relinked));
    (out, roots)
}
