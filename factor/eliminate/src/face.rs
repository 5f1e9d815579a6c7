//! Face elimination on the line graph (Naumann's dual computational graph).
//!
//! Every edge of the linearized graph is a vertex of the line graph, plus a
//! dummy source per input and a dummy sink per output; two consecutive edges
//! `a = (i, j)`, `b = (j, k)` form a face `(a, b)`. Eliminating a face
//! multiplies just that pair: a vertex `c` with the predecessors of `a` and
//! the successors of `b` receives `c_b · c_a` (added onto an existing vertex
//! with exactly those neighbours, else created), the face is removed, and a
//! vertex left without successors or predecessors goes. Sums over paths are
//! invariant, and faces are finer than edges, so face elimination can
//! beat every edge elimination. The order here is greedy: the face whose
//! elimination leaves the fewest faces (then the cheapest), re-scored lazily.

use crate::accumulate::{materialize, Accumulation};
use crate::cost::Cost;
use crate::graph::{LinearizedGraph, VertexId, VertexKind};
use crate::skip::Skip;
use derivative::Term;
use frontend::{ExprDag, NodeId};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// Index of a vertex of the line graph.
type Line = usize;

/// `values[target] (+)= values[left] · values[right]`.
#[derive(Clone, Copy, Debug)]
struct FaceStep {
    target: Line,
    left: Line,
    right: Line,
    fresh: bool,
}

/// The line graph under face elimination.
struct LineGraph {
    /// The linearized-graph vertices a line vertex runs between.
    ends: Vec<(VertexId, VertexId)>,
    unit: Vec<bool>,
    dummy: Vec<bool>,
    preds: Vec<BTreeSet<Line>>,
    succs: Vec<BTreeSet<Line>>,
    /// Non-dummy line vertices by their ends, to find absorbing vertices.
    by_ends: FxHashMap<(VertexId, VertexId), Vec<Line>>,
    cost: Cost,
    log: Vec<FaceStep>,
}

impl LineGraph {
    fn new(graph: &LinearizedGraph) -> LineGraph {
        let m = graph.edges().len();
        let mut line = LineGraph {
            ends: graph.edges().iter().map(|e| (e.from, e.to)).collect(),
            unit: graph.edges().iter().map(|e| e.unit).collect(),
            dummy: vec![false; m],
            preds: vec![BTreeSet::new(); m],
            succs: vec![BTreeSet::new(); m],
            by_ends: FxHashMap::default(),
            cost: Cost::ZERO,
            log: Vec::new(),
        };
        for (a, e) in graph.edges().iter().enumerate() {
            line.by_ends.entry((e.from, e.to)).or_default().push(a);
        }
        let mut into: Vec<Vec<Line>> = vec![Vec::new(); graph.num_vertices()];
        let mut out_of: Vec<Vec<Line>> = vec![Vec::new(); graph.num_vertices()];
        for (a, e) in graph.edges().iter().enumerate() {
            into[e.to.index()].push(a);
            out_of[e.from.index()].push(a);
        }
        for v in graph.vertices() {
            match graph.kind(v) {
                VertexKind::Input(_) => {
                    let d = line.push_dummy(v);
                    into[v.index()].push(d);
                }
                VertexKind::Output(_) => {
                    let d = line.push_dummy(v);
                    out_of[v.index()].push(d);
                }
                VertexKind::Intermediate => {}
            }
            for &a in &into[v.index()] {
                for &b in &out_of[v.index()] {
                    line.succs[a].insert(b);
                    line.preds[b].insert(a);
                }
            }
        }
        line
    }

    fn push_dummy(&mut self, v: VertexId) -> Line {
        self.ends.push((v, v));
        self.unit.push(true);
        self.dummy.push(true);
        self.preds.push(BTreeSet::new());
        self.succs.push(BTreeSet::new());
        self.ends.len() - 1
    }

    fn is_face(&self, a: Line, b: Line) -> bool {
        !self.dummy[a] && !self.dummy[b] && self.succs[a].contains(&b)
    }

    /// The vertex that would absorb the product of face `(a, b)`.
    fn absorber(&self, a: Line, b: Line) -> Option<Line> {
        let ends = (self.ends[a].0, self.ends[b].1);
        self.by_ends
            .get(&ends)?
            .iter()
            .copied()
            .find(|&c| self.preds[c] == self.preds[a] && self.succs[c] == self.succs[b])
    }

    fn real(&self, set: &BTreeSet<Line>) -> usize {
        set.iter().filter(|&&v| !self.dummy[v]).count()
    }

    /// Net change of the face count, then the cost: smaller is better.
    fn score(&self, a: Line, b: Line) -> (isize, usize) {
        let (pa, sb) = (self.real(&self.preds[a]) as isize, self.real(&self.succs[b]) as isize);
        let created = if self.absorber(a, b).is_some() { 0 } else { pa + sb };
        let removed =
            1 + if self.succs[a].len() == 1 { pa } else { 0 } + if self.preds[b].len() == 1 { sb } else { 0 };
        (created - removed, usize::from(!(self.unit[a] || self.unit[b])))
    }

    /// Eliminates face `(a, b)` and returns the vertices whose faces changed.
    fn eliminate(&mut self, a: Line, b: Line) -> Vec<Line> {
        self.cost.mults += usize::from(!(self.unit[a] || self.unit[b]));
        let (c, fresh) = match self.absorber(a, b) {
            Some(c) => {
                self.cost.adds += 1;
                self.unit[c] = false;
                (c, false)
            }
            None => {
                let c = self.ends.len();
                let ends = (self.ends[a].0, self.ends[b].1);
                self.ends.push(ends);
                self.unit.push(self.unit[a] && self.unit[b]);
                self.dummy.push(false);
                self.preds.push(self.preds[a].clone());
                self.succs.push(self.succs[b].clone());
                for &p in &self.preds[a] {
                    self.succs[p].insert(c);
                }
                for &s in &self.succs[b] {
                    self.preds[s].insert(c);
                }
                self.by_ends.entry(ends).or_default().push(c);
                (c, true)
            }
        };
        self.log.push(FaceStep { target: c, left: b, right: a, fresh });
        self.succs[a].remove(&b);
        self.preds[b].remove(&a);
        let mut touched = vec![a, b, c];
        if self.succs[a].is_empty() {
            touched.extend(self.remove(a));
        }
        if self.preds[b].is_empty() {
            touched.extend(self.remove(b));
        }
        touched
    }

    /// Removes `v` with its faces; returns its former neighbours.
    fn remove(&mut self, v: Line) -> Vec<Line> {
        let preds = std::mem::take(&mut self.preds[v]);
        let succs = std::mem::take(&mut self.succs[v]);
        for &p in &preds {
            self.succs[p].remove(&v);
        }
        for &s in &succs {
            self.preds[s].remove(&v);
        }
        if let Some(list) = self.by_ends.get_mut(&self.ends[v]) {
            list.retain(|&w| w != v);
        }
        preds.into_iter().chain(succs).collect()
    }

    fn faces_of(&self, v: Line) -> Vec<(Line, Line)> {
        let into = self.preds[v].iter().map(|&p| (p, v));
        let out = self.succs[v].iter().map(|&s| (v, s));
        into.chain(out).filter(|&(a, b)| self.is_face(a, b)).collect()
    }

    fn is_alive(&self, v: Line) -> bool {
        !self.dummy[v] && !self.preds[v].is_empty() && !self.succs[v].is_empty()
    }
}

/// The face scores the greedy order may push per edge of the graph, beyond
/// [`FACE_WORK_BASE`]: a bound on its work (each push is scored and popped
/// once). The corpus needs at most 17 per edge; a chain of single-shooting
/// steps needs thousands, growing with its length (its faces multiply), and
/// is skipped instead.
pub const FACE_WORK_PER_EDGE: u64 = 64;
/// The pushes every graph may spend, however small.
pub const FACE_WORK_BASE: u64 = 20_000;

/// Accumulates the Jacobian of `graph` (built in `dag`) by greedy face
/// elimination, with products and sums of [`derivative::product()`].
///
/// # Errors
/// [`Skip::OverBudget`] when the order would push more face scores than
/// [`FACE_WORK_PER_EDGE`] per edge (plus [`FACE_WORK_BASE`]).
pub fn face_elimination(graph: &LinearizedGraph, mut dag: ExprDag) -> Result<Accumulation, Skip> {
    let limit = FACE_WORK_BASE + FACE_WORK_PER_EDGE * graph.edges().len() as u64;
    let mut line = LineGraph::new(graph);
    let mut heap = BinaryHeap::new();
    for a in 0..line.ends.len() {
        for (a, b) in line.faces_of(a) {
            heap.push(Reverse((line.score(a, b), a, b)));
        }
    }
    let mut pushes = heap.len() as u64;
    while let Some(Reverse((score, a, b))) = heap.pop() {
        if !line.is_face(a, b) {
            continue;
        }
        let now = line.score(a, b);
        if now != score {
            heap.push(Reverse((now, a, b)));
            pushes += 1;
            continue;
        }
        for v in line.eliminate(a, b) {
            for (p, q) in line.faces_of(v) {
                heap.push(Reverse((line.score(p, q), p, q)));
                pushes += 1;
            }
        }
        if pushes > limit {
            return Err(Skip::OverBudget { limit });
        }
    }

    // Replay on the DAG, then sum the line vertices joining each (input, output).
    // Signs are flags of the terms, as in the vertex replays: no `neg` for a `-1` edge.
    let mut values: Vec<Option<Term>> =
        graph.edges().iter().map(|e| Some(Term::of(&mut dag, e.label))).collect();
    values.resize(line.ends.len(), None);
    for step in &line.log {
        let left = values[step.left].expect("eliminated faces join built values");
        let right = values[step.right].expect("eliminated faces join built values");
        let product = left.mul(right, &mut dag);
        values[step.target] = Some(match (step.fresh, values[step.target]) {
            (false, Some(earlier)) => earlier.add(product, &mut dag),
            _ => product,
        });
    }
    let mut cost = line.cost;
    let mut sums: std::collections::BTreeMap<(usize, usize), (Term, bool)> = Default::default();
    for v in (0..line.ends.len()).filter(|&v| line.is_alive(v)) {
        let (x, y) = line.ends[v];
        let (VertexKind::Input(col), VertexKind::Output(row)) = (graph.kind(x), graph.kind(y)) else {
            panic!("face elimination ends with input → output vertices only, not {:?}", line.ends[v]);
        };
        let value = values[v].expect("live line vertices have values");
        sums.entry((row, col))
            .and_modify(|(sum, unit)| {
                cost.adds += 1;
                *sum = sum.add(value, &mut dag);
                *unit = false;
            })
            .or_insert((value, line.unit[v]));
    }
    let nonunit = sums.values().filter(|(_, unit)| !unit).count();
    let kept: Vec<NodeId> =
        (0..graph.num_outputs()).filter_map(|r| graph.output(r)).map(|y| graph.node(y)).collect();
    let entries = sums.into_iter().map(|((row, col), (term, _))| (row, col, term)).collect();
    let entries = materialize(&mut dag, entries, &kept);
    Ok(Accumulation::new(dag, cost, nonunit, entries, (graph.num_outputs(), graph.num_inputs())))
}
