//! The plan: which accumulations compete for a Jacobian, and every size
//! guard of the symbolic stage, in one place.
//!
//! D* ([`derivative::factorize()`]) is always a candidate; the eliminations of
//! [`eliminate`] compete on graphs small enough to plan them in about D*'s
//! time; the common-subchain pass ([`simplify`]) runs within its own limits.
//! Every guard counts work (edges, operations, intermediates), never time, so
//! the same input gives the same kernel on every machine.

use crate::request::Request;
use derivative::{exact_sweep_components, sweep_components, DerivativeGraph, Orientation, Strategy};
use eliminate::{Elimination, LinearizedGraph, Remainder, Skip};
use frontend::map::{Decomposition, MapRules};
use frontend::Kernel;
use simplify::Simplifier;

/// Above this many derivative-graph edges, D* builds the factored strategy
/// of one orientation only, the one whose sweeps carry fewer components,
/// instead of building four variants to compare.
pub const TRY_BOTH_EDGE_LIMIT: usize = 1 << 18;

/// Up to this many linearized edges, the eliminations compete with D* for
/// the default Jacobian. At `1 << 14` a scalar chain of 4,000 links (28k
/// edges) fell back to D*: 51,996 ops where Markowitz gives 39,999, and a
/// slower set-up (333 ms, the subchain pass failing to recover them,
/// against 85 ms); `gen.py cartpole 100 --flat` 44,210 → 38,410. No zoo
/// shape's set-up grew past its fit at N to 8N; at `1 << 17` `gen.py gmm
/// 100 --flat` and `minsurf 100 --flat` (over 65k edges, eliminations
/// losing to D*) took 2.3× and 2.8× longer.
pub const ELIMINATION_EDGE_LIMIT: usize = 1 << 16;

/// The exact vertex optimum competes for the default Jacobian only up to
/// this many intermediates (`2^10` subsets).
pub const OPTIMAL_VERTEX_LIMIT: usize = 10;

/// Face elimination (on the line graph, slower to plan) competes for the
/// default Jacobian only up to this many edges.
pub const FACE_EDGE_LIMIT: usize = 1 << 10;

/// Kernels of more operations than this are left alone by the
/// common-subchain pass: flattening and loading them into an e-graph would
/// cost more than the accumulation did.
pub const SIMPLIFY_MAX_OPS: usize = 500_000;

/// Work the common-subchain pass may spend per kernel op (pair-count
/// updates of the chains; then, per e-graph iteration, one unit per e-node
/// and rule searched and one per rewrite applied), and on top of that for
/// any kernel. With these the pass finds at least what the earlier
/// time-limited pass found on every corpus problem (sh_20: 3,320 ops against
/// 3,326; nbody_acc_20: 12,365 against 12,424), in time proportional to the
/// kernel.
pub const SIMPLIFY_WORK_PER_OP: u64 = 256;
/// See [`SIMPLIFY_WORK_PER_OP`].
pub const SIMPLIFY_WORK_BASE: u64 = 20_000;
/// Kernels of more operations than this get the chains half of the
/// common-subchain pass alone, without the e-graph half. Past the caches
/// the e-graph costs about 7 µs per e-node, and on every kernel over this
/// size measured (`dstar stats`, 2026-11-29) it saved nothing the chains had
/// not, or next to nothing: single shooting over 10^4 steps (110k ops; 0
/// saved, 1.5 s of a 1.6 s pass), the zoo's nested calls flat at 4,000
/// (96k; 2 ops, 0.75 s), `gen.py minsurf 100 --flat` (98k; 0), `gen.py gmm
/// 300` (199k; 0, 2.1 s) and `gen.py gmm 100 --flat` (128k; 65 of 190,053,
/// a kernel the default pipeline builds as maps). Below it the e-graph
/// finds what the chains cannot: `gen.py minsurf 100` (49k ops) 48,807 →
/// 29,403, `gen.py cartpole 100 --flat` (37k) 33,102 → 31,203.
pub const SIMPLIFY_EGRAPH_MAX_OPS: usize = 1 << 16;

/// The forward- and reverse-mode baselines of `dstar stats` build their
/// sweeps for real; they are skipped when the sweeps' cones hold more nodes
/// than this in all (the sum grows as inputs × function for dense
/// functions).
pub const BASELINE_WORK_LIMIT: usize = 1 << 22;

/// The D* variants worth building for `graph`, in the order that breaks
/// ties: the factored and plain builds of the orientation that shares sums
/// across the longer side first (outputs when there are more of them), then
/// of the other orientation unless its sweeps carry over twice the
/// components (3 inputs and 625 outputs: reverse mode is 11x the work).
/// The first orientation is dropped in turn when its sweeps carry over
/// [`FIRST_ORIENTATION_RATIO`] times the other's. Above
/// [`TRY_BOTH_EDGE_LIMIT`] edges, only the factored build of the cheaper
/// orientation.
pub fn dstar_candidates(graph: &DerivativeGraph) -> Vec<Strategy> {
    let (forward, reverse) = dstar_sweeps(graph);
    if graph.edges().len() > TRY_BOTH_EDGE_LIMIT {
        let orientation = if forward <= reverse { Orientation::Forward } else { Orientation::Reverse };
        return vec![Strategy { orientation, factored: true }];
    }
    let first =
        if graph.num_leaves() <= graph.roots().len() { Orientation::Forward } else { Orientation::Reverse };
    let (second, first_cost, second_cost) = match first {
        Orientation::Forward => (Orientation::Reverse, forward, reverse),
        Orientation::Reverse => (Orientation::Forward, reverse, forward),
    };
    let orientations: &[Orientation] = if first_cost > FIRST_ORIENTATION_RATIO.saturating_mul(second_cost) {
        &[second]
    } else if second_cost <= 2 * first_cost {
        &[first, second]
    } else {
        &[first]
    };
    orientations
        .iter()
        .flat_map(|&orientation| [true, false].map(|factored| Strategy { orientation, factored }))
        .collect()
}

/// How many times the other orientation's sweep components the first
/// orientation's may carry and still be built (see [`dstar_candidates`]).
/// Its path sums grow with its sweeps: on 150 outputs that each sum all 150
/// inputs in a chain (plus a shared `sum(sin(x_i))`), forward sweeps carry
/// the chain once per input (about 75x reverse's) and forward D* took 3.3 s
/// where reverse D* takes about 0.1 s. On the corpus and the NLPs, where the
/// first orientation is built it carries at most 2.0 times the other's
/// (nbody_acc_20, whose forward D* wins), so their kernels do not change.
pub const FIRST_ORIENTATION_RATIO: u64 = 4;

/// The work (see [`derivative::factorize_within`]) a factored D* build may
/// spend, given what the plain sweep of its orientation spent:
/// [`FACTORED_WORK_RATIO`] times that, plus [`FACTORED_WORK_BASE`].
pub fn factored_dstar_budget(plain_work: u64) -> u64 {
    plain_work.saturating_mul(FACTORED_WORK_RATIO).saturating_add(FACTORED_WORK_BASE)
}

/// An estimate of the work of `orientation`'s plain sweep (see
/// [`derivative::factorize_within`]), from its sweep components (counted
/// modulo 64 sources, as [`dstar_candidates`] counts them) and the graph's
/// edges: what [`factored_dstar_budget`] scales when the plain sweep is not
/// built first.
pub fn sweep_work(graph: &DerivativeGraph, orientation: Orientation) -> u64 {
    let (forward, reverse) = dstar_sweeps(graph);
    let components = match orientation {
        Orientation::Forward => forward,
        Orientation::Reverse => reverse,
    };
    components.saturating_mul(SWEEP_WORK_PER_COMPONENT).saturating_add(graph.edges().len() as u64)
}

/// See [`sweep_work`]: the plain sweeps of the corpus visit 2 to 3 pairs
/// per component.
pub const SWEEP_WORK_PER_COMPONENT: u64 = 4;

/// On the corpus and the NLPs a factored D* build visits at most 2.2 times
/// the pairs of the plain sweep (elec_20, reverse). On 150 outputs that each
/// sum all 150 inputs in a chain, factoring visits 24 times as many (one
/// subgraph per chain link and entry) for the same kernel: 1.1 s where the
/// sweep takes 0.1 s.
pub const FACTORED_WORK_RATIO: u64 = 4;
/// See [`FACTORED_WORK_RATIO`]: small graphs always build both variants.
pub const FACTORED_WORK_BASE: u64 = 10_000;

/// D* on a gradient's graph costing more than this (in edge visits and
/// sweep components, see [`gradient_dstar_may_compete`]) does not compete
/// for a Hessian; edge pushing, linear in the function for sparse
/// Hessians, always does. On a long sum of 12,500 inputs the quadratic D*
/// took 3.7 s where edge pushing takes 0.2 s.
pub const GRADIENT_DSTAR_WORK_LIMIT: u64 = 1 << 24;

/// The work (pairs visited, [`derivative::factorize_within`]) D* on a
/// gradient's graph may spend, given the entries edge pushing pushed for
/// the same Hessian: [`GRADIENT_DSTAR_WORK_RATIO`] times that, plus
/// [`FACTORED_WORK_BASE`]. On single shooting over 400 steps (a dense
/// Hessian) D* visited 9.2M pairs, 3.5 s, to lose to edge pushing's 1.2M
/// pushes.
pub fn gradient_dstar_budget(edge_pushing_work: u64) -> u64 {
    edge_pushing_work.saturating_mul(GRADIENT_DSTAR_WORK_RATIO).saturating_add(FACTORED_WORK_BASE)
}

/// See [`gradient_dstar_budget`].
pub const GRADIENT_DSTAR_WORK_RATIO: u64 = 4;

/// The nodes D* on a gradient's graph may add to its DAG, given the
/// operations of edge pushing's Hessian: as many. Every node the build adds
/// is a product or a sum on the way to its entries, so a build that has
/// made more cannot end with fewer operations. On single shooting over 400
/// steps the builds stopped at 1.0 M nodes on the work budget alone, where
/// edge pushing's Hessian has 0.4 M operations: set-up 0.74 -> 0.32 s and
/// 283 -> 130 MB, every corpus, NLP and zoo Hessian unchanged.
pub fn gradient_dstar_node_limit(edge_pushing_ops: usize) -> usize {
    edge_pushing_ops
}

/// A Lagrangian Hessian whose lower triangle holds at least this many
/// nonzeros is built by columns ([`crate::columns`]) where they cost at
/// most [`COLUMNS_WORK_PER_NONZERO`]. Straight-line, such a Hessian costs
/// an operation or more per nonzero to build and compile: single shooting
/// over 1,000 steps (500,500 nonzeros) was 2.5 M operations, 21 MB of code
/// and 3.0-3.8 s of set-up; over 724 steps, 2^18 nonzeros, about 1.5 s.
pub const COLUMNS_MIN_NONZEROS: usize = 1 << 18;

/// See [`COLUMNS_MIN_NONZEROS`]: the columns' work per Hessian (`n` times
/// one `H·v` call's operations) per nonzero of the lower triangle, at
/// most. Their calls run from cache, where the straight-line kernel of a
/// large Hessian runs from memory (single shooting over 1,000 steps: 52
/// per nonzero, and by columns as fast, 6.1 ms against 4.4-8.2 ms); a
/// banded Hessian, some tens of nonzeros per row, costs thousands.
pub const COLUMNS_WORK_PER_NONZERO: usize = 128;

/// Unit directions per call of the `H·V` kernel of a Hessian by columns:
/// the calls share the function and its gradient (single shooting over
/// 1,000 steps: a Hessian in 16.7 ms by one direction a call, 7.3 ms by
/// four, 6.1 ms by eight).
pub const COLUMNS_PER_CALL: usize = 8;

/// Whether D* by `strategy` may compete on `graph`, a gradient's graph,
/// within [`GRADIENT_DSTAR_WORK_LIMIT`] (in edge visits and sweep
/// components), and with sweeps of at most twice the other orientation's
/// components, as [`dstar_candidates`] asks of a function's graph.
///
/// D* walks the inputs 64 at a time, each batch marking the graph (`b · E`
/// for `b` batches of `E` edges); forward it then builds one postdominator
/// tree per input over its cone (the forward sweep's components), reverse
/// one dominator tree per output and batch (`b` times the reverse
/// sweep's). Counted exactly, and no further than the limit.
///
/// The orientations are weighed on the gradient's graph, not the
/// function's: where one input feeds every output, the function's sweeps
/// cost the same both ways, while forward sweeps over the gradient climb
/// the long sum of that input's adjoint once per other input (quadratic).
pub fn gradient_dstar_may_compete(graph: &DerivativeGraph, strategy: Strategy) -> bool {
    let batches = (graph.num_leaves() as u64).div_ceil(64).max(1);
    let marking = batches.saturating_mul(graph.edges().len() as u64);
    let Some(left) = GRADIENT_DSTAR_WORK_LIMIT.checked_sub(marking) else { return false };
    let size = graph.node_bound();
    let leaves: Vec<_> = leaf_ends(graph).collect();
    let roots: Vec<_> = root_ends(graph).collect();
    let forward = |limit| exact_sweep_components(size, &leaves, &[], edge_ends(graph), limit).0;
    let reverse = |limit| exact_sweep_components(size, &[], &roots, edge_ends(graph), limit).1;
    match strategy.orientation {
        Orientation::Forward => {
            let own = forward(left);
            own <= left && own <= 2 * reverse(own)
        }
        Orientation::Reverse => {
            let own = reverse(left / batches);
            own <= left / batches && own <= 2 * forward(own)
        }
    }
}

/// [`sweep_components`] of the derivative graph: leaves are inputs, roots
/// outputs, and edges run from child to parent.
fn dstar_sweeps(graph: &DerivativeGraph) -> (u64, u64) {
    sweep_components(graph.node_bound(), leaf_ends(graph), root_ends(graph), edge_ends(graph))
}

/// `(node, input)` of every leaf, as the sweep counts take their sources.
fn leaf_ends(graph: &DerivativeGraph) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..graph.num_leaves()).filter_map(|k| graph.leaf(k).map(|leaf| (leaf.index(), k)))
}

/// `(node, output)` of every root, as the sweep counts take their sinks.
fn root_ends(graph: &DerivativeGraph) -> impl Iterator<Item = (usize, usize)> + '_ {
    graph.roots().iter().enumerate().map(|(k, root)| (root.index(), k))
}

/// `(child, parent)` of every edge, sorted by parent.
fn edge_ends(graph: &DerivativeGraph) -> impl DoubleEndedIterator<Item = (usize, usize)> + Clone + '_ {
    graph.edges().iter().map(|e| (e.child.index(), e.parent.index()))
}

/// Whether a function of `ops` operations may have its linearized graph
/// built at all: nearly every operation has an edge, so a function of more
/// than twice [`ELIMINATION_EDGE_LIMIT`] operations cannot pass that guard.
pub fn eliminations_may_compete(ops: usize) -> bool {
    ops <= 2 * ELIMINATION_EDGE_LIMIT
}

/// A lower bound on the edges of `function`'s linearized graph, counted on
/// its DAG without building the graph: one per distinct argument that
/// depends on a variable, of every operation the outputs reach that
/// depends on one (an `ifelse`'s comparison gives none). A function whose
/// count passes [`ELIMINATION_EDGE_LIMIT`] is not worth building the graph
/// for (single shooting over 10^4 steps: 60,000 ops, 90,000 edges counted
/// and built, 50 to 100 ms to build a graph the eliminations then skip).
/// `None` for functions with calls, whose edges are in the bodies.
pub fn linearized_edges(function: &Kernel) -> Option<usize> {
    if function.has_calls() {
        return None;
    }
    let dag = function.dag();
    let varies = dag.reads_inputs_below(function.num_variables());
    let reach = dag.reachable(function.roots());
    let edges = |id: frontend::NodeId| {
        let args = dag.args(id);
        let first = if matches!(dag.op(id), frontend::Op::Select(_)) { 2 } else { 0 };
        (first..args.len()).filter(|&i| varies[args[i].index()] && !args[first..i].contains(&args[i])).count()
    };
    Some(dag.ids().filter(|id| reach[id.index()] && varies[id.index()]).map(edges).sum())
}

/// The eliminations that compete with D* for the default Jacobian on
/// `graph`, in the order that breaks ties; empty above
/// [`ELIMINATION_EDGE_LIMIT`] edges.
///
/// Forward and reverse vertex elimination (each unless its sweeps carry over
/// twice the other's components), Markowitz, Naumann's order on SEU graphs
/// and on SEU subgraphs, and on small graphs the exact vertex optimum and
/// face elimination. Each plans in about the time D* takes. Left to
/// [`crate::strategies`]: edge elimination (its sweeps cost what the vertex
/// orders do), the edge-elimination metagraph (exponential) and the
/// separators (they save memory, not operations).
pub fn elimination_candidates(graph: &LinearizedGraph) -> Vec<Elimination> {
    let edges = graph.edges().len();
    if edges > ELIMINATION_EDGE_LIMIT {
        return Vec::new();
    }
    let intermediates = graph.intermediates().count();
    let (forward, reverse) = graph.sweep_components();
    [
        Elimination::ForwardVertex,
        Elimination::ReverseVertex,
        Elimination::MarkowitzVertex,
        Elimination::OptimalVertex,
        Elimination::Face,
        Elimination::SeuOptimal,
        Elimination::SeuSubgraphs,
    ]
    .into_iter()
    .filter(|&s| match s {
        Elimination::ForwardVertex => forward <= 2 * reverse,
        Elimination::ReverseVertex => reverse <= 2 * forward,
        Elimination::OptimalVertex => intermediates <= OPTIMAL_VERTEX_LIMIT,
        Elimination::Face => edges <= FACE_EDGE_LIMIT,
        _ => true,
    })
    .collect()
}

/// `dstar elim` (and [`crate::strategies`]) runs no strategy on graphs of
/// more edges than this.
pub const REPORT_EDGE_LIMIT: usize = 1 << 16;

/// Face elimination (planned on the line graph) runs in `dstar elim` only up
/// to this many edges.
pub const REPORT_FACE_EDGE_LIMIT: usize = 1 << 14;

/// The minimum-cut separator (a max flow of unit capacities, one augmenting
/// path per cut edge) runs in `dstar elim` only up to this many edges.
pub const REPORT_MIN_CUT_EDGE_LIMIT: usize = 1 << 13;

/// Forward (reverse) vertex and edge elimination run in `dstar elim` only
/// while forward (reverse) sweeps carry at most this many components: their
/// fill alone costs that much.
pub const REPORT_SWEEP_LIMIT: u64 = 1 << 22;

/// Whether `strategy` may run on `graph` for `dstar elim`: size guards in
/// units of work, like the default's. The exact and randomized strategies
/// keep their own guards and budgets.
pub fn report_guard(strategy: Elimination, graph: &LinearizedGraph) -> Result<(), Skip> {
    let edges = graph.edges().len();
    if edges > REPORT_EDGE_LIMIT {
        return Err(Skip::TooManyEdges { count: edges, limit: REPORT_EDGE_LIMIT });
    }
    let sweeps = || graph.exact_sweep_components(REPORT_SWEEP_LIMIT);
    match strategy {
        Elimination::ForwardVertex | Elimination::ForwardEdge if sweeps().0 > REPORT_SWEEP_LIMIT => {
            Err(Skip::TooManyComponents { limit: REPORT_SWEEP_LIMIT })
        }
        Elimination::ReverseVertex | Elimination::BackwardEdge if sweeps().1 > REPORT_SWEEP_LIMIT => {
            Err(Skip::TooManyComponents { limit: REPORT_SWEEP_LIMIT })
        }
        Elimination::Face if edges > REPORT_FACE_EDGE_LIMIT => {
            Err(Skip::TooManyEdges { count: edges, limit: REPORT_FACE_EDGE_LIMIT })
        }
        Elimination::SeparatorMinCut if edges > REPORT_MIN_CUT_EDGE_LIMIT => {
            Err(Skip::TooManyEdges { count: edges, limit: REPORT_MIN_CUT_EDGE_LIMIT })
        }
        _ => Ok(()),
    }
}

/// The common-subchain pass of the default pipeline: the same kernel always
/// gets the same budget, so it always comes out the same.
pub fn simplifier() -> Simplifier {
    Simplifier::new()
        .with_max_ops(SIMPLIFY_MAX_OPS)
        .with_egraph_max_ops(SIMPLIFY_EGRAPH_MAX_OPS)
        .with_work_per_op(SIMPLIFY_WORK_PER_OP, SIMPLIFY_WORK_BASE)
}

/// The partial elimination whose remainder graph `J·v` kernels push their
/// directions through: the scarcity heuristic that leaves the fewest
/// nonunit edges (one multiplication per edge and direction), a randomized
/// search seeded once, so deterministic.
pub const DIRECTIONS_ELIMINATION: Elimination = Elimination::ScarcityHybrid;

/// The remainder graph of `kernel` that its `J·v` kernels of every width
/// are built from ([`DIRECTIONS_ELIMINATION`]).
pub fn directions_remainder(kernel: &Kernel) -> Remainder {
    eliminate::scarcity_remainder(kernel, DIRECTIONS_ELIMINATION).expect("scarcity is a partial elimination")
}

/// Widest `J·v` kernel: directions per call. A kernel of width `w`
/// evaluates the function and its partials once, then sweeps `w` times, so
/// wide kernels pay for the shared part once, while their code and compile
/// time grow linearly in `w`. Per direction on cartpole_20 (104 inputs, 89
/// outputs): `J·v` 4.5 µs at width 1, 0.76 µs at 8, 0.38 µs at 32 (the
/// partials dominate).
pub const WIDEST_JVP: usize = 32;

/// Widest `wᵀJ` and `H·v` kernel: there the sweeps dominate (`wᵀJ` 3.4,
/// 1.4 and 1.3 µs per direction at widths 1, 8 and 32 on cartpole_20; `H·v`
/// 5.2, 3.8, 3.4), and compiling `wᵀJ` for a 160k-operation function took
/// 0.6 s at width 1, 4 s at 8 and 15 s at 32.
pub const WIDEST_SWEEPS: usize = 8;

/// The widths of the kernels that cover `k` directions, `widest` at most:
/// the widest power of two that fits the directions left, each time
/// (`k = 13`, widest 8: 8, 4, 1), so a product has at most
/// `log2(widest) + 1` kernels, whatever `k` callers use.
///
/// ```
/// assert_eq!(factor::plan::direction_widths(13, 8), [8, 4, 1]);
/// assert_eq!(factor::plan::direction_widths(40, 32), [32, 8]);
/// assert!(factor::plan::direction_widths(0, 8).is_empty());
/// ```
pub fn direction_widths(k: usize, widest: usize) -> Vec<usize> {
    assert!(widest.is_power_of_two(), "widths are powers of two");
    let mut left = k;
    std::iter::from_fn(|| {
        (left > 0).then(|| {
            let width = 1 << left.min(widest).ilog2();
            left -= width;
            width
        })
    })
    .collect()
}

/// Maps ([`frontend::map`]): an output's top-level sum is split into its
/// terms from this many terms (fewer: the output is one term, its value
/// bit for bit the program's).
pub const MAP_SPLIT_TERMS: usize = 8;

/// A map has at least this many instances.
pub const MAP_MIN_INSTANCES: usize = 16;

/// Kernels of at least this many operations (with every call written out)
/// are mapped wherever maps cover enough of them, for every request that
/// maps (values included): maps pay where the written-out derivative is
/// large.
pub const MAP_MIN_OPS: u64 = 20_000;

/// Kernels below this many operations are differentiated whole; from it
/// to [`MAP_MIN_OPS`] their Jacobians, gradients and Lagrangian Hessians
/// (the lower triangle, what [`Request::Hessian`] asks) are built from maps
/// ([`maps_pay`]), the Jacobians and gradients only where an instance
/// averages at least [`MAP_SMALL_KERNEL_BODY_OPS`] operations
/// ([`small_bodies`]). Below that each instance's gathering and placing
/// outweighed its body and the whole kernel's results ran faster (with
/// maps: `nbody_acc_20`, about 20 ops an instance, Jacobian 2.3x slower;
/// collocation at 400 intervals, 7, 3.5x; a Rosenbrock chain, 5, 3.3x).
/// With the bodies compiled with their loops, two instances a step
/// (`backend::looped`), maps against whole, `dstar bench --hessian`: the
/// Hessians run as fast or faster (a 1,000-point fit, 14 an instance,
/// 0.72-0.81x; a 30 x 30 minimal surface 0.47x structured, 0.90x written
/// out; `nbody_acc_20` 0.88x; the Rosenbrock chain 1.03x), the Jacobians
/// not everywhere (`nbody_acc_20` 1.67x, the fit 1.1x; the surface 0.73x,
/// the chain 0.79x), and every set-up is 10 to 40 times faster. Larger bodies gain in set-up, the body differentiated once where
/// the whole kernel's derivative is built, searched and compiled in full,
/// and their kernels run as fast or faster, in cache (same session,
/// whole -> maps: cart-pole `--flat` at 100 intervals, 66 ops an instance,
/// Jacobian set-up 1.16 s -> 29 ms, kernel 24-42 -> 21-29 µs, Hessian
/// 45 -> 15 µs; at 150 intervals, set-up 2.0 s -> 45 ms, Jacobian 63-70 ->
/// 41-43 µs; gmm's 20 points written out, 680 an instance, set-up 0.9 s ->
/// 75 ms, Jacobian 40-43 -> 18-19 µs; calls sharing arguments, 43: Hessian
/// 42 -> 11 µs).
pub const MAP_SMALL_KERNEL_OPS: u64 = 4096;

/// See [`MAP_SMALL_KERNEL_OPS`].
pub const MAP_SMALL_KERNEL_BODY_OPS: u64 = 32;

/// Whether `found`, the maps of a kernel of `written_out` operations
/// written out, have bodies too small for its Jacobian and gradient to
/// be built from them ([`MAP_SMALL_KERNEL_OPS`]): below [`MAP_MIN_OPS`],
/// fewer than [`MAP_SMALL_KERNEL_BODY_OPS`] operations an instance.
pub fn small_bodies(found: &Decomposition, written_out: u64) -> bool {
    let instances: u64 = found.maps.iter().map(|m| m.instances as u64).sum();
    written_out < MAP_MIN_OPS && found.mapped_ops() < MAP_SMALL_KERNEL_BODY_OPS * instances
}

/// Whether `request`'s kernel is built from the maps found in a kernel of
/// `ops` operations (with every call written out): every request from
/// [`MAP_MIN_OPS`] on, the Jacobian, the gradient and the lower triangle of
/// the Hessian from [`MAP_SMALL_KERNEL_OPS`]. Below [`MAP_MIN_OPS`] the
/// values gain nothing from maps (cart-pole `--flat` at 100 intervals: the
/// function 5.7 µs whole, 8.0 µs as maps) and stay the program's bit for
/// bit (maps may add a written-out sum's terms in another order).
pub fn maps_pay(request: Request, ops: u64) -> bool {
    ops >= MAP_MIN_OPS || matches!(request, Request::Jacobian | Request::Gradient | Request::Hessian)
}

/// Maps must cover at least this fraction (in percent) of the operations.
pub const MAP_MIN_COVER_PERCENT: u64 = 50;

/// A value read by at least [`MAP_MIN_INSTANCES`] operations and costing
/// at most this many is copied into every instance reading it
/// ([`MapRules::copy_uses`]): gmm's `exp(q)`, read by every data point.
pub const MAP_COPY_OPS: usize = 16;

/// Where the first search leaves much of a kernel unmapped, a second one
/// copies every value costing at most this many operations into each
/// instance reading it, however few read it: neighbours sharing a point's
/// values (collocation's dynamics at a node, read by the intervals on both
/// sides) become instances of their own, each computing those values again.
pub const MAP_COPY_SHARED_OPS: usize = 64;

/// The first search is kept when its maps cover at least this fraction
/// (in percent) of the operations; below it, the second search is tried
/// and the one leaving fewer operations outside maps is kept.
pub const MAP_GOOD_COVER_PERCENT: u64 = 90;

/// The search for maps visits at most this many nodes per node of the DAG,
/// plus the copy limit per argument (each use of a copied value copies at
/// most that many operations): linear in the DAG.
pub const MAP_WORK_PER_NODE: usize = 8;

/// The rules [`frontend::map::decompose`] searches `kernel` with: values
/// read by at least `copy_uses` operations and costing at most `copy_ops`
/// are copied into the instances reading them, or computed once where
/// `compute_common`.
pub fn map_rules(kernel: &Kernel, copy_uses: usize, copy_ops: usize, compute_common: bool) -> MapRules {
    let dag = kernel.dag();
    let edges: usize = dag.ids().map(|id| dag.args(id).len()).sum();
    MapRules {
        split_terms: MAP_SPLIT_TERMS,
        min_instances: MAP_MIN_INSTANCES,
        copy_uses,
        copy_ops,
        compute_common,
        lift_constants: false,
        work: MAP_WORK_PER_NODE * dag.len() + copy_ops * edges + 10_000,
    }
}

/// `kernel` as maps, if it is large enough and maps cover enough of it
/// (see the constants above); `None` to differentiate it whole. Values
/// many instances read are computed once and read as arguments
/// ([`MapRules::compute_common`]): for values, Jacobians and gradients.
pub fn maps(kernel: &Kernel) -> Option<Decomposition> {
    search(kernel, frontend::map::written_out(kernel), true)
}

/// [`maps`] of a kernel of `written_out` operations written out
/// ([`frontend::map::written_out`], counted once per function).
pub(crate) fn maps_of(kernel: &Kernel, written_out: u64) -> Option<Decomposition> {
    search(kernel, written_out, true)
}

/// The same maps with every value the instances share copied into each
/// (no [`Decomposition::computed`]): for Lagrangian Hessians, and for
/// Jacobians whose rows a computed value reaches differ per instance.
pub fn copied_maps(kernel: &Kernel) -> Option<Decomposition> {
    search(kernel, frontend::map::written_out(kernel), false)
}

/// [`copied_maps`] of a kernel of `written_out` operations written out.
pub(crate) fn copied_maps_of(kernel: &Kernel, written_out: u64) -> Option<Decomposition> {
    search(kernel, written_out, false)
}

/// The searches, in order, until one leaves less than a tenth of the
/// operations unmapped ([`MAP_GOOD_COVER_PERCENT`]); the one leaving the
/// fewest is kept:
/// 1. common values computed once where `compute_common`, else copied;
/// 2. values neighbours share copied (collocation, `.nl` files);
/// 3. the first with constants taken out of the bodies
///    ([`MapRules::lift_constants`]): data written into the program as
///    numbers (`gen.py --flat`, `.nl` files of data fits).
fn search(kernel: &Kernel, written_out: u64, compute_common: bool) -> Option<Decomposition> {
    if written_out < MAP_SMALL_KERNEL_OPS {
        return None;
    }
    let unmapped = |d: &Decomposition| d.written_out_ops() - d.mapped_ops();
    let covers = |d: &Decomposition, percent: u64| d.mapped_ops() * 100 >= percent * d.written_out_ops();
    let first = map_rules(kernel, MAP_MIN_INSTANCES, MAP_COPY_OPS, compute_common);
    let searches =
        [first, map_rules(kernel, 2, MAP_COPY_SHARED_OPS, false), MapRules { lift_constants: true, ..first }];
    let mut best: Option<Decomposition> = None;
    for rules in searches {
        if best.as_ref().is_some_and(|d| covers(d, MAP_GOOD_COVER_PERCENT)) {
            break;
        }
        if let Some(found) = frontend::map::decompose(kernel, &rules) {
            if best.as_ref().is_none_or(|b| unmapped(&found) < unmapped(b)) {
                best = Some(found);
            }
        }
    }
    let best = best?;
    // The copied maps are for Hessians (and the few Jacobians the others cannot give).
    let limit = if compute_common { MAP_INLINE_BODY_OPS } else { MAP_INLINE_HESSIAN_BODY_OPS };
    covers(&best, MAP_MIN_COVER_PERCENT).then_some(written_out_bodies(best, limit))
}

/// Whether `found` (the maps of [`maps`]) are also the maps
/// [`copied_maps`] finds, so that the Lagrangian Hessian can take them
/// without searching again: nothing is computed once (so there is nothing
/// to copy instead), and every body is written out within the Hessian's
/// limit ([`MAP_INLINE_HESSIAN_BODY_OPS`]), as the second search would
/// write it. Cart-pole at 10^5 intervals: a second search of 0.1 s saved.
pub fn copies_nothing(found: &Decomposition) -> bool {
    let written_out = |m: &frontend::map::Map| frontend::map::written_out(&m.body);
    found.computed.is_none()
        && found.maps.iter().all(|m| !m.body.has_calls() && written_out(m) <= MAP_INLINE_HESSIAN_BODY_OPS)
}

/// A kernel built for one evaluation (`dstar eval --hessian`'s every
/// output's own Hessian, `--order`'s Taylor coefficients) with more
/// operations than this is run by the interpreter, not compiled: the JIT costs about as much per operation as
/// a thousand interpreted evaluations (multiple-shooting cart-pole, 1,000
/// intervals and 4,005 outputs: 11 s to compile their Hessians, 10 ms to
/// interpret them), and both give the same bits.
pub const ONE_EVALUATION_JIT_OPS: usize = 20_000;

/// Map bodies of at most this many operations with their calls written
/// out are written out for values, Jacobians and gradients: the body is
/// built, differentiated and compiled once whatever its size, and a body
/// without calls runs two instances at once in SIMD lanes, where a call
/// runs one (gmm 1000's gradient 537 -> 280 µs, cart-pole's Jacobian per
/// interval 132 -> 99 ns).
pub const MAP_INLINE_BODY_OPS: u64 = 4096;

/// [`MAP_INLINE_BODY_OPS`] for Lagrangian Hessians, whose bodies' Hessians
/// grow with the square of what one instance reads: written out, a
/// mixture's point (680 operations over 345 inputs) took 1.9 s to set up
/// against 0.67 s with its calls, each call's Hessian built once over the
/// call's own arguments; a cart-pole interval's RK4 step (about 150
/// operations) is faster written out, in set-up and per call.
pub const MAP_INLINE_HESSIAN_BODY_OPS: u64 = 256;

/// `maps` with the calls of each body of at most `limit` operations
/// written out (the same values, bit for bit).
fn written_out_bodies(mut maps: Decomposition, limit: u64) -> Decomposition {
    for map in &mut maps.maps {
        if map.body.has_calls() && frontend::map::written_out(&map.body) <= limit {
            map.body = map.body.inlined();
        }
    }
    maps
}
