//! Lowers one chunk of a kernel to a Cranelift function
//! `fn(x0, x1, x2, x3: *const f64, out: *mut f64, scratch: *mut f64)` (the
//! input's parts, see [`InputParts`]): the one place that
//! decides, per [`Op`], between native instructions and a call of the
//! reference implementation, which the JIT imports for the table's `call`
//! rows ([`frontend::for_each_op!`]). Small integer powers are inlined
//! ([`crate::power`]).

use crate::chunk::ChunkPlan;
use crate::pairs::{ChunkPairs, Lanes};
use crate::parts::{InputParts, MAX_PARTS};
use crate::power::{self, inline_power, Compensated, Inline};
use crate::sincos;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, FuncRef, Function, InstBuilder, MemFlagsData, Signature, StackSlot,
    StackSlotData, StackSlotKind, Value,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId, Module};
use frontend::{Cmp, ExprDag, NodeId, Op};

/// The signature of every chunk: `(x0, x1, x2, x3, out, scratch)`, all
/// pointers; the parts a kernel does not have are null.
pub(crate) fn chunk_signature<M: Module>(module: &M) -> Signature {
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.extend([AbiParam::new(ptr); MAX_PARTS + 2]);
    sig
}

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
}

impl ValueCache {
    /// A cache for the nodes of `dag`.
    pub(crate) fn new(dag: &ExprDag) -> ValueCache {
        ValueCache { entries: vec![None; dag.len()] }
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
    /// How many operations read each node, for [`ChunkPairs::find`].
    pub op_uses: &'a [u32],
    /// The arrays the input comes in.
    pub parts: &'a InputParts,
}

/// Lowers chunk `chunk` into `func`, whose signature is [`chunk_signature`].
pub(crate) fn lower_chunk<M: Module>(
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
    let params = b.block_params(entry);
    let x: [Value; MAX_PARTS] = std::array::from_fn(|p| params[p]);
    let (out, scratch) = (params[MAX_PARTS], params[MAX_PARTS + 1]);
    let pairs = ChunkPairs::find(input.dag, input.plan, input.op_uses, input.parts, chunk);
    let mut lowering = ChunkLowering {
        vectors: vec![None; pairs.len()],
        packed: std::collections::HashMap::new(),
        pairs,
        b,
        module,
        input,
        imported: [None; Op::ALL.len()],
        sincos: None,
        cache,
        chunk,
        x,
        out,
        scratch,
    };
    lowering.run(chunk);
    lowering.b.ins().return_(&[]);
    lowering.b.seal_all_blocks();
    let config = lowering.module.target_config();
    lowering.b.finalize(config);
}

/// The state of lowering one chunk.
struct ChunkLowering<'f, 'c, M: Module> {
    b: FunctionBuilder<'f>,
    module: &'c mut M,
    input: &'c LowerInput<'c>,
    /// The imported functions declared in this function so far, by [`Op::index`].
    imported: [Option<FuncRef>; Op::ALL.len()],
    /// `sincos` and the 16 bytes it writes to, once a call needs them.
    sincos: Option<(FuncRef, StackSlot)>,
    cache: &'c mut ValueCache,
    /// Operations computed two at a time, and each pair's vector once computed.
    pairs: ChunkPairs,
    vectors: Vec<Option<Value>>,
    /// Vectors of two scalars built so far: a product's operands shared by
    /// several pairs (a matrix row) are packed once.
    packed: std::collections::HashMap<(NodeId, NodeId), Value>,
    chunk: usize,
    /// The input's parts.
    x: [Value; MAX_PARTS],
    out: Value,
    scratch: Value,
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

impl<M: Module> ChunkLowering<'_, '_, M> {
    fn run(&mut self, chunk: usize) {
        let plan = self.input.plan;
        let stores = plan.stores(chunk);
        let mut stored = 0;
        // Leaf outputs come first in the list.
        for &(id, k) in stores.iter().take_while(|(id, _)| plan.chunk_of(*id) != Some(chunk)) {
            let v = self.operand(id);
            self.store(self.out, k, v);
            stored += 1;
        }
        for &id in plan.ops(chunk) {
            if let Some((p, _)) = self.pairs.lane_of(id) {
                // A pair runs where its later operation would, once both lanes' operands exist.
                let [u, v] = self.pairs.pair(p).nodes;
                if id == plan.later(u, v) {
                    stored += self.lower_pair(p);
                }
                continue;
            }
            // Computed already if it is the second of a sin/cos pair.
            let v = match self.cached(id) {
                Some(v) => v,
                None => self.lower(id),
            };
            self.cache.entries[id.index()] = Some((self.chunk as u32, v));
            if let Some(slot) = plan.slot(id) {
                self.store(self.scratch, slot, v);
            }
            for &(_, k) in plan.stores_of(chunk, id) {
                self.store(self.out, k, v);
                stored += 1;
            }
        }
        debug_assert_eq!(stored, stores.len(), "every output of chunk {chunk} is stored");
    }

    /// Computes pair `p` and stores its lanes' outputs; returns how many.
    fn lower_pair(&mut self, p: usize) -> usize {
        let pair = self.pairs.pair(p);
        let a = self.vector(pair.args[0]);
        let b = self.vector(pair.args[1]);
        let v = match pair.op {
            Op::Add => self.b.ins().fadd(a, b),
            Op::Sub => self.b.ins().fsub(a, b),
            Op::Mul => self.b.ins().fmul(a, b),
            Op::Div => self.b.ins().fdiv(a, b),
            op => unreachable!("{op:?} is not paired"),
        };
        self.vectors[p] = Some(v);
        let plan = self.input.plan;
        let [u, w] = pair.nodes;
        debug_assert!(plan.slot(u).is_none() && plan.slot(w).is_none(), "paired values stay in their chunk");
        let (first, second) = (plan.stores_of(self.chunk, u), plan.stores_of(self.chunk, w));
        let mut together = Vec::new();
        for &(_, k) in first {
            if second.iter().any(|&(_, l)| l == k + 1) {
                self.vector_store(k, v);
                together.push(k + 1);
            } else {
                let lane = self.b.ins().extractlane(v, 0);
                self.store(self.out, k, lane);
            }
        }
        for &(_, k) in second.iter().filter(|(_, k)| !together.contains(k)) {
            let lane = self.b.ins().extractlane(v, 1);
            self.store(self.out, k, lane);
        }
        first.len() + second.len()
    }

    /// An operand vector of a pair.
    fn vector(&mut self, lanes: Lanes) -> Value {
        match lanes {
            Lanes::Splat(id) => {
                let s = self.operand(id);
                self.b.ins().splat(types::F64X2, s)
            }
            Lanes::Inputs(i) => {
                let (part, index) = self.input.parts.locate(i as usize);
                let (addr, offset) = self.address(self.x[part], index);
                self.b.ins().load(types::F64X2, VECTOR_LOAD, addr, offset)
            }
            Lanes::Pair(p) => self.vectors[p].expect("a pair's operand pairs come before it"),
            Lanes::Scalars(p, q) => {
                if let Some(&v) = self.packed.get(&(p, q)) {
                    return v;
                }
                // A splat, not `scalar_to_vector`, which would zero a register first.
                let (lo, hi) = (self.operand(p), self.operand(q));
                let v = self.b.ins().splat(types::F64X2, lo);
                let v = self.b.ins().insertlane(v, hi, 1);
                self.packed.insert((p, q), v);
                v
            }
        }
    }

    fn vector_store(&mut self, index: usize, v: Value) {
        let (addr, offset) = self.address(self.out, index);
        self.b.ins().store(VECTOR_STORE, v, addr, offset);
    }

    /// The value of `id` if this chunk has computed it.
    fn cached(&self, id: NodeId) -> Option<Value> {
        match self.cache.entries[id.index()] {
            Some((stamp, v)) if stamp == self.chunk as u32 => Some(v),
            _ => None,
        }
    }

    /// The value of an argument: computed in this chunk, a leaf, or loaded
    /// from the scratch slot an earlier chunk stored it in.
    fn operand(&mut self, id: NodeId) -> Value {
        if let Some(v) = self.cached(id) {
            return v;
        }
        let v = if self.input.dag.op(id).is_leaf() {
            self.lower(id)
        } else {
            let slot = self.input.plan.slot(id).expect("a value from an earlier chunk has a scratch slot");
            self.load(self.scratch, slot)
        };
        self.cache.entries[id.index()] = Some((self.chunk as u32, v));
        v
    }

    /// `base[index]` as an address and a 32-bit offset.
    fn address(&mut self, base: Value, index: usize) -> (Value, i32) {
        let bytes = index.checked_mul(8).expect("an f64 index times 8 fits in usize");
        match i32::try_from(bytes) {
            Ok(offset) => (base, offset),
            Err(_) => {
                let bytes = i64::try_from(bytes).expect("an offset fits in i64");
                (self.b.ins().iadd_imm_s(base, bytes), 0)
            }
        }
    }

    fn load(&mut self, base: Value, index: usize) -> Value {
        let (addr, offset) = self.address(base, index);
        self.b.ins().load(types::F64, LOAD, addr, offset)
    }

    fn store(&mut self, base: Value, index: usize, v: Value) {
        let (addr, offset) = self.address(base, index);
        self.b.ins().store(STORE, v, addr, offset);
    }

    fn constant(&mut self, c: f64) -> Value {
        self.b.ins().f64const(c)
    }

    /// A call of the reference implementation of `op`, which the JIT imports.
    fn call(&mut self, op: Op, args: &[Value]) -> Value {
        debug_assert_eq!(args.len(), op.arity(), "{op:?}");
        let i = op.index().expect("a leaf is never called");
        let func_ref = match self.imported[i] {
            Some(r) => r,
            None => {
                let declared = self.input.libm[i].unwrap_or_else(|| panic!("the table imports {op:?}"));
                let r = self.module.declare_func_in_func(declared, &mut *self.b.func);
                self.imported[i] = Some(r);
                r
            }
        };
        let call = self.b.ins().call(func_ref, args);
        self.b.inst_results(call)[0]
    }

    /// The value of node `id`, computed from its operands.
    fn lower(&mut self, id: NodeId) -> Value {
        let dag = self.input.dag;
        let mut args = [self.out; 4];
        for (slot, &a) in args.iter_mut().zip(dag.args(id)) {
            *slot = self.operand(a);
        }
        let [a, b, x, y] = args;
        match dag.op(id) {
            Op::Const(c) => self.constant(c.get()),
            Op::Input(k) => {
                let (part, index) = self.input.parts.locate(k as usize);
                self.load(self.x[part], index)
            }
            Op::Neg => self.b.ins().fneg(a),
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
            Op::Sign => self.sign(a),
            Op::Floor => self.b.ins().floor(a),
            Op::Ceil => self.b.ins().ceil(a),
            // Cranelift's fmin/fmax are IEEE 754-2019 minimum/maximum, as `Op::eval`.
            Op::Min => self.b.ins().fmin(a, b),
            Op::Max => self.b.ins().fmax(a, b),
            Op::Select(cmp) => {
                let cond = self.b.ins().fcmp(float_cc(cmp), a, b);
                self.b.ins().select(cond, x, y)
            }
            // No instruction: a call of the reference the table imports (its
            // `call` rows, `Op::libm_symbol`).
            op if op.libm_symbol().is_some() => self.call(op, &args[..op.arity()]),
            op => unreachable!("{op:?} is a native row of the table, lowered above"),
        }
    }

    /// `f(a)` for `f` sine or cosine. If the other of the two is an
    /// operation of this chunk too, one `sincos` call computes both, and the
    /// other is cached for when the chunk reaches it (right after `id`).
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
                    self.b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3));
                *self.sincos.insert((func_ref, slot))
            }
        };
        let ptr = self.module.target_config().pointer_type();
        let sin_addr = self.b.ins().stack_addr(ptr, slot, 0);
        let cos_addr = self.b.ins().stack_addr(ptr, slot, 8);
        self.b.ins().call(func_ref, &[a, sin_addr, cos_addr]);
        let sin = self.b.ins().stack_load(ptr, types::F64, slot, 0);
        let cos = self.b.ins().stack_load(ptr, types::F64, slot, 8);
        let (value, other) = if f == Op::Sin { (sin, cos) } else { (cos, sin) };
        self.cache.entries[partner.index()] = Some((self.chunk as u32, other));
        value
    }

    /// `sign(a)`: 1 if positive, -1 if negative, `a` itself for ±0 and NaN.
    fn sign(&mut self, a: Value) -> Value {
        let zero = self.constant(0.0);
        let one = self.constant(1.0);
        let minus_one = self.constant(-1.0);
        let positive = self.b.ins().fcmp(FloatCC::GreaterThan, a, zero);
        let negative = self.b.ins().fcmp(FloatCC::LessThan, a, zero);
        let rest = self.b.ins().select(negative, minus_one, a);
        self.b.ins().select(positive, one, rest)
    }

    /// `a^k` for the constant integer exponent `k` (the node `b`).
    fn power(&mut self, a: Value, b: Value, k: i32) -> Value {
        match power::inline(&mut self.b, a, k, |b, c| b.ins().f64const(c)) {
            Inline::Done(value) => value,
            Inline::Compensated(power) => self.checked_power(a, b, power),
        }
    }

    /// The compensated `a^b`, or `pow`'s in a cold block where that does not hold.
    fn checked_power(&mut self, a: Value, b: Value, power: Compensated) -> Value {
        let Compensated { value: fast, in_range } = power;
        let slow = self.b.create_block();
        let join = self.b.create_block();
        let result = self.b.append_block_param(join, types::F64);
        self.b.set_cold_block(slow);
        self.b.ins().brif(in_range, join, &[BlockArg::Value(fast)], slow, &[]);
        self.b.switch_to_block(slow);
        let exact = self.call(Op::Pow, &[a, b]);
        self.b.ins().jump(join, &[BlockArg::Value(exact)]);
        self.b.switch_to_block(join);
        result
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
