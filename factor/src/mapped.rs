//! Derivatives of maps are maps ([`frontend::map`]): the Jacobian or the
//! Lagrangian Hessian of a [`Decomposition`] as a [`MapKernel`], each map's
//! body differentiated once and its entries placed per instance, the rest
//! differentiated as any kernel. Built in O(instances × entries per
//! instance) plus the rest's own cost; the sparsity pattern comes from the
//! body's pattern and the leaves, never from the written-out program.

use crate::{gradient, jacobian, lagrangian_hessian};
use frontend::map::{Columns, Decomposition, MapKernel, Piece};
use frontend::SparsityPattern;

/// The Jacobian of `d`'s kernel as maps: output the values, then the
/// nonzeros of the pattern (CSR), as [`crate::Jacobian::kernel`] lays them.
pub fn mapped_jacobian(d: &Decomposition) -> (MapKernel, SparsityPattern) {
    let m = d.rest.num_outputs();
    let rest = jacobian(d.rest.clone());
    let bodies: Vec<_> = d.maps.iter().map(|map| jacobian(map.body.clone())).collect();
    let mut entries = Entries::new(m);
    entries.extend(rest.pattern().positions());
    for (map, body) in d.maps.iter().zip(&bodies) {
        let (t, width) = (map.body.num_outputs(), map.body.num_inputs());
        for i in 0..map.instances {
            let (targets, leaves) = (&map.targets[i * t..][..t], &map.leaves[i * width..][..width]);
            entries
                .extend(body.pattern().positions().map(|(r, c)| (targets[r] as usize, leaves[c] as usize)));
        }
    }
    let pattern = entries.pattern(d.rest.num_variables());
    let place = |row: usize, col: usize| index(m + pattern.find(row, col).expect("an entry of the pattern"));
    let mut rest_places: Vec<u32> = (0..m).map(index).collect();
    rest_places.extend(rest.pattern().positions().map(|(r, c)| place(r, c)));
    let pieces = d
        .maps
        .iter()
        .zip(&bodies)
        .map(|(map, body)| {
            let (t, width) = (map.body.num_outputs(), map.body.num_inputs());
            let mut places = Vec::with_capacity(map.instances * (t + body.nnz()));
            for i in 0..map.instances {
                let (targets, leaves) = (&map.targets[i * t..][..t], &map.leaves[i * width..][..width]);
                places.extend_from_slice(targets);
                places.extend(
                    body.pattern().positions().map(|(r, c)| place(targets[r] as usize, leaves[c] as usize)),
                );
            }
            Piece {
                body: body.kernel().clone(),
                instances: map.instances,
                gather: Columns::new(&map.leaves, width),
                places: Columns::new(&places, t + body.nnz()),
            }
        })
        .collect();
    let num_outputs = m + pattern.nnz();
    (MapKernel { rest: rest.into_kernel(), rest_places, pieces, num_outputs }, pattern)
}

/// The values and the gradient of the sum of the outputs of `d`'s kernel
/// as maps, as [`crate::gradient`] lays them: each body's gradient (of the
/// sum of its results) added at its leaves, a shared leaf's entries summed
/// over the instances.
pub fn mapped_gradient(d: &Decomposition) -> MapKernel {
    let (m, n) = (d.rest.num_outputs(), d.rest.num_variables());
    let pieces = d
        .maps
        .iter()
        .map(|map| {
            let (t, width, variables) =
                (map.body.num_outputs(), map.body.num_inputs(), map.body.num_variables());
            let mut places = Vec::with_capacity(map.instances * (t + variables));
            for i in 0..map.instances {
                places.extend_from_slice(&map.targets[i * t..][..t]);
                places.extend(
                    map.leaves[i * width..][..variables].iter().map(|&leaf| index(m + leaf as usize)),
                );
            }
            Piece {
                body: gradient(map.body.clone()),
                instances: map.instances,
                gather: Columns::new(&map.leaves, width),
                places: Columns::new(&places, t + variables),
            }
        })
        .collect();
    let rest_places = (0..m + n).map(index).collect();
    MapKernel { rest: gradient(d.rest.clone()), rest_places, pieces, num_outputs: m + n }
}

/// The lower triangle of the Lagrangian Hessian of `d`'s kernel as maps:
/// input the variables, parameters and one weight per output; output the
/// nonzeros of the lower triangle (CSR), as [`crate::Hessian::lower_kernel`]
/// lays them. Each instance's body is weighted by the weights of the
/// outputs its results are added into.
pub fn mapped_hessian(d: &Decomposition) -> (MapKernel, SparsityPattern) {
    let rest_kernel = &d.rest;
    let (n, q) = (rest_kernel.num_variables(), rest_kernel.num_inputs() - rest_kernel.num_variables());
    let rest = lagrangian_hessian(d.rest.clone());
    let bodies: Vec<_> = d.maps.iter().map(|map| lagrangian_hessian(map.body.clone())).collect();
    let lower = |a: usize, b: usize| (a.max(b), a.min(b));
    let mut entries = Entries::new(n);
    entries.extend(rest.lower_pattern().positions());
    for (map, body) in d.maps.iter().zip(&bodies) {
        let width = map.body.num_inputs();
        for i in 0..map.instances {
            let leaves = &map.leaves[i * width..][..width];
            let local = body.lower_pattern().positions();
            entries.extend(local.map(|(r, c)| lower(leaves[r] as usize, leaves[c] as usize)));
        }
    }
    let pattern = entries.pattern(n);
    let place = |(row, col): (usize, usize)| index(pattern.find(row, col).expect("an entry of the pattern"));
    let rest_places = rest.lower_pattern().positions().map(place).collect();
    let pieces = d
        .maps
        .iter()
        .zip(&bodies)
        .map(|(map, body)| {
            let (t, width) = (map.body.num_outputs(), map.body.num_inputs());
            let mut gather = Vec::with_capacity(map.instances * (width + t));
            let mut places = Vec::with_capacity(map.instances * body.lower_pattern().nnz());
            for i in 0..map.instances {
                let (targets, leaves) = (&map.targets[i * t..][..t], &map.leaves[i * width..][..width]);
                gather.extend_from_slice(leaves);
                gather.extend(targets.iter().map(|&o| index(n + q + o as usize)));
                let local = body.lower_pattern().positions();
                places.extend(local.map(|(r, c)| place(lower(leaves[r] as usize, leaves[c] as usize))));
            }
            Piece {
                body: body.lower_kernel(),
                instances: map.instances,
                gather: Columns::new(&gather, width + t),
                places: Columns::new(&places, body.lower_pattern().nnz()),
            }
        })
        .collect();
    let num_outputs = pattern.nnz();
    (MapKernel { rest: rest.lower_kernel(), rest_places, pieces, num_outputs }, pattern)
}

/// An index of an output or input, as the tables keep it.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 entries")
}

/// Nonzero positions collected per row, in any order, with repeats.
struct Entries {
    rows: Vec<Vec<u32>>,
}

impl Entries {
    fn new(rows: usize) -> Entries {
        Entries { rows: vec![Vec::new(); rows] }
    }

    fn extend(&mut self, positions: impl Iterator<Item = (usize, usize)>) {
        for (row, col) in positions {
            self.rows[row].push(index(col));
        }
    }

    /// The CSR pattern of the positions, each once, columns ascending.
    fn pattern(mut self, num_cols: usize) -> SparsityPattern {
        for row in &mut self.rows {
            row.sort_unstable();
            row.dedup();
        }
        let rows = self.rows.len();
        let positions =
            self.rows.iter().enumerate().flat_map(|(r, cols)| cols.iter().map(move |&c| (r, c as usize)));
        SparsityPattern::new(rows, num_cols, positions)
    }
}
