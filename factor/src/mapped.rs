//! Derivatives of maps are maps ([`frontend::map`]): the Jacobian, the
//! gradient or the Lagrangian Hessian of a [`Decomposition`] as a
//! [`MapKernel`], each map's body differentiated once and its entries placed
//! per instance, the rest differentiated as any kernel.
//!
//! Placing works a column at a time: an entry whose row and column are the
//! same for every instance (a shared input, a summed output) is placed
//! once, whatever the number of instances; the others once per instance,
//! kept as `base + step·i` where they are affine, a table otherwise. So
//! the cost is the body's entries plus, per instance, only the entries that
//! move; the sparsity pattern comes from the body's pattern and the
//! instances' inputs, never from the written-out program.

use crate::{gradient, jacobian, lagrangian_hessian};
use frontend::map::{Column, Columns, Decomposition, Map, MapKernel, Piece};
use frontend::SparsityPattern;

/// The values of `d`'s kernel as maps: the rest's, each map's results
/// added into their outputs.
pub fn mapped_values(d: &Decomposition) -> MapKernel {
    let m = d.rest.num_outputs();
    let pieces = d
        .maps
        .iter()
        .map(|map| {
            let t = Tables::of(map);
            Piece { body: map.body.clone(), instances: map.instances, gather: t.leaves, places: t.targets }
        })
        .collect();
    MapKernel { rest: d.rest.clone(), rest_places: (0..m).map(index).collect(), pieces, num_outputs: m }
}

/// The Jacobian of `d`'s kernel as maps: output the values, then the
/// nonzeros of the pattern (CSR), as [`crate::Jacobian::kernel`] lays them.
pub fn mapped_jacobian(d: &Decomposition) -> (MapKernel, SparsityPattern) {
    let m = d.rest.num_outputs();
    let rest = jacobian(d.rest.clone());
    let bodies: Vec<_> = d.maps.iter().map(|map| jacobian(map.body.clone())).collect();
    let tables: Vec<_> = d.maps.iter().map(Tables::of).collect();
    let locals: Vec<Vec<(usize, usize)>> = bodies.iter().map(|b| b.pattern().positions().collect()).collect();
    let mut entries = Entries::new(m);
    entries.extend(rest.pattern().positions());
    for ((map, t), local) in d.maps.iter().zip(&tables).zip(&locals) {
        entries.place(map.instances, local, &t.targets, &t.leaves, same);
    }
    let pattern = entries.pattern(d.rest.num_variables());
    let place =
        |(row, col): (usize, usize)| index(m + pattern.find(row, col).expect("an entry of the pattern"));
    let mut rest_places: Vec<u32> = (0..m).map(index).collect();
    rest_places.extend(rest.pattern().positions().map(place));
    let pieces = d
        .maps
        .iter()
        .zip(&bodies)
        .zip(tables.iter().zip(&locals))
        .map(|((map, body), (t, local))| {
            let mut places = t.targets.columns.clone();
            places.extend(placed(map.instances, local, &t.targets, &t.leaves, same, &place));
            Piece {
                body: body.kernel().clone(),
                instances: map.instances,
                gather: t.leaves.clone(),
                places: Columns { columns: places },
            }
        })
        .collect();
    let num_outputs = m + pattern.nnz();
    (MapKernel { rest: rest.into_kernel(), rest_places, pieces, num_outputs }, pattern)
}

/// The values and the gradient of the sum of the outputs of `d`'s kernel
/// as maps, as [`crate::gradient`] lays them: each body's gradient (of the
/// sum of its results) added at its inputs, a shared input's entries summed
/// over the instances.
pub fn mapped_gradient(d: &Decomposition) -> MapKernel {
    let (m, n) = (d.rest.num_outputs(), d.rest.num_variables());
    let pieces = d
        .maps
        .iter()
        .map(|map| {
            let t = Tables::of(map);
            let mut places = t.targets.columns.clone();
            let variables = &t.leaves.columns[..map.body.num_variables()];
            places.extend(variables.iter().map(|c| shifted(c, m)));
            Piece {
                body: gradient(map.body.clone()),
                instances: map.instances,
                gather: t.leaves,
                places: Columns { columns: places },
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
    let (n, q) = (d.rest.num_variables(), d.rest.num_inputs() - d.rest.num_variables());
    let rest = lagrangian_hessian(d.rest.clone());
    let bodies: Vec<_> = d.maps.iter().map(|map| lagrangian_hessian(map.body.clone())).collect();
    let tables: Vec<_> = d.maps.iter().map(Tables::of).collect();
    let locals: Vec<Vec<(usize, usize)>> =
        bodies.iter().map(|b| b.lower_pattern().positions().collect()).collect();
    let mut entries = Entries::new(n);
    entries.extend(rest.lower_pattern().positions());
    for ((map, t), local) in d.maps.iter().zip(&tables).zip(&locals) {
        entries.place(map.instances, local, &t.leaves, &t.leaves, lower);
    }
    let pattern = entries.pattern(n);
    let place = |(row, col): (usize, usize)| index(pattern.find(row, col).expect("an entry of the pattern"));
    let rest_places = rest.lower_pattern().positions().map(place).collect();
    let pieces = d
        .maps
        .iter()
        .zip(&bodies)
        .zip(tables.iter().zip(&locals))
        .map(|((map, body), (t, local))| {
            // The body's inputs, then its weights: the weights of its targets.
            let mut gather = t.leaves.columns.clone();
            gather.extend(t.targets.columns.iter().map(|c| shifted(c, n + q)));
            let places = placed(map.instances, local, &t.leaves, &t.leaves, lower, &place);
            Piece {
                body: body.lower_kernel(),
                instances: map.instances,
                gather: Columns { columns: gather },
                places: Columns { columns: places },
            }
        })
        .collect();
    let num_outputs = pattern.nnz();
    (MapKernel { rest: rest.lower_kernel(), rest_places, pieces, num_outputs }, pattern)
}

/// A map's leaves and targets as columns.
struct Tables {
    leaves: Columns,
    targets: Columns,
}

impl Tables {
    fn of(map: &Map) -> Tables {
        Tables {
            leaves: Columns::new(&map.leaves, map.body.num_inputs()),
            targets: Columns::new(&map.targets, map.body.num_outputs()),
        }
    }
}

/// A position as it is: (row, column).
fn same(row: usize, col: usize) -> (usize, usize) {
    (row, col)
}

/// A position of a symmetric matrix in its lower triangle.
fn lower(a: usize, b: usize) -> (usize, usize) {
    (a.max(b), a.min(b))
}

/// `column` with `by` added to every entry.
fn shifted(column: &Column, by: usize) -> Column {
    match column {
        Column::Affine { base, step } => Column::Affine { base: index(*base as usize + by), step: *step },
        Column::Table(t) => Column::Table(t.iter().map(|&v| index(v as usize + by)).collect()),
    }
}

/// Where each local entry `(r, c)` of each instance lands: `place` of
/// `order(row(i, r), col(i, c))`, one column per entry; an entry whose row
/// and column are the same for every instance is placed once.
fn placed(
    instances: usize,
    local: &[(usize, usize)],
    rows: &Columns,
    cols: &Columns,
    order: fn(usize, usize) -> (usize, usize),
    place: &dyn Fn((usize, usize)) -> u32,
) -> Vec<Column> {
    local
        .iter()
        .map(|&(r, c)| match (rows.columns[r].constant(), cols.columns[c].constant()) {
            (Some(row), Some(col)) => {
                Column::Affine { base: place(order(row as usize, col as usize)), step: 0 }
            }
            _ => Column::of((0..instances).map(|i| place(order(rows.get(i, r), cols.get(i, c)))).collect()),
        })
        .collect()
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

    /// The positions of a map's local entries, as [`placed`] puts them:
    /// an entry the same for every instance once.
    fn place(
        &mut self,
        instances: usize,
        local: &[(usize, usize)],
        rows: &Columns,
        cols: &Columns,
        order: fn(usize, usize) -> (usize, usize),
    ) {
        for &(r, c) in local {
            match (rows.columns[r].constant(), cols.columns[c].constant()) {
                (Some(row), Some(col)) => self.extend(std::iter::once(order(row as usize, col as usize))),
                _ => self.extend((0..instances).map(|i| order(rows.get(i, r), cols.get(i, c)))),
            }
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
