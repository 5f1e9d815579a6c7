//! Maximum bipartite matching by Hopcroft–Karp, and the minimum vertex cover
//! it determines by König's theorem.

use std::collections::VecDeque;

/// A matching between left vertices `0..adjacency.len()` and right vertices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matching {
    /// The right partner of each left vertex.
    pub left: Vec<Option<usize>>,
    /// The left partner of each right vertex.
    pub right: Vec<Option<usize>>,
}

impl Matching {
    /// Number of matched pairs.
    pub fn size(&self) -> usize {
        self.left.iter().filter(|m| m.is_some()).count()
    }
}

/// A maximum matching of the bipartite graph whose left vertex `u` is joined
/// to the right vertices `adjacency[u]` (each below `num_right`), in
/// `O(E √V)`. Augmenting paths are followed with an explicit stack.
pub fn hopcroft_karp(adjacency: &[Vec<usize>], num_right: usize) -> Matching {
    let n = adjacency.len();
    let mut matching = Matching { left: vec![None; n], right: vec![None; num_right] };
    let mut dist = vec![usize::MAX; n];
    loop {
        // Layers by BFS from the free left vertices, alternating along the matching.
        let mut queue = VecDeque::new();
        for u in 0..n {
            dist[u] = if matching.left[u].is_none() { 0 } else { usize::MAX };
            if dist[u] == 0 {
                queue.push_back(u);
            }
        }
        let mut found = false;
        while let Some(u) = queue.pop_front() {
            for &v in &adjacency[u] {
                match matching.right[v] {
                    None => found = true,
                    Some(w) if dist[w] == usize::MAX => {
                        dist[w] = dist[u] + 1;
                        queue.push_back(w);
                    }
                    Some(_) => {}
                }
            }
        }
        if !found {
            return matching;
        }
        // Vertex-disjoint shortest augmenting paths along the layers.
        let mut next = vec![0usize; n];
        for root in 0..n {
            if matching.left[root].is_some() {
                continue;
            }
            let mut stack: Vec<(usize, Option<usize>)> = vec![(root, None)];
            while let Some(&(u, _)) = stack.last() {
                if next[u] == adjacency[u].len() {
                    dist[u] = usize::MAX; // a dead end for the rest of this phase
                    stack.pop();
                    continue;
                }
                let v = adjacency[u][next[u]];
                next[u] += 1;
                match matching.right[v] {
                    None => {
                        let mut free = v;
                        for &(w, reached_by) in stack.iter().rev() {
                            matching.left[w] = Some(free);
                            matching.right[free] = Some(w);
                            free = reached_by.unwrap_or(free);
                        }
                        break;
                    }
                    Some(w) if dist[w] == dist[u].wrapping_add(1) => stack.push((w, Some(v))),
                    Some(_) => {}
                }
            }
        }
    }
}

/// A minimum vertex cover from a maximum matching (König): with `Z` the
/// vertices reachable from free left vertices by alternating paths, the cover
/// is the left vertices outside `Z` and the right vertices inside it.
/// Returns `(left_in_cover, right_in_cover)`.
pub fn min_vertex_cover(adjacency: &[Vec<usize>], matching: &Matching) -> (Vec<bool>, Vec<bool>) {
    let mut left_seen = vec![false; adjacency.len()];
    let mut right_seen = vec![false; matching.right.len()];
    let mut stack: Vec<usize> = (0..adjacency.len()).filter(|&u| matching.left[u].is_none()).collect();
    for &u in &stack {
        left_seen[u] = true;
    }
    while let Some(u) = stack.pop() {
        for &v in &adjacency[u] {
            if matching.left[u] == Some(v) || right_seen[v] {
                continue;
            }
            right_seen[v] = true;
            if let Some(w) = matching.right[v] {
                if !left_seen[w] {
                    left_seen[w] = true;
                    stack.push(w);
                }
            }
        }
    }
    (left_seen.iter().map(|s| !s).collect(), right_seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cover_size_equals_matching_size() {
        // Left 0 and 1 compete for right 0; left 2 reaches 0, 1, 2.
        let adjacency = vec![vec![0], vec![0, 1], vec![0, 1, 2], vec![2]];
        let matching = hopcroft_karp(&adjacency, 3);
        assert_eq!(matching.size(), 3);
        let (left, right) = min_vertex_cover(&adjacency, &matching);
        let size = left.iter().chain(&right).filter(|c| **c).count();
        assert_eq!(size, 3);
        for (u, vs) in adjacency.iter().enumerate() {
            assert!(vs.iter().all(|&v| left[u] || right[v]), "edge of {u} uncovered");
        }
    }
}
