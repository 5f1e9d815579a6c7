//! The memory guard: the global allocator counts the bytes in use, and a
//! process about to pass its limit stops with a clear error (which stage,
//! how much, what avoids it) instead of swapping or being killed.
//!
//! The limit is `--memory-limit` or `DSTAR_MEMORY_LIMIT` (`8G`, `500M`,
//! bytes), else nine tenths of the memory this process may use (the
//! cgroup's `memory.max` where one is set, else `MemTotal`). The stage is
//! what the command's progress names ([`stage`]).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

/// A global allocator that counts the bytes `A` hands out and stops the
/// process past the limit.
pub struct Guarded<A>(pub A);

/// Bytes in use, as the threads last reported them (each holds back less
/// than [`REPORT`]; one thread may free what another counted, so it may dip
/// below 0).
static IN_USE: AtomicI64 = AtomicI64::new(0);

/// What a thread counts before it reports: one shared counter updated at
/// every allocation cost the symbolic stages a fifth of their time, the
/// threads taking its cache line from each other.
const REPORT: i64 = 1 << 20;

thread_local! {
    /// This thread's bytes not reported yet.
    static UNREPORTED: Cell<i64> = const { Cell::new(0) };
}
/// Has mimalloc keep freed memory for a second before it gives it back to
/// the system, where its default is 10 ms. A large model's set-up grows
/// vectors and tables by doubling and frees the old ones; given back at
/// once, the memory is faulted in again by the next allocation.
/// Cart-pole at 10^5 intervals, text to compiled Jacobian and Hessian:
/// 230 K page faults against 176 K, and set-up 1.77 s against 1.70 s
/// (medians of 6, alternating), peak 690 MB against 707 MB.
pub fn purge_later() {
    /// `mi_option_purge_delay` in mimalloc 2's `mimalloc.h` (the crate
    /// names only some of the options).
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: sets an option, which mimalloc reads when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 1000) }
}

/// 0: no limit (before [`set_limit`], and while stopping).
static LIMIT: AtomicU64 = AtomicU64::new(0);
/// The stage named last; locked only to name one and to report.
static STAGE: Mutex<&str> = Mutex::new("working");

/// Names the stage the process is in, for the guard's message.
pub fn stage(name: &'static str) {
    if let Ok(mut stage) = STAGE.lock() {
        *stage = name;
    }
}

/// Sets the limit in bytes.
pub fn set_limit(bytes: u64) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// The default limit: nine tenths of the memory this process may use.
pub fn default_limit() -> Option<u64> {
    let cgroup: Option<u64> =
        std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok().and_then(|t| t.trim().parse().ok());
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: u64 =
            line.trim_start_matches("MemTotal:").trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kb * 1024)
    });
    let available: Option<u64> = match (cgroup, total) {
        (Some(c), Some(t)) => Some(c.min(t)),
        (c, t) => c.or(t),
    };
    available.map(|bytes| bytes / 10 * 9)
}

/// Reads `8G`, `500M`, `64K` or a number of bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit() && *c != '.') {
        Some((i, _)) => (&text[..i], text[i..].trim()),
        None => (text, ""),
    };
    let scale: u64 = match unit.to_ascii_uppercase().trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("'{text}' is not a size: a number of bytes, or with K, M, G or T")),
    };
    let value: f64 =
        digits.parse().map_err(|_| format!("'{text}' is not a size: a number with K, M, G or T"))?;
    let bytes = value * scale as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(format!("'{text}' is not a size this machine can have"));
    }
    Ok(bytes as u64)
}

unsafe impl<A: GlobalAlloc> GlobalAlloc for Guarded<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        // SAFETY: the caller's contract is `A`'s.
        unsafe { self.0.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as i64);
        // SAFETY: as for `alloc`.
        unsafe { self.0.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as i64));
        // SAFETY: as for `alloc`.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as i64 - layout.size() as i64);
        // SAFETY: as for `alloc`.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

/// Counts `bytes` more (fewer, when negative), reporting this thread's
/// count once it reaches [`REPORT`] either way; past the limit, stops the
/// process.
fn count(bytes: i64) {
    let report = UNREPORTED.try_with(|unreported| {
        let held = unreported.get() + bytes;
        let due = held.abs() >= REPORT;
        unreported.set(if due { 0 } else { held });
        due.then_some(held)
    });
    let delta = match report {
        Ok(Some(held)) => held,
        Ok(None) => return,
        // The thread is exiting: report at once.
        Err(_) => bytes,
    };
    let now = IN_USE.fetch_add(delta, Ordering::Relaxed) + delta;
    let limit = LIMIT.load(Ordering::Relaxed);
    if delta > 0 && limit != 0 && now > 0 && now as u64 > limit {
        stop(now as u64, limit);
    }
}

/// Writes the guard's message without allocating, and exits with status 3.
#[cold]
fn stop(now: u64, limit: u64) -> ! {
    // The first thread over the limit reports; allocations after this one
    // (the exit's own) are not counted against it.
    if LIMIT.swap(0, Ordering::Relaxed) == 0 {
        loop {
            std::thread::park();
        }
    }
    let stage = STAGE.lock().map_or("working", |stage| *stage);
    let mut buffer = [0u8; 512];
    let mut out = std::io::Cursor::new(&mut buffer[..]);
    let _ = write!(
        out,
        "error: out of memory while {stage}: {} in use would pass the limit of {}.\n\
         Ask for less (a Jacobian instead of a Hessian, fewer outputs) or a smaller problem, \
         or set the limit with --memory-limit SIZE or DSTAR_MEMORY_LIMIT=SIZE (8G, 500M).\n",
        Size(now),
        Size(limit)
    );
    let written = out.position() as usize;
    let _ = std::io::stderr().write_all(&buffer[..written]);
    std::process::exit(3)
}

/// Bytes as `1.5 GB`, `20.0 MB` or `512 bytes`, without allocating.
struct Size(u64);

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = self.0 as f64;
        match self.0 {
            n if n >= 1 << 30 => write!(f, "{:.1} GB", b / (1u64 << 30) as f64),
            n if n >= 1 << 20 => write!(f, "{:.1} MB", b / (1u64 << 20) as f64),
            n => write!(f, "{n} bytes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("8G"), Ok(8 << 30));
        assert_eq!(parse_size("500M"), Ok(500 << 20));
        assert_eq!(parse_size("1.5GB"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1G").is_err());
        assert_eq!(Size(3 << 29).to_string(), "1.5 GB");
    }
}
