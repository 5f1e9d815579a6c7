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
//!
//! A value computed once and read by many instances
//! ([`Decomposition::computed`]) is an input of the bodies: their
//! derivatives with respect to it are added into one slot per value
//! (per row, for a Jacobian), summed over the instances, and chained
//! through the value once, at the end: the transpose of a broadcast is a
//! sum.

use crate::{gradient, jacobian, lagrangian_hessian};
use frontend::map::{Column, Columns, Decomposition, Map, MapKernel, Piece, Post};
use frontend::{ExprDag, Kernel, Node, NodeId, Op, SparsityPattern};
use std::collections::BTreeMap;
use std::sync::OnceLock;

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
    MapKernel {
        pre: d.computed.clone(),
        constants: d.constants.clone(),
        rest: d.rest.clone(),
        rest_places: (0..m).map(index).collect(),
        pieces,
        scratch: 0,
        post: None,
        num_outputs: m,
    }
}

/// The Jacobian of `d`'s kernel as maps: output the values, then the
/// nonzeros of the pattern (CSR), as [`crate::Jacobian::kernel`] lays them.
/// `None` if an instance's result that a computed value reaches goes into
/// an output that differs between instances (its adjoint is then no sum):
/// build it from maps that copy such values instead.
pub fn mapped_jacobian(d: &Decomposition) -> Option<(MapKernel, SparsityPattern)> {
    let m = d.rest.num_outputs();
    let inputs = d.rest.num_inputs();
    let rest = jacobian(d.rest.clone());
    let bodies: Vec<_> = d.maps.iter().map(|map| jacobian(map.body.clone())).collect();
    let tables: Vec<_> = d.maps.iter().map(Tables::of).collect();
    let locals: Vec<Vec<(usize, usize)>> = bodies.iter().map(|b| b.pattern().positions().collect()).collect();
    // Entries in a computed value's column: a slot per (row, value).
    let mut slots: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut slot_columns: Vec<BTreeMap<usize, Column>> = Vec::new();
    for ((map, t), local) in d.maps.iter().zip(&tables).zip(&locals) {
        let mut columns = BTreeMap::new();
        for (e, &(r, c)) in local.iter().enumerate() {
            if !t.is_computed(c, inputs) {
                continue;
            }
            let row = t.targets.columns[r].constant()?;
            let mut slot = |i: usize| {
                let value = index(t.leaves.get(i, c) - inputs);
                let next = index(slots.len());
                *slots.entry((row, value)).or_insert(next)
            };
            let column = match t.leaves.columns[c].constant() {
                Some(_) => Column::Affine { base: slot(0), step: 0 },
                None => Column::of((0..map.instances).map(slot).collect()),
            };
            columns.insert(e, column);
        }
        slot_columns.push(columns);
    }
    let post = (!slots.is_empty()).then(|| chain_rows(d, &slots));
    let mut entries = Entries::new(m);
    entries.extend(rest.pattern().positions());
    for ((map, t), local) in d.maps.iter().zip(&tables).zip(&locals) {
        let real: Vec<_> = local.iter().copied().filter(|&(_, c)| !t.is_computed(c, inputs)).collect();
        entries.place(map.instances, &real, &t.targets, &t.leaves, same);
    }
    if let Some((_, rows, post)) = &post {
        entries.extend(post.pattern().positions().map(|(r, c)| (rows[r] as usize, c)));
    }
    let pattern = entries.pattern(d.rest.num_variables());
    let place =
        |(row, col): (usize, usize)| index(m + pattern.find(row, col).expect("an entry of the pattern"));
    let num_outputs = m + pattern.nnz();
    let mut rest_places: Vec<u32> = (0..m).map(index).collect();
    rest_places.extend(rest.pattern().positions().map(place));
    let pieces = d
        .maps
        .iter()
        .zip(&bodies)
        .zip(tables.iter().zip(&locals).zip(&slot_columns))
        .map(|((map, body), ((t, local), slotted))| {
            let mut places = t.targets.columns.clone();
            let placed = placed(map.instances, local, &t.targets, &t.leaves, same, &|(row, col)| {
                if col >= inputs {
                    0 // a computed value's column: in a slot, below
                } else {
                    place((row, col))
                }
            });
            places.extend(placed.into_iter().enumerate().map(|(e, column)| match slotted.get(&e) {
                Some(slot) => shifted(slot, num_outputs),
                None => column,
            }));
            Piece {
                body: body.kernel().clone(),
                instances: map.instances,
                gather: t.leaves.clone(),
                places: Columns { columns: places },
            }
        })
        .collect();
    let kernel = MapKernel {
        pre: d.computed.clone(),
        constants: d.constants.clone(),
        rest: rest.into_kernel(),
        rest_places,
        pieces,
        scratch: slots.len(),
        post: post.map(|(kernel, rows, jacobian)| {
            let places = jacobian.pattern().positions().map(|(r, c)| place((rows[r] as usize, c))).collect();
            Post { kernel, places }
        }),
        num_outputs,
    };
    Some((kernel, pattern))
}

/// The chain through the computed values of the Jacobian's slots: a kernel
/// over the input, the computed values and the slots whose output `r` is
/// `Σ slot(row r, value c) · c(x)` for each row with slots, differentiated;
/// returns the kernel of its entries alone, the rows, and its Jacobian.
fn chain_rows(d: &Decomposition, slots: &BTreeMap<(u32, u32), u32>) -> (Kernel, Vec<u32>, crate::Jacobian) {
    let mut by_row: Vec<(u32, u32, u32)> =
        slots.iter().map(|(&(row, value), &slot)| (row, value, slot)).collect();
    by_row.sort_unstable();
    let mut rows: Vec<u32> = by_row.iter().map(|&(row, _, _)| row).collect();
    rows.dedup();
    let sums = weighted_sums(d, slots.len(), &by_row, &rows);
    let jacobian = jacobian(sums);
    let k = jacobian.kernel();
    let entries = Kernel::new(k.dag().clone(), k.roots()[rows.len()..].to_vec(), k.num_inputs())
        .expect("the same inputs")
        .with_variables(k.num_variables());
    (entries, rows, jacobian)
}

/// Over the input, `computed`'s values (unread) and `slots` weights: for
/// each row of `rows`, `Σ weight(slot) · value` over its `(row, value,
/// slot)` in `by_row` (sorted by row), each value recomputed from the input.
fn weighted_sums(d: &Decomposition, slots: usize, by_row: &[(u32, u32, u32)], rows: &[u32]) -> Kernel {
    let computed = d.computed.as_ref().expect("slots come from computed values");
    let inputs = d.rest.num_inputs();
    let mut dag = ExprDag::new();
    let values = dag.import(computed.dag(), computed.roots(), None);
    let weight = |dag: &mut ExprDag, slot: u32| dag.input(inputs + values.len() + slot as usize);
    let mut sums: Vec<NodeId> = Vec::with_capacity(rows.len());
    let mut last = None;
    for &(row, value, slot) in by_row {
        let w = weight(&mut dag, slot);
        let term = dag.intern(Node::new(Op::Mul, &[w, values[value as usize]]));
        if last == Some(row) {
            let sum = sums.pop().expect("a sum for the row");
            sums.push(dag.intern(Node::new(Op::Add, &[sum, term])));
        } else {
            sums.push(term);
            last = Some(row);
        }
    }
    debug_assert_eq!(sums.len(), rows.len());
    // Every input is an input of the kernel, read or not.
    let num_inputs = inputs + values.len() + slots;
    Kernel::new(dag, sums, num_inputs).expect("inputs in range").with_variables(d.rest.num_variables())
}

/// The values and the gradient of the sum of the outputs of `d`'s kernel
/// as maps, as [`crate::gradient`] lays them: each body's gradient (of the
/// sum of its results) added at its inputs, a shared input's entries summed
/// over the instances, a computed value's into its slot and chained
/// through the value once.
pub fn mapped_gradient(d: &Decomposition) -> MapKernel {
    let (m, n, inputs) = (d.rest.num_outputs(), d.rest.num_variables(), d.rest.num_inputs());
    let pieces = d
        .maps
        .iter()
        .map(|map| {
            let t = Tables::of(map);
            let mut places = t.targets.columns.clone();
            let variables = &t.leaves.columns[..map.body.num_variables()];
            places.extend(variables.iter().enumerate().map(|(j, c)| {
                // A computed value `k - inputs` has its slot at `m + n + (k - inputs)`.
                if t.is_computed(j, inputs) {
                    moved(c, inputs, m + n)
                } else {
                    shifted(c, m)
                }
            }));
            Piece {
                body: body_gradient(&map.body),
                instances: map.instances,
                gather: t.leaves,
                places: Columns { columns: places },
            }
        })
        .collect();
    let post = d.computed.as_ref().map(|computed| {
        let values = computed.num_outputs();
        let by_row: Vec<(u32, u32, u32)> = (0..values).map(|c| (0, index(c), index(c))).collect();
        let sum = weighted_sums(d, values, &by_row, &[0]);
        let g = gradient(sum);
        let kernel = Kernel::new(g.dag().clone(), g.roots()[1..].to_vec(), g.num_inputs())
            .expect("the same inputs")
            .with_variables(n);
        Post { kernel, places: (m..m + n).map(index).collect() }
    });
    MapKernel {
        pre: d.computed.clone(),
        constants: d.constants.clone(),
        rest: gradient(d.rest.clone()),
        rest_places: (0..m + n).map(index).collect(),
        pieces,
        scratch: d.computed.as_ref().map_or(0, Kernel::num_outputs),
        post,
        num_outputs: m + n,
    }
}

/// A body's values and gradient, laid out as [`gradient`] lays them: of a
/// body of one result, from its Jacobian (whose one row is the gradient)
/// where that needs fewer operations than the reverse sweep, as D* or an
/// elimination often does (a mixture's point: 1,671 against 1,896).
fn body_gradient(body: &Kernel) -> Kernel {
    let reverse = gradient(body.clone());
    if body.num_outputs() != 1 {
        return reverse;
    }
    let by_rows = jacobian(body.clone());
    let (pattern, roots) = (by_rows.pattern(), by_rows.kernel().roots());
    let mut dag = by_rows.kernel().dag().clone();
    let zero = dag.constant(0.0);
    let mut dense = vec![roots[0]];
    dense.extend((0..body.num_variables()).map(|c| pattern.find(0, c).map_or(zero, |e| roots[1 + e])));
    let row = body.derived(dag, dense, 0).expect("the Jacobian reads the body's inputs");
    if row.count_ops() < reverse.count_ops() {
        row
    } else {
        reverse
    }
}

/// The lower triangle of the Lagrangian Hessian of `d`'s kernel as maps:
/// input the variables, parameters and one weight per output; output the
/// nonzeros of the lower triangle (CSR), as [`crate::Hessian::lower_kernel`]
/// lays them. Each instance's body is weighted by the weights of the
/// outputs its results are added into.
///
/// Panics if `d` has computed values: the Hessian is built from maps that
/// copy them ([`crate::plan::copied_maps`]).
pub fn mapped_hessian(d: &Decomposition) -> (MapKernel, SparsityPattern) {
    let (kernel, _, lower) = lagrangian_maps(d, false);
    (kernel, lower)
}

/// The values, the gradient `wᵀJ` and the lower triangle of the Lagrangian
/// Hessian of `d`'s kernel as maps, over the same input as
/// [`mapped_hessian`], laid out as [`crate::Hessian::kernel`] lays them
/// ([`crate::Hessian::layout`]): returns the kernel, the gradient's
/// pattern (one row) and the lower triangle's. Each instance's values are
/// added into their outputs, its gradient at its inputs.
///
/// Panics if `d` has computed values, as [`mapped_hessian`].
pub fn mapped_lagrangian(d: &Decomposition) -> (MapKernel, SparsityPattern, SparsityPattern) {
    lagrangian_maps(d, true)
}

/// [`mapped_lagrangian`], or with `whole` false [`mapped_hessian`] (its
/// gradient's pattern unused).
fn lagrangian_maps(d: &Decomposition, whole: bool) -> (MapKernel, SparsityPattern, SparsityPattern) {
    assert!(d.computed.is_none(), "the Hessian's maps copy computed values");
    let (n, q, m) =
        (d.rest.num_variables(), d.rest.num_inputs() - d.rest.num_variables(), d.rest.num_outputs());
    let rest = lagrangian_hessian(d.rest.clone());
    let bodies: Vec<_> = d.maps.iter().map(|map| lagrangian_hessian(map.body.clone())).collect();
    let tables: Vec<_> = d.maps.iter().map(Tables::of).collect();
    let locals: Vec<Vec<(usize, usize)>> =
        bodies.iter().map(|b| b.lower_pattern().positions().collect()).collect();
    let gradients: Vec<Vec<(usize, usize)>> =
        bodies.iter().map(|b| b.gradient_pattern().positions().collect()).collect();
    // The gradient's one row, the same for every instance.
    let row = Columns { columns: vec![Column::Affine { base: 0, step: 0 }] };
    let (mut entries, mut gradient) = (Entries::new(n), Entries::new(1));
    entries.extend(rest.lower_pattern().positions());
    gradient.extend(rest.gradient_pattern().positions());
    for (((map, t), local), g) in d.maps.iter().zip(&tables).zip(&locals).zip(&gradients) {
        entries.place(map.instances, local, &t.leaves, &t.leaves, lower);
        gradient.place(map.instances, g, &row, &t.leaves, same);
    }
    let (pattern, gradient) = (entries.pattern(n), gradient.pattern(n));
    let before = if whole { m + gradient.nnz() } else { 0 };
    let place = |(r, c): (usize, usize)| index(before + pattern.find(r, c).expect("an entry of the pattern"));
    let gradient_place = |(_, c): (usize, usize)| index(m + gradient.find(0, c).expect("a gradient entry"));
    let mut rest_places: Vec<u32> = Vec::new();
    if whole {
        rest_places.extend((0..m).map(index));
        rest_places.extend(rest.gradient_pattern().positions().map(gradient_place));
    }
    rest_places.extend(rest.lower_pattern().positions().map(place));
    let pieces = d
        .maps
        .iter()
        .zip(&bodies)
        .zip(tables.iter().zip(&locals).zip(&gradients))
        .map(|((map, body), ((t, local), g))| {
            // The body's inputs (constants taken out of the bodies past the
            // weights), then its weights: the weights of its targets.
            let mut gather: Vec<Column> = (t.leaves.columns.iter().enumerate())
                .map(|(j, c)| if t.is_computed(j, n + q) { shifted(c, m) } else { c.clone() })
                .collect();
            gather.extend(t.targets.columns.iter().map(|c| shifted(c, n + q)));
            let mut places = Vec::new();
            if whole {
                places.extend(t.targets.columns.iter().cloned());
                places.extend(placed(map.instances, g, &row, &t.leaves, same, &gradient_place));
            }
            places.extend(placed(map.instances, local, &t.leaves, &t.leaves, lower, &place));
            Piece {
                body: if whole { body.kernel().clone() } else { body.lower_kernel() },
                instances: map.instances,
                gather: Columns { columns: gather },
                places: Columns { columns: places },
            }
        })
        .collect();
    let kernel = MapKernel {
        pre: None,
        constants: d.constants.clone(),
        rest: if whole { rest.kernel().clone() } else { rest.lower_kernel() },
        rest_places,
        pieces,
        scratch: 0,
        post: None,
        num_outputs: before + pattern.nnz(),
    };
    (kernel, gradient, pattern)
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

    /// Whether body input `j` reads a computed value or a constant taken
    /// out of the bodies (numbered from the kernel's `inputs` on).
    fn is_computed(&self, j: usize, inputs: usize) -> bool {
        self.leaves.get(0, j) >= inputs
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

/// `column` with `from` taken from every entry and `to` added.
fn moved(column: &Column, from: usize, to: usize) -> Column {
    let at = |v: u32| index(v as usize - from + to);
    match column {
        Column::Affine { base, step } => Column::Affine { base: at(*base), step: *step },
        Column::Table(t) => Column::Table(t.iter().map(|&v| at(v)).collect()),
    }
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

/// A kernel's maps ([`crate::plan::maps`]), searched for on first use and
/// kept: with common values computed once (values, Jacobians, gradients),
/// and with them copied ([`crate::plan::copied_maps`]: Lagrangian
/// Hessians, and Jacobians whose rows a computed value reaches differ per
/// instance). Every request's kernel as maps is built here.
#[derive(Debug, Default)]
pub struct Maps {
    computed: OnceLock<Option<Decomposition>>,
    copied: OnceLock<Option<Decomposition>>,
    /// The operations of the function written out: whether maps pay, and
    /// whether it is worth a search.
    written_out: OnceLock<u64>,
}

impl Maps {
    /// [`frontend::map::written_out`] of `f`, counted on first use.
    pub fn written_out(&self, f: &Kernel) -> u64 {
        *self.written_out.get_or_init(|| frontend::map::written_out(f))
    }

    /// The maps of `f` (always the same kernel), if the plan finds any.
    pub fn found(&self, f: &Kernel) -> Option<&Decomposition> {
        self.computed.get_or_init(|| crate::plan::maps_of(f, self.written_out(f))).as_ref()
    }

    fn copied(&self, f: &Kernel) -> Option<&Decomposition> {
        let search = || match self.computed.get() {
            Some(Some(found)) if crate::plan::copies_nothing(found) => Some(found.clone()),
            _ => crate::plan::copied_maps_of(f, self.written_out(f)),
        };
        self.copied.get_or_init(search).as_ref()
    }

    /// The values as maps ([`mapped_values`]).
    pub fn values(&self, f: &Kernel) -> Option<MapKernel> {
        self.found(f).map(mapped_values)
    }

    /// The Jacobian as maps ([`mapped_jacobian`]).
    pub fn jacobian(&self, f: &Kernel) -> Option<(MapKernel, SparsityPattern)> {
        mapped_jacobian(self.found(f)?).or_else(|| mapped_jacobian(self.copied(f)?))
    }

    /// The gradient as maps ([`mapped_gradient`]).
    pub fn gradient(&self, f: &Kernel) -> Option<MapKernel> {
        self.found(f).map(mapped_gradient)
    }

    /// The Lagrangian Hessian as maps ([`mapped_hessian`]).
    pub fn hessian(&self, f: &Kernel) -> Option<(MapKernel, SparsityPattern)> {
        self.found(f)?;
        self.copied(f).map(mapped_hessian)
    }

    /// The values, the gradient `wᵀJ` and the Lagrangian Hessian as maps
    /// ([`mapped_lagrangian`]), with the gradient's and the lower
    /// triangle's patterns.
    pub fn lagrangian(&self, f: &Kernel) -> Option<(MapKernel, SparsityPattern, SparsityPattern)> {
        self.found(f)?;
        self.copied(f).map(mapped_lagrangian)
    }
}
