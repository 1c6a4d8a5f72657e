//! A wasm32 module exporting the library's portable parts through a C ABI,
//! to prove they link for `wasm32-unknown-unknown` with no imports at all
//! (no allocator, no OS randomness). Built by `scripts/wasm-check.sh`.
#![no_std]
#![no_main]

use wireseal_mcu::parts;

/// Seals and opens a Meshtastic PKC packet in `buf`; returns its length.
///
/// # Safety
///
/// `buf` points to 64 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_pkc(buf: *mut [u8; 64]) -> usize {
    // SAFETY: the caller's contract above.
    parts::pkc(unsafe { &mut *buf })
}

/// Decrypts a channel payload in `buf`; returns its length.
///
/// # Safety
///
/// `buf` points to 64 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_channel(buf: *mut [u8; 64]) -> usize {
    // SAFETY: the caller's contract above.
    parts::channel(unsafe { &mut *buf })
}

/// Seals and opens a peat mesh-wide frame in `frame`; returns its length.
///
/// # Safety
///
/// `frame` points to 128 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_peat(frame: *mut [u8; 128]) -> usize {
    // SAFETY: the caller's contract above.
    parts::peat(unsafe { &mut *frame })
}

/// 1 when `sig` verifies (see `parts::xeddsa_verify`).
///
/// # Safety
///
/// `sig` points to 64 bytes.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_xeddsa_verify(sig: *const [u8; 64]) -> i32 {
    // SAFETY: the caller's contract above.
    i32::from(parts::xeddsa_verify(unsafe { &*sig }))
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
