//! A no_std staticlib with one C entry point, to prove the C harness links
//! Rust: an FNV-1a hash over a caller's buffer, checked in `../main.c`.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

/// FNV-1a (32-bit) of `len` bytes at `data`; 0x811c9dc5 for `len == 0`.
///
/// # Safety
///
/// `data` must point to `len` readable bytes (it may be null when `len` is
/// 0).
#[no_mangle]
pub unsafe extern "C" fn wsmcu_fnv1a(data: *const u8, len: usize) -> u32 {
    let bytes: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: the caller promises `len` readable bytes at `data`.
        unsafe { core::slice::from_raw_parts(data, len) }
    };
    bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

extern "C" {
    /// The C side's fatal-error exit (prints and ends the run as failed).
    fn wsmcu_abort(reason: *const core::ffi::c_char) -> !;
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: the C harness defines `wsmcu_abort`; the string is
    // NUL-terminated.
    unsafe { wsmcu_abort(c"rust panic".as_ptr()) }
}
