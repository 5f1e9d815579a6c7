//! The D* paper's most-frequent-pair heuristic, for commutative chains: while
//! some pair of elements occurs in two or more bags (the factors of products,
//! or the terms of sums), replace the most frequent pair, everywhere it
//! occurs, by one new element computed once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::hash::Hash;

use rustc_hash::FxHashMap;

/// Repeatedly replaces the most frequent pair in `bags` by the element
/// `combine(pair)` returns, until no pair occurs in two bags. Pairs are
/// unordered and canonicalized by `canonical`, which may flip them into a
/// key plus a marker applied to the combined element (`combine` receives the
/// key and returns the element that replaces the pair as it occurs, for
/// both markers). Ties go to the smallest key, so the result is
/// deterministic. Stops early, with every bag still valid, once it has
/// spent `budget` units of work (one per pair count it updates), and returns
/// the work left: the result depends on the input alone, never on time.
pub fn most_frequent_pairs<E, K>(
    bags: &mut [Vec<E>],
    budget: u64,
    canonical: impl Fn(E, E) -> (K, bool),
    mut combine: impl FnMut(K, bool) -> E,
) -> u64
where
    E: Copy + Eq,
    K: Copy + Eq + Hash + Ord,
{
    let mut work = 0u64;
    // Pairs are counted per pair of positions, so an update touches only the
    // pairs of the elements it removes and adds: O(bag) rather than O(bag²).
    let mut counts: FxHashMap<K, u32> = FxHashMap::default();
    let mut holders: FxHashMap<K, Vec<u32>> = FxHashMap::default();
    for (b, bag) in bags.iter().enumerate() {
        for i in 0..bag.len() {
            for j in i + 1..bag.len() {
                let k = canonical(bag[i], bag[j]).0;
                *counts.entry(k).or_default() += 1;
                holders.entry(k).or_default().push(b as u32);
            }
        }
    }
    let mut heap: BinaryHeap<(u32, Reverse<K>)> =
        counts.iter().filter(|(_, &c)| c >= 2).map(|(&k, &c)| (c, Reverse(k))).collect();
    while let Some((count, Reverse(key))) = heap.pop() {
        match counts.get(&key) {
            Some(&c) if c == count => {}
            // Stale: the count fell since. Queued again at its count now,
            // it competes with the pairs still at that count.
            Some(&c) if c >= 2 && c < count => {
                heap.push((c, Reverse(key)));
                continue;
            }
            _ => continue,
        }
        if work >= budget {
            return 0;
        }
        let mut replaced: FxHashMap<bool, E> = FxHashMap::default();
        let mut list = holders.remove(&key).unwrap_or_default();
        list.dedup();
        for b in list {
            let bag = &mut bags[b as usize];
            while let Some((i, j, flip)) = find_pair(bag, key, &canonical) {
                work += 2 * bag.len() as u64 + 1;
                let element = *replaced.entry(flip).or_insert_with(|| combine(key, flip));
                for (x, &e) in bag.iter().enumerate() {
                    for (y, k) in [(i, canonical(e, bag[i]).0), (j, canonical(e, bag[j]).0)] {
                        // The pair (i, j) itself is seen from both ends.
                        if x != y && !(x == i && y == j) {
                            decrement(&mut counts, k);
                        }
                    }
                }
                bag.swap_remove(j);
                bag.swap_remove(i);
                for &e in bag.iter() {
                    let k = canonical(e, element).0;
                    let c = counts.entry(k).or_default();
                    *c += 1;
                    holders.entry(k).or_default().push(b);
                    if *c >= 2 {
                        heap.push((*c, Reverse(k)));
                    }
                }
                bag.push(element);
            }
        }
        counts.remove(&key);
    }
    budget - work.min(budget)
}

fn decrement<K: Eq + Hash>(counts: &mut FxHashMap<K, u32>, key: K) {
    if let Some(c) = counts.get_mut(&key) {
        *c = c.saturating_sub(1);
    }
}

/// Positions of a pair with key `key` in `bag`, and its marker.
fn find_pair<E: Copy, K: Copy + Eq>(
    bag: &[E],
    key: K,
    canonical: &impl Fn(E, E) -> (K, bool),
) -> Option<(usize, usize, bool)> {
    for i in 0..bag.len() {
        for j in i + 1..bag.len() {
            let (k, flip) = canonical(bag[i], bag[j]);
            if k == key {
                return Some((i, j, flip));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Combines unordered pairs in `bags` without a budget: the first pair
    /// combined becomes element 101, the next 102, and so on. Returns the
    /// pairs in that order.
    fn combine_all(bags: &mut [Vec<u32>]) -> Vec<(u32, u32)> {
        let mut made = Vec::new();
        most_frequent_pairs(
            bags,
            u64::MAX,
            |a, b| ((a.min(b), a.max(b)), false),
            |k, _| {
                made.push(k);
                100 + made.len() as u32
            },
        );
        made
    }

    #[test]
    fn shared_pair_is_combined_once() {
        // abc, abd, ab: (a, b) occurs three times.
        let mut bags = vec![vec![0u32, 1, 2], vec![0, 1, 3], vec![1, 0]];
        assert_eq!(combine_all(&mut bags), vec![(0, 1)]);
        assert!(bags.iter().all(|b| b.contains(&101)));
        assert_eq!(bags[2], vec![101]);
    }

    #[test]
    fn a_pair_whose_count_fell_is_still_combined() {
        // (2, 3) and (2, 4) both occur three times; (2, 3) goes first (the
        // smaller key) and takes one (2, 4) with it, which still occurs
        // twice afterwards and must be combined at that count.
        let mut bags = vec![vec![2u32, 3, 4], vec![2, 3], vec![2, 3], vec![0, 2, 4], vec![1, 2, 4]];
        assert_eq!(combine_all(&mut bags), vec![(2, 3), (2, 4)]);
        assert!(bags[3].contains(&102) && bags[4].contains(&102));
    }
}
