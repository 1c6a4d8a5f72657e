//! peat-btle mesh-wide frames.

use crate::memory::{array, bytes, bytes_mut, disjoint, opaque, Region};
use crate::rng::{CallbackRng, WsFillRandom};
use crate::status::{first_error, written};
use crate::WsStatus;
use core::ffi::c_void;
use wireseal::peat::{MeshId, MeshKey, MESH_HEADER_LEN, MESH_OVERHEAD};

/// 64-bit words after the magic word in a `ws_mesh_key`.
pub const WS_MESH_KEY_WORDS: usize = WS_MESH_KEY_BYTES / 8 - 1;
/// Bytes of a `ws_mesh_key` (the same on every target).
pub const WS_MESH_KEY_BYTES: usize = 40;
/// Bytes a mesh-wide frame adds to its document.
pub const WS_MESH_OVERHEAD: usize = 30;

const _: () = assert!(WS_MESH_OVERHEAD == MESH_OVERHEAD);

/// A mesh-wide key (ChaCha20-Poly1305, derived from the mesh's id and
/// shared secret).
#[repr(C)]
pub struct WsMeshKey {
    pub(crate) magic: u64,
    pub(crate) body: [u64; WS_MESH_KEY_WORDS],
}

opaque!(WsMeshKey, MeshKey, WS_MESH_KEY_BYTES, 0x7773_6d65_7368_6b79);

/// Derives the key of the mesh `mesh_id` (`mesh_id_len` bytes of text, the
/// id peat-btle shows) from its 32-byte shared secret.
///
/// # Errors
/// `NULL_POINTER`, `INVALID_INPUT` (an id that is not a peat mesh id).
///
/// # Safety
/// `key` points to a writable `ws_mesh_key`; `mesh_id` to `mesh_id_len`
/// bytes; `secret` to 32.
#[no_mangle]
pub unsafe extern "C" fn ws_mesh_key_init(
    key: *mut WsMeshKey,
    mesh_id: *const u8,
    mesh_id_len: usize,
    secret: *const u8,
) -> WsStatus {
    if key.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(
        &[Region::of(key)],
        &[Region(mesh_id, mesh_id_len), Region(secret, 32)],
    ) {
        return e;
    }
    // SAFETY: per the contract above.
    let (id, secret) = match unsafe { (bytes(mesh_id, mesh_id_len), array::<32>(secret)) } {
        (Ok(i), Ok(s)) => (i, s),
        (i, s) => return first_error([i.err(), s.err(), None, None]),
    };
    let Some(id) = core::str::from_utf8(id)
        .ok()
        .and_then(|t| t.parse::<MeshId>().ok())
    else {
        return WsStatus::InvalidInput;
    };
    // SAFETY: non-NULL, aligned, writable.
    unsafe { WsMeshKey::init(key, MeshKey::derive(&id, secret)) };
    WsStatus::Ok
}

/// Wipes `key`. NULL is ignored.
///
/// # Safety
/// `key` is NULL or set up by `ws_mesh_key_init` (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn ws_mesh_key_deinit(key: *mut WsMeshKey) {
    // SAFETY: forwarded contract.
    unsafe { WsMeshKey::deinit(key) };
}

/// Seals `plaintext` into a mesh-wide frame in `out` (`out_cap` bytes, at
/// least `plaintext_len + WS_MESH_OVERHEAD`) with a 12-byte nonce from
/// `fill_random`; writes the frame length to `out_len`.
///
/// # Errors
/// `NULL_POINTER`, `STATE`, `BUFFER_TOO_SMALL`, `INVALID_INPUT`
/// (overlapping buffers), `RNG_FAILED` (`out` wiped).
///
/// # Safety
/// `key` as in `ws_mesh_key_deinit`; other pointers valid for their lengths.
#[no_mangle]
pub unsafe extern "C" fn ws_mesh_seal(
    key: *const WsMeshKey,
    fill_random: WsFillRandom,
    rng_ctx: *mut c_void,
    plaintext: *const u8,
    plaintext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> WsStatus {
    if let Err(e) = disjoint(
        &[Region(out, out_cap), Region::of(out_len)],
        &[Region::of(key), Region(plaintext, plaintext_len)],
    ) {
        return e;
    }
    // SAFETY: per the contract above (the key is only read); `plaintext`
    // and `out` do not overlap (checked above).
    let (k, pt, out) = unsafe {
        match (
            WsMeshKey::get_ref(key),
            bytes(plaintext, plaintext_len),
            bytes_mut(out, out_cap),
        ) {
            (Ok(k), Ok(p), Ok(o)) => (k, p, o),
            (k, p, o) => return first_error([k.err(), p.err(), o.err(), None]),
        }
    };
    let Some(mut rng) = CallbackRng::new(fill_random, rng_ctx) else {
        return WsStatus::NullPointer;
    };
    let sealed = k.seal_with_rng_into(&mut rng, pt, out);
    // SAFETY: `out_len` is NULL or a writable `size_t`.
    unsafe { written(rng.vouch(sealed, out), out_len) }
}

/// Verifies and decrypts the `len`-byte mesh-wide `frame` in place; the
/// document is then `frame[WS_MESH_HEADER_LEN .. WS_MESH_HEADER_LEN +
/// *plaintext_len]`. On failure the frame's ciphertext is wiped.
///
/// # Errors
/// `NULL_POINTER`, `STATE`, `MALFORMED` (wrong marker), `TRUNCATED`, `AUTH`.
///
/// # Safety
/// `key` as in `ws_mesh_key_deinit`; `frame` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_mesh_open_in_place(
    key: *const WsMeshKey,
    frame: *mut u8,
    len: usize,
    plaintext_len: *mut usize,
) -> WsStatus {
    if let Err(e) = disjoint(
        &[Region(frame, len), Region::of(plaintext_len)],
        &[Region::of(key)],
    ) {
        return e;
    }
    // SAFETY: per the contract above.
    match unsafe { (WsMeshKey::get_ref(key), bytes_mut(frame, len)) } {
        // SAFETY: `plaintext_len` is NULL or a writable `size_t`.
        (Ok(k), Ok(f)) => unsafe { written(k.open_in_place(f).map(|pt| pt.len()), plaintext_len) },
        (k, f) => first_error([k.err(), f.err(), None, None]),
    }
}

/// Bytes before the document in a mesh-wide frame (marker, reserved byte,
/// nonce).
pub const WS_MESH_HEADER_LEN: usize = 14;

const _: () = assert!(WS_MESH_HEADER_LEN == MESH_HEADER_LEN);
