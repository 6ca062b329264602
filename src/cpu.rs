//! Run-time choice of the fast paths.
//!
//! The default build targets its architecture's baseline (on x86-64: no popcnt, no
//! BMI2), so one binary runs on any processor of the architecture. What needs the newer
//! instructions to be fast is the inner loops over a table's slots; [`fast!`] compiles
//! such a loop twice, once with popcnt and BMI2 enabled, and picks a copy each time it
//! runs. It wraps a whole chunk of work, because only code inlined into the enabled copy
//! gains the instructions: a wrapper per `pext` would cost a call each time. For the
//! same reason the helpers a wrapped loop calls are `#[inline(always)]`, closures passed
//! to move generators included: a function called from both copies is otherwise often
//! compiled once, out of line and for the baseline.
//!
//! `pext` and `pdep` are a case apart: AMD processors before Zen 3 (family 0x19) have
//! BMI2 but run them in microcode, at a cost that grows with the set bits of the mask
//! (the index's masks have 15 to 24), many times that of three byte-table lookups. So
//! there the tables serve even inside the enabled copies: `combin::BitOps` reads
//! `fast_pext` once and tests its copy at each call (one predictable branch).
//!
//! `MORRIS_NO_BMI2=1` (any value but empty or `0`) forces the portable path, for tests
//! and comparisons.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

const KNOWN: u8 = 1;
/// The processor has popcnt, BMI1 and BMI2 (and the portable path is not forced).
const FEATURES: u8 = 2;
/// ... and its `pext`/`pdep` are fast.
const FAST_PEXT: u8 = 4;

static STATE: AtomicU8 = AtomicU8::new(0);

/// Whether `bit` is set, detecting the processor on the first call. The set bit is
/// tested first: on the fast path that is one load and one branch.
#[inline(always)]
fn has(bit: u8) -> bool {
    let s = STATE.load(Relaxed);
    s & bit != 0 || (s == 0 && detect() & bit != 0)
}

/// Whether [`fast!`] runs the copy compiled with popcnt and BMI2.
#[inline(always)]
pub fn has_features() -> bool {
    has(FEATURES)
}

/// Whether `pext`/`pdep` should be the instructions rather than byte tables.
#[inline(always)]
pub fn fast_pext() -> bool {
    has(FAST_PEXT)
}

/// Forces the portable path (`true`) or goes back to what the processor allows. Both
/// paths compute the same values, so switching while other threads run only changes
/// their speed.
pub fn force_portable(on: bool) {
    STATE.store(if on { KNOWN } else { 0 }, Relaxed);
}

/// A name for the path in use, for logs and benches.
pub fn describe() -> &'static str {
    match (has_features(), fast_pext()) {
        (true, true) => "popcnt, bmi2 (pext instruction)",
        (true, false) => "popcnt, bmi2 (pext by byte tables)",
        _ => "portable",
    }
}

#[cold]
fn detect() -> u8 {
    let forced = std::env::var_os("MORRIS_NO_BMI2").is_some_and(|v| !v.is_empty() && v != "0");
    let s = KNOWN | if forced { 0 } else { features() };
    STATE.store(s, Relaxed);
    s
}

#[cfg(target_arch = "x86_64")]
fn features() -> u8 {
    if !(is_x86_feature_detected!("popcnt") && is_x86_feature_detected!("bmi1") && is_x86_feature_detected!("bmi2")) {
        return 0;
    }
    FEATURES | if microcoded_pext() { 0 } else { FAST_PEXT }
}

#[cfg(not(target_arch = "x86_64"))]
fn features() -> u8 {
    0
}

/// AMD before Zen 3, and Hygon's Zen 1 derivative, whose `pext`/`pdep` are microcode.
#[cfg(target_arch = "x86_64")]
fn microcoded_pext() -> bool {
    use std::arch::x86_64::__cpuid;
    let v = __cpuid(0);
    let mut vendor = [0u8; 12];
    for (k, r) in [v.ebx, v.edx, v.ecx].into_iter().enumerate() {
        vendor[4 * k..4 * k + 4].copy_from_slice(&r.to_le_bytes());
    }
    let eax = __cpuid(1).eax;
    let base = eax >> 8 & 0xf;
    let family = if base == 0xf { base + (eax >> 20 & 0xff) } else { base };
    (&vendor == b"AuthenticAMD" || &vendor == b"HygonGenuine") && family < 0x19
}

/// Asks the CPU to start loading the cache line holding `at`.
#[inline(always)]
pub fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        std::arch::x86_64::_mm_prefetch(at as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// Calls `f` in code compiled with popcnt and BMI2. Only for [`fast!`]. `#[inline]`
/// puts a copy in the caller's codegen unit, next to the closure it must absorb.
#[doc(hidden)]
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
#[inline]
pub fn with_features<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Evaluates an expression (typically the loop over one chunk of slots) in a copy
/// compiled with popcnt and BMI2 when the processor has them, else as written. The
/// expression is expanded twice, once into a closure: a `return` or `?` in it would
/// leave that closure, not the caller.
#[macro_export]
#[doc(hidden)]
macro_rules! __fast {
    ($body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        let r = if $crate::cpu::has_features() {
            // SAFETY: the processor has the features (checked at run time).
            unsafe {
                $crate::cpu::with_features(
                    #[inline(always)]
                    || $body,
                )
            }
        } else {
            $body
        };
        #[cfg(not(target_arch = "x86_64"))]
        let r = $body;
        r
    }};
}
#[doc(inline)]
pub use __fast as fast;

/// CPU seconds (user and system) this process has used so far; 0 where the system does
/// not say. A long run shares its machine with other work: its wall time then says
/// little of its own cost, and its CPU time says more.
pub fn process_seconds() -> f64 {
    #[cfg(unix)]
    {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } == 0 {
            let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
            return t(u.ru_utime) + t(u.ru_stime);
        }
    }
    0.0
}
