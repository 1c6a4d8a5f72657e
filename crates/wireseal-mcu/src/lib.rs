//! Test-firmware support for the emulated Cortex-M4F (QEMU `mps2-an386`):
//! the peripherals the firmware touches live here, never in the library.
//!
//! - [`icount`]: instruction counts read from the CMSDK APB timer, which
//!   advances with executed instructions under `-icount shift=6`.
//! - [`stack`]: peak stack of an operation, by painting the free stack.
//! - [`trace`]: the marker around operations whose executed and touched
//!   addresses `plugin/trace_hash.c` fingerprints (constant-time check).
//! - [`harness`]: named test groups, the closing `N passed, M failed` line
//!   and the semihosting exit code.
//! - Panics, HardFaults and stray interrupts print what happened and end the
//!   run as failed.
//! - [`parts`]: each part of the library's portable core called once, for
//!   the flash figures; the only module built for other targets (wasm32).
#![no_std]

#[cfg(target_arch = "arm")]
pub mod fault;
#[cfg(target_arch = "arm")]
pub mod harness;
#[cfg(target_arch = "arm")]
pub mod icount;
pub mod parts;
#[cfg(target_arch = "arm")]
pub mod stack;
#[cfg(target_arch = "arm")]
pub mod trace;

#[cfg(target_arch = "arm")]
pub use cortex_m_semihosting::{hprint, hprintln};

/// Instructions and peak stack of one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Instructions executed (see [`icount`] for the error bars).
    pub instructions: u32,
    /// Peak stack in bytes below the caller's frame (see [`stack`]).
    pub stack: u32,
}

#[cfg(target_arch = "arm")]
/// Runs `op` twice: once timed for [`icount::measure`], once on a painted
/// stack for [`stack::peak`]. `op` must do the same work both times.
pub fn cost<R>(mut op: impl FnMut() -> R) -> Cost {
    let instructions = icount::measure(&mut op).1;
    let stack = stack::peak(&mut op).1;
    Cost {
        instructions,
        stack,
    }
}
