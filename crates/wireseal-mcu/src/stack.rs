//! Peak stack of an operation, by stack painting.
//!
//! [`peak`] fills the free RAM between the end of `.bss` (cortex-m-rt's
//! `__sheap`) and its own frame with a pattern, runs the operation, and
//! finds the lowest word that no longer holds the pattern. The figure is the
//! distance from [`peak`]'s frame to that word, so it counts the operation's
//! frames and the call into it (a few words), and is exact to the word unless
//! the operation happens to write the pattern itself at its deepest point.
//! Reaching the end of `.bss` is reported as an overflow.

use core::ptr::{addr_of, read_volatile, write_volatile};

/// The paint: unlikely as data, and not a valid Thumb return address.
const PAINT: u32 = 0xC5AC_CE55;
/// Words left unpainted just below [`peak`]'s own frame.
const MARGIN: usize = 16;

extern "C" {
    /// End of `.bss`/`.uninit` (start of the unused RAM), from cortex-m-rt.
    static __sheap: u32;
}

/// Peak stack of `f` in bytes below the caller's frame, with its result.
///
/// # Panics
///
/// When `f` used every free byte down to the end of `.bss`: the stack
/// overflowed into static data.
#[inline(never)]
pub fn peak<R>(f: impl FnOnce() -> R) -> (R, u32) {
    let sp = cortex_m::register::msp::read() as usize;
    let lo = (addr_of!(__sheap) as usize + 3) & !3;
    let hi = (sp & !3) - 4 * MARGIN;
    let mut a = lo;
    while a < hi {
        // SAFETY: [lo, hi) is free RAM below the live stack (interrupts are
        // never enabled in this firmware), word aligned.
        unsafe { write_volatile(a as *mut u32, PAINT) };
        a += 4;
    }
    let r = core::hint::black_box(f());
    let mut a = lo;
    // SAFETY: reads of the same free RAM.
    while a < hi && unsafe { read_volatile(a as *const u32) } == PAINT {
        a += 4;
    }
    assert!(
        a > lo,
        "stack overflow: the operation reached the end of .bss"
    );
    (r, (sp - a) as u32)
}

/// Free stack in bytes at the caller: from the current stack pointer down to
/// the end of `.bss`.
pub fn free() -> u32 {
    let sp = cortex_m::register::msp::read() as usize;
    (sp - addr_of!(__sheap) as usize) as u32
}
