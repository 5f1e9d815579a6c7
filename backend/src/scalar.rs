//! The one-point width of the lowering ([`crate::lower`]): a chunk is
//! `fn(x0, x1, x2, x3: *const f64, out: *mut f64, scratch: *mut f64)`, the
//! input's parts then the outputs and the scratch ([`crate::convention`]); values
//! are `f64`. Like operations stored side by side run two at a time in
//! `f64x2` ([`crate::pairs`]), each lane computing what the scalar
//! instruction would. A map's body compiled with its loop
//! ([`crate::looped`]) is one point at a time too, its inputs and outputs
//! where the loop says.

use crate::convention::{OnePointParams, MAX_PARTS};
use crate::looped::LoopIo;
use crate::lower::{address, LowerInput, Lowering, Width, LOAD, STORE, VECTOR_LOAD, VECTOR_STORE};
use crate::pairs::{ChunkPairs, PairOperand};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module;
use frontend::{NodeId, Op};
use std::collections::HashMap;

/// One point per call, and the pairs of the chunk.
pub(crate) struct Scalar {
    /// The input's parts.
    x: [Value; MAX_PARTS],
    out: Value,
    /// Operations computed two at a time, and each pair's vector once computed.
    pairs: ChunkPairs,
    vectors: Vec<Option<Value>>,
    /// Vectors of two scalars built so far, by their lanes: a splat (one
    /// node twice), or a product's operands shared by several pairs (a
    /// matrix row), each packed once.
    packed: HashMap<(NodeId, NodeId), Value>,
    /// Outputs stored so far, to check that all are.
    stored: usize,
    /// The loop around a map's body, for one compiled with it.
    looped: Option<LoopIo>,
}

impl Width for Scalar {
    const TYPE: Type = types::F64;
    const LANES: u8 = 1;

    fn new(
        b: &mut FunctionBuilder<'_>,
        params: &[Value],
        input: &LowerInput<'_>,
        chunk: usize,
    ) -> (Scalar, Value) {
        debug_assert!(input.map.summed.is_empty(), "one point stores every output");
        if let Some(columns) = input.looped {
            // Its outputs are added where the loop says, never stored in pairs.
            let looped = LoopIo::open(b, params, columns, 1);
            let scratch = looped.no_scratch();
            let scalar = Scalar {
                x: [scratch; MAX_PARTS],
                out: scratch,
                vectors: Vec::new(),
                pairs: ChunkPairs::default(),
                packed: HashMap::new(),
                stored: 0,
                looped: Some(looped),
            };
            return (scalar, scratch);
        }
        let pairs = ChunkPairs::find(input.dag, input.plan, input.op_uses, input.parts, chunk);
        let params = OnePointParams::new(params);
        let scalar = Scalar {
            x: params.x,
            out: params.out,
            vectors: vec![None; pairs.len()],
            pairs,
            packed: HashMap::new(),
            stored: 0,
            looped: None,
        };
        (scalar, params.scratch)
    }

    fn claims<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, id: NodeId) -> bool {
        let Some((p, _)) = l.width.pairs.lane_of(id) else { return false };
        // A pair runs where its later operation would, once both lanes' operands exist.
        let [u, v] = l.width.pairs.pair(p).nodes;
        if id == l.input.plan.later(u, v) {
            l.lower_pair(p);
        }
        true
    }

    fn store_output<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, k: usize, id: NodeId) {
        let v = l.operand(id);
        match &mut l.width.looped {
            Some(looped) => looped.result(k, v),
            None => store(&mut l.b, l.width.out, k, v),
        }
        l.width.stored += 1;
    }

    fn finish<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>) {
        let expected = l.input.plan.stores(l.chunk).len();
        debug_assert_eq!(l.width.stored, expected, "every output of chunk {} is stored", l.chunk);
        if let Some(looped) = l.width.looped.take() {
            looped.close(&mut l.b);
        }
    }

    fn input<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, k: usize) -> Value {
        if let Some(looped) = &l.width.looped {
            return looped.input(&mut l.b, k);
        }
        let (part, index) = l.input.parts.locate(k);
        load(&mut l.b, l.width.x[part], index)
    }

    fn constant<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, id: NodeId, c: f64) -> Value {
        if let Some(v) = l.cached(id) {
            return v;
        }
        let v = l.b.ins().f64const(c);
        l.cache(id, v);
        v
    }

    fn splat(b: &mut FunctionBuilder<'_>, c: f64) -> Value {
        b.ins().f64const(c)
    }

    fn load_scratch(b: &mut FunctionBuilder<'_>, scratch: Value, slot: usize) -> Value {
        load(b, scratch, slot)
    }

    fn store_scratch(b: &mut FunctionBuilder<'_>, scratch: Value, slot: usize, v: Value) {
        store(b, scratch, slot, v);
    }

    fn neg<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, a: Value) -> Value {
        l.b.ins().fneg(a)
    }

    fn sign<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, a: Value) -> Value {
        let zero = l.b.ins().f64const(0.0);
        let one = l.b.ins().f64const(1.0);
        let minus_one = l.b.ins().f64const(-1.0);
        let positive = l.b.ins().fcmp(FloatCC::GreaterThan, a, zero);
        let negative = l.b.ins().fcmp(FloatCC::LessThan, a, zero);
        let rest = l.b.ins().select(negative, minus_one, a);
        l.b.ins().select(positive, one, rest)
    }

    fn round<M: Module>(l: &mut Lowering<'_, '_, M, Scalar>, floor: bool, a: Value) -> Value {
        if floor {
            l.b.ins().floor(a)
        } else {
            l.b.ins().ceil(a)
        }
    }

    fn select<M: Module>(
        l: &mut Lowering<'_, '_, M, Scalar>,
        cc: FloatCC,
        [a, b, x, y]: [Value; 4],
    ) -> Value {
        let cond = l.b.ins().fcmp(cc, a, b);
        l.b.ins().select(cond, x, y)
    }

    fn lane(_: &mut FunctionBuilder<'_>, v: Value, _: u8) -> Value {
        v
    }

    fn join(_: &mut FunctionBuilder<'_>, lanes: &[Value]) -> Value {
        lanes[0]
    }

    fn all_true(_: &mut FunctionBuilder<'_>, mask: Value) -> Value {
        mask
    }

    fn merge(_: &mut FunctionBuilder<'_>, _: Value, _: Value, exact: Value) -> Value {
        exact
    }
}

impl<M: Module> Lowering<'_, '_, M, Scalar> {
    /// Computes pair `p` and stores its lanes' outputs.
    fn lower_pair(&mut self, p: usize) {
        let pair = self.width.pairs.pair(p);
        let a = self.vector(pair.args[0]);
        let b = self.vector(pair.args[1]);
        let v = match pair.op {
            Op::Add => self.b.ins().fadd(a, b),
            Op::Sub => self.b.ins().fsub(a, b),
            Op::Mul => self.b.ins().fmul(a, b),
            Op::Div => self.b.ins().fdiv(a, b),
            op => unreachable!("{op:?} is not paired"),
        };
        self.width.vectors[p] = Some(v);
        let plan = self.input.plan;
        let [u, w] = pair.nodes;
        debug_assert!(plan.slot(u).is_none() && plan.slot(w).is_none(), "paired values stay in their chunk");
        let (first, second) = (plan.stores_of(self.chunk, u), plan.stores_of(self.chunk, w));
        let out = self.width.out;
        let mut together = Vec::new();
        for &(_, k) in first {
            if second.iter().any(|&(_, l)| l == k + 1) {
                let (addr, offset) = address(&mut self.b, out, k);
                self.b.ins().store(VECTOR_STORE, v, addr, offset);
                together.push(k + 1);
            } else {
                let lane = self.b.ins().extractlane(v, 0);
                store(&mut self.b, out, k, lane);
            }
        }
        for &(_, k) in second.iter().filter(|(_, k)| !together.contains(k)) {
            let lane = self.b.ins().extractlane(v, 1);
            store(&mut self.b, out, k, lane);
        }
        self.width.stored += first.len() + second.len();
    }

    /// An operand vector of a pair.
    fn vector(&mut self, lanes: PairOperand) -> Value {
        match lanes {
            PairOperand::Splat(id) => {
                if let Some(&v) = self.width.packed.get(&(id, id)) {
                    return v;
                }
                let s = self.operand(id);
                let v = self.b.ins().splat(types::F64X2, s);
                self.width.packed.insert((id, id), v);
                v
            }
            PairOperand::Inputs(i) => {
                let (part, index) = self.input.parts.locate(i as usize);
                let (addr, offset) = address(&mut self.b, self.width.x[part], index);
                self.b.ins().load(types::F64X2, VECTOR_LOAD, addr, offset)
            }
            PairOperand::Pair(p) => self.width.vectors[p].expect("a pair's operand pairs come before it"),
            PairOperand::Scalars(p, q) => {
                if let Some(&v) = self.width.packed.get(&(p, q)) {
                    return v;
                }
                // A splat, not `scalar_to_vector`, which would zero a register first.
                let (lo, hi) = (self.operand(p), self.operand(q));
                let v = self.b.ins().splat(types::F64X2, lo);
                let v = self.b.ins().insertlane(v, hi, 1);
                self.width.packed.insert((p, q), v);
                v
            }
        }
    }
}

fn load(b: &mut FunctionBuilder<'_>, base: Value, index: usize) -> Value {
    let (addr, offset) = address(b, base, index);
    b.ins().load(types::F64, LOAD, addr, offset)
}

fn store(b: &mut FunctionBuilder<'_>, base: Value, index: usize, v: Value) {
    let (addr, offset) = address(b, base, index);
    b.ins().store(STORE, v, addr, offset);
}
