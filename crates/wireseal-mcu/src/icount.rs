//! Instruction counts under QEMU's `-icount shift=6`.
//!
//! With `-icount shift=N` QEMU's virtual clock advances exactly 2^N ns per
//! executed guest instruction, and device timers run on that clock. The
//! `mps2-an386` CMSDK APB timer 0 (at `0x4000_0000`) is clocked at 25 MHz
//! (40 ns a tick), so at `shift=6` (64 ns an instruction) it advances
//! 64 / 40 = 1.6 ticks per instruction: instructions = ticks × 5 / 8.
//!
//! QEMU ends a translation block at an instruction that touches a device, so
//! the count is exact at each timer read. Error bars: the timer counts whole
//! ticks (0.625 instruction each), so a reading is within ±1 instruction; the
//! constant cost of the reads themselves is measured by [`calibrate`] and
//! subtracted. [`self_test`] checks all this against a loop whose instruction
//! count is known, so a run outside `scripts/qemu-run.sh` (no `-icount`, real
//! time instead of instructions) fails instead of reporting nonsense.
//!
//! Instructions are a lower bound on Cortex-M4 cycles: loads, taken branches,
//! multiplies-with-accumulate of 64 bits and flash wait states cost more than
//! one cycle on silicon.

use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicU32, Ordering};

const TIMER0: usize = 0x4000_0000;
const CTRL: *mut u32 = TIMER0 as *mut u32;
const VALUE: *mut u32 = (TIMER0 + 0x04) as *mut u32;
const RELOAD: *mut u32 = (TIMER0 + 0x08) as *mut u32;

/// The `-icount shift` the runner passes.
pub const SHIFT: u32 = 6;
/// The CMSDK timer's clock on `mps2-an386`.
pub const TIMER_HZ: u32 = 25_000_000;

/// Ticks of the CMSDK timer between the two reads of an empty measurement.
static OVERHEAD_TICKS: AtomicU32 = AtomicU32::new(0);

/// Starts timer 0 counting down from `u32::MAX` (no interrupt). Called by
/// [`calibrate`]; the count wraps after 2^32 ticks (2.68 G instructions).
pub fn start() {
    // SAFETY: TIMER0 is the mps2-an386 CMSDK APB timer's register bank; these
    // are word writes to its RELOAD, VALUE and CTRL registers.
    unsafe {
        write_volatile(CTRL, 0);
        write_volatile(RELOAD, u32::MAX);
        write_volatile(VALUE, u32::MAX);
        write_volatile(CTRL, 1);
    }
}

/// The timer's current value (it counts down).
#[inline(always)]
pub fn ticks() -> u32 {
    // SAFETY: a word read of the CMSDK timer's VALUE register.
    unsafe { read_volatile(VALUE) }
}

/// Instructions in `ticks` timer ticks, rounded to the nearest.
pub const fn ticks_to_instructions(ticks: u32) -> u32 {
    // ticks / 1.6 = ticks * 5 / 8, in u64 so nothing overflows.
    ((ticks as u64 * 5 + 4) / 8) as u32
}

/// Reads the timer for [`measure`] and [`calibrate`]: one out-of-line
/// function, so the instructions around the read are the same at every
/// call. `plugin/insn_count.c` counts the instructions between its calls,
/// the second method that `scripts/icount-crosscheck.sh` compares with this
/// one.
#[no_mangle]
#[inline(never)]
pub extern "C" fn wsmcu_icount_read() -> u32 {
    ticks()
}

/// `f`'s result and the timer ticks between the reads around it. Built
/// with `WIRESEAL_MCU_ICOUNT_TRACE` set, it prints each window as
/// `icount-timer N` (instructions, nothing subtracted) for the cross-check.
#[inline(always)]
fn window<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let t0 = wsmcu_icount_read();
    let r = core::hint::black_box(f());
    let t1 = wsmcu_icount_read();
    let raw = t0.wrapping_sub(t1);
    if option_env!("WIRESEAL_MCU_ICOUNT_TRACE").is_some() {
        cortex_m_semihosting::hprintln!("icount-timer {}", ticks_to_instructions(raw));
    }
    (r, raw)
}

/// Runs `f` and returns its result with the instructions it executed (the
/// calibrated cost of the measurement itself subtracted).
#[inline(never)]
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let (r, raw) = window(f);
    let net = raw.saturating_sub(OVERHEAD_TICKS.load(Ordering::Relaxed));
    (r, ticks_to_instructions(net))
}

/// Starts the timer and measures the cost of an empty measurement, which
/// [`measure`] subtracts from then on.
pub fn calibrate() {
    start();
    let mut least = u32::MAX;
    for _ in 0..8 {
        least = least.min(window(|| ()).1);
    }
    OVERHEAD_TICKS.store(least, Ordering::Relaxed);
}

/// Executes exactly `2 * n` instructions (`subs`/`bne`, `n` ≥ 1), plus the
/// move of `n` into a register.
#[inline(always)]
pub fn known_loop(n: u32) {
    // SAFETY: a register-only countdown loop; touches no memory or stack.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {n}, {n}, #1",
            "bne 2b",
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

/// The reading of [`measure`] around [`known_loop`]`(n)` minus `2 * n`: the
/// constant the loop adds (its setup), for [`self_test`].
pub fn loop_excess(n: u32) -> i64 {
    let n = core::hint::black_box(n);
    let ((), got) = measure(|| known_loop(n));
    i64::from(got) - 2 * i64::from(n)
}

/// Checks the method: loops of 1, 1 000, 100 000 and 10 000 000 iterations
/// must read as `2n + c` with the same small `c` (±1) for every `n`.
/// Returns `c`, or `Err((n, excess))` for the first loop that disagrees.
pub fn self_test() -> Result<i64, (u32, i64)> {
    let base = loop_excess(1);
    if !(0..=8).contains(&base) {
        return Err((1, base));
    }
    for n in [1_000u32, 100_000, 10_000_000] {
        let e = loop_excess(n);
        if (e - base).abs() > 1 {
            return Err((n, e));
        }
    }
    Ok(base)
}
