//! A map's body compiled with its loop over the instances
//! ([`crate::mapped`]): one function `fn(input, out, sums, tables, start,
//! end)` that, for the instances from `start` to `end`, loads the body's
//! inputs where the gather columns say (a shared one once, before the
//! loop), computes the body and adds each result where the places say, in
//! the interpreter's order ([`MapKernel::eval`](frontend::map::MapKernel::eval)):
//! instance by instance, results in order, one with the same place for
//! every instance to a running sum (`sums[2r]` for the even instances,
//! `sums[2r + 1]` for the odd ones), the others into `out`.
//!
//! The body is lowered by the one-point width ([`crate::scalar`]), one
//! instance a step, or by the two-point width ([`crate::lanes`]), instances
//! `i` and `i + 1` in the lanes of `f64x2` (the last of an odd count then
//! runs in the first function), unless it is mostly library calls
//! ([`LOOP_PAIRS_MAX_CALL_PERCENT`]). Affine columns are addressed from
//! `i`; a tabled column reads its table, whose address is entry `t` of
//! `tables` (the gather's tables in column order, then the places').
//!
//! Called for each instance from Rust, as before, a small body spent more
//! on the call and the gathering than on itself (a 1,000-point fit's
//! Jacobian, 14 operations a point, 1.7x the written-out kernel; a
//! Rosenbrock chain's Hessian 11x); in its loop it runs about as fast as
//! written out.

use crate::compiler::JitCompiler;
use crate::convention::{call_looped, looped_chunk, LoopedArgs, LoopedFn, LoopedParams};
use crate::error::CodegenError;
use crate::lower::{address, LOAD, STORE, VECTOR_STORE};
use crate::module::OwnedModule;
use crate::self_check::{self, SelfCheckFailure};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Block, BlockArg, InstBuilder, Type, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::FuncId;
use frontend::map::{Column, Columns};
use frontend::{Kernel, Op};

/// Where a map's body, compiled with its loop, reads its inputs and adds
/// its results: a column per body input and per body output.
#[derive(Clone, Debug)]
pub(crate) struct MapLoop {
    pub(crate) gather: Columns,
    pub(crate) places: Columns,
}

impl MapLoop {
    /// The tables the loop reads, in the order of its `tables` argument.
    fn tables(&self) -> impl Iterator<Item = &Vec<u32>> {
        self.gather.columns.iter().chain(&self.places.columns).filter_map(|c| match c {
            Column::Table(t) => Some(t),
            Column::Affine { .. } => None,
        })
    }

    /// Per place column: `Some(r)` for the `r`-th of those the same for
    /// every instance (summed), and how many there are.
    fn sum_ranks(&self) -> (Vec<Option<usize>>, usize) {
        ranks(&self.places.columns, |c| c.constant().is_some())
    }
}

/// Per column: `Some(r)` for the `r`-th of those `counted` picks, and how
/// many there are.
fn ranks<'c>(
    columns: impl IntoIterator<Item = &'c Column>,
    counted: impl Fn(&Column) -> bool,
) -> (Vec<Option<usize>>, usize) {
    let mut count = 0;
    let ranks = columns
        .into_iter()
        .map(|c| {
            counted(c).then(|| {
                count += 1;
                count - 1
            })
        })
        .collect();
    (ranks, count)
}

/// The loop around a body being lowered: its parameters and blocks, the
/// shared inputs loaded before it, and the results of the instances.
pub(crate) struct LoopIo {
    params: LoopedParams,
    /// Instances per step: 1, or 2 in the lanes of `f64x2`, instance `i`
    /// in lane 0 and `i + 1` in lane 1 (`i` even).
    lanes: u8,
    header: Block,
    exit: Block,
    /// The instance (of lane 0).
    i: Value,
    /// Per column of the gather, then of the places: its table's address
    /// if it has one.
    tables: Vec<Option<Value>>,
    /// Per body input: its value, loaded before the loop (in every lane),
    /// if it is shared.
    shared: Vec<Option<Value>>,
    /// Per body output: its value at these instances, once computed.
    results: Vec<Option<Value>>,
    columns: MapLoop,
}

impl LoopIo {
    /// Starts the function of `columns` in the entry block `b` is at, with
    /// its `params`, `lanes` instances a step, and moves `b` into the
    /// loop. Two lanes step while a pair of instances is left: the caller
    /// runs the last one of an odd count alone.
    pub(crate) fn open(
        b: &mut FunctionBuilder<'_>,
        params: &[Value],
        columns: &MapLoop,
        lanes: u8,
    ) -> LoopIo {
        let params = LoopedParams::new(params);
        let every = columns.gather.columns.iter().chain(&columns.places.columns);
        let (tables, _) = ranks(every, |c| matches!(c, Column::Table(_)));
        let tables = tables
            .into_iter()
            .map(|t| t.map(|t| b.ins().load(types::I64, LOAD, params.tables, 8 * t as i32)))
            .collect();
        let shared = columns
            .gather
            .columns
            .iter()
            .map(|c| {
                c.constant().map(|k| {
                    let (base, offset) = address(b, params.input, k as usize);
                    let v = b.ins().load(types::F64, LOAD, base, offset);
                    if lanes == 2 {
                        b.ins().splat(types::F64X2, v)
                    } else {
                        v
                    }
                })
            })
            .collect();
        let header = b.create_block();
        let i = b.append_block_param(header, types::I64);
        let exit = b.create_block();
        let last = b.ins().iadd_imm_s(params.start, i64::from(lanes) - 1);
        let any = b.ins().icmp(IntCC::UnsignedLessThan, last, params.end);
        b.ins().brif(any, header, &[BlockArg::Value(params.start)], exit, &[]);
        b.switch_to_block(header);
        let outputs = columns.places.columns.len();
        LoopIo {
            params,
            lanes,
            header,
            exit,
            i,
            tables,
            shared,
            results: vec![None; outputs],
            columns: columns.clone(),
        }
    }

    /// The address of column `column`'s entry (of the gather, or of the
    /// places after them) at instance `i + lane`, in `base`'s array of
    /// `f64`, as a value and an offset.
    fn entry(&self, b: &mut FunctionBuilder<'_>, base: Value, column: usize, lane: u8) -> (Value, i32) {
        let gathered = self.columns.gather.columns.len();
        let c = match column.checked_sub(gathered) {
            None => &self.columns.gather.columns[column],
            Some(p) => &self.columns.places.columns[p],
        };
        match c {
            Column::Affine { base: at, step } => {
                let bytes = step.checked_mul(8).expect("a step in bytes fits in i64");
                let moved = b.ins().imul_imm_s(self.i, bytes);
                let moved = b.ins().iadd(base, moved);
                let at = i64::from(*at) + step * i64::from(lane);
                let at = usize::try_from(at).expect("instance i + 1 of a map has its entry");
                address(b, moved, at)
            }
            Column::Table(_) => {
                let table = self.tables[column].expect("a tabled column has its table");
                let at = b.ins().ishl_imm_s(self.i, 2);
                let at = b.ins().iadd(table, at);
                let k = b.ins().uload32(LOAD, at, 4 * i32::from(lane));
                let bytes = b.ins().ishl_imm_s(k, 3);
                (b.ins().iadd(base, bytes), 0)
            }
        }
    }

    /// Body input `k` at these instances.
    pub(crate) fn input(&self, b: &mut FunctionBuilder<'_>, k: usize) -> Value {
        if let Some(v) = self.shared[k] {
            return v;
        }
        let mut load = |lane: u8| {
            let (at, offset) = self.entry(b, self.params.input, k, lane);
            b.ins().load(types::F64, LOAD, at, offset)
        };
        match self.lanes {
            1 => load(0),
            _ => {
                let (low, high) = (load(0), load(1));
                let v = b.ins().splat(types::F64X2, low);
                b.ins().insertlane(v, high, 1)
            }
        }
    }

    /// `v` is body output `k` at these instances.
    pub(crate) fn result(&mut self, k: usize, v: Value) {
        self.results[k] = Some(v);
    }

    /// Adds the instances' results where they go, instance by instance
    /// and in order, then moves to the next instances or leaves the loop:
    /// `b` is then after it. Sums are `sums[2r]` for the even instances and
    /// `sums[2r + 1]` for the odd ones: two lanes add to both at once.
    pub(crate) fn close(self, b: &mut FunctionBuilder<'_>) {
        let (ranks, _) = self.columns.sum_ranks();
        let gathered = self.columns.gather.columns.len();
        let results: Vec<Value> =
            self.results.iter().map(|v| v.expect("every output of the body is computed")).collect();
        // Not `LOAD`: stores to the same place come before and after. A
        // vector of sums is only 8-byte aligned.
        let add = |b: &mut FunctionBuilder<'_>, ty: Type, (at, offset): (Value, i32), v| {
            let flags = if ty.is_vector() { VECTOR_STORE } else { STORE };
            let old = b.ins().load(ty, flags, at, offset);
            let new = b.ins().fadd(old, v);
            b.ins().store(flags, new, at, offset);
        };
        match self.lanes {
            1 => {
                let parity = b.ins().band_imm_s(self.i, 1);
                let odd = b.ins().ishl_imm_s(parity, 3);
                let sums = b.ins().iadd(self.params.sums, odd);
                for (k, &v) in results.iter().enumerate() {
                    let at = match ranks[k] {
                        Some(r) => address(b, sums, 2 * r),
                        None => self.entry(b, self.params.out, gathered + k, 0),
                    };
                    add(b, types::F64, at, v);
                }
            }
            _ => {
                for (k, &v) in results.iter().enumerate() {
                    if let Some(r) = ranks[k] {
                        let at = address(b, self.params.sums, 2 * r);
                        add(b, types::F64X2, at, v);
                    }
                }
                for lane in 0..2 {
                    for (k, &v) in results.iter().enumerate().filter(|&(k, _)| ranks[k].is_none()) {
                        let at = self.entry(b, self.params.out, gathered + k, lane);
                        let v = b.ins().extractlane(v, lane);
                        add(b, types::F64, at, v);
                    }
                }
            }
        }
        let next = b.ins().iadd_imm_s(self.i, i64::from(self.lanes));
        let last = b.ins().iadd_imm_s(next, i64::from(self.lanes) - 1);
        let more = b.ins().icmp(IntCC::UnsignedLessThan, last, self.params.end);
        b.ins().brif(more, self.header, &[BlockArg::Value(next)], self.exit, &[]);
        b.switch_to_block(self.exit);
    }

    /// A value to stand for the scratch, which a body in its loop has none of.
    pub(crate) fn no_scratch(&self) -> Value {
        self.params.sums
    }
}

/// A map's body compiled with its loop ([`JitCompiler::compile_map_loop`]):
/// two instances a step in the SIMD lanes where the body is large enough
/// to gain, and one a step for the last of an odd count (or every one).
pub(crate) struct LoopedBody {
    /// One instance a step.
    single: LoopedFn,
    /// Two instances a step, from an even instance.
    pairs: Option<LoopedFn>,
    /// The addresses of the tables the loop reads ([`MapLoop::tables`]).
    table_addresses: Vec<u64>,
    /// The tables, kept alive with the code that reads them.
    _tables: Vec<Vec<u32>>,
    sums: usize,
    /// Per sum, in rank order: where it is added once every instance ran.
    summed_places: Vec<usize>,
    /// One past the largest entry the gather reads and the places write.
    reads: usize,
    writes: usize,
    instances: usize,
    // Declared last: dropped after everything that points into their code.
    _code: Vec<OwnedModule>,
}

impl std::fmt::Debug for LoopedBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopedBody")
            .field("instances", &self.instances)
            .field("pairs", &self.pairs.is_some())
            .field("sums", &self.sums)
            .finish()
    }
}

impl LoopedBody {
    /// The loop of `single` (one instance a step) and of `pairs` (two),
    /// each a module and its function.
    fn new(
        single: (OwnedModule, FuncId),
        pairs: Option<(OwnedModule, FuncId)>,
        columns: &MapLoop,
        instances: usize,
    ) -> LoopedBody {
        let mut code = Vec::new();
        let mut finalized = |(mut module, id): (OwnedModule, FuncId)| {
            let function = looped_chunk(&mut module, id);
            code.push(module);
            function
        };
        let single = finalized(single);
        let pairs = pairs.map(&mut finalized);
        let tables: Vec<Vec<u32>> = columns.tables().cloned().collect();
        let table_addresses = tables.iter().map(|t| t.as_ptr() as u64).collect();
        let end =
            |columns: &Columns| columns.columns.iter().map(|c| column_end(c, instances)).max().unwrap_or(0);
        LoopedBody {
            single,
            pairs,
            table_addresses,
            _tables: tables,
            sums: columns.sum_ranks().1,
            summed_places: columns
                .places
                .columns
                .iter()
                .filter_map(|c| c.constant().map(|k| k as usize))
                .collect(),
            reads: end(&columns.gather),
            writes: end(&columns.places),
            instances,
            _code: code,
        }
    }

    /// Whether the loop runs two instances a step.
    pub(crate) fn in_pairs(&self) -> bool {
        self.pairs.is_some()
    }

    /// Runs every instance, adding into `out` (`sums` is room for the
    /// running sums): each sum, the even instances' and the odd ones'
    /// added, goes to its place last, as the interpreter adds it.
    pub(crate) fn run_all(&self, input: &[f64], out: &mut [f64], sums: &mut Vec<f64>) {
        sums.clear();
        sums.resize(2 * self.sums, 0.0);
        self.run(input, out, sums, self.instances);
        for (pair, &k) in sums.chunks_exact(2).zip(&self.summed_places) {
            out[k] += pair[0] + pair[1];
        }
    }

    /// Runs instances `0..end`, two a step where it can: reads the
    /// gathered inputs of `input`, adds the results into `out` and into
    /// `sums` (per sum, the even instances' and the odd ones').
    fn run(&self, input: &[f64], out: &mut [f64], sums: &mut [f64], end: usize) {
        assert!(
            input.len() >= self.reads && out.len() >= self.writes && sums.len() == 2 * self.sums,
            "the map's input, output and sums"
        );
        assert!(end <= self.instances, "the map's instances");
        let paired = if self.pairs.is_some() { end & !1 } else { 0 };
        let steps = [(self.pairs, 0, paired), (Some(self.single), paired, end)];
        for (function, start, end) in steps {
            let Some(function) = function.filter(|_| start < end) else { continue };
            // SAFETY: the loop reads `input` at the gather's entries of
            // instances `start..end`, all below `reads` (checked above),
            // the tables' entries of those instances (each table has one
            // per instance, kept alive with the code), and adds into `out`
            // at the places' entries, below `writes`, and into
            // `sums[..2 * sums]` (checked above); two lanes start at an
            // even instance and stop before `end`. The code lives as long
            // as `self`.
            unsafe {
                call_looped(
                    function,
                    LoopedArgs {
                        input: input.as_ptr(),
                        out: out.as_mut_ptr(),
                        sums: sums.as_mut_ptr(),
                        tables: self.table_addresses.as_ptr(),
                        start,
                        end,
                    },
                )
            }
        }
    }
}

/// One past the largest entry `column` holds over `instances` instances.
fn column_end(column: &Column, instances: usize) -> usize {
    match column {
        Column::Affine { base, step } => {
            let last = i64::from(*base) + step * (instances.max(1) as i64 - 1);
            (i64::from(*base).max(last) + 1) as usize
        }
        Column::Table(t) => t.iter().max().map_or(0, |&k| k as usize + 1),
    }
}

/// A body is compiled with its loop if it fits one function of this many
/// chunks' operations ([`JitCompiler::with_chunk_size`]): 4,000 by
/// default. Against calling a body of up to 4,000 for each instance, two
/// at once (`dstar bench --hessian`, same session): gmm's gradient, 1.3x
/// faster at 1,000 and 10^4 points; cart-pole's Hessian at 10^4 intervals
/// 1.19x; each body compiled twice (one and two instances a step), bundle
/// adjustment's Hessian set up in 115 ms instead of 81.
pub(crate) const LOOP_BODY_CHUNKS: usize = 4;

/// Bodies compiled with their loop check themselves on at most this many
/// instances (two a step, then the last alone): the code is the same for
/// each, and the interpreter's reference costs a hundred times the loop.
const CHECKED_INSTANCES: usize = 9;

/// Bodies run two instances a step in their loop (and the last of an odd
/// count alone), in the lanes of `f64x2`, unless at least this share of
/// their operations (in percent) are calls of the library (`exp`, `sin`,
/// ...), which two lanes make one after the other, with each lane taken out
/// of its vector and put back: a fit's bodies (`a exp(-b t) + c sin(w t)`,
/// 14-22% calls) ran 10% slower in pairs, where cart-pole's (2-6%, `sin`
/// and `cos`) ran 1.3-1.4x faster, a minimal surface's (none) 1.3-1.8x,
/// bundle adjustment's Jacobian (1%) 1.6x and gmm's function 1.4x.
const LOOP_PAIRS_MAX_CALL_PERCENT: usize = 10;

/// Whether `body` runs two instances a step in its loop
/// ([`LOOP_PAIRS_MAX_CALL_PERCENT`]).
fn loops_in_pairs(body: &Kernel) -> bool {
    let dag = body.dag();
    let reach = dag.reachable(body.roots());
    let (mut ops, mut calls) = (0, 0);
    for id in dag.ids().filter(|id| reach[id.index()] && !dag.op(*id).is_leaf()) {
        let op = dag.op(id);
        ops += 1;
        calls += usize::from(op.native().is_none() && !matches!(op, Op::Pow | Op::Select(_)));
    }
    calls * 100 < LOOP_PAIRS_MAX_CALL_PERCENT * ops.max(1)
}

impl JitCompiler {
    /// `body` (a map's, of `instances` instances) compiled with its loop,
    /// if it fits one function ([`LOOP_BODY_CHUNKS`]) and has no calls;
    /// `None` otherwise (the body then runs an instance at a time).
    ///
    /// # Errors
    /// Cranelift's own failures; [`CodegenError::SelfCheck`] if the loop
    /// disagrees with the interpreter on the first instances.
    pub(crate) fn compile_map_loop(
        &self,
        body: &Kernel,
        columns: &MapLoop,
        instances: usize,
    ) -> Result<Option<LoopedBody>, CodegenError> {
        // Side by side: each is one function, which Cranelift compiles on
        // one thread (gmm 10^4's gradient body, 3,000 operations: 43-56 ms
        // one after the other).
        let paired = instances >= 2 && loops_in_pairs(body);
        let (single, pairs) = rayon::join(
            || self.build_looped(body, columns, 1),
            || if paired { self.build_looped(body, columns, 2) } else { Ok(None) },
        );
        let Some(single) = single? else { return Ok(None) };
        let pairs = pairs?;
        let looped = LoopedBody::new(single, pairs, columns, instances);
        if self.self_check() {
            check(body, columns, &looped)?;
        }
        Ok(Some(looped))
    }
}

/// Checks `looped` against the interpreter on its first instances (at
/// most [`CHECKED_INSTANCES`]), at the check point: every value of the
/// output and of the sums, as [`MapKernel::eval`](frontend::map::MapKernel::eval) adds them.
fn check(body: &Kernel, columns: &MapLoop, looped: &LoopedBody) -> Result<(), SelfCheckFailure> {
    let input = self_check::check_point(looped.reads);
    let end = looped.instances.min(CHECKED_INSTANCES);
    let (mut out, mut sums) = (vec![0.0; looped.writes], vec![0.0; 2 * looped.sums]);
    looped.run(&input, &mut out, &mut sums, end);
    let (mut want_out, mut want_sums) = (vec![0.0; looped.writes], vec![0.0; 2 * looped.sums]);
    let (ranks, _) = columns.sum_ranks();
    for i in 0..end {
        let gathered: Vec<f64> = (0..body.num_inputs()).map(|j| input[columns.gather.get(i, j)]).collect();
        for (j, value) in body.eval(&gathered).into_iter().enumerate() {
            match ranks[j] {
                Some(r) => want_sums[2 * r + i % 2] += value,
                None => want_out[columns.places.get(i, j)] += value,
            }
        }
    }
    out.extend_from_slice(&sums);
    want_out.extend_from_slice(&want_sums);
    self_check::same(&out, &want_out, 1, true)
}
