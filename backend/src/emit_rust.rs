//! Rust source emission: the kernel as one dependency-free Rust function with
//! the kernel's signature, for users who want derivatives in their own crate
//! without a JIT at run time.

use crate::error::CodegenError;
use crate::name::{check_name, RUST_KEYWORDS};
use frontend::{ExprDag, Kernel, NodeId, Op};
use std::fmt::Write;

/// IEEE 754-2019 `minimum`/`maximum` and `sign`, identical to `Op::eval`.
const HELPERS: &str = r"#[inline]
fn dstar_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a < b {
        a
    } else if b < a {
        b
    } else if a.is_sign_negative() {
        a
    } else {
        b
    }
}

#[inline]
fn dstar_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b {
        a
    } else if b > a {
        b
    } else if a.is_sign_positive() {
        a
    } else {
        b
    }
}

#[inline]
fn dstar_sign(a: f64) -> f64 {
    if a > 0.0 {
        1.0
    } else if a < 0.0 {
        -1.0
    } else {
        a
    }
}
";

/// `erf`, which Rust's standard library lacks: a port of the `libm` crate's
/// (the interpreter's) implementation, from FreeBSD's msun.
const ERF: &str = r"
#[allow(clippy::all, clippy::pedantic)]
mod dstar_erf {
    const ERX: f64 = 8.45062911510467529297e-01;
    const EFX8: f64 = 1.02703333676410069053e+00;
    const PP0: f64 = 1.28379167095512558561e-01;
    const PP1: f64 = -3.25042107247001499370e-01;
    const PP2: f64 = -2.84817495755985104766e-02;
    const PP3: f64 = -5.77027029648944159157e-03;
    const PP4: f64 = -2.37630166566501626084e-05;
    const QQ1: f64 = 3.97917223959155352819e-01;
    const QQ2: f64 = 6.50222499887672944485e-02;
    const QQ3: f64 = 5.08130628187576562776e-03;
    const QQ4: f64 = 1.32494738004321644526e-04;
    const QQ5: f64 = -3.96022827877536812320e-06;
    const PA0: f64 = -2.36211856075265944077e-03;
    const PA1: f64 = 4.14856118683748331666e-01;
    const PA2: f64 = -3.72207876035701323847e-01;
    const PA3: f64 = 3.18346619901161753674e-01;
    const PA4: f64 = -1.10894694282396677476e-01;
    const PA5: f64 = 3.54783043256182359371e-02;
    const PA6: f64 = -2.16637559486879084300e-03;
    const QA1: f64 = 1.06420880400844228286e-01;
    const QA2: f64 = 5.40397917702171048937e-01;
    const QA3: f64 = 7.18286544141962662868e-02;
    const QA4: f64 = 1.26171219808761642112e-01;
    const QA5: f64 = 1.36370839120290507362e-02;
    const QA6: f64 = 1.19844998467991074170e-02;
    const RA0: f64 = -9.86494403484714822705e-03;
    const RA1: f64 = -6.93858572707181764372e-01;
    const RA2: f64 = -1.05586262253232909814e+01;
    const RA3: f64 = -6.23753324503260060396e+01;
    const RA4: f64 = -1.62396669462573470355e+02;
    const RA5: f64 = -1.84605092906711035994e+02;
    const RA6: f64 = -8.12874355063065934246e+01;
    const RA7: f64 = -9.81432934416914548592e+00;
    const SA1: f64 = 1.96512716674392571292e+01;
    const SA2: f64 = 1.37657754143519042600e+02;
    const SA3: f64 = 4.34565877475229228821e+02;
    const SA4: f64 = 6.45387271733267880336e+02;
    const SA5: f64 = 4.29008140027567833386e+02;
    const SA6: f64 = 1.08635005541779435134e+02;
    const SA7: f64 = 6.57024977031928170135e+00;
    const SA8: f64 = -6.04244152148580987438e-02;
    const RB0: f64 = -9.86494292470009928597e-03;
    const RB1: f64 = -7.99283237680523006574e-01;
    const RB2: f64 = -1.77579549177547519889e+01;
    const RB3: f64 = -1.60636384855821916062e+02;
    const RB4: f64 = -6.37566443368389627722e+02;
    const RB5: f64 = -1.02509513161107724954e+03;
    const RB6: f64 = -4.83519191608651397019e+02;
    const SB1: f64 = 3.03380607434824582924e+01;
    const SB2: f64 = 3.25792512996573918826e+02;
    const SB3: f64 = 1.53672958608443695994e+03;
    const SB4: f64 = 3.19985821950859553908e+03;
    const SB5: f64 = 2.55305040643316442583e+03;
    const SB6: f64 = 4.74528541206955367215e+02;
    const SB7: f64 = -2.24409524465858183362e+01;
    fn erfc1(x: f64) -> f64 {
        let s: f64;
        let p: f64;
        let q: f64;
        s = x.abs() - 1.0;
        p = PA0 + s * (PA1 + s * (PA2 + s * (PA3 + s * (PA4 + s * (PA5 + s * PA6)))));
        q = 1.0 + s * (QA1 + s * (QA2 + s * (QA3 + s * (QA4 + s * (QA5 + s * QA6)))));
        1.0 - ERX - p / q
    }
    fn erfc2(ix: u32, mut x: f64) -> f64 {
        let s: f64;
        let r: f64;
        let big_s: f64;
        let z: f64;
        if ix < 0x3ff40000 {
            return erfc1(x);
        }
        x = x.abs();
        s = 1.0 / (x * x);
        if ix < 0x4006db6d {
            r = RA0 + s * (RA1 + s * (RA2 + s * (RA3 + s * (RA4 + s * (RA5 + s * (RA6 + s * RA7))))));
            big_s = 1.0
                + s * (SA1
                    + s * (SA2 + s * (SA3 + s * (SA4 + s * (SA5 + s * (SA6 + s * (SA7 + s * SA8)))))));
        } else {
            r = RB0 + s * (RB1 + s * (RB2 + s * (RB3 + s * (RB4 + s * (RB5 + s * RB6)))));
            big_s =
                1.0 + s * (SB1 + s * (SB2 + s * (SB3 + s * (SB4 + s * (SB5 + s * (SB6 + s * SB7))))));
        }
        z = f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000);
        (-z * z - 0.5625).exp() * ((z - x) * (z + x) + r / big_s).exp() / x
    }
    pub fn erf(x: f64) -> f64 {
        let r: f64;
        let s: f64;
        let z: f64;
        let y: f64;
        let mut ix: u32;
        let sign: usize;
        ix = (x.to_bits() >> 32) as u32;
        sign = (ix >> 31) as usize;
        ix &= 0x7fffffff;
        if ix >= 0x7ff00000 {
            return 1.0 - 2.0 * (sign as f64) + 1.0 / x;
        }
        if ix < 0x3feb0000 {
            if ix < 0x3e300000 {
                return 0.125 * (8.0 * x + EFX8 * x);
            }
            z = x * x;
            r = PP0 + z * (PP1 + z * (PP2 + z * (PP3 + z * PP4)));
            s = 1.0 + z * (QQ1 + z * (QQ2 + z * (QQ3 + z * (QQ4 + z * QQ5))));
            y = r / s;
            return x + x * y;
        }
        if ix < 0x40180000 {
            y = 1.0 - erfc2(ix, x);
        } else {
            let x1p_1022 = f64::from_bits(0x0010000000000000);
            y = 1.0 - x1p_1022;
        }
        if sign != 0 { -y } else { y }
    }
}
";

/// Writes `pub fn fn_name(x: &[f64], out: &mut [f64])` computing the
/// kernel's outputs (in order) from `x[0..num_inputs]`: plain Rust with no dependencies, that
/// panics if `x` or `out` is shorter than the kernel needs.
///
/// Arithmetic and the helpers give the interpreter's results bit for bit;
/// elementary functions are `f64` methods, as in the interpreter.
///
///
/// # Errors
/// [`CodegenError::InvalidName`] unless `fn_name` is a Rust identifier that
/// is not a keyword.
///
/// ```
/// let program = frontend::parse_program("in x\nout min(x, 1) * x")?;
/// let rust = backend::emit_rust(&program.kernel()?, "f")?;
/// assert!(rust.contains("pub fn f(x: &[f64], out: &mut [f64])"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn emit_rust(kernel: &Kernel, fn_name: &str) -> Result<String, CodegenError> {
    check_name(fn_name, "Rust", RUST_KEYWORDS)?;
    let (dag, outputs, num_inputs) = (kernel.dag(), kernel.roots(), kernel.num_inputs());
    let reach = dag.reachable(outputs);
    let mut body = String::new();
    let mut uses_erf = false;
    for id in dag.ids().filter(|id| reach[id.index()]) {
        let op = dag.op(id);
        let a: Vec<String> = dag.args(id).iter().map(|&a| operand(dag, a)).collect();
        let method = |name: &str| format!("{}.{name}()", a[0]);
        let expr = match op {
            Op::Const(_) => continue, // written inline where used
            Op::Input(k) => format!("x[{k}]"),
            Op::Neg => format!("-{}", a[0]),
            Op::Add => format!("{} + {}", a[0], a[1]),
            Op::Sub => format!("{} - {}", a[0], a[1]),
            Op::Mul => format!("{} * {}", a[0], a[1]),
            Op::Div => format!("{} / {}", a[0], a[1]),
            Op::Pow => format!("{}.powf({})", a[0], a[1]),
            Op::Sin => method("sin"),
            Op::Cos => method("cos"),
            Op::Tan => method("tan"),
            Op::Asin => method("asin"),
            Op::Acos => method("acos"),
            Op::Atan => method("atan"),
            Op::Sinh => method("sinh"),
            Op::Cosh => method("cosh"),
            Op::Tanh => method("tanh"),
            Op::Asinh => method("asinh"),
            Op::Acosh => method("acosh"),
            Op::Atanh => method("atanh"),
            Op::Exp => method("exp"),
            Op::Log => method("ln"),
            Op::Log2 => method("log2"),
            Op::Log10 => method("log10"),
            Op::Sqrt => method("sqrt"),
            Op::Cbrt => method("cbrt"),
            Op::Abs => method("abs"),
            Op::Sign => format!("dstar_sign({})", a[0]),
            Op::Floor => method("floor"),
            Op::Ceil => method("ceil"),
            Op::Erf => {
                uses_erf = true;
                format!("dstar_erf::erf({})", a[0])
            }
            Op::Atan2 => format!("{}.atan2({})", a[0], a[1]),
            Op::Hypot => format!("{}.hypot({})", a[0], a[1]),
            Op::Min => format!("dstar_min({}, {})", a[0], a[1]),
            Op::Max => format!("dstar_max({}, {})", a[0], a[1]),
            Op::Select(cmp) => {
                format!("if {} {} {} {{ {} }} else {{ {} }}", a[0], cmp.symbol(), a[1], a[2], a[3])
            }
        };
        let _ = writeln!(body, "    let v{} = {expr};", id.index());
    }
    for (k, &id) in outputs.iter().enumerate() {
        let _ = writeln!(body, "    out[{k}] = {};", operand(dag, id));
    }
    let mut s = format!(
        "// Generated by dstar: {num_inputs} inputs, {} outputs, {} operations.\n",
        outputs.len(),
        dag.count_ops(outputs)
    );
    s.push_str(HELPERS);
    if uses_erf {
        s.push_str(ERF);
    }
    let _ = write!(
        s,
        "\n/// Computes the kernel's {} outputs from its {num_inputs} inputs.\n\
         #[allow(unused_variables, unused_parens, clippy::all)]\n\
         pub fn {fn_name}(x: &[f64], out: &mut [f64]) {{\n    \
         assert!(x.len() >= {num_inputs} && out.len() >= {}, \"{fn_name}: x needs {num_inputs} values, out {}\");\n\
         {body}}}\n",
        outputs.len(),
        outputs.len(),
        outputs.len()
    );
    Ok(s)
}

/// How node `id` is referred to: its literal if constant, else its variable.
fn operand(dag: &ExprDag, id: NodeId) -> String {
    match dag.as_const(id) {
        Some(v) => literal(v),
        None => format!("v{}", id.index()),
    }
}

/// A Rust expression for `v` that reads back exactly.
fn literal(v: f64) -> String {
    if v.is_nan() {
        "f64::NAN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "f64::INFINITY" } else { "f64::NEG_INFINITY" }.to_string()
    } else if v.is_sign_negative() {
        format!("({v:?}f64)")
    } else {
        format!("{v:?}f64")
    }
}
