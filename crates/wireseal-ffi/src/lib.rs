//! C ABI of wireseal's portable core, for firmware.
//!
//! Every function returns a [`WsStatus`] (`WS_STATUS_OK` or the library's
//! error kind, plus the three failures only a C caller can cause:
//! `WS_STATUS_NULL_POINTER`, `WS_STATUS_BAD_MEMORY`, `WS_STATUS_RNG_FAILED`)
//! and writes results through out-parameters. Nothing allocates: state
//! lives in memory the caller provides, of the sizes the `WS_*_BYTES`
//! constants give, aligned to `WS_ALIGN`. Those sizes are per target: on a
//! bare-metal Arm build (`target_os = "none"`; the header's
//! `WS_TARGET_BARE_ARM`) each block is its value's size in whole words
//! plus the magic word, elsewhere a size every host configuration fits;
//! the crate does not compile if a value outgrows its block. Randomness comes from the
//! caller's [`WsFillRandom`] (a microcontroller's RNG peripheral).
//!
//! Every pointer is checked for NULL and every length against its buffer
//! before any byte is read, and every output against every other argument
//! for overlap; a failure writes nothing the caller could mistake for
//! output (out-buffers of a failed open or seal are wiped). A state block's
//! magic word is read through its raw pointer before any reference to the
//! block is made.
//! The header `include/wireseal.h` is generated from this crate by
//! cbindgen; `tests/ffi/header.rs` fails when it is stale.
#![cfg_attr(all(not(feature = "std"), not(test)), no_std)]

mod channel;
mod memory;
mod peat;
mod pkc;
mod rng;
mod status;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_aliasing;
#[cfg(test)]
mod tests_xeddsa;
mod xeddsa;

pub use channel::*;
pub use peat::*;
pub use pkc::*;
pub use rng::WsFillRandom;
pub use status::*;
pub use xeddsa::*;

/// Alignment of every block of caller memory (engine, slots, keys).
pub const WS_ALIGN: usize = 8;

/// The library's version, `"MAJOR.MINOR.PATCH"`, a static NUL-terminated
/// string: what a firmware logs at start-up to say which build it links.
#[no_mangle]
pub extern "C" fn ws_version() -> *const core::ffi::c_char {
    const V: &core::ffi::CStr = match core::ffi::CStr::from_bytes_with_nul(
        concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
    ) {
        Ok(v) => v,
        Err(_) => panic!("the version holds no NUL"),
    };
    V.as_ptr()
}

#[cfg(all(not(feature = "std"), not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // No input reaches a panic (every length is checked first); should an
    // invariant break, stop here rather than continue with bad state.
    loop {
        core::hint::spin_loop();
    }
}
