//! The exact optimum of edge elimination: a shortest path in the metagraph
//! whose states are the graphs reachable by front and back eliminations and
//! whose arcs cost what the elimination costs (its Markowitz degree in
//! multiplications, discounted for unit edges, plus its additions).

use crate::cost::Cost;
use crate::graph::{LinearizedGraph, VertexKind};
use crate::pattern::{Move, Pattern};
use crate::skip::Skip;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Dijkstra gives up once it has seen this many states (about 20 µs each).
pub const METAGRAPH_STATE_LIMIT: usize = 30_000;

/// Graphs with more edges are not tried: the metagraph grows exponentially
/// (a 12-vertex, 16-edge graph already has over a million states).
pub const METAGRAPH_EDGE_LIMIT: usize = 15;

type Key = Vec<(u32, u32, bool)>;

/// The states (distinct graphs) reachable from `graph` by edge eliminations,
/// the start and the final bipartite graph included: the "stages" of the
/// metagraph.
pub fn metagraph_size(graph: &LinearizedGraph, limit: usize) -> Result<usize, Skip> {
    let kinds = graph.kinds().to_vec();
    let start = Pattern::new(graph, false);
    let mut seen: FxHashMap<Key, ()> = FxHashMap::default();
    seen.insert(start.key(), ());
    let mut stack = vec![start.key()];
    while let Some(key) = stack.pop() {
        let pattern = from_key(&kinds, &key);
        for m in moves(&pattern) {
            let mut next = pattern.clone();
            next.apply(m);
            let next_key = next.key();
            if !seen.contains_key(&next_key) {
                if seen.len() >= limit {
                    return Err(Skip::TooManyStates { limit });
                }
                seen.insert(next_key.clone(), ());
                stack.push(next_key);
            }
        }
    }
    Ok(seen.len())
}

/// A cheapest sequence of edge eliminations accumulating the Jacobian.
pub(crate) fn optimal_moves(graph: &LinearizedGraph) -> Result<Vec<Move>, Skip> {
    if graph.edges().len() > METAGRAPH_EDGE_LIMIT {
        return Err(Skip::TooManyEdges { count: graph.edges().len(), limit: METAGRAPH_EDGE_LIMIT });
    }
    let kinds = graph.kinds().to_vec();
    let start = Pattern::new(graph, false);
    let mut keys: Vec<Key> = vec![start.key()];
    let mut index: FxHashMap<Key, usize> = FxHashMap::default();
    index.insert(start.key(), 0);
    let mut dist = vec![Cost::ZERO];
    let mut parent: Vec<Option<(usize, Move)>> = vec![None];
    let mut settled = vec![false];
    let mut heap = BinaryHeap::from([Reverse((Cost::ZERO, 0usize))]);
    while let Some(Reverse((cost, state))) = heap.pop() {
        if settled[state] {
            continue;
        }
        settled[state] = true;
        let pattern = from_key(&kinds, &keys[state]);
        if pattern.is_done() {
            let mut path = Vec::new();
            let mut at = state;
            while let Some((before, m)) = parent[at] {
                path.push(m);
                at = before;
            }
            path.reverse();
            return Ok(path);
        }
        for m in moves(&pattern) {
            let next_cost = cost + pattern.move_cost(m);
            let mut next = pattern.clone();
            next.apply(m);
            let key = next.key();
            let id = match index.get(&key) {
                Some(&id) => id,
                None => {
                    if keys.len() >= METAGRAPH_STATE_LIMIT {
                        return Err(Skip::TooManyStates { limit: METAGRAPH_STATE_LIMIT });
                    }
                    let id = keys.len();
                    index.insert(key.clone(), id);
                    keys.push(key);
                    dist.push(next_cost);
                    parent.push(Some((state, m)));
                    settled.push(false);
                    heap.push(Reverse((next_cost, id)));
                    continue;
                }
            };
            if !settled[id] && next_cost < dist[id] {
                dist[id] = next_cost;
                parent[id] = Some((state, m));
                heap.push(Reverse((next_cost, id)));
            }
        }
    }
    unreachable!("the bipartite final graph is reachable from every state")
}

/// Applies `moves` to a fresh pattern of `graph`.
pub(crate) fn run_moves(graph: &LinearizedGraph, moves: &[Move], log: bool) -> Pattern {
    let mut pattern = Pattern::new(graph, log);
    for &m in moves {
        pattern.apply(m);
    }
    pattern
}

fn moves(pattern: &Pattern) -> Vec<Move> {
    pattern.edge_list().iter().flat_map(|&(i, j)| pattern.moves_on(i, j)).collect()
}

fn from_key(kinds: &[VertexKind], key: &Key) -> Pattern {
    use crate::graph::VertexId;
    let edges = key
        .iter()
        .map(|&(i, j, unit)| (VertexId::from_index(i as usize), VertexId::from_index(j as usize), unit));
    Pattern::from_edges(kinds.to_vec(), edges, false)
}
