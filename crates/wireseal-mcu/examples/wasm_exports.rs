//! A wasm32 module exporting the portable operations through a C ABI, to
//! prove they link for `wasm32-unknown-unknown` with no imports at all (no
//! allocator, no OS randomness). Built by `scripts/wasm-check.sh`.
#![no_std]
#![no_main]

use wireseal_mcu::ops::{meshtastic as mesh, peat, xeddsa};

/// Opens a Meshtastic PKC payload in place; returns the plaintext length or
/// -1.
///
/// # Safety
///
/// `our`/`theirs` point to 32 bytes; `payload` to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_pkc_open(
    our: *const [u8; 32],
    theirs: *const [u8; 32],
    from: u32,
    packet_id: u32,
    payload: *mut u8,
    len: usize,
) -> i32 {
    // SAFETY: the caller's contract above.
    let (our, theirs, buf) = unsafe {
        (
            &*our,
            &*theirs,
            core::slice::from_raw_parts_mut(payload, len),
        )
    };
    let Some(key) = mesh::shared_key(our, theirs) else {
        return -1;
    };
    mesh::pkc_open(&mesh::ccm(&key), from, packet_id, buf).map_or(-1, |n| n as i32)
}

/// Opens a peat mesh-wide frame in place; returns the plaintext length or
/// -1 (the plaintext starts at byte 14).
///
/// # Safety
///
/// `key` points to 32 bytes; `frame` to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_peat_open(key: *const [u8; 32], frame: *mut u8, len: usize) -> i32 {
    // SAFETY: the caller's contract above.
    let (key, frame) = unsafe { (&*key, core::slice::from_raw_parts_mut(frame, len)) };
    peat::open(&peat::cipher(key), frame).map_or(-1, |r| r.len() as i32)
}

/// 1 when `sig` is a valid XEdDSA signature of `msg` by X25519 key `public`.
///
/// # Safety
///
/// `public` points to 32 bytes, `sig` to 64, `msg` to `len`.
#[no_mangle]
pub unsafe extern "C" fn wsmcu_xeddsa_verify(
    public: *const [u8; 32],
    msg: *const u8,
    len: usize,
    sig: *const [u8; 64],
) -> i32 {
    // SAFETY: the caller's contract above.
    let (public, msg, sig) = unsafe { (&*public, core::slice::from_raw_parts(msg, len), &*sig) };
    xeddsa::VerifyingKey::from_x25519(public).is_some_and(|k| k.verify(msg, sig)) as i32
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
