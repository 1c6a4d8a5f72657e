//! Meshtastic PKC direct messages through an engine whose shared-secret
//! cache lives in the caller's memory.

use crate::memory::{array, bytes, bytes_mut, disjoint, opaque, Region};
use crate::rng::{CallbackRng, WsFillRandom};
use crate::status::{first_error, written};
use crate::WsStatus;
use core::ffi::c_void;
use wireseal::cache::{Slot, MAX_CAPACITY};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::pkc::{sealed_len, OVERHEAD, SLOT_BYTES_SECRET};
use wireseal::meshtastic::{PkcEngine, PkcPacket, PkcSecret};

/// 64-bit words after the magic word in a `ws_pkc_engine`.
pub const WS_PKC_ENGINE_WORDS: usize = WS_PKC_ENGINE_BYTES / 8 - 1;
/// Bytes of a `ws_pkc_engine` on a bare-metal Arm build (Cortex-M).
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub const WS_PKC_ENGINE_BYTES: usize = 184;
/// Bytes of a `ws_pkc_engine` on other targets (the server backend's
/// engine is the largest).
#[cfg(not(all(target_arch = "arm", target_os = "none")))]
pub const WS_PKC_ENGINE_BYTES: usize = 392;
/// Bytes of caller memory per cache slot (one peer's 32-byte key, the
/// peer's public key and its bookkeeping); the slot memory's size is a
/// multiple of this, aligned to `WS_ALIGN`.
pub const WS_PKC_SLOT_BYTES: usize = 80;
/// Bytes a PKC payload adds to its plaintext (tag and extraNonce).
pub const WS_PKC_OVERHEAD: usize = 12;
/// Largest plaintext a PKC payload carries (it fits one LoRa frame).
pub const WS_PKC_MAX_PLAINTEXT_LEN: usize = 227;

const _: () = assert!(WS_PKC_MAX_PLAINTEXT_LEN == wireseal::meshtastic::pkc::MAX_PLAINTEXT_LEN);

const _: () = assert!(WS_PKC_SLOT_BYTES == SLOT_BYTES_SECRET);
const _: () = assert!(WS_PKC_OVERHEAD == OVERHEAD);

type Engine = PkcEngine<PkcSecret, &'static mut [Slot<PkcSecret>]>;

/// A node's PKC engine: our key and the per-peer cache (in the slot
/// memory given to `ws_pkc_engine_init`, which must outlive the engine).
#[repr(C)]
pub struct WsPkcEngine {
    pub(crate) magic: u64,
    pub(crate) body: [u64; WS_PKC_ENGINE_WORDS],
}

opaque!(
    WsPkcEngine,
    Engine,
    WS_PKC_ENGINE_BYTES,
    0x7773_706b_6365_6e67
);

/// Sets up `engine` with our 32-byte X25519 private key (clamped, as every
/// Meshtastic key is) and a cache over `slots`: `slots_len` bytes, a
/// multiple of `WS_PKC_SLOT_BYTES` (one slot per peer kept), aligned to
/// `WS_ALIGN`. The slots need no initialisation.
///
/// # Errors
/// `NULL_POINTER`; `BAD_MEMORY` for slot memory that is misaligned, holds
/// no slot or more than 65,535; `INVALID_KEY` for an unclamped key.
///
/// # Safety
/// `engine` points to a writable `ws_pkc_engine`; `our_private` to 32
/// bytes; `slots` to `slots_len` writable bytes that nothing else uses
/// until `ws_pkc_engine_deinit`.
#[no_mangle]
pub unsafe extern "C" fn ws_pkc_engine_init(
    engine: *mut WsPkcEngine,
    our_private: *const u8,
    slots: *mut u8,
    slots_len: usize,
) -> WsStatus {
    if engine.is_null() || slots.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(
        &[Region::of(engine), Region(slots, slots_len)],
        &[Region(our_private, 32)],
    ) {
        return e;
    }
    // SAFETY: the caller vouches for 32 readable bytes.
    let own = match unsafe { array::<32>(our_private) } {
        Ok(k) => k,
        Err(e) => return e,
    };
    let count = slots_len / WS_PKC_SLOT_BYTES;
    if slots as usize % core::mem::align_of::<Slot<PkcSecret>>() != 0
        || count == 0
        || count > MAX_CAPACITY
        || slots_len % WS_PKC_SLOT_BYTES != 0
    {
        return WsStatus::BadMemory;
    }
    let Ok(own) = StaticSecret::from_bytes(own) else {
        return WsStatus::InvalidKey;
    };
    let slots = slots.cast::<Slot<PkcSecret>>();
    for i in 0..count {
        // SAFETY: `slots` is aligned for `Slot` and `count` slots fit in
        // the caller's `slots_len` bytes; the memory may be uninitialised,
        // so each slot is written without reading it.
        unsafe { slots.add(i).write(Slot::EMPTY) };
    }
    // SAFETY: `count` initialised, aligned slots that the caller keeps for
    // the engine alone until deinit (the documented contract).
    let slots: &'static mut [Slot<PkcSecret>] =
        unsafe { core::slice::from_raw_parts_mut(slots, count) };
    match PkcEngine::with_slots(own, slots) {
        Ok(e) => {
            // SAFETY: non-NULL, aligned (the type is), writable.
            unsafe { WsPkcEngine::init(engine, e) };
            WsStatus::Ok
        }
        Err(e) => e.into(),
    }
}

/// Wipes and releases `engine` (our key and every cached peer key). The
/// slot memory may be reused afterwards. NULL is ignored.
///
/// # Safety
/// `engine` is NULL or points to a block set up by `ws_pkc_engine_init`
/// (or zeroed).
#[no_mangle]
pub unsafe extern "C" fn ws_pkc_engine_deinit(engine: *mut WsPkcEngine) {
    // SAFETY: forwarded contract.
    unsafe { WsPkcEngine::deinit(engine) };
}

/// Bytes the payload of a `plaintext_len`-byte plaintext takes.
#[no_mangle]
pub extern "C" fn ws_pkc_sealed_len(plaintext_len: usize) -> usize {
    sealed_len(plaintext_len)
}

/// Seals `plaintext` for the peer with X25519 public key `peer_public`
/// (header fields `from`, `id`) at time `now` (ms, any monotonic clock;
/// it ages cache entries) into `out` (`out_cap` bytes); writes the payload
/// length to `out_len`. The 4-byte extraNonce comes from `fill_random`.
///
/// # Errors
/// `NULL_POINTER`, `STATE` (engine not set up), `TOO_LONG`,
/// `BUFFER_TOO_SMALL`, `INVALID_KEY` (low-order peer key), `INVALID_INPUT`
/// (an output overlapping another argument), `RNG_FAILED` (the callback
/// failed; nothing sealed, `out` wiped).
///
/// # Safety
/// Every pointer is NULL (an error) or valid for its length; `engine` as
/// in `ws_pkc_engine_deinit`.
#[no_mangle]
pub unsafe extern "C" fn ws_pkc_seal(
    engine: *mut WsPkcEngine,
    now: u64,
    fill_random: WsFillRandom,
    rng_ctx: *mut c_void,
    peer_public: *const u8,
    from: u32,
    id: u32,
    plaintext: *const u8,
    plaintext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> WsStatus {
    if let Err(e) = disjoint(
        &[
            Region(out, out_cap),
            Region::of(out_len),
            Region::of(engine),
        ],
        &[Region(peer_public, 32), Region(plaintext, plaintext_len)],
    ) {
        return e;
    }
    // SAFETY: each pointer per the contract above; `plaintext` and `out`
    // do not overlap (checked above).
    let (e, peer, pt, out) = unsafe {
        match (
            WsPkcEngine::get(engine),
            array::<32>(peer_public),
            bytes(plaintext, plaintext_len),
            bytes_mut(out, out_cap),
        ) {
            (Ok(e), Ok(p), Ok(pt), Ok(o)) => (e, p, pt, o),
            (e, p, pt, o) => return first_error([e.err(), p.err(), pt.err(), o.err()]),
        }
    };
    let Some(mut rng) = CallbackRng::new(fill_random, rng_ctx) else {
        return WsStatus::NullPointer;
    };
    let packet = PkcPacket {
        peer_public: peer,
        from,
        id,
    };
    let sealed = e.seal_with_rng_into(now, &mut rng, packet, pt, out);
    // SAFETY: `out_len` is NULL or a writable `size_t`.
    unsafe { written(rng.vouch(sealed, out), out_len) }
}

/// Verifies and decrypts `payload` from the peer with public key
/// `peer_public` into `out`; writes the plaintext length to `out_len`.
///
/// # Errors
/// `NULL_POINTER`, `STATE`, `TRUNCATED`, `TOO_LONG`, `BUFFER_TOO_SMALL`,
/// `INVALID_KEY`, `INVALID_INPUT` (overlapping buffers), `AUTH` (the tag
/// did not verify; `out` wiped).
///
/// # Safety
/// As `ws_pkc_seal`.
#[no_mangle]
pub unsafe extern "C" fn ws_pkc_open(
    engine: *mut WsPkcEngine,
    now: u64,
    peer_public: *const u8,
    from: u32,
    id: u32,
    payload: *const u8,
    payload_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> WsStatus {
    if let Err(e) = disjoint(
        &[
            Region(out, out_cap),
            Region::of(out_len),
            Region::of(engine),
        ],
        &[Region(peer_public, 32), Region(payload, payload_len)],
    ) {
        return e;
    }
    // SAFETY: each pointer per the contract above; `payload` and `out` do
    // not overlap (checked above).
    let (e, peer, payload, out) = unsafe {
        match (
            WsPkcEngine::get(engine),
            array::<32>(peer_public),
            bytes(payload, payload_len),
            bytes_mut(out, out_cap),
        ) {
            (Ok(e), Ok(p), Ok(pl), Ok(o)) => (e, p, pl, o),
            (e, p, pl, o) => return first_error([e.err(), p.err(), pl.err(), o.err()]),
        }
    };
    let packet = PkcPacket {
        peer_public: peer,
        from,
        id,
    };
    // SAFETY: `out_len` is NULL or a writable `size_t`.
    unsafe { written(e.open_into(now, packet, payload, out), out_len) }
}

/// Forgets the cached key of `peer_public` (it announced a new key);
/// `WS_STATUS_OK` whether or not it was cached.
///
/// # Errors
/// `NULL_POINTER`, `STATE`.
///
/// # Safety
/// As `ws_pkc_seal`.
#[no_mangle]
pub unsafe extern "C" fn ws_pkc_invalidate_peer(
    engine: *mut WsPkcEngine,
    peer_public: *const u8,
) -> WsStatus {
    if let Err(e) = disjoint(&[Region::of(engine)], &[Region(peer_public, 32)]) {
        return e;
    }
    // SAFETY: per the contract above.
    match unsafe { (WsPkcEngine::get(engine), array::<32>(peer_public)) } {
        (Ok(e), Ok(p)) => {
            e.invalidate_peer(p);
            WsStatus::Ok
        }
        (e, p) => first_error([e.err(), p.err(), None, None]),
    }
}

/// Writes the X25519 public key of the 32-byte private key `private_key`
/// to `public_out` (32 bytes): a node's Meshtastic public key.
///
/// # Errors
/// `NULL_POINTER`; `INVALID_INPUT` when the two overlap.
///
/// # Safety
/// `private_key` points to 32 readable bytes, `public_out` to 32 writable
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn ws_x25519_public_key(
    private_key: *const u8,
    public_out: *mut u8,
) -> WsStatus {
    if private_key.is_null() || public_out.is_null() {
        return WsStatus::NullPointer;
    }
    if let Err(e) = disjoint(&[Region(public_out, 32)], &[Region(private_key, 32)]) {
        return e;
    }
    // SAFETY: non-NULL; the caller vouches for 32 readable bytes.
    let raw = match unsafe { array::<32>(private_key) } {
        Ok(k) => k,
        Err(e) => return e,
    };
    match StaticSecret::from_bytes(raw) {
        Ok(k) => {
            // SAFETY: non-NULL; 32 writable bytes that overlap nothing read.
            unsafe { public_out.cast::<[u8; 32]>().write(*k.public_key()) };
            WsStatus::Ok
        }
        Err(_) => WsStatus::InvalidKey,
    }
}
