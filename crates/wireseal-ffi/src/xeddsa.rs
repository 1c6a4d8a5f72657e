//! XEdDSA packet signatures (Meshtastic 2.8 `Data.xeddsa_signature`):
//! signing with our node key, verifying with a sender's public key once or
//! through a converted key the caller keeps.
//!
//! The signed message is `from (4 bytes LE) ‖ id (4 LE) ‖ portnum (4 LE) ‖
//! payload`; signatures are hedged with 64 bytes from the caller's
//! `ws_fill_random`.

use crate::memory::{array, bytes, disjoint, opaque, Region};
use crate::rng::{CallbackRng, WsFillRandom};
use crate::status::{first_error, status};
use crate::WsStatus;
use core::ffi::c_void;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey, SIGNATURE_LEN};

/// Bytes of an XEdDSA signature.
pub const WS_XEDDSA_SIGNATURE_LEN: usize = 64;

const _: () = assert!(WS_XEDDSA_SIGNATURE_LEN == SIGNATURE_LEN);

/// 64-bit words after the magic word in a `ws_xeddsa_signer`.
pub const WS_XEDDSA_SIGNER_WORDS: usize = WS_XEDDSA_SIGNER_BYTES / 8 - 1;
/// Bytes of a `ws_xeddsa_signer` (the same on every target: the Ed25519
/// scalar, its public key and our X25519 public key).
pub const WS_XEDDSA_SIGNER_BYTES: usize = 104;

/// 64-bit words after the magic word in a `ws_xeddsa_key`.
pub const WS_XEDDSA_KEY_WORDS: usize = WS_XEDDSA_KEY_BYTES / 8 - 1;
/// Bytes of a `ws_xeddsa_key` on a bare-metal Arm build (the Cortex-M4's
/// Edwards point of eight 32-bit limbs per coordinate).
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub const WS_XEDDSA_KEY_BYTES: usize = 168;
/// Bytes of a `ws_xeddsa_key` on other targets.
#[cfg(not(all(target_arch = "arm", target_os = "none")))]
pub const WS_XEDDSA_KEY_BYTES: usize = 200;

/// Our XEdDSA signing key, derived once from our X25519 private key.
#[repr(C)]
pub struct WsXeddsaSigner {
    pub(crate) magic: u64,
    pub(crate) body: [u64; WS_XEDDSA_SIGNER_WORDS],
}

opaque!(
    WsXeddsaSigner,
    SigningKey,
    WS_XEDDSA_SIGNER_BYTES,
    0x7773_7865_6473_676e
);

/// A sender's verifying key: its X25519 public key mapped to an Ed25519
/// point once, so each verification with it is one double-scalar
/// multiplication.
#[repr(C)]
pub struct WsXeddsaKey {
    pub(crate) magic: u64,
    pub(crate) body: [u64; WS_XEDDSA_KEY_WORDS],
}

opaque!(
    WsXeddsaKey,
    VerifyingKey,
    WS_XEDDSA_KEY_BYTES,
    0x7773_7865_6476_6b79
);

/// Sets up `signer` with our 32-byte X25519 private key (clamped, as every
/// Meshtastic key is; an all-zero key is not): one scalar multiplication.
///
/// # Errors
/// `NULL_POINTER`; `INVALID_KEY` for an unclamped key (the block is left
/// as it was); `INVALID_INPUT` when the two overlap.
///
/// # Safety
/// `signer` points to a writable `ws_xeddsa_signer`; `our_private` to 32
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_signer_init(
    signer: *mut WsXeddsaSigner,
    our_private: *const u8,
) -> WsStatus {
    // SAFETY: the caller vouches for 32 readable bytes.
    let own = match unsafe { key_for_block(signer, our_private) } {
        Ok(k) => k,
        Err(e) => return e,
    };
    let Ok(own) = StaticSecret::from_bytes(own) else {
        return WsStatus::InvalidKey;
    };
    if !own.is_clamped() {
        return WsStatus::InvalidKey;
    }
    // SAFETY: non-NULL, aligned (the type is), writable.
    unsafe { WsXeddsaSigner::init(signer, SigningKey::from_secret(&own)) };
    WsStatus::Ok
}

/// The 32 key bytes an init call reads into `block`: both non-NULL and
/// not overlapping (`NULL_POINTER`, `INVALID_INPUT` otherwise).
///
/// # Safety
/// When `key` is not NULL it points to 32 readable bytes valid for `'a`.
unsafe fn key_for_block<'a, T>(block: *mut T, key: *const u8) -> Result<&'a [u8; 32], WsStatus> {
    if block.is_null() {
        return Err(WsStatus::NullPointer);
    }
    disjoint(&[Region::of(block)], &[Region(key, 32)])?;
    // SAFETY: forwarded contract.
    unsafe { array::<32>(key) }
}

/// Wipes `signer`. NULL is ignored.
///
/// # Safety
/// `signer` is NULL or set up by `ws_xeddsa_signer_init` (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_signer_deinit(signer: *mut WsXeddsaSigner) {
    // SAFETY: forwarded contract.
    unsafe { WsXeddsaSigner::deinit(signer) };
}

/// Signs packet (`from`, `id`, `portnum`, `payload`) with `signer`'s key
/// into `signature_out` (`WS_XEDDSA_SIGNATURE_LEN` bytes), hedged with 64
/// bytes from `fill_random`.
///
/// # Errors
/// `NULL_POINTER` (a NULL callback too), `STATE` (signer not set up),
/// `INVALID_INPUT` (the output overlapping another argument), `RNG_FAILED`
/// (the callback failed; the output is wiped).
///
/// # Safety
/// `signer` as in `ws_xeddsa_signer_deinit`; `payload` points to
/// `payload_len` bytes, `signature_out` to 64 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_sign(
    signer: *const WsXeddsaSigner,
    fill_random: WsFillRandom,
    rng_ctx: *mut c_void,
    from: u32,
    id: u32,
    portnum: u32,
    payload: *const u8,
    payload_len: usize,
    signature_out: *mut u8,
) -> WsStatus {
    if signature_out.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(
        &[Region(signature_out, WS_XEDDSA_SIGNATURE_LEN)],
        &[Region::of(signer), Region(payload, payload_len)],
    ) {
        return e;
    }
    // SAFETY: per the contract above; nothing writes the signer or the
    // payload while they are read.
    let (key, payload) = unsafe {
        match (WsXeddsaSigner::get_ref(signer), bytes(payload, payload_len)) {
            (Ok(k), Ok(p)) => (k, p),
            (k, p) => return first_error([k.err(), p.err(), None, None]),
        }
    };
    let Some(mut rng) = CallbackRng::new(fill_random, rng_ctx) else {
        return WsStatus::NullPointer;
    };
    let fields = SignedFields {
        from,
        id,
        portnum,
        payload,
    };
    let mut sig = key.sign_with_rng(&mut rng, &fields);
    if rng.failed {
        sig.fill(0);
    }
    // SAFETY: non-NULL; 64 writable bytes that overlap nothing read.
    unsafe { signature_out.cast::<[u8; SIGNATURE_LEN]>().write(sig) };
    if rng.failed {
        WsStatus::RngFailed
    } else {
        WsStatus::Ok
    }
}

/// Sets up `key` as the verifying key of the node with X25519 public key
/// `public_key` (the Ed25519 point of sign bit 0): what a firmware keeps
/// for the senders it hears often.
///
/// # Errors
/// `NULL_POINTER`; `INVALID_KEY` when the key has no Ed25519 counterpart
/// (the block is left as it was); `INVALID_INPUT` when the two overlap.
///
/// # Safety
/// `key` points to a writable `ws_xeddsa_key`; `public_key` to 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_key_init(
    key: *mut WsXeddsaKey,
    public_key: *const u8,
) -> WsStatus {
    // SAFETY: the caller vouches for 32 readable bytes.
    let pk = match unsafe { key_for_block(key, public_key) } {
        Ok(k) => k,
        Err(e) => return e,
    };
    match VerifyingKey::from_x25519(pk) {
        Ok(k) => {
            // SAFETY: non-NULL, aligned (the type is), writable.
            unsafe { WsXeddsaKey::init(key, k) };
            WsStatus::Ok
        }
        Err(e) => e.into(),
    }
}

/// Clears `key`. NULL is ignored.
///
/// # Safety
/// `key` is NULL or set up by `ws_xeddsa_key_init` (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_key_deinit(key: *mut WsXeddsaKey) {
    // SAFETY: forwarded contract.
    unsafe { WsXeddsaKey::deinit(key) };
}

/// Verifies the XEdDSA signature `signature` (`signature_len` bytes, 64
/// when valid) of packet (`from`, `id`, `portnum`, `payload`) with `key`.
///
/// # Errors
/// `NULL_POINTER`, `STATE` (key not set up), `AUTH`.
///
/// # Safety
/// `key` as in `ws_xeddsa_key_deinit`; `payload` points to `payload_len`
/// bytes, `signature` to `signature_len`.
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_key_verify(
    key: *const WsXeddsaKey,
    from: u32,
    id: u32,
    portnum: u32,
    payload: *const u8,
    payload_len: usize,
    signature: *const u8,
    signature_len: usize,
) -> WsStatus {
    // SAFETY: per the contract above; nothing is written.
    let (k, payload, sig) = unsafe {
        match (
            WsXeddsaKey::get_ref(key),
            bytes(payload, payload_len),
            bytes(signature, signature_len),
        ) {
            (Ok(k), Ok(p), Ok(s)) => (k, p, s),
            (k, p, s) => return first_error([k.err(), p.err(), s.err(), None]),
        }
    };
    let fields = SignedFields {
        from,
        id,
        portnum,
        payload,
    };
    status(k.verify(&fields, sig))
}

/// Verifies the XEdDSA signature `signature` (`signature_len` bytes, 64
/// when valid) of packet (`from`, `id`, `portnum`, `payload`) by the node
/// with X25519 public key `public_key`, converting the key for this call
/// alone (`ws_xeddsa_key_init` keeps it).
///
/// # Errors
/// `NULL_POINTER`, `INVALID_KEY` (no Ed25519 counterpart), `AUTH`.
///
/// # Safety
/// `public_key` points to 32 bytes, `payload` to `payload_len`,
/// `signature` to `signature_len`.
#[no_mangle]
pub unsafe extern "C" fn ws_xeddsa_verify(
    public_key: *const u8,
    from: u32,
    id: u32,
    portnum: u32,
    payload: *const u8,
    payload_len: usize,
    signature: *const u8,
    signature_len: usize,
) -> WsStatus {
    // SAFETY: per the contract above.
    let (pk, payload, sig) = unsafe {
        match (
            array::<32>(public_key),
            bytes(payload, payload_len),
            bytes(signature, signature_len),
        ) {
            (Ok(k), Ok(p), Ok(s)) => (k, p, s),
            (k, p, s) => return first_error([k.err(), p.err(), s.err(), None]),
        }
    };
    let fields = SignedFields {
        from,
        id,
        portnum,
        payload,
    };
    match VerifyingKey::from_x25519(pk) {
        Ok(k) => status(k.verify(&fields, sig)),
        Err(e) => e.into(),
    }
}
