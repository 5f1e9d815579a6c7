//! The builder's graphs. Each call of `dstar.symbols` or `dstar.vector`
//! starts one: a hash-consed DAG behind its own lock, freed with the last
//! expression that refers to it. Expressions of two graphs combine in the
//! larger one: the other operand's cone is copied out of its graph
//! ([`Nodes::export`]) and into the larger ([`Nodes::import`]), its
//! symbols matched by their process-unique ids, so a symbol is the same
//! input in every graph it reaches. A call of a `dstar.Function` on
//! expressions is a call site of the graph (its results `Op::Call` nodes),
//! copied between graphs as a call of the same function.

use dstar::frontend::{FunctionDef, FunctionId, Node};
use dstar::{ExprDag, NodeId, Op};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A symbol: a name, and an id no other symbol of the process has.
#[derive(Clone, Debug)]
pub(crate) struct Symbol {
    pub(crate) id: u64,
    pub(crate) name: String,
}

impl Symbol {
    /// A new symbol named `name`.
    pub(crate) fn new(name: String) -> Symbol {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Symbol { id: NEXT.fetch_add(1, Ordering::Relaxed), name }
    }
}

/// A graph, shared by its expressions (`Arc<Graph>`).
#[derive(Default)]
pub(crate) struct Graph(Mutex<Nodes>);

impl Graph {
    /// An empty graph.
    pub(crate) fn new() -> Arc<Graph> {
        Arc::default()
    }

    /// Its nodes, locked: no other thread reads or grows this graph
    /// meanwhile (other graphs are not affected).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Nodes> {
        // A panic while locked leaves the DAG append-only and valid.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.lock().dag.len()
    }
}

/// What a graph holds: input `k` of the DAG is `symbols[k]`.
#[derive(Default)]
pub(crate) struct Nodes {
    pub(crate) dag: ExprDag,
    pub(crate) symbols: Vec<Symbol>,
    /// The input of each symbol here, by symbol id.
    inputs: HashMap<u64, usize>,
    /// The structural hashes of nodes `0..hashes.len()` ([`Nodes::hash`]).
    hashes: Vec<u64>,
}

/// Nodes copied out of a graph: the cone of some roots, children before
/// parents, each argument the position of an earlier entry.
pub(crate) struct Cone {
    pub(crate) entries: Vec<Entry>,
    /// The position of each root, in order.
    pub(crate) roots: Vec<usize>,
}

/// A node of a [`Cone`].
pub(crate) enum Entry {
    /// An input: the symbol it stands for.
    Symbol(Symbol),
    /// Result `out` of `function` called on arguments at these positions
    /// in the cone.
    Call { function: Arc<FunctionDef>, args: Vec<usize>, out: usize },
    /// Any other node, its arguments positions in the cone.
    Node(Node),
}

impl Nodes {
    /// The input of `symbol`, added if it is new here.
    pub(crate) fn symbol(&mut self, symbol: &Symbol) -> NodeId {
        let symbols = &mut self.symbols;
        let k = *self.inputs.entry(symbol.id).or_insert_with(|| {
            symbols.push(symbol.clone());
            symbols.len() - 1
        });
        self.dag.input(k)
    }

    /// The symbol node `id` is, if it is one.
    pub(crate) fn symbol_of(&self, id: NodeId) -> Option<&Symbol> {
        match self.dag.op(id) {
            Op::Input(k) => Some(&self.symbols[k as usize]),
            _ => None,
        }
    }

    /// The symbols' names, by input.
    pub(crate) fn names(&self) -> Vec<String> {
        self.symbols.iter().map(|s| s.name.clone()).collect()
    }

    /// The nodes `roots` reach, ascending: a walk over the cone alone,
    /// however large the graph (an explicit stack, so depth is safe).
    pub(crate) fn cone(&self, roots: &[NodeId]) -> Vec<NodeId> {
        let mut seen: HashSet<NodeId> = roots.iter().copied().collect();
        let mut stack: Vec<NodeId> = seen.iter().copied().collect();
        while let Some(id) = stack.pop() {
            for &a in self.dag.args(id) {
                if seen.insert(a) {
                    stack.push(a);
                }
            }
        }
        let mut cone: Vec<NodeId> = seen.into_iter().collect();
        cone.sort_unstable();
        cone
    }

    /// Copies out the cone of `roots`.
    pub(crate) fn export(&self, roots: &[NodeId]) -> Cone {
        let ids = self.cone(roots);
        let position = |id: &NodeId| ids.binary_search(id).expect("arguments are in the cone");
        let entries = ids
            .iter()
            .map(|&id| match (self.symbol_of(id), self.dag.op(id)) {
                (Some(symbol), _) => Entry::Symbol(symbol.clone()),
                (None, Op::Call(c)) => {
                    let site = self.dag.site(c.site);
                    Entry::Call {
                        function: Arc::clone(&site.function),
                        args: site.args.iter().map(position).collect(),
                        out: c.out as usize,
                    }
                }
                (None, _) => {
                    let node = self.dag.node(id);
                    let args: Vec<NodeId> =
                        node.args().iter().map(|a| NodeId::from_index(position(a))).collect();
                    Entry::Node(Node::new(node.op, &args))
                }
            })
            .collect();
        Cone { entries, roots: roots.iter().map(position).collect() }
    }

    /// Copies `cone` in (its nodes as they are: they were folded where they
    /// were built), its symbols becoming inputs here; the roots' ids here.
    pub(crate) fn import(&mut self, cone: &Cone) -> Vec<NodeId> {
        let mut here: Vec<NodeId> = Vec::with_capacity(cone.entries.len());
        for entry in &cone.entries {
            let id = match entry {
                Entry::Symbol(symbol) => self.symbol(symbol),
                Entry::Call { function, args, out } => {
                    let args: Vec<NodeId> = args.iter().map(|&a| here[a]).collect();
                    self.call(function, &args)[*out]
                }
                Entry::Node(node) => {
                    let args: Vec<NodeId> = node.args().iter().map(|a| here[a.index()]).collect();
                    self.dag.intern(Node::new(node.op, &args))
                }
            };
            here.push(id);
        }
        cone.roots.iter().map(|&r| here[r]).collect()
    }

    /// The results of `function` called on `args`: one site per distinct
    /// call.
    pub(crate) fn call(&mut self, function: &Arc<FunctionDef>, args: &[NodeId]) -> Vec<NodeId> {
        self.dag.call(function, args)
    }

    /// A hash of the expression at `id` that is the same in every graph:
    /// symbols by id, calls by function and arguments, commutative
    /// operands in any order. Expressions equal
    /// in one graph hash alike wherever they were built. Computed once per
    /// node, in id order.
    pub(crate) fn hash(&mut self, id: NodeId) -> u64 {
        while self.hashes.len() <= id.index() {
            let node = self.dag.node(NodeId::from_index(self.hashes.len()));
            let mut h = DefaultHasher::new();
            match node.op {
                Op::Input(k) => self.symbols[k as usize].id.hash(&mut h),
                Op::Call(c) => {
                    let site = self.dag.site(c.site);
                    (FunctionId::of(&site.function), c.out).hash(&mut h);
                    let args: Vec<u64> = site.args.iter().map(|a| self.hashes[a.index()]).collect();
                    args.hash(&mut h);
                }
                op => {
                    op.hash(&mut h);
                    let mut args: Vec<u64> = node.args().iter().map(|a| self.hashes[a.index()]).collect();
                    if op.is_commutative() {
                        args.sort_unstable();
                    }
                    args.hash(&mut h);
                }
            }
            self.hashes.push(h.finish());
        }
        self.hashes[id.index()]
    }
}
