//! The entry points called the way C calls them: vectors, NULL pointers,
//! short and misaligned memory, overlapping buffers, tampering, a failing
//! RNG. Small enough to run under Miri (`cargo +nightly miri test -p
//! wireseal-ffi --no-default-features --lib`), which checks every pointer
//! the unsafe blocks build.

use super::*;
use core::ffi::c_void;
use core::ptr::{null, null_mut};

/// vectors/meshtastic/vectors.json, pkc-decrypt-radio-frame.
pub(crate) const OUR_PRIVATE: [u8; 32] = [
    160, 3, 48, 99, 62, 99, 82, 47, 138, 77, 129, 236, 109, 157, 30, 102, 23, 246, 200, 255, 211,
    164, 198, 152, 34, 149, 55, 212, 78, 82, 34, 119,
];
pub(crate) const SENDER_PUBLIC: [u8; 32] = [
    219, 24, 252, 80, 238, 164, 127, 0, 37, 28, 183, 132, 129, 154, 60, 245, 252, 54, 24, 130, 89,
    127, 88, 159, 13, 127, 248, 32, 232, 6, 68, 87,
];
pub(crate) const FROM: u32 = 2345;
pub(crate) const ID: u32 = 330_487_394;
pub(crate) const PAYLOAD: [u8; 22] = [
    64, 223, 36, 171, 252, 195, 10, 23, 163, 217, 4, 103, 38, 9, 158, 121, 106, 28, 3, 106, 121, 43,
];
pub(crate) const PLAINTEXT: [u8; 10] = [8, 1, 18, 4, 116, 101, 115, 116, 72, 0];
/// The channel vector (default key, LongFast).
pub(crate) const PSK: [u8; 16] = [
    212, 241, 187, 58, 32, 41, 7, 89, 240, 188, 255, 171, 207, 78, 105, 1,
];
const CHANNEL_CT: [u8; 10] = [70, 242, 236, 208, 176, 42, 196, 207, 43, 229];
/// peat-btle mesh "DEMO", secret 0x42 * 32, nonce 0..11, "Hello, Peat mesh!".
const PEAT_FRAME: [u8; 47] = [
    174, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 71, 133, 205, 25, 59, 37, 210, 144, 237, 45, 40,
    193, 153, 132, 231, 82, 110, 111, 91, 250, 21, 196, 160, 14, 185, 166, 61, 158, 243, 213, 204,
    120, 38,
];

pub(crate) unsafe extern "C" fn counter_rng(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32 {
    // SAFETY: the tests pass a `u8` counter and a buffer of `len` bytes.
    let (c, buf) = unsafe {
        (
            &mut *ctx.cast::<u8>(),
            core::slice::from_raw_parts_mut(buf, len),
        )
    };
    for b in buf {
        *b = c.wrapping_mul(29).wrapping_add(7);
        *c = c.wrapping_add(1);
    }
    0
}

pub(crate) unsafe extern "C" fn failing_rng(_: *mut c_void, _: *mut u8, _: usize) -> i32 {
    -1
}

pub(crate) fn engine_with(slots: &mut [u64]) -> Box<WsPkcEngine> {
    // Zeroed, as a C static is.
    let mut e = Box::new(WsPkcEngine {
        magic: 0,
        body: [0; WS_PKC_ENGINE_WORDS],
    });
    // SAFETY: valid engine block, 32-byte key, slot memory of its length.
    let s = unsafe {
        ws_pkc_engine_init(
            &mut *e,
            OUR_PRIVATE.as_ptr(),
            slots.as_mut_ptr().cast(),
            slots.len() * 8,
        )
    };
    assert_eq!(s, WsStatus::Ok);
    e
}

#[test]
fn pkc_vector_round_trip_and_refusals() {
    let mut slots = vec![0u64; 2 * WS_PKC_SLOT_BYTES / 8];
    let mut e = engine_with(&mut slots);
    let (mut out, mut n) = ([0u8; 64], 0usize);
    // SAFETY (every call below): pointers to live buffers of the lengths given.
    let open = |e: &mut WsPkcEngine, id: u32, payload: &[u8], out: &mut [u8], n: &mut usize| unsafe {
        ws_pkc_open(
            e,
            1,
            SENDER_PUBLIC.as_ptr(),
            FROM,
            id,
            payload.as_ptr(),
            payload.len(),
            out.as_mut_ptr(),
            out.len(),
            n,
        )
    };
    assert_eq!(open(&mut e, ID, &PAYLOAD, &mut out, &mut n), WsStatus::Ok);
    assert_eq!(&out[..n], &PLAINTEXT);
    let mut bad = PAYLOAD;
    bad[0] ^= 1;
    out.fill(0xff);
    assert_eq!(open(&mut e, ID, &bad, &mut out, &mut n), WsStatus::Auth);
    assert!(out[..10].iter().all(|&b| b == 0), "refused output wiped");
    assert_eq!(
        open(&mut e, ID, &PAYLOAD[..11], &mut out, &mut n),
        WsStatus::Truncated
    );
    assert_eq!(
        open(&mut e, ID, &PAYLOAD, &mut out[..3], &mut n),
        WsStatus::BufferTooSmall
    );
    // SAFETY: NULL where the call must refuse it.
    unsafe {
        let s = ws_pkc_open(
            &mut *e,
            1,
            null(),
            FROM,
            ID,
            PAYLOAD.as_ptr(),
            22,
            out.as_mut_ptr(),
            64,
            &mut n,
        );
        assert_eq!(s, WsStatus::NullPointer);
        let s = ws_pkc_open(
            &mut *e,
            1,
            SENDER_PUBLIC.as_ptr(),
            FROM,
            ID,
            null(),
            22,
            out.as_mut_ptr(),
            64,
            &mut n,
        );
        assert_eq!(s, WsStatus::NullPointer);
        let s = ws_pkc_open(
            null_mut(),
            1,
            SENDER_PUBLIC.as_ptr(),
            FROM,
            ID,
            PAYLOAD.as_ptr(),
            22,
            out.as_mut_ptr(),
            64,
            &mut n,
        );
        assert_eq!(s, WsStatus::NullPointer);
    }
    // Seal to the sender; the key is symmetric, so we open it ourselves.
    let (mut ctx, mut sealed) = (3u8, [0u8; 64]);
    // SAFETY: live buffers, a `u8` context for the callback.
    let s = unsafe {
        ws_pkc_seal(
            &mut *e,
            2,
            Some(counter_rng),
            (&raw mut ctx).cast(),
            SENDER_PUBLIC.as_ptr(),
            7,
            8,
            PLAINTEXT.as_ptr(),
            10,
            sealed.as_mut_ptr(),
            64,
            &mut n,
        )
    };
    assert_eq!((s, n), (WsStatus::Ok, 22));
    let sealed_payload = sealed;
    assert_eq!(
        open(&mut e, 8, &sealed_payload[..22], &mut out, &mut n),
        WsStatus::Auth,
        "from 2345 is not from 7"
    );
    // SAFETY: as above.
    let s = unsafe {
        ws_pkc_open(
            &mut *e,
            3,
            SENDER_PUBLIC.as_ptr(),
            7,
            8,
            sealed.as_ptr(),
            22,
            out.as_mut_ptr(),
            64,
            &mut n,
        )
    };
    assert_eq!((s, &out[..n]), (WsStatus::Ok, &PLAINTEXT[..]));
    // A failing RNG: an error, and nothing usable left in the output.
    sealed.fill(0xff);
    // SAFETY: as above; the callback ignores its context.
    let s = unsafe {
        ws_pkc_seal(
            &mut *e,
            4,
            Some(failing_rng),
            null_mut(),
            SENDER_PUBLIC.as_ptr(),
            7,
            9,
            PLAINTEXT.as_ptr(),
            10,
            sealed.as_mut_ptr(),
            64,
            &mut n,
        )
    };
    assert_eq!(s, WsStatus::RngFailed);
    assert!(sealed[..22].iter().all(|&b| b == 0));
    // Overlapping input and output are refused, not read through aliases.
    // SAFETY: one live buffer seen twice, which the call must refuse.
    let s = unsafe {
        let p = sealed.as_mut_ptr();
        ws_pkc_seal(
            &mut *e,
            4,
            Some(counter_rng),
            (&raw mut ctx).cast(),
            SENDER_PUBLIC.as_ptr(),
            7,
            9,
            p,
            10,
            p.add(5),
            40,
            &mut n,
        )
    };
    assert_eq!(s, WsStatus::InvalidInput);
    // SAFETY: the engine block from above.
    unsafe { ws_pkc_engine_deinit(&mut *e) };
    assert_eq!(
        open(&mut e, ID, &PAYLOAD, &mut out, &mut n),
        WsStatus::State
    );
}

#[test]
fn pkc_init_refuses_bad_memory_and_keys() {
    let mut e = Box::new(WsPkcEngine {
        magic: 0,
        body: [0; WS_PKC_ENGINE_WORDS],
    });
    let mut slots = vec![0u64; WS_PKC_SLOT_BYTES / 8 * 2];
    let p = slots.as_mut_ptr().cast::<u8>();
    // SAFETY: every pointer is live for the length given.
    unsafe {
        assert_eq!(
            ws_pkc_engine_init(&mut *e, OUR_PRIVATE.as_ptr(), p.add(1), WS_PKC_SLOT_BYTES),
            WsStatus::BadMemory
        );
        assert_eq!(
            ws_pkc_engine_init(&mut *e, OUR_PRIVATE.as_ptr(), p, WS_PKC_SLOT_BYTES - 8),
            WsStatus::BadMemory
        );
        assert_eq!(
            ws_pkc_engine_init(&mut *e, OUR_PRIVATE.as_ptr(), p, WS_PKC_SLOT_BYTES + 8),
            WsStatus::BadMemory
        );
        assert_eq!(
            ws_pkc_engine_init(&mut *e, null(), p, WS_PKC_SLOT_BYTES),
            WsStatus::NullPointer
        );
        assert_eq!(
            ws_pkc_engine_init(null_mut(), OUR_PRIVATE.as_ptr(), p, WS_PKC_SLOT_BYTES),
            WsStatus::NullPointer
        );
        let mut unclamped = OUR_PRIVATE;
        unclamped[0] |= 1;
        assert_eq!(
            ws_pkc_engine_init(&mut *e, unclamped.as_ptr(), p, WS_PKC_SLOT_BYTES),
            WsStatus::InvalidKey
        );
    }
    assert_eq!(e.magic, 0, "a refused init leaves the block unset");
}

#[test]
fn channel_vector_and_refusals() {
    let mut k = Box::new(WsChannelKey {
        magic: 0,
        body: [0; WS_CHANNEL_KEY_WORDS],
    });
    let mut buf = PLAINTEXT;
    // SAFETY: live buffers of the lengths given.
    unsafe {
        assert_eq!(ws_channel_key_init(&mut *k, PSK.as_ptr(), 16), WsStatus::Ok);
        assert_eq!(
            ws_channel_crypt(&*k, 0x0929, 0x13b2_d662, buf.as_mut_ptr(), 10),
            WsStatus::Ok
        );
        assert_eq!(buf, CHANNEL_CT);
        assert_eq!(
            ws_channel_crypt(&*k, 0x0929, 0x13b2_d662, null_mut(), 10),
            WsStatus::NullPointer
        );
        let mut big = [0u8; 300];
        assert_eq!(
            ws_channel_crypt(&*k, 1, 2, big.as_mut_ptr(), 300),
            WsStatus::TooLong
        );
        assert_eq!(
            ws_channel_key_init(&mut *k, [0u8; 33].as_ptr(), 33),
            WsStatus::InvalidKey
        );
        ws_channel_key_deinit(&mut *k);
        assert_eq!(
            ws_channel_crypt(&*k, 1, 2, buf.as_mut_ptr(), 10),
            WsStatus::State
        );
    }
}

#[test]
fn header_round_trip() {
    let frame = [
        0xff, 0xff, 0xff, 0xff, 0x29, 0x09, 0, 0, 0x62, 0xd6, 0xb2, 0x13, 0x63, 0x08, 0, 0, 1, 2,
    ];
    let mut h = WsHeader::default();
    let mut back = [0u8; 16];
    // SAFETY: live buffers of the lengths given.
    unsafe {
        assert_eq!(
            ws_header_parse(frame.as_ptr(), frame.len(), &mut h),
            WsStatus::Ok
        );
        assert_eq!(
            (h.to, h.from, h.id, h.hop_limit, h.hop_start, h.channel),
            (u32::MAX, 0x0929, 0x13b2_d662, 3, 3, 8)
        );
        assert_eq!(ws_header_write(&h, back.as_mut_ptr()), WsStatus::Ok);
        assert_eq!(
            ws_header_parse(frame.as_ptr(), 15, &mut h),
            WsStatus::Truncated
        );
        assert_eq!(
            ws_header_parse(frame.as_ptr(), 16, null_mut()),
            WsStatus::NullPointer
        );
    }
    assert_eq!(back, frame[..16]);
}

#[test]
fn mesh_vector_round_trip_and_refusals() {
    let mut k = Box::new(WsMeshKey {
        magic: 0,
        body: [0; WS_MESH_KEY_WORDS],
    });
    let secret = [0x42u8; 32];
    let mut frame = PEAT_FRAME;
    let mut n = 0usize;
    // SAFETY: live buffers of the lengths given.
    unsafe {
        assert_eq!(
            ws_mesh_key_init(&mut *k, b"DEMO".as_ptr(), 4, secret.as_ptr()),
            WsStatus::Ok
        );
        assert_eq!(
            ws_mesh_open_in_place(&*k, frame.as_mut_ptr(), 47, &mut n),
            WsStatus::Ok
        );
        assert_eq!(
            &frame[WS_MESH_HEADER_LEN..WS_MESH_HEADER_LEN + n],
            b"Hello, Peat mesh!"
        );
        let mut bad = PEAT_FRAME;
        bad[30] ^= 4;
        assert_eq!(
            ws_mesh_open_in_place(&*k, bad.as_mut_ptr(), 47, &mut n),
            WsStatus::Auth
        );
        assert_eq!(
            ws_mesh_open_in_place(&*k, bad.as_mut_ptr(), 20, &mut n),
            WsStatus::Truncated
        );
        let (mut ctx, mut out) = (1u8, [0u8; 64]);
        let s = ws_mesh_seal(
            &*k,
            Some(counter_rng),
            (&raw mut ctx).cast(),
            b"doc".as_ptr(),
            3,
            out.as_mut_ptr(),
            64,
            &mut n,
        );
        assert_eq!((s, n), (WsStatus::Ok, 33));
        let mut m = 0;
        assert_eq!(
            ws_mesh_open_in_place(&*k, out.as_mut_ptr(), n, &mut m),
            WsStatus::Ok
        );
        assert_eq!(&out[WS_MESH_HEADER_LEN..WS_MESH_HEADER_LEN + m], b"doc");
        let s = ws_mesh_seal(
            &*k,
            None,
            null_mut(),
            b"doc".as_ptr(),
            3,
            out.as_mut_ptr(),
            64,
            &mut n,
        );
        assert_eq!(s, WsStatus::NullPointer);
        assert_eq!(
            ws_mesh_key_init(&mut *k, [0xffu8].as_ptr(), 1, secret.as_ptr()),
            WsStatus::InvalidInput
        );
        ws_mesh_key_deinit(&mut *k);
    }
}
