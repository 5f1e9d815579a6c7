//! Emitted Rust compiled with the `rustc` of the toolchain running the
//! tests and run: shared by the tests of emitted Rust.

use std::path::PathBuf;
use std::process::Command;

/// The function of a generated `main` that runs one kernel at one point:
/// `run(case, point, kernel, input bits, output length)` prints the line
/// `case point bits...` that [`compile_and_run`] reads.
pub const RUN: &str =
    "fn run(case: usize, point: usize, kernel: fn(&[f64], &mut [f64]), bits: &[u64], len: usize) {
    let x: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
    let mut out = vec![0.0; len];
    kernel(&x, &mut out);
    let out: Vec<String> = out.iter().map(|v| format!(\"{:x}\", v.to_bits())).collect();
    println!(\"{case} {point} {}\", out.join(\" \"));
}\n\n";

/// The `rustc` of the toolchain running the tests.
fn rustc() -> PathBuf {
    if let Some(rustc) = std::env::var_os("RUSTC") {
        return rustc.into();
    }
    let beside_cargo =
        PathBuf::from(env!("CARGO")).with_file_name(format!("rustc{}", std::env::consts::EXE_SUFFIX));
    if beside_cargo.is_file() {
        beside_cargo
    } else {
        "rustc".into()
    }
}

/// Compiles `src` (as `NAME.rs` in a scratch directory) and runs it; returns
/// its output lines as (case, point, values).
pub fn compile_and_run(name: &str, src: &str) -> Vec<(usize, usize, Vec<f64>)> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("emit_rust");
    std::fs::create_dir_all(&dir).unwrap();
    let (file, exe) =
        (dir.join(format!("{name}.rs")), dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX)));
    std::fs::write(&file, src).unwrap();
    let status = Command::new(rustc())
        .args(["--edition", "2021", "-O", "-o"])
        .arg(&exe)
        .arg(&file)
        .status()
        .expect("run rustc");
    assert!(status.success(), "rustc failed on {}", file.display());
    let output = Command::new(&exe).output().expect("run the compiled kernels");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let mut words = line.split(' ');
            let mut index = || words.next().unwrap().parse::<usize>().unwrap();
            let (case, point) = (index(), index());
            // A kernel of no outputs prints none (after a trailing space).
            let values = words.filter(|w| !w.is_empty());
            let values = values.map(|w| f64::from_bits(u64::from_str_radix(w, 16).unwrap())).collect();
            (case, point, values)
        })
        .collect()
}
