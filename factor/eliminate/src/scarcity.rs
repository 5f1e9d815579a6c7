//! Scarcity (Griewank & Vogel; Lyons, Utke & Naumann): when many
//! Jacobian-vector products `J·v` are wanted, stop eliminating early. A
//! partial edge elimination leaves a remainder graph; applying it to a
//! direction costs one multiplication per nonunit edge, so the goal is the
//! remainder with the fewest nonunit edges, which is often far sparser than
//! the accumulated Jacobian. Heuristics: greedy (the move that removes most
//! nonunit edges, until none does), Metropolis (random moves, uphill accepted
//! with probability `exp(-Δ/T)`) and the hybrid that interleaves Metropolis
//! with random-walk moves, restarts, and keeps the best state seen.

use crate::accumulate::{initial_values, replay};
use crate::cost::Cost;
use crate::graph::{LinearizedEdge, LinearizedGraph, VertexId, VertexKind};
use crate::pattern::{Move, Pattern};
use crate::rng::Rng;
use derivative::propagate::{materialize, push_forward};
use derivative::Term;
use frontend::{ExprDag, Kernel};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Work (edges touched scoring or applying moves) the scarcity heuristics
/// may spend per edge of the graph, on top of [`SCARCITY_WORK_BASE`]: past it
/// they keep the best remainder found so far. Scoring a move touches the
/// edges of one vertex, so on graphs with vertices of thousands of edges an
/// unbounded search is quadratic; the corpus never comes near the budget.
pub const SCARCITY_WORK_PER_EDGE: usize = 256;
/// See [`SCARCITY_WORK_PER_EDGE`].
pub const SCARCITY_WORK_BASE: usize = 100_000;

/// Work the randomized searches may spend per edge, on top of
/// [`SEARCH_WORK_BASE`]: past it they keep the best remainder found so
/// far. A run takes 9-18 a edge (dense block 200, tree 1,000, cart-pole
/// 100 written out), so the first run, from the greedy result, always
/// completes; the seven restarts that follow pay on small graphs
/// (Chebyshev 30: 1 nonunit edge left, against 24 with the first run
/// alone), which the base keeps whole, while on large ones they found
/// nothing better on any graph of the corpus or the zoo and cost most of
/// a `J·v` kernel's set-up (a written-out tree of 8,000 inputs: 0.65 s,
/// against 0.17 s for its gradient). With this budget: 0.53 s, and the
/// same remainders everywhere.
pub const SEARCH_WORK_PER_EDGE: usize = 20;
/// See [`SEARCH_WORK_PER_EDGE`].
pub const SEARCH_WORK_BASE: usize = 1 << 20;

/// Entries the greedy heuristic's queue may hold per edge of the pattern,
/// on top of [`GREEDY_QUEUE_BASE`]: past them it stops with the moves it
/// made, as past its work budget. After each move it queues every move
/// near it afresh, so a vertex of thousands of edges queues thousands
/// of entries a move: one input feeding 8,000 outputs queued 2.3 million
/// (16,000 edges), 206 MB of a 299 MB `J·v` set-up. With the bound: 70 MB,
/// set-up 0.60 → 0.33 s, and the same remainder after the randomized search
/// (the greedy one alone keeps 15,948 nonunit edges instead of 15,720). On
/// the corpus, the NLPs and the zoo's instances every remainder, greedy or
/// randomized, is the same as without the bound.
pub const GREEDY_QUEUE_PER_EDGE: usize = 16;
/// See [`GREEDY_QUEUE_PER_EDGE`].
pub const GREEDY_QUEUE_BASE: usize = 1 << 16;

/// The work budget of the greedy heuristic on `graph`.
fn work_budget(graph: &LinearizedGraph) -> usize {
    SCARCITY_WORK_PER_EDGE * graph.edges().len() + SCARCITY_WORK_BASE
}

/// The work budget of a randomized search on `graph`.
fn search_budget(graph: &LinearizedGraph) -> usize {
    SEARCH_WORK_PER_EDGE * graph.edges().len() + SEARCH_WORK_BASE
}

/// Parameters of the randomized searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Anneal {
    /// Independent runs; the first hybrid run continues from the greedy result.
    pub restarts: usize,
    /// Proposals per run, as a multiple of the initial edge count (plus 100).
    pub steps_per_edge: usize,
    /// Metropolis temperature: an uphill move of `Δ` is accepted with probability `exp(-Δ/T)`.
    pub temperature: f64,
    /// Probability that a step is a random-walk move, accepted whatever its `Δ`.
    pub walk_probability: f64,
    /// The seed: equal seeds give equal results.
    pub seed: u64,
}

impl Anneal {
    /// Pure Metropolis.
    pub const METROPOLIS: Anneal =
        Anneal { restarts: 4, steps_per_edge: 4, temperature: 0.5, walk_probability: 0.0, seed: 7 };
    /// The hybrid of Metropolis and random walk.
    pub const HYBRID: Anneal =
        Anneal { restarts: 8, steps_per_edge: 4, temperature: 0.5, walk_probability: 0.01, seed: 7 };
}

/// A remainder graph with its edge values, ready to multiply directions.
#[derive(Clone, Debug)]
pub struct Remainder {
    /// The function's DAG, extended with the partials and the remainder's edge values.
    pub dag: ExprDag,
    /// The remainder's edges, sorted by `(to, from)` (`from < to`, so in topological order).
    pub edges: Vec<LinearizedEdge>,
    /// The cost of the partial elimination that produced it.
    pub cost: Cost,
    kinds: Vec<VertexKind>,
    inputs: Vec<Option<VertexId>>,
    outputs: Vec<Option<VertexId>>,
    /// The function's kernel inputs: its variables, then its parameters.
    kernel_inputs: usize,
}

impl Remainder {
    /// Number of edges whose value is not `±1`: the multiplications per direction.
    pub fn nonunit_edges(&self) -> usize {
        self.edges.iter().filter(|e| !e.unit).count()
    }

    /// `J·v` at the point `x` for every direction `v` (each of length
    /// `num_inputs`), by propagating tangents over the remainder graph.
    /// Returns the products (each of length `num_outputs`) and the
    /// multiplications spent: [`Remainder::nonunit_edges`] per direction.
    ///
    /// As in [`derivative::product()`], a zero that may stand for a branch
    /// not taken (an edge value or a tangent that
    /// [`derivative::may_be_deselected`]) absorbs the other factor, so the
    /// branch not taken contributes nothing, NaN and infinities included.
    pub fn apply(&self, x: &[f64], directions: &[Vec<f64>]) -> (Vec<Vec<f64>>, usize) {
        let labels: Vec<_> = self.edges.iter().map(|e| e.label).collect();
        let values = frontend::eval(&self.dag, &labels, x);
        let selective: Vec<bool> =
            labels.iter().map(|&l| derivative::may_be_deselected(&self.dag, l)).collect();
        let mut mults = 0;
        let mut products = Vec::with_capacity(directions.len());
        let mut tangent = vec![0.0; self.kinds.len()];
        // Whether every contribution to a tangent so far may be deselected.
        let mut deselected = vec![None::<bool>; self.kinds.len()];
        for v in directions {
            tangent.iter_mut().for_each(|t| *t = 0.0);
            deselected.iter_mut().for_each(|d| *d = None);
            for (col, input) in self.inputs.iter().enumerate() {
                if let Some(input) = input {
                    tangent[input.index()] = v[col];
                    deselected[input.index()] = Some(false);
                }
            }
            // Edges sorted by head, and every tail precedes its head: each
            // tail's tangent is complete when first read.
            for ((e, &c), &selective) in self.edges.iter().zip(&values).zip(&selective) {
                let t = tangent[e.from.index()];
                let t_selective = deselected[e.from.index()].unwrap_or(false);
                let term = if e.unit {
                    if c < 0.0 {
                        -t
                    } else {
                        t
                    }
                } else {
                    mults += 1;
                    if (selective && c == 0.0) || (t_selective && t == 0.0) {
                        0.0
                    } else {
                        c * t
                    }
                };
                tangent[e.to.index()] += term;
                let term_selective = selective || t_selective;
                let head = &mut deselected[e.to.index()];
                *head = Some(head.unwrap_or(true) && term_selective);
            }
            products.push(self.outputs.iter().map(|y| y.map_or(0.0, |y| tangent[y.index()])).collect());
        }
        (products, mults)
    }

    /// Number of inputs `n` (the length of `x` and of each direction).
    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Number of outputs `m` (the length of each product).
    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// `J·V` for `num_directions` directions as a kernel over a copy of the
    /// DAG: its inputs are the function's (`x`, then the parameters, `N` in
    /// all), and input `N + d·n + j` is component `j` of direction `d`
    /// (`n` variables); output `d·m + i` is component `i` of `J·v_d`. The
    /// same propagation as [`Remainder::apply`], by [`push_forward`], whose
    /// products are [`derivative::product()`]'s: one multiplication (or
    /// select) per nonunit edge and direction, unit edges add or subtract.
    pub fn directions_kernel(&self, num_directions: usize) -> Kernel {
        let mut dag = self.dag.clone();
        let (n, total) = (self.num_inputs(), self.kernel_inputs);
        let mut products = Vec::with_capacity(num_directions * self.num_outputs());
        let mut tangent = vec![None; self.kinds.len()];
        for d in 0..num_directions {
            tangent.iter_mut().for_each(|t| *t = None);
            for (col, input) in self.inputs.iter().enumerate() {
                if let Some(input) = input {
                    tangent[input.index()] =
                        Some(Term { node: dag.input(total + d * n + col), negated: false });
                }
            }
            // Edges sorted by head, tails first: as in `apply`.
            let edges = self.edges.iter().map(|e| (e.from.index(), e.to.index(), e.label));
            push_forward(&mut dag, edges, &mut tangent);
            for y in &self.outputs {
                products.push(materialize(&mut dag, y.and_then(|y| tangent[y.index()])));
            }
        }
        let num_inputs = total + n * num_directions;
        let kernel =
            Kernel::new(dag, products, num_inputs).expect("the products read x, p and the directions only");
        kernel.with_variables(n)
    }
}

/// Builds the remainder left by `moves` (built in `dag`).
pub(crate) fn remainder(
    graph: &LinearizedGraph,
    mut dag: ExprDag,
    moves: &[Move],
    kernel_inputs: usize,
) -> Remainder {
    let mut pattern = Pattern::new(graph, true);
    for &m in moves {
        pattern.apply(m);
    }
    let mut values = initial_values(graph, &mut dag);
    replay(&mut dag, &mut values, pattern.log());
    let mut edges: Vec<LinearizedEdge> = pattern
        .edge_list()
        .iter()
        .map(|&(from, to)| LinearizedEdge {
            from,
            to,
            label: values[&(from, to)].materialize(&mut dag),
            unit: pattern.unit(from, to).expect("listed edges exist"),
        })
        .collect();
    edges.sort_by_key(|e| (e.to, e.from));
    let inputs = (0..graph.num_inputs()).map(|c| graph.input(c)).collect();
    let outputs = (0..graph.num_outputs()).map(|r| graph.output(r)).collect();
    Remainder {
        dag,
        edges,
        cost: pattern.cost(),
        kinds: graph.kinds().to_vec(),
        inputs,
        outputs,
        kernel_inputs,
    }
}

/// The greedy scarcity moves: always the move that lowers the nonunit edge
/// count most (ties: cheapest, then lowest edge), until no move lowers it or
/// the work budget is spent.
pub(crate) fn greedy_moves(graph: &LinearizedGraph) -> Vec<Move> {
    let mut pattern = Pattern::new(graph, false);
    let mut moves = Vec::new();
    let mut heap = BinaryHeap::new();
    let work = std::cell::Cell::new(work_budget(graph));
    let score = |p: &Pattern, m: Move| {
        work.set(work.get().saturating_sub(p.move_work(m)));
        (p.nonunit_delta(m), p.move_cost(m).total())
    };
    let edges: Vec<(VertexId, VertexId)> = pattern.edge_list().to_vec();
    for (i, j) in edges {
        for m in pattern.moves_on(i, j) {
            heap.push(Reverse((score(&pattern, m), key(m))));
        }
    }
    // Scores are pushed afresh for every move near a change, so the least
    // current score is always in the heap; stale entries are re-checked.
    while let Some(Reverse((stored, k))) = heap.pop() {
        let m = from_key(k);
        if !pattern.allows(m) {
            continue;
        }
        let now = score(&pattern, m);
        if now != stored {
            heap.push(Reverse((now, k)));
            continue;
        }
        let queue_full = heap.len() > GREEDY_QUEUE_PER_EDGE * pattern.num_edges() + GREEDY_QUEUE_BASE;
        if now.0 >= 0 || work.get() == 0 || queue_full {
            break;
        }
        let touched = touched_by(&pattern, m);
        pattern.apply(m);
        moves.push(m);
        for v in touched {
            let near: Vec<(VertexId, VertexId)> = pattern
                .preds(v)
                .keys()
                .map(|&p| (p, v))
                .chain(pattern.succs(v).keys().map(|&s| (v, s)))
                .collect();
            for (i, j) in near {
                for m in pattern.moves_on(i, j) {
                    heap.push(Reverse((score(&pattern, m), key(m))));
                }
            }
        }
    }
    moves
}

/// The best remainder found by Metropolis (`walk_probability == 0`) or the
/// hybrid, as moves from the original graph. With `start`, the first run
/// continues from those moves (the greedy result) instead of from scratch.
pub(crate) fn randomized_moves(graph: &LinearizedGraph, anneal: Anneal, start: &[Move]) -> Vec<Move> {
    let mut rng = Rng::new(anneal.seed);
    let initial = Pattern::new(graph, false);
    let steps = anneal.steps_per_edge * initial.num_edges() + 100;
    let mut work = search_budget(graph);
    let mut best = (initial.nonunit_edges(), initial.cost().total());
    let mut best_moves: Vec<Move> = Vec::new();
    for run in 0..anneal.restarts {
        let mut pattern = initial.clone();
        let mut moves = Vec::new();
        // The prefix of this run's moves reaching its best state, if better than `best`.
        let mut best_here = None;
        if run == 0 {
            for &m in start {
                pattern.apply(m);
                moves.push(m);
            }
        }
        let mut note = |pattern: &Pattern, len: usize, best: &mut (usize, usize)| {
            let here = (pattern.nonunit_edges(), pattern.cost().total());
            if here < *best {
                *best = here;
                best_here = Some(len);
            }
        };
        note(&pattern, moves.len(), &mut best);
        for _ in 0..steps {
            if pattern.is_done() || work == 0 {
                break;
            }
            let edges = pattern.edge_list();
            let (i, j) = edges[rng.below(edges.len())];
            // At most two moves: front and back.
            let mut options = [None; 2];
            let mut count = 0;
            for m in pattern.moves_on(i, j) {
                options[count] = Some(m);
                count += 1;
            }
            if count == 0 {
                continue;
            }
            let m = options[rng.below(count)].expect("counted");
            // Scoring and applying each touch the move's edges.
            work = work.saturating_sub(2 * pattern.move_work(m));
            let delta = pattern.nonunit_delta(m);
            let accept = delta <= 0
                || rng.unit() < anneal.walk_probability
                || rng.unit() < (-(delta as f64) / anneal.temperature).exp();
            if !accept {
                continue;
            }
            pattern.apply(m);
            moves.push(m);
            note(&pattern, moves.len(), &mut best);
        }
        if let Some(len) = best_here {
            moves.truncate(len);
            best_moves = moves;
        }
    }
    best_moves
}

/// The vertices whose incident moves `m` may re-score.
fn touched_by(pattern: &Pattern, m: Move) -> Vec<VertexId> {
    match m {
        Move::Front(i, j) => [i, j].into_iter().chain(pattern.succs(j).keys().copied()).collect(),
        Move::Back(i, j) => [i, j].into_iter().chain(pattern.preds(i).keys().copied()).collect(),
    }
}

/// A totally ordered encoding of a move, for heap ties.
fn key(m: Move) -> (VertexId, VertexId, bool) {
    match m {
        Move::Front(i, j) => (i, j, false),
        Move::Back(i, j) => (i, j, true),
    }
}

fn from_key((i, j, back): (VertexId, VertexId, bool)) -> Move {
    if back {
        Move::Back(i, j)
    } else {
        Move::Front(i, j)
    }
}
