//! The functions an emitted kernel calls ([`frontend::call`]), for the C and
//! Rust emitters: each written once as a function of the emitted source,
//! callees before callers, under a name of its own; a call site is one call.

use frontend::call::called_functions;
use frontend::{ExprDag, FunctionDef, FunctionId, Kernel, NodeId, Op};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// The functions `roots` of a DAG call, to any depth (derivative functions
/// included), and their names in the emitted source.
pub(crate) struct SourceFunctions {
    /// Callees before callers, each once.
    pub(crate) order: Vec<Arc<FunctionDef>>,
    /// By the address of the function (a key only).
    names: FxHashMap<FunctionId, String>,
    /// The call sites of the kernels.
    sites: usize,
}

impl SourceFunctions {
    /// The functions `kernels` call, named `fn_name` + `_` + their own
    /// name, each `'` of a derivative's name written `d` (`step''` is
    /// `f_step_dd`); another function of the same name, or one of the names
    /// `reserved` for the emitter's own, gets a number. Every name has a
    /// `_`, so none is a keyword or a local variable (`v12`).
    pub(crate) fn new(fn_name: &str, kernels: &[&Kernel], reserved: &[String]) -> SourceFunctions {
        let mut order = Vec::new();
        let mut sites = 0;
        for kernel in kernels {
            order = called_functions(kernel.dag(), kernel.roots(), &order);
            sites += kernel.dag().reached_sites(kernel.roots()).len();
        }
        let mut names = FxHashMap::default();
        let mut taken: FxHashSet<String> = reserved.iter().cloned().collect();
        let mut fresh = frontend::fresh::FreshNames::default();
        for f in &order {
            let base = format!("{fn_name}_{}", frontend::plain_name(f.name()));
            let unique = fresh.name(&base, |n| taken.contains(n));
            taken.insert(unique.clone());
            names.insert(FunctionId::of(f), unique);
        }
        SourceFunctions { order, names, sites }
    }

    /// Whether the kernel calls nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// What the header comment adds after a kernel's operation count: its
    /// calls and the functions written before it; nothing without calls.
    pub(crate) fn summary(&self) -> String {
        if self.is_empty() {
            return String::new();
        }
        format!(
            " and {} calls (of the {} functions before it, each written once)",
            self.sites,
            self.order.len()
        )
    }

    /// The emitted name of `function`, one of [`order`](Self::order).
    pub(crate) fn name(&self, function: &Arc<FunctionDef>) -> &str {
        self.names.get(&FunctionId::of(function)).expect("every function called is named")
    }
}

/// Per call site of `dag`, the results `reach` holds: `(result, node)`.
pub(crate) fn site_results(dag: &ExprDag, reach: &[bool]) -> Vec<Vec<(u32, NodeId)>> {
    let mut results = vec![vec![]; dag.sites().len()];
    for id in dag.ids().filter(|id| reach[id.index()]) {
        if let Op::Call(call) = dag.op(id) {
            results[call.site as usize].push((call.out, id));
        }
    }
    results
}

/// `name(args) -> (results)` for a comment, the results cut after eight.
pub(crate) fn described(function: &FunctionDef) -> String {
    let results = function.results();
    let shown = if results.len() <= 8 {
        results.join(", ")
    } else {
        format!("{}, ... {} results", results[..8].join(", "), results.len())
    };
    format!("{}({}) -> ({shown})", function.name(), function.args().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_and_derivatives_spelled_out() {
        let source = "function step(a, b) -> (c, d)\n  c = a * b\n  d = sin(a)\nend\n\
                      in x, y\nq, r = step(x, y)\nout q + r";
        let program = frontend::parse_program(source).unwrap();
        let kernel = program.kernel().unwrap();
        let functions = SourceFunctions::new("jac", &[&kernel], &[]);
        assert_eq!(functions.order.len(), 1);
        assert_eq!(functions.name(&functions.order[0]), "jac_step");
        let functions = SourceFunctions::new("jac", &[&kernel, &kernel], &["jac_step".to_string()]);
        assert_eq!(functions.order.len(), 1, "each function once");
        assert_eq!(functions.name(&functions.order[0]), "jac_step_2", "not a reserved name");
        assert_eq!(described(&functions.order[0]), "step(a, b) -> (c, d)");
    }
}
