//! The C ABI's guards called the way C calls them: every output against
//! every other argument for overlap, a failing RNG, the version and the
//! per-target block sizes. Run under Miri with the other tests.

use crate::tests::*;
use crate::*;
use core::ptr::null_mut;

#[test]
fn every_output_is_checked_against_every_other_argument() {
    let mut slots = vec![0u64; 2 * WS_PKC_SLOT_BYTES / 8];
    let mut e = engine_with(&mut slots);
    let (mut ctx, mut buf, mut n) = (1u8, [0u8; 96], 0usize);
    let p = buf.as_mut_ptr();
    // SAFETY: every pointer is inside live memory of the length given; the
    // calls must refuse each aliasing before touching it.
    unsafe {
        // The peer key inside the output.
        let s = ws_pkc_seal(
            &mut *e,
            1,
            Some(counter_rng),
            (&raw mut ctx).cast(),
            p.add(40),
            7,
            8,
            PLAINTEXT.as_ptr(),
            10,
            p,
            64,
            &mut n,
        );
        assert_eq!(s, WsStatus::InvalidInput);
        // The length out-parameter inside the output.
        let s = ws_pkc_open(
            &mut *e,
            1,
            SENDER_PUBLIC.as_ptr(),
            FROM,
            ID,
            PAYLOAD.as_ptr(),
            22,
            p,
            64,
            p.add(8).cast(),
        );
        assert_eq!(s, WsStatus::InvalidInput);
        // The output inside the engine block.
        let ep: *mut WsPkcEngine = &mut *e;
        let s = ws_pkc_open(
            ep,
            1,
            SENDER_PUBLIC.as_ptr(),
            FROM,
            ID,
            PAYLOAD.as_ptr(),
            22,
            ep.cast::<u8>().add(8),
            16,
            &mut n,
        );
        assert_eq!(s, WsStatus::InvalidInput);
        assert_eq!(
            ws_pkc_invalidate_peer(ep, ep.cast::<u8>().add(16)),
            WsStatus::InvalidInput
        );
        // Slot memory overlapping the engine block it is given to.
        let mut other = Box::new(WsPkcEngine {
            magic: 0,
            body: [0; WS_PKC_ENGINE_WORDS],
        });
        let op: *mut WsPkcEngine = &mut *other;
        let s = ws_pkc_engine_init(
            op,
            OUR_PRIVATE.as_ptr(),
            op.cast::<u8>().add(8),
            WS_PKC_SLOT_BYTES,
        );
        assert_eq!(s, WsStatus::InvalidInput);
        assert_eq!(other.magic, 0);
        // A channel buffer over its own key.
        let mut k = Box::new(WsChannelKey {
            magic: 0,
            body: [0; WS_CHANNEL_KEY_WORDS],
        });
        assert_eq!(ws_channel_key_init(&mut *k, PSK.as_ptr(), 16), WsStatus::Ok);
        let kp: *mut WsChannelKey = &mut *k;
        assert_eq!(
            ws_channel_crypt(kp, 1, 2, kp.cast::<u8>().add(4), 8),
            WsStatus::InvalidInput
        );
        // A header written over the frame it is parsed from.
        let mut h = [0u8; 32];
        let hp = h.as_mut_ptr();
        assert_eq!(ws_header_parse(hp, 20, hp.cast()), WsStatus::InvalidInput);
        ws_pkc_engine_deinit(&mut *e);
    }
}

#[test]
fn a_failing_rng_stops_the_seal_where_it_fails() {
    let mut rng = rng::CallbackRng::new(Some(failing_rng), null_mut()).unwrap();
    let mut b = [7u8; 4];
    assert!(wireseal::entropy::RngCore::try_fill_bytes(&mut rng, &mut b).is_err());
    assert!(rng.failed);
    let mut k = Box::new(WsMeshKey {
        magic: 0,
        body: [0; WS_MESH_KEY_WORDS],
    });
    let (mut out, mut n) = ([0xffu8; 64], 99usize);
    // SAFETY: live buffers of the lengths given.
    unsafe {
        assert_eq!(
            ws_mesh_key_init(&mut *k, b"DEMO".as_ptr(), 4, [0x42u8; 32].as_ptr()),
            WsStatus::Ok
        );
        let s = ws_mesh_seal(
            &*k,
            Some(failing_rng),
            null_mut(),
            b"doc".as_ptr(),
            3,
            out.as_mut_ptr(),
            64,
            &mut n,
        );
        assert_eq!((s, n), (WsStatus::RngFailed, 99), "no length reported");
        ws_mesh_key_deinit(&mut *k);
    }
    assert!(out.iter().all(|&b| b == 0), "nothing sealed is released");
}

#[test]
fn version_and_block_sizes() {
    // SAFETY: a static NUL-terminated string.
    let v = unsafe { core::ffi::CStr::from_ptr(ws_version()) };
    assert_eq!(v.to_str(), Ok(env!("CARGO_PKG_VERSION")));
    assert_eq!(core::mem::size_of::<WsPkcEngine>(), WS_PKC_ENGINE_BYTES);
    assert_eq!(core::mem::size_of::<WsChannelKey>(), WS_CHANNEL_KEY_BYTES);
    assert_eq!(core::mem::size_of::<WsMeshKey>(), WS_MESH_KEY_BYTES);
    assert_eq!(
        core::mem::size_of::<WsXeddsaSigner>(),
        WS_XEDDSA_SIGNER_BYTES
    );
    assert_eq!(core::mem::size_of::<WsXeddsaKey>(), WS_XEDDSA_KEY_BYTES);
    assert_eq!(core::mem::align_of::<WsPkcEngine>(), WS_ALIGN);
}
