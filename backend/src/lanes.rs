//! Lowers one chunk of a kernel to a Cranelift function evaluating two
//! points at once, one per lane of `f64x2`:
//! `fn(x0, x1: *const f64, out0, out1: *mut f64, scratch: *mut f64)`.
//!
//! Each lane computes what the single-point kernel ([`crate::lower`])
//! computes, bit for bit: arithmetic, square roots, `min`/`max` and
//! comparisons are vector instructions with the same rounding; inline
//! integer powers run the same double-double steps lane-wise (a lane out of
//! their range takes `pow`, as the scalar cold branch does); everything the
//! single-point kernel calls is called once per lane, `sincos` included.

use crate::lower::{float_cc, LowerInput, ValueCache, VECTOR_LOAD, VECTOR_STORE};
use crate::power::{self, inline_power, Compensated, Inline};
use crate::sincos;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, Constant, ConstantData, Endianness, FuncRef, Function, Immediate, InstBuilder,
    MemFlagsData, Signature, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::Module;
use frontend::{ExprDag, NodeId, Op};
use std::collections::HashMap;

/// Inputs and outputs are distinct, always valid, 8-byte aligned.
const SCALAR: MemFlagsData = MemFlagsData::trusted();
const SCALAR_LOAD: MemFlagsData = MemFlagsData::trusted().with_readonly().with_can_move();

/// The signature of every two-point chunk: `(x0, x1, out0, out1, scratch)`,
/// all pointers; the scratch holds two values per slot, point 0's first.
pub(crate) fn lanes_signature<M: Module>(module: &M) -> Signature {
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(ptr); 5]);
    sig
}

/// Lowers chunk `chunk` into `func`, whose signature is [`lanes_signature`].
pub(crate) fn lower_lanes_chunk<M: Module>(
    module: &mut M,
    func: &mut Function,
    fctx: &mut FunctionBuilderContext,
    input: &LowerInput<'_>,
    cache: &mut ValueCache,
    chunk: usize,
) {
    let mut b = FunctionBuilder::new(func, fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    let lane_masks =
        [LOW_LANES, HIGH_LANES].map(|mask| b.func.dfg.immediates.push(ConstantData::from(mask.as_slice())));
    let mut lowering = LanesLowering {
        b,
        module,
        input,
        imported: [None; Op::ALL.len()],
        sincos: None,
        cache,
        chunk,
        x: [params[0], params[1]],
        out: [params[2], params[3]],
        scratch: params[4],
        partner: partners(input.plan.stores(chunk)),
        waiting: HashMap::new(),
        position: 0,
        constants: HashMap::new(),
        lane_masks,
    };
    lowering.run();
    lowering.b.ins().return_(&[]);
    lowering.b.seal_all_blocks();
    let config = lowering.module.target_config();
    lowering.b.finalize(config);
}

/// The state of lowering one two-point chunk.
struct LanesLowering<'f, 'c, M: Module> {
    b: FunctionBuilder<'f>,
    module: &'c mut M,
    input: &'c LowerInput<'c>,
    imported: [Option<FuncRef>; Op::ALL.len()],
    /// `sincos` and the 32 bytes its two calls write to.
    sincos: Option<(FuncRef, StackSlot)>,
    cache: &'c mut ValueCache,
    chunk: usize,
    x: [Value; 2],
    out: [Value; 2],
    scratch: Value,
    /// Output indices stored two at a time, each to its partner: `k` and `k + 1`.
    partner: HashMap<usize, usize>,
    /// Outputs waiting for their partner's value: the node, by index.
    waiting: HashMap<usize, NodeId>,
    /// The position in the chunk of the operation being lowered.
    position: usize,
    /// Each constant's vector and the position of its latest use.
    constants: HashMap<NodeId, (Value, usize)>,
    /// The shuffle masks of [`LOW_LANES`] and [`HIGH_LANES`], one immediate
    /// each: shuffles of the same vectors are then the same instruction,
    /// which Cranelift merges (an output pair stored at several places).
    lane_masks: [Immediate; 2],
}

impl<M: Module> LanesLowering<'_, '_, M> {
    fn run(&mut self) {
        let plan = self.input.plan;
        let stores = plan.stores(self.chunk);
        let chunk = self.chunk;
        for &(id, k) in stores.iter().take_while(|(id, _)| plan.chunk_of(*id) != Some(chunk)) {
            self.store_output(k, id);
        }
        for (position, &id) in plan.ops(self.chunk).iter().enumerate() {
            self.position = position;
            let v = match self.cached(id) {
                Some(v) => v,
                None => self.lower(id),
            };
            self.cache.entries[id.index()] = Some((self.chunk as u32, v));
            if let Some(slot) = plan.slot(id) {
                let (addr, offset) = address(&mut self.b, self.scratch, 2 * slot);
                self.b.ins().store(VECTOR_STORE, v, addr, offset);
            }
            for &(_, k) in plan.stores_of(self.chunk, id) {
                self.store_output(k, id);
            }
        }
        debug_assert!(self.waiting.is_empty(), "every output of chunk {} is stored", self.chunk);
    }

    /// Stores node `id` (computed in this chunk, or a leaf) as output `k`
    /// of both points: with its partner's node if that is known, later if
    /// it is not, else lane by lane.
    fn store_output(&mut self, k: usize, id: NodeId) {
        let Some(&j) = self.partner.get(&k) else {
            let v = self.operand(id);
            return self.store_lanes(k, v);
        };
        match self.waiting.remove(&j) {
            Some(other) if j < k => self.store_adjacent(j, [other, id]),
            Some(other) => self.store_adjacent(k, [id, other]),
            None => {
                self.waiting.insert(k, id);
            }
        }
    }

    /// Lane `p` of `v` into `out_p[k]`.
    fn store_lanes(&mut self, k: usize, v: Value) {
        for lane in 0..2 {
            let s = self.b.ins().extractlane(v, lane as u8);
            let (addr, offset) = address(&mut self.b, self.out[lane], k);
            self.b.ins().store(SCALAR, s, addr, offset);
        }
    }

    /// Outputs `k` and `k + 1`, nodes `ids`, of both points: lane `p` of
    /// each, side by side (`unpcklpd`, `unpckhpd`), in one store to
    /// `out_p[k]`; two constants are one constant vector, the same for both.
    fn store_adjacent(&mut self, k: usize, ids: [NodeId; 2]) {
        let rows = match ids.map(|id| self.input.dag.as_const(id)) {
            [Some(a), Some(b)] => {
                let both = self.b.func.dfg.constants.insert(vector_bytes([a, b]));
                let both = self.b.ins().vconst(types::F64X2, both);
                [both, both]
            }
            _ => {
                let [v, w] = ids.map(|id| self.operand(id));
                [0, 1].map(|lane| self.side_by_side(lane, v, w))
            }
        };
        for (lane, row) in rows.into_iter().enumerate() {
            let (addr, offset) = address(&mut self.b, self.out[lane], k);
            self.b.ins().store(VECTOR_STORE, row, addr, offset);
        }
    }

    /// Lane `lane` of `v` and of `w`, in lanes 0 and 1.
    fn side_by_side(&mut self, lane: usize, v: Value, w: Value) -> Value {
        let bytes = MemFlagsData::new().with_endianness(Endianness::Little);
        let (v_bytes, w_bytes) =
            (self.b.ins().bitcast(types::I8X16, bytes, v), self.b.ins().bitcast(types::I8X16, bytes, w));
        let both = self.b.ins().shuffle(v_bytes, w_bytes, self.lane_masks[lane]);
        self.b.ins().bitcast(types::F64X2, bytes, both)
    }

    fn cached(&self, id: NodeId) -> Option<Value> {
        match self.cache.entries[id.index()] {
            Some((stamp, v)) if stamp == self.chunk as u32 => Some(v),
            _ => None,
        }
    }

    /// An argument: computed in this chunk, a leaf, or an earlier chunk's scratch slot.
    fn operand(&mut self, id: NodeId) -> Value {
        if let Some(c) = self.input.dag.as_const(id) {
            return self.constant(id, c);
        }
        if let Some(v) = self.cached(id) {
            return v;
        }
        let v = if self.input.dag.op(id).is_leaf() {
            self.lower(id)
        } else {
            let slot = self.input.plan.slot(id).expect("a value from an earlier chunk has a scratch slot");
            let (addr, offset) = address(&mut self.b, self.scratch, 2 * slot);
            self.b.ins().load(types::F64X2, VECTOR_LOAD, addr, offset)
        };
        self.cache.entries[id.index()] = Some((self.chunk as u32, v));
        v
    }

    /// Constant node `id`, `c` in both lanes: the vector of its latest use
    /// if that was at most [`CONSTANT_REACH`] operations ago, else a
    /// vector constant of its own (not merged with its equals), which
    /// Cranelift loads next to its first use. A constant shared by uses far
    /// apart would live in a register from the first to the last, or be
    /// spilled where registers run short: a store and a reload instead of a load.
    fn constant(&mut self, id: NodeId, c: f64) -> Value {
        let v = match self.constants.get(&id) {
            Some(&(v, latest)) if self.position - latest <= CONSTANT_REACH => v,
            _ => {
                let pool = &mut self.b.func.dfg.constants;
                let handle = Constant::from_u32(pool.len() as u32);
                pool.set(handle, vector_bytes([c, c]));
                self.b.ins().vconst(types::F64X2, handle)
            }
        };
        self.constants.insert(id, (v, self.position));
        v
    }

    fn splat(&mut self, c: f64) -> Value {
        splat(&mut self.b, c)
    }

    /// The vector of scalars `lo` and `hi`: a splat and an insertion are
    /// two instructions (`movddup`, `movlhps`), loads folded into them,
    /// where `scalar_to_vector` first zeroes a register.
    fn join(&mut self, lo: Value, hi: Value) -> Value {
        let v = self.b.ins().splat(types::F64X2, lo);
        self.b.ins().insertlane(v, hi, 1)
    }

    /// `v`'s two lanes.
    fn split(&mut self, v: Value) -> [Value; 2] {
        [self.b.ins().extractlane(v, 0), self.b.ins().extractlane(v, 1)]
    }

    /// A lane mask (all ones where true) as an `f64x2`, for `bitselect`.
    fn compare(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        let mask = self.b.ins().fcmp(cc, a, b);
        self.b.ins().bitcast(types::F64X2, MemFlagsData::new(), mask)
    }

    /// The imported function of `op`, declared in this function on first use.
    fn import(&mut self, op: Op) -> FuncRef {
        let i = op.index().expect("a leaf is never called");
        match self.imported[i] {
            Some(r) => r,
            None => {
                let declared = self.input.libm[i].unwrap_or_else(|| panic!("the table imports {op:?}"));
                let r = self.module.declare_func_in_func(declared, &mut *self.b.func);
                self.imported[i] = Some(r);
                r
            }
        }
    }

    /// `op` called once per lane.
    fn call(&mut self, op: Op, args: &[Value]) -> Value {
        let f = self.import(op);
        let lanes: Vec<[Value; 2]> = args.iter().map(|&a| self.split(a)).collect();
        let mut results = [self.scratch; 2];
        for (lane, result) in results.iter_mut().enumerate() {
            let scalars: Vec<Value> = lanes.iter().map(|l| l[lane]).collect();
            let call = self.b.ins().call(f, &scalars);
            *result = self.b.inst_results(call)[0];
        }
        self.join(results[0], results[1])
    }

    /// `f(x)` applied to each lane, for instructions kept scalar.
    fn per_lane(&mut self, a: Value, f: impl Fn(&mut FunctionBuilder<'_>, Value) -> Value) -> Value {
        let [lo, hi] = self.split(a);
        let (lo, hi) = (f(&mut self.b, lo), f(&mut self.b, hi));
        self.join(lo, hi)
    }

    fn lower(&mut self, id: NodeId) -> Value {
        let dag: &ExprDag = self.input.dag;
        let mut args = [self.scratch; 4];
        for (slot, &a) in args.iter_mut().zip(dag.args(id)) {
            *slot = self.operand(a);
        }
        let [a, b, x, y] = args;
        match dag.op(id) {
            Op::Const(c) => self.constant(id, c.get()),
            Op::Input(k) => self.input_lanes(k as usize),
            // The sign bits flipped, as `fneg`, by a constant mask that one
            // register holds: `fneg` builds its mask anew each time (3 instructions).
            Op::Neg => {
                let sign = self.splat(-0.0);
                self.b.ins().bxor(a, sign)
            }
            Op::Add => self.b.ins().fadd(a, b),
            Op::Sub => self.b.ins().fsub(a, b),
            Op::Mul => self.b.ins().fmul(a, b),
            Op::Div => self.b.ins().fdiv(a, b),
            Op::Pow => match inline_power(dag, dag.args(id)[1]) {
                Some(k) => self.power(a, b, k),
                None => self.call(Op::Pow, &[a, b]),
            },
            op @ (Op::Sin | Op::Cos) => self.sin_or_cos(id, op, a),
            Op::Sqrt => self.b.ins().sqrt(a),
            Op::Abs => self.b.ins().fabs(a),
            Op::Sign => {
                let zero = self.splat(0.0);
                let one = self.splat(1.0);
                let minus_one = self.splat(-1.0);
                let positive = self.compare(FloatCC::GreaterThan, a, zero);
                let negative = self.compare(FloatCC::LessThan, a, zero);
                let rest = self.b.ins().bitselect(negative, minus_one, a);
                self.b.ins().bitselect(positive, one, rest)
            }
            // Scalar: the vector rounding instructions need SSE4.1, which the scalar ones can do without.
            Op::Floor => self.per_lane(a, |b, v| b.ins().floor(v)),
            Op::Ceil => self.per_lane(a, |b, v| b.ins().ceil(v)),
            Op::Min => self.b.ins().fmin(a, b),
            Op::Max => self.b.ins().fmax(a, b),
            Op::Select(cmp) => {
                let mask = self.compare(float_cc(cmp), a, b);
                self.b.ins().bitselect(mask, x, y)
            }
            // No instruction: a call of the reference the table imports (its
            // `call` rows, `Op::libm_symbol`).
            op if op.libm_symbol().is_some() => self.call(op, &args[..op.arity()]),
            op => unreachable!("{op:?} is a native row of the table, lowered above"),
        }
    }

    /// Input `k` of both points. Inputs come two at a time, `x_p[i]` and
    /// `x_p[i + 1]` in one 16-byte load per point, and lane 0 or 1 of both
    /// loads side by side (`unpcklpd`, `unpckhpd`): the partner input's
    /// loads are the same pure loads, which Cranelift merges.
    fn input_lanes(&mut self, k: usize) -> Value {
        let (part, index) = self.input.parts.locate(k);
        debug_assert_eq!(part, 0, "two-point kernels take one input array");
        let len = self.input.parts.lengths()[0];
        if len < 2 {
            let lanes = self.x.map(|x| {
                let (addr, offset) = address(&mut self.b, x, index);
                self.b.ins().load(types::F64, SCALAR_LOAD, addr, offset)
            });
            return self.join(lanes[0], lanes[1]);
        }
        let first = (index & !1).min(len - 2);
        let [lo, hi] = self.x.map(|x| {
            let (addr, offset) = address(&mut self.b, x, first);
            self.b.ins().load(types::F64X2, VECTOR_LOAD, addr, offset)
        });
        self.side_by_side(index - first, lo, hi)
    }

    /// `f(a)` for sine or cosine; with the other of the two in this chunk,
    /// one `sincos` call per lane computes both (cached for the partner).
    fn sin_or_cos(&mut self, id: NodeId, f: Op, a: Value) -> Value {
        let plan = self.input.plan;
        let partner = sincos::partner(self.input.dag, id).filter(|&p| plan.chunk_of(p) == Some(self.chunk));
        let (Some(partner), Some(declared)) = (partner, self.input.sincos) else {
            return self.call(f, &[a]);
        };
        let (func_ref, slot) = match self.sincos {
            Some(imported) => imported,
            None => {
                let func_ref = self.module.declare_func_in_func(declared, &mut *self.b.func);
                let slot =
                    self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 32, 4));
                *self.sincos.insert((func_ref, slot))
            }
        };
        let ptr = self.module.target_config().pointer_type();
        // Sines at bytes 0..16, cosines at 16..32, lane by lane.
        let lanes = self.split(a);
        for (lane, &arg) in lanes.iter().enumerate() {
            let sin_addr = self.b.ins().stack_addr(ptr, slot, 8 * lane as i32);
            let cos_addr = self.b.ins().stack_addr(ptr, slot, 16 + 8 * lane as i32);
            self.b.ins().call(func_ref, &[arg, sin_addr, cos_addr]);
        }
        let sin = self.b.ins().stack_load(ptr, types::F64X2, slot, 0);
        let cos = self.b.ins().stack_load(ptr, types::F64X2, slot, 16);
        let (value, other) = if f == Op::Sin { (sin, cos) } else { (cos, sin) };
        self.cache.entries[partner.index()] = Some((self.chunk as u32, other));
        value
    }

    /// `a^k` for the constant integer exponent `k` (the node `b`), as
    /// [`crate::lower`] computes it, lane by lane.
    fn power(&mut self, a: Value, b: Value, k: i32) -> Value {
        match power::inline(&mut self.b, a, k, splat) {
            Inline::Done(value) => value,
            Inline::Compensated(power) => self.checked_power(a, b, power),
        }
    }

    /// The compensated `a^b` in both lanes; if either lane leaves the range
    /// where it holds, a cold block calls `pow` for both and each lane out
    /// of range takes `pow`'s value.
    fn checked_power(&mut self, a: Value, b: Value, power: Compensated) -> Value {
        let Compensated { value: fast, in_range } = power;
        let both = self.b.ins().vall_true(in_range);
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let result = self.b.append_block_param(join, types::F64X2);
        self.b.set_cold_block(slow);
        self.b.ins().brif(both, join, &[BlockArg::Value(fast)], slow, &[]);
        self.b.switch_to_block(slow);
        let exact = self.call(Op::Pow, &[a, b]);
        let mask = self.b.ins().bitcast(types::F64X2, MemFlagsData::new(), in_range);
        let mixed = self.b.ins().bitselect(mask, fast, exact);
        self.b.ins().jump(join, &[BlockArg::Value(mixed)]);
        self.b.switch_to_block(join);
        result
    }
}

/// The `f64x2` constant with `c` in both lanes.
fn splat(b: &mut FunctionBuilder<'_>, c: f64) -> Value {
    let s = b.ins().f64const(c);
    b.ins().splat(types::F64X2, s)
}

/// How many operations apart two uses of a constant share its register.
const CONSTANT_REACH: usize = 8;

/// The bytes of lane 0 of two vectors, side by side (a shuffle of 32 bytes).
const LOW_LANES: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23];
/// The bytes of lane 1 of two vectors, side by side.
const HIGH_LANES: [u8; 16] = [8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31];

/// The bytes of the `f64x2` constant with `lanes`.
fn vector_bytes(lanes: [f64; 2]) -> ConstantData {
    ConstantData::from(lanes.iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<u8>>())
}

/// Output indices `k` and `k + 1` both in `stores` (a chunk's), paired in
/// increasing order, each mapped to the other.
fn partners(stores: &[(NodeId, usize)]) -> HashMap<usize, usize> {
    let mut indices: Vec<usize> = stores.iter().map(|&(_, k)| k).collect();
    indices.sort_unstable();
    let mut partner = HashMap::new();
    let mut rest = &indices[..];
    while let [k, more @ ..] = rest {
        rest = more;
        if let [next, more @ ..] = rest {
            if *next == k + 1 {
                partner.insert(*k, *next);
                partner.insert(*next, *k);
                rest = more;
            }
        }
    }
    partner
}

/// `base[index]` as an address and a 32-bit offset.
fn address(b: &mut FunctionBuilder<'_>, base: Value, index: usize) -> (Value, i32) {
    let bytes = index.checked_mul(8).expect("an f64 index times 8 fits in usize");
    match i32::try_from(bytes) {
        Ok(offset) => (base, offset),
        Err(_) => {
            let bytes = i64::try_from(bytes).expect("an offset fits in i64");
            (b.ins().iadd_imm_s(base, bytes), 0)
        }
    }
}
