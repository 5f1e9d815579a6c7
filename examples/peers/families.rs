//! What the `structured` and `scale` sections share: the problem files of
//! `gen.py`, a problem's kernels served by a child per size, comparisons of
//! sparse derivatives, and the machine's load.

use crate::serve::{Kind, Served};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `gen.py` of the shared problems: `$DSTAR_GEN`, or `../shared/structured/gen.py`
/// beside the repository.
pub fn gen_script() -> PathBuf {
    std::env::var_os("DSTAR_GEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/structured/gen.py"))
}

/// Writes `gen.py FAMILY N [--flat]` into `dir`; `Err` says why not.
pub fn generate(dir: &Path, family: &str, n: usize, flat: bool) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{family}_{n}{}.dstar", if flat { "_flat" } else { "" }));
    if path.exists() {
        return Ok(path);
    }
    let script = gen_script();
    let mut command = Command::new("python3");
    command.arg(&script).arg(family).arg(n.to_string());
    if flat {
        command.arg("--flat");
    }
    let out = command.output().map_err(|e| format!("python3 {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!("{} failed: {}", script.display(), String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::write(&path, out.stdout).map_err(|e| e.to_string())?;
    Ok(path)
}

/// The load averages of `/proc/loadavg` (1, 5, 15 minutes), as printed there.
pub fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let fields: Vec<&str> = text.split_whitespace().take(3).collect();
    if fields.is_empty() {
        "?".to_string()
    } else {
        fields.join(" ")
    }
}

/// One problem file's kernels, served by a child process.
pub struct Case {
    /// `structured` or `flat`.
    pub form: &'static str,
    pub n: usize,
    /// Repetitions (intervals, data points, cells, rows) the per-unit times divide by.
    pub units: f64,
    pub path: PathBuf,
    pub served: Served,
}

impl Case {
    /// Generates `family` at `n` and starts its child; prints why not and
    /// gives `None` when either fails.
    pub fn start(
        dir: &Path,
        family: &str,
        n: usize,
        flat: bool,
        kinds: &[Kind],
        pin: Option<&str>,
    ) -> Option<Case> {
        let form = if flat { "flat" } else { "structured" };
        let started = generate(dir, family, n, flat)
            .and_then(|path| Served::start(&path, kinds, pin).map(|served| (path, served)));
        match started {
            Ok((path, served)) => Some(Case { form, n, units: units(family, n), path, served }),
            Err(why) => {
                println!("{family} {n} {form}: skipped: {why}");
                None
            }
        }
    }

    pub fn label(&self) -> String {
        format!("{} {}", self.form, self.n)
    }
}

/// The repetitions of `family` at size `n`: intervals, data points, grid
/// cells, or rows of the dense program.
pub fn units(family: &str, n: usize) -> f64 {
    match family {
        "minsurf" => ((n - 1) * (n - 1)) as f64,
        _ => n as f64,
    }
}

/// The name of [`units`] for `family`.
pub fn unit_name(family: &str) -> &'static str {
    match family {
        "cartpole" => "interval",
        "fit" | "gmm" => "point",
        "minsurf" => "cell",
        _ => "row",
    }
}

/// The largest relative difference between two sparse matrices given as
/// `(row, col, value)`, a missing entry reading 0 (relative to
/// `max(1, |a|, |b|)`).
pub fn sparse_difference(
    a: impl IntoIterator<Item = (usize, usize, f64)>,
    b: impl IntoIterator<Item = (usize, usize, f64)>,
) -> f64 {
    let mut entries: HashMap<(usize, usize), (f64, f64)> = HashMap::new();
    for (r, c, v) in a {
        entries.entry((r, c)).or_default().0 += v;
    }
    for (r, c, v) in b {
        entries.entry((r, c)).or_default().1 += v;
    }
    entries.values().map(|&(p, q)| (p - q).abs() / p.abs().max(q.abs()).max(1.0)).fold(0.0, f64::max)
}

/// The derivative block of a served kernel's output at its point, as
/// `(row, col, value)`: the last values of the output, one per position.
pub fn derivative_entries(out: &[f64], positions: &[(usize, usize)]) -> Vec<(usize, usize, f64)> {
    let values = &out[out.len() - positions.len()..];
    positions.iter().zip(values).map(|(&(r, c), &v)| (r, c, v)).collect()
}

/// ms as s with two decimals, or µs as ms, whichever reads better.
pub fn ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1e3)
    } else {
        format!("{ms:.0} ms")
    }
}

/// ns as µs.
pub fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1e3)
}
