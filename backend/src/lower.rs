//! Lowers one chunk of a kernel to a Cranelift function, once for every
//! width: one point per call ([`Scalar`](crate::scalar::Scalar)) or two,
//! one per lane of `f64x2` ([`Lanes`](crate::lanes::Lanes)). This is the one
//! place that decides, per [`Op`], between instructions and a call of the
//! reference implementation, which the JIT imports for the table's `call`
//! rows ([`frontend::for_each_op!`]); the table's `native` rows arrive as
//! [`Native`] and are matched exhaustively, so a new one cannot be left
//! out. Operand caching, `sin`/`cos` pairs sharing one `sincos` call, and
//! integer powers inlined with a cold `pow` branch ([`crate::power`]) are
//! written here once; a width supplies only what differs: how values are
//! loaded, stored and built, and the few instructions it spells its own way.
//! Each lane computes what the one-point kernel computes, bit for bit.

use crate::calls::CallLayout;
use crate::chunk::ChunkPlan;
use crate::convention::{one_point_signature, InputParts};
use crate::looped::MapLoop;
use crate::power::{self, inline_power, Compensated, Inline};
use crate::sincos;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, FuncRef, Function, InstBuilder, MemFlagsData, Signature, StackSlot,
    StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Module};
use frontend::{CallOut, Cmp, ExprDag, Native, NodeId, Op};

/// The signature of an imported libm function of `arity` `f64` arguments.
pub(crate) fn libm_signature<M: Module>(module: &M, arity: usize) -> Signature {
    let mut sig = module.make_signature();
    sig.params.extend(std::iter::repeat_n(AbiParam::new(types::F64), arity));
    sig.returns.push(AbiParam::new(types::F64));
    sig
}

/// The Cranelift values of nodes in the chunk being lowered. Entries carry
/// the chunk's stamp, so moving to the next chunk clears the map in O(1)
/// and lowering stays linear in the number of operations.
pub(crate) struct ValueCache {
    pub(crate) entries: Vec<Option<(u32, Value)>>,
    /// Whether each call site was called by a chunk lowered so far: its
    /// results are in the call area from then on.
    called: Vec<bool>,
}

impl ValueCache {
    /// A cache for the nodes of `dag`.
    pub(crate) fn new(dag: &ExprDag) -> ValueCache {
        ValueCache { entries: vec![None; dag.len()], called: vec![false; dag.sites().len()] }
    }
}

/// What a chunk is lowered from: the DAG, the plan and the module's imports.
pub(crate) struct LowerInput<'a> {
    /// The expression DAG.
    pub dag: &'a ExprDag,
    /// The chunks and scratch slots.
    pub plan: &'a ChunkPlan,
    /// The module's declaration of each imported function, indexed by
    /// [`Op::index`]; `None` for operations the JIT does not import.
    pub libm: &'a [Option<FuncId>],
    /// The declaration of [`sincos`], if kernels call it.
    pub sincos: Option<FuncId>,
    /// How many operations read each node (for the scalar kernel's pairs).
    pub op_uses: &'a [u32],
    /// The arrays the input comes in.
    pub parts: &'a InputParts,
    /// Where calls keep their arguments and results, for a kernel with calls.
    pub calls: Option<&'a CallLayout>,
    /// Two points of a map's body: its shared inputs and summed outputs
    /// (empty for other kernels).
    pub map: &'a MapPairs,
    /// A map's body compiled with its loop: where its inputs and results are.
    pub looped: Option<&'a MapLoop>,
}

/// How a map's body runs on two instances at once ([`crate::mapped`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct MapPairs {
    /// Per input: whether both instances read the same value (a shared
    /// argument), loaded once from the first.
    pub shared: Vec<bool>,
    /// Per output: `Some(at)` where it is added to a running sum instead of
    /// stored, both lanes side by side at `out0[at]`.
    pub summed: Vec<Option<u32>>,
}

/// Inputs, outputs and scratch are distinct, aligned and always valid.
pub(crate) const STORE: MemFlagsData = MemFlagsData::trusted();
/// A chunk never writes what it loads (`x` is read-only; a scratch slot is
/// reused only after the chunks reading it ran), so loads are pure: the
/// mid-end may place them next to their uses, which keeps register pressure low.
pub(crate) const LOAD: MemFlagsData = MemFlagsData::trusted().with_readonly().with_can_move();
/// `f64x2` loads and stores: as above, but only 8-byte aligned.
pub(crate) const VECTOR_LOAD: MemFlagsData =
    MemFlagsData::new().with_notrap().with_readonly().with_can_move();
pub(crate) const VECTOR_STORE: MemFlagsData = MemFlagsData::new().with_notrap();

/// What a width of kernel supplies to the lowering: its values' type, its
/// state, and the steps it spells its own way.
pub(crate) trait Width: Sized {
    /// The type of a value: `F64`, or `F64X2`.
    const TYPE: Type;
    /// Points per call: the lanes of a value.
    const LANES: u8;

    /// The width's state for `chunk`, from the function's parameters, and
    /// the scratch pointer among them.
    fn new(
        b: &mut FunctionBuilder<'_>,
        params: &[Value],
        input: &LowerInput<'_>,
        chunk: usize,
    ) -> (Self, Value);

    /// Lowers operation `id` itself where it computes it otherwise than one
    /// value at a time (the scalar kernel's pairs); `true` if it did.
    fn claims<M: Module>(l: &mut Lowering<'_, '_, M, Self>, id: NodeId) -> bool;

    /// Stores node `id` (computed in this chunk, or a leaf) as output `k`.
    fn store_output<M: Module>(l: &mut Lowering<'_, '_, M, Self>, k: usize, id: NodeId);

    /// Checks, in debug builds, that every output of the chunk was stored.
    fn finish<M: Module>(l: &mut Lowering<'_, '_, M, Self>);

    /// Input `k`.
    fn input<M: Module>(l: &mut Lowering<'_, '_, M, Self>, k: usize) -> Value;

    /// Constant node `id`, of value `c`.
    fn constant<M: Module>(l: &mut Lowering<'_, '_, M, Self>, id: NodeId, c: f64) -> Value;

    /// `c` as a value of this width, built where it is used.
    fn splat(b: &mut FunctionBuilder<'_>, c: f64) -> Value;

    /// Scratch slot `slot`'s value.
    fn load_scratch(b: &mut FunctionBuilder<'_>, scratch: Value, slot: usize) -> Value;

    /// `v` into scratch slot `slot`.
    fn store_scratch(b: &mut FunctionBuilder<'_>, scratch: Value, slot: usize, v: Value);

    /// `-a`.
    fn neg<M: Module>(l: &mut Lowering<'_, '_, M, Self>, a: Value) -> Value;

    /// `sign(a)`: 1 if positive, -1 if negative, `a` itself for ±0 and NaN.
    fn sign<M: Module>(l: &mut Lowering<'_, '_, M, Self>, a: Value) -> Value;

    /// `floor(a)` or `ceil(a)`.
    fn round<M: Module>(l: &mut Lowering<'_, '_, M, Self>, floor: bool, a: Value) -> Value;

    /// `ifelse(a cc b, x, y)`.
    fn select<M: Module>(l: &mut Lowering<'_, '_, M, Self>, cc: FloatCC, args: [Value; 4]) -> Value;

    /// Lane `lane` of `v`, as an `f64` (the value itself for one lane).
    fn lane(b: &mut FunctionBuilder<'_>, v: Value, lane: u8) -> Value;

    /// The value of `lanes` (one `f64` per lane).
    fn join(b: &mut FunctionBuilder<'_>, lanes: &[Value]) -> Value;

    /// Whether every lane of the comparison `mask` holds.
    fn all_true(b: &mut FunctionBuilder<'_>, mask: Value) -> Value;

    /// Per lane, `fast` where `mask` holds, else `exact`.
    fn merge(b: &mut FunctionBuilder<'_>, mask: Value, fast: Value, exact: Value) -> Value;
}

/// Lowers chunk `chunk` into `func`, whose signature is `W`'s in [`crate::convention`].
pub(crate) fn lower_chunk<M: Module, W: Width>(
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
    let (width, scratch) = W::new(&mut b, &params, input, chunk);
    let mut lowering = Lowering {
        b,
        module,
        input,
        imported: [None; Op::ALL.len()],
        sincos: None,
        cache,
        chunk,
        scratch,
        position: 0,
        width,
    };
    lowering.run();
    lowering.b.ins().return_(&[]);
    lowering.b.seal_all_blocks();
    let config = lowering.module.target_config();
    lowering.b.finalize(config);
}

/// The state of lowering one chunk at width `W`.
pub(crate) struct Lowering<'f, 'c, M: Module, W: Width> {
    pub(crate) b: FunctionBuilder<'f>,
    pub(crate) module: &'c mut M,
    pub(crate) input: &'c LowerInput<'c>,
    /// The imported functions declared in this function so far, by [`Op::index`].
    imported: [Option<FuncRef>; Op::ALL.len()],
    /// `sincos` and the bytes it writes to (per lane, a sine and a cosine),
    /// once a call needs them.
    sincos: Option<(FuncRef, StackSlot)>,
    cache: &'c mut ValueCache,
    pub(crate) chunk: usize,
    pub(crate) scratch: Value,
    /// The position in the chunk of the operation being lowered.
    pub(crate) position: usize,
    /// What the width keeps.
    pub(crate) width: W,
}

impl<M: Module, W: Width> Lowering<'_, '_, M, W> {
    fn run(&mut self) {
        let plan = self.input.plan;
        let chunk = self.chunk;
        // Leaf outputs come first in the list.
        for &(id, k) in plan.stores(chunk).iter().take_while(|(id, _)| plan.chunk_of(*id) != Some(chunk)) {
            W::store_output(self, k, id);
        }
        for (position, &id) in plan.ops(chunk).iter().enumerate() {
            self.position = position;
            if W::claims(self, id) {
                continue;
            }
            // Computed already if it is the second of a sin/cos pair.
            let v = match self.cached(id) {
                Some(v) => v,
                None => self.lower(id),
            };
            self.cache.entries[id.index()] = Some((chunk as u32, v));
            if let Some(slot) = plan.slot(id) {
                W::store_scratch(&mut self.b, self.scratch, slot, v);
            }
            for &(_, k) in plan.stores_of(chunk, id) {
                W::store_output(self, k, id);
            }
        }
        W::finish(self);
    }

    /// The value of `id` if this chunk has computed it.
    pub(crate) fn cached(&self, id: NodeId) -> Option<Value> {
        match self.cache.entries[id.index()] {
            Some((stamp, v)) if stamp == self.chunk as u32 => Some(v),
            _ => None,
        }
    }

    /// Records `v` as the value of `id` in this chunk.
    pub(crate) fn cache(&mut self, id: NodeId, v: Value) {
        self.cache.entries[id.index()] = Some((self.chunk as u32, v));
    }

    /// The value of an argument: a constant, computed in this chunk, a
    /// leaf, or loaded from the scratch slot an earlier chunk stored it in.
    pub(crate) fn operand(&mut self, id: NodeId) -> Value {
        if let Some(c) = self.input.dag.as_const(id) {
            return W::constant(self, id, c);
        }
        if let Some(v) = self.cached(id) {
            return v;
        }
        let v = if self.input.dag.op(id).is_leaf() {
            self.lower(id)
        } else {
            let slot = self.input.plan.slot(id).expect("a value from an earlier chunk has a scratch slot");
            W::load_scratch(&mut self.b, self.scratch, slot)
        };
        self.cache(id, v);
        v
    }

    /// The value of node `id`, computed from its operands.
    fn lower(&mut self, id: NodeId) -> Value {
        let dag = self.input.dag;
        if let Op::Call(c) = dag.op(id) {
            return self.call_result(c);
        }
        let mut args = [self.scratch; 4];
        for (slot, &a) in args.iter_mut().zip(dag.args(id)) {
            *slot = self.operand(a);
        }
        let [a, b, ..] = args;
        match dag.op(id) {
            Op::Const(c) => W::constant(self, id, c.get()),
            Op::Input(k) => W::input(self, k as usize),
            Op::Select(cmp) => W::select(self, float_cc(cmp), args),
            op => match op.native() {
                Some(native) => self.native(native, a, b),
                None => match op {
                    Op::Pow => match inline_power(dag, dag.args(id)[1]) {
                        Some(k) => self.power(a, b, k),
                        None => self.call(Op::Pow, &[a, b]),
                    },
                    Op::Sin | Op::Cos => self.sin_or_cos(id, op, a),
                    // Every other operation is a `call` row: the reference the JIT imports.
                    _ => self.call(op, &args[..op.arity()]),
                },
            },
        }
    }

    /// A native operation on its operands `a` (and `b`).
    fn native(&mut self, native: Native, a: Value, b: Value) -> Value {
        match native {
            Native::Neg => W::neg(self, a),
            Native::Add => self.b.ins().fadd(a, b),
            Native::Sub => self.b.ins().fsub(a, b),
            Native::Mul => self.b.ins().fmul(a, b),
            Native::Div => self.b.ins().fdiv(a, b),
            Native::Sqrt => self.b.ins().sqrt(a),
            Native::Abs => self.b.ins().fabs(a),
            Native::Sign => W::sign(self, a),
            Native::Floor => W::round(self, true, a),
            Native::Ceil => W::round(self, false, a),
            // Cranelift's fmin/fmax are IEEE 754-2019 minimum/maximum, as `Op::eval`.
            Native::Min => self.b.ins().fmin(a, b),
            Native::Max => self.b.ins().fmax(a, b),
        }
    }

    /// Result `c.out` of a call: the site's callee runs here (once per lane,
    /// on the lane's arguments) if no chunk before ran it, writing its
    /// results to the site's rows of the call area; the result is loaded
    /// from there.
    fn call_result(&mut self, c: CallOut) -> Value {
        let layout = self.input.calls.expect("a kernel with calls has a call area");
        let (at, callee) = layout.site(c.site);
        let results = callee.num_outputs();
        let ptr = self.module.target_config().pointer_type();
        let scratch = self.scratch;
        let at_value = |b: &mut FunctionBuilder<'_>, index: usize| {
            let bytes = i64::try_from(8 * index).expect("a scratch offset fits in i64");
            b.ins().iadd_imm_s(scratch, bytes)
        };
        if !self.cache.called[c.site as usize] {
            let site = &self.input.dag.site(c.site).args;
            let args: Vec<Value> = site.iter().map(|&a| self.operand(a)).collect();
            let signature = one_point_signature(&*self.module);
            let signature = self.b.import_signature(signature);
            let null = self.b.ins().iconst(ptr, 0);
            let args_row = at_value(&mut self.b, layout.args_at);
            let callee_scratch = at_value(&mut self.b, layout.callee_scratch_at);
            for lane in 0..W::LANES {
                for (j, &v) in args.iter().enumerate() {
                    let value = W::lane(&mut self.b, v, lane);
                    let (addr, offset) = address(&mut self.b, self.scratch, layout.args_at + j);
                    self.b.ins().store(STORE, value, addr, offset);
                }
                let out = at_value(&mut self.b, at + usize::from(lane) * results);
                for chunk in callee.chunk_addresses() {
                    let entry = self.b.ins().iconst(ptr, chunk as i64);
                    let args = [args_row, null, null, null, out, callee_scratch];
                    self.b.ins().call_indirect(signature, entry, &args);
                }
            }
            self.cache.called[c.site as usize] = true;
        }
        // Written by the calls: not `LOAD`, which may move above them.
        let lanes: Vec<Value> = (0..W::LANES)
            .map(|lane| {
                let index = at + usize::from(lane) * results + c.out as usize;
                let (addr, offset) = address(&mut self.b, self.scratch, index);
                self.b.ins().load(types::F64, STORE, addr, offset)
            })
            .collect();
        W::join(&mut self.b, &lanes)
    }

    /// The imported reference of `op`, declared in this function on first use.
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

    /// The reference implementation of `op`, called once per lane.
    fn call(&mut self, op: Op, args: &[Value]) -> Value {
        debug_assert_eq!(args.len(), op.arity(), "{op:?}");
        let f = self.import(op);
        let lanes: Vec<Vec<Value>> =
            args.iter().map(|&a| (0..W::LANES).map(|lane| W::lane(&mut self.b, a, lane)).collect()).collect();
        let results: Vec<Value> = (0..W::LANES as usize)
            .map(|lane| {
                let scalars: Vec<Value> = lanes.iter().map(|l| l[lane]).collect();
                let call = self.b.ins().call(f, &scalars);
                self.b.inst_results(call)[0]
            })
            .collect();
        W::join(&mut self.b, &results)
    }

    /// `f(a)` for `f` sine or cosine. If the other of the two is an
    /// operation of this chunk too, one `sincos` call per lane computes
    /// both, and the other is cached for when the chunk reaches it (right
    /// after `id`).
    fn sin_or_cos(&mut self, id: NodeId, f: Op, a: Value) -> Value {
        let plan = self.input.plan;
        let partner = sincos::partner(self.input.dag, id).filter(|&p| plan.chunk_of(p) == Some(self.chunk));
        let (Some(partner), Some(declared)) = (partner, self.input.sincos) else {
            return self.call(f, &[a]);
        };
        let lanes = i32::from(W::LANES);
        let (func_ref, slot) = match self.sincos {
            Some(imported) => imported,
            None => {
                let func_ref = self.module.declare_func_in_func(declared, &mut *self.b.func);
                // Sines first, then cosines, a lane each; aligned for one load of each.
                let bytes = 16 * u32::from(W::LANES);
                let data = StackSlotData::new(StackSlotKind::ExplicitSlot, bytes, 2 + W::LANES);
                let slot = self.b.create_sized_stack_slot(data);
                *self.sincos.insert((func_ref, slot))
            }
        };
        let ptr = self.module.target_config().pointer_type();
        let args: Vec<Value> = (0..W::LANES).map(|lane| W::lane(&mut self.b, a, lane)).collect();
        for (lane, &arg) in (0..).zip(&args) {
            let sin_addr = self.b.ins().stack_addr(ptr, slot, 8 * lane);
            let cos_addr = self.b.ins().stack_addr(ptr, slot, 8 * (lanes + lane));
            self.b.ins().call(func_ref, &[arg, sin_addr, cos_addr]);
        }
        let sin = self.b.ins().stack_load(ptr, W::TYPE, slot, 0);
        let cos = self.b.ins().stack_load(ptr, W::TYPE, slot, 8 * lanes);
        let (value, other) = if f == Op::Sin { (sin, cos) } else { (cos, sin) };
        self.cache(partner, other);
        value
    }

    /// `a^k` for the constant integer exponent `k` (the node `b`).
    fn power(&mut self, a: Value, b: Value, k: i32) -> Value {
        match power::inline(&mut self.b, a, k, W::splat) {
            Inline::Done(value) => value,
            Inline::Compensated(power) => self.checked_power(a, b, power),
        }
    }

    /// The compensated `a^b` where it holds in every lane; else a cold
    /// block calls the reference, and each lane out of range takes its value.
    fn checked_power(&mut self, a: Value, b: Value, power: Compensated) -> Value {
        let Compensated { value: fast, in_range } = power;
        let all = W::all_true(&mut self.b, in_range);
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let result = self.b.append_block_param(join, W::TYPE);
        self.b.set_cold_block(slow);
        self.b.ins().brif(all, join, &[BlockArg::Value(fast)], slow, &[]);
        self.b.switch_to_block(slow);
        let exact = self.call(Op::Pow, &[a, b]);
        let merged = W::merge(&mut self.b, in_range, fast, exact);
        self.b.ins().jump(join, &[BlockArg::Value(merged)]);
        self.b.switch_to_block(join);
        result
    }
}

/// `base[index]` as an address and a 32-bit offset.
pub(crate) fn address(b: &mut FunctionBuilder<'_>, base: Value, index: usize) -> (Value, i32) {
    let bytes = index.checked_mul(8).expect("an f64 index times 8 fits in usize");
    match i32::try_from(bytes) {
        Ok(offset) => (base, offset),
        Err(_) => {
            let bytes = i64::try_from(bytes).expect("an offset fits in i64");
            (b.ins().iadd_imm_s(base, bytes), 0)
        }
    }
}

/// The Cranelift condition of a comparison; `NotEqual` is true for NaN, as `!=`.
pub(crate) fn float_cc(cmp: Cmp) -> FloatCC {
    match cmp {
        Cmp::Lt => FloatCC::LessThan,
        Cmp::Le => FloatCC::LessThanOrEqual,
        Cmp::Gt => FloatCC::GreaterThan,
        Cmp::Ge => FloatCC::GreaterThanOrEqual,
        Cmp::Eq => FloatCC::Equal,
        Cmp::Ne => FloatCC::NotEqual,
    }
}
