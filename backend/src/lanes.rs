//! The two-point width of the lowering ([`crate::lower`]): a chunk is
//! `fn(x0, x1: *const f64, out0, out1: *mut f64, scratch: *mut f64, ...)`,
//! evaluating two points at once, one per lane of `f64x2`; `x0` and `x1`
//! are the points' first input arrays, and the other parts of each follow
//! the scratch ([`crate::convention`]).
//!
//! Each lane computes what the one-point kernel computes, bit for bit:
//! arithmetic, square roots, `min`/`max` and comparisons are vector
//! instructions with the same rounding; inline integer powers run the same
//! double-double steps lane-wise (a lane out of their range takes `pow`, as
//! the scalar cold branch does); everything the one-point kernel calls is
//! called once per lane, `sincos` included.

use crate::convention::{TwoPointsParams, MAX_PARTS};
use crate::looped::LoopIo;
#[cfg(doc)]
use crate::lower::MapPairs;
use crate::lower::{address, LowerInput, Lowering, Width, VECTOR_LOAD, VECTOR_STORE};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, Constant, ConstantData, Endianness, Immediate, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module;
use frontend::NodeId;
use std::collections::HashMap;

/// Inputs and outputs are distinct, always valid, 8-byte aligned.
const SCALAR: MemFlagsData = MemFlagsData::trusted();
const SCALAR_LOAD: MemFlagsData = MemFlagsData::trusted().with_readonly().with_can_move();
/// Running sums in the output, read and written (8-byte aligned).
const SUMS: MemFlagsData = MemFlagsData::new().with_notrap();

/// Two points per call: each output pair's partner, and the constants.
pub(crate) struct Lanes {
    /// Each point's input parts.
    x: [[Value; MAX_PARTS]; 2],
    out: [Value; 2],
    /// Output indices stored two at a time, each to its partner: `k` and `k + 1`.
    partner: HashMap<usize, usize>,
    /// Outputs waiting for their partner's value: the node, by index.
    waiting: HashMap<usize, NodeId>,
    /// Each constant's vector and the position of its latest use.
    constants: HashMap<NodeId, (Value, usize)>,
    /// The shuffle masks of [`LOW_LANES`] and [`HIGH_LANES`], one immediate
    /// each: shuffles of the same vectors are then the same instruction,
    /// which Cranelift merges (an output pair stored at several places).
    lane_masks: [Immediate; 2],
    /// The loop around a map's body, for one compiled with it: two
    /// instances a step ([`crate::looped`]).
    looped: Option<LoopIo>,
}

impl Width for Lanes {
    const TYPE: Type = types::F64X2;
    const LANES: u8 = 2;

    fn new(
        b: &mut FunctionBuilder<'_>,
        params: &[Value],
        input: &LowerInput<'_>,
        chunk: usize,
    ) -> (Lanes, Value) {
        let lane_masks = [LOW_LANES, HIGH_LANES]
            .map(|mask| b.func.dfg.immediates.push(ConstantData::from(mask.as_slice())));
        if let Some(columns) = input.looped {
            // Its outputs are added where the loop says.
            let looped = LoopIo::open(b, params, columns, 2);
            let scratch = looped.no_scratch();
            let lanes = Lanes {
                x: [[scratch; MAX_PARTS]; 2],
                out: [scratch; 2],
                partner: HashMap::new(),
                waiting: HashMap::new(),
                constants: HashMap::new(),
                lane_masks,
                looped: Some(looped),
            };
            return (lanes, scratch);
        }
        let params = TwoPointsParams::new(params);
        let lanes = Lanes {
            x: params.x,
            out: params.out,
            partner: partners(
                input.plan.stores(chunk).iter().map(|&(_, k)| k).filter(|&k| !summed(input, k)),
            ),
            waiting: HashMap::new(),
            constants: HashMap::new(),
            lane_masks,
            looped: None,
        };
        (lanes, params.scratch)
    }

    fn claims<M: Module>(_: &mut Lowering<'_, '_, M, Lanes>, _: NodeId) -> bool {
        false
    }

    /// Stores node `id` as output `k` of both points: with its partner's
    /// node if that is known, later if it is not, else lane by lane; or
    /// adds it to its sums ([`MapPairs::summed`]).
    fn store_output<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, k: usize, id: NodeId) {
        if l.width.looped.is_some() {
            let v = l.operand(id);
            return l.width.looped.as_mut().expect("checked above").result(k, v);
        }
        if let Some(&Some(at)) = l.input.map.summed.get(k) {
            let v = l.operand(id);
            return l.add_to_sums(at as usize, v);
        }
        let Some(&j) = l.width.partner.get(&k) else {
            let v = l.operand(id);
            return l.store_lanes(k, v);
        };
        match l.width.waiting.remove(&j) {
            Some(other) if j < k => l.store_adjacent(j, [other, id]),
            Some(other) => l.store_adjacent(k, [id, other]),
            None => {
                l.width.waiting.insert(k, id);
            }
        }
    }

    fn finish<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>) {
        debug_assert!(l.width.waiting.is_empty(), "every output of chunk {} is stored", l.chunk);
        if let Some(looped) = l.width.looped.take() {
            looped.close(&mut l.b);
        }
    }

    /// Input `k` of both points. Inputs come two at a time, `x_p[i]` and
    /// `x_p[i + 1]` in one 16-byte load per point, and lane 0 or 1 of both
    /// loads side by side (`unpcklpd`, `unpckhpd`): the partner input's
    /// loads are the same pure loads, which Cranelift merges. An input
    /// both points share ([`MapPairs::shared`]) is point 0's, in both lanes.
    fn input<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, k: usize) -> Value {
        if let Some(looped) = &l.width.looped {
            return looped.input(&mut l.b, k);
        }
        let (part, index) = l.input.parts.locate(k);
        let len = l.input.parts.lengths()[part];
        let x = l.width.x.map(|parts| parts[part]);
        if l.input.map.shared.get(k) == Some(&true) {
            let (addr, offset) = address(&mut l.b, x[0], index);
            let value = l.b.ins().load(types::F64, SCALAR_LOAD, addr, offset);
            return l.b.ins().splat(types::F64X2, value);
        }
        if len < 2 {
            let lanes = x.map(|x| {
                let (addr, offset) = address(&mut l.b, x, index);
                l.b.ins().load(types::F64, SCALAR_LOAD, addr, offset)
            });
            return Lanes::join(&mut l.b, &lanes);
        }
        let first = (index & !1).min(len - 2);
        let [lo, hi] = x.map(|x| {
            let (addr, offset) = address(&mut l.b, x, first);
            l.b.ins().load(types::F64X2, VECTOR_LOAD, addr, offset)
        });
        l.side_by_side(index - first, lo, hi)
    }

    /// Constant node `id`, `c` in both lanes: the vector of its latest use
    /// if that was at most [`CONSTANT_REACH`] operations ago, else a
    /// vector constant of its own (not merged with its equals), which
    /// Cranelift loads next to its first use. A constant shared by uses far
    /// apart would live in a register from the first to the last, or be
    /// spilled where registers run short: a store and a reload instead of a load.
    fn constant<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, id: NodeId, c: f64) -> Value {
        let position = l.position;
        let v = match l.width.constants.get(&id) {
            Some(&(v, latest)) if position - latest <= CONSTANT_REACH => v,
            _ => {
                let pool = &mut l.b.func.dfg.constants;
                let handle = Constant::from_u32(pool.len() as u32);
                pool.set(handle, vector_bytes([c, c]));
                l.b.ins().vconst(types::F64X2, handle)
            }
        };
        l.width.constants.insert(id, (v, position));
        v
    }

    fn splat(b: &mut FunctionBuilder<'_>, c: f64) -> Value {
        splat(b, c)
    }

    fn load_scratch(b: &mut FunctionBuilder<'_>, scratch: Value, slot: usize) -> Value {
        let (addr, offset) = address(b, scratch, 2 * slot);
        b.ins().load(types::F64X2, VECTOR_LOAD, addr, offset)
    }

    fn store_scratch(b: &mut FunctionBuilder<'_>, scratch: Value, slot: usize, v: Value) {
        let (addr, offset) = address(b, scratch, 2 * slot);
        b.ins().store(VECTOR_STORE, v, addr, offset);
    }

    /// The sign bits flipped, as `fneg`, by a constant mask that one
    /// register holds: `fneg` builds its mask anew each time (3 instructions).
    fn neg<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, a: Value) -> Value {
        let sign = splat(&mut l.b, -0.0);
        l.b.ins().bxor(a, sign)
    }

    fn sign<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, a: Value) -> Value {
        let zero = splat(&mut l.b, 0.0);
        let one = splat(&mut l.b, 1.0);
        let minus_one = splat(&mut l.b, -1.0);
        let positive = compare(&mut l.b, FloatCC::GreaterThan, a, zero);
        let negative = compare(&mut l.b, FloatCC::LessThan, a, zero);
        let rest = l.b.ins().bitselect(negative, minus_one, a);
        l.b.ins().bitselect(positive, one, rest)
    }

    /// Lane by lane: the vector rounding instructions need SSE4.1, which
    /// the scalar ones can do without.
    fn round<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, floor: bool, a: Value) -> Value {
        let [lo, hi] = [0, 1].map(|lane| Lanes::lane(&mut l.b, a, lane));
        let [lo, hi] = [lo, hi].map(|v| if floor { l.b.ins().floor(v) } else { l.b.ins().ceil(v) });
        Lanes::join(&mut l.b, &[lo, hi])
    }

    fn select<M: Module>(l: &mut Lowering<'_, '_, M, Lanes>, cc: FloatCC, [a, b, x, y]: [Value; 4]) -> Value {
        let mask = compare(&mut l.b, cc, a, b);
        l.b.ins().bitselect(mask, x, y)
    }

    fn lane(b: &mut FunctionBuilder<'_>, v: Value, lane: u8) -> Value {
        b.ins().extractlane(v, lane)
    }

    /// A splat and an insertion are two instructions (`movddup`,
    /// `movlhps`), loads folded into them, where `scalar_to_vector` first
    /// zeroes a register.
    fn join(b: &mut FunctionBuilder<'_>, lanes: &[Value]) -> Value {
        let v = b.ins().splat(types::F64X2, lanes[0]);
        b.ins().insertlane(v, lanes[1], 1)
    }

    fn all_true(b: &mut FunctionBuilder<'_>, mask: Value) -> Value {
        b.ins().vall_true(mask)
    }

    fn merge(b: &mut FunctionBuilder<'_>, mask: Value, fast: Value, exact: Value) -> Value {
        let mask = b.ins().bitcast(types::F64X2, MemFlagsData::new(), mask);
        b.ins().bitselect(mask, fast, exact)
    }
}

impl<M: Module> Lowering<'_, '_, M, Lanes> {
    /// `v`'s lanes added to the sums at `out0[at]` and `out0[at + 1]`.
    fn add_to_sums(&mut self, at: usize, v: Value) {
        let (addr, offset) = address(&mut self.b, self.width.out[0], at);
        let sums = self.b.ins().load(types::F64X2, SUMS, addr, offset);
        let sums = self.b.ins().fadd(sums, v);
        self.b.ins().store(SUMS, sums, addr, offset);
    }

    /// Lane `p` of `v` into `out_p[k]`.
    fn store_lanes(&mut self, k: usize, v: Value) {
        for lane in 0..2 {
            let s = self.b.ins().extractlane(v, lane as u8);
            let (addr, offset) = address(&mut self.b, self.width.out[lane], k);
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
            let (addr, offset) = address(&mut self.b, self.width.out[lane], k);
            self.b.ins().store(VECTOR_STORE, row, addr, offset);
        }
    }

    /// Lane `lane` of `v` and of `w`, in lanes 0 and 1.
    fn side_by_side(&mut self, lane: usize, v: Value, w: Value) -> Value {
        let bytes = MemFlagsData::new().with_endianness(Endianness::Little);
        let (v_bytes, w_bytes) =
            (self.b.ins().bitcast(types::I8X16, bytes, v), self.b.ins().bitcast(types::I8X16, bytes, w));
        let both = self.b.ins().shuffle(v_bytes, w_bytes, self.width.lane_masks[lane]);
        self.b.ins().bitcast(types::F64X2, bytes, both)
    }
}

/// A lane mask (all ones where true) as an `f64x2`, for `bitselect`.
fn compare(b: &mut FunctionBuilder<'_>, cc: FloatCC, x: Value, y: Value) -> Value {
    let mask = b.ins().fcmp(cc, x, y);
    b.ins().bitcast(types::F64X2, MemFlagsData::new(), mask)
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

/// Whether output `k` is added to sums, not stored.
fn summed(input: &LowerInput<'_>, k: usize) -> bool {
    input.map.summed.get(k).is_some_and(Option::is_some)
}

/// Output indices `k` and `k + 1` both in `stored` (a chunk's), paired in
/// increasing order, each mapped to the other.
fn partners(stored: impl Iterator<Item = usize>) -> HashMap<usize, usize> {
    let mut indices: Vec<usize> = stored.collect();
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
