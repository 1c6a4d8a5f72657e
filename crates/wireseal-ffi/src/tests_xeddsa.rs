//! The XEdDSA entry points called the way C calls them: a libxeddsa
//! vector signed again from its random input, round trips through a kept
//! key and a one-shot one, refusals, NULL pointers, blocks not set up,
//! overlapping buffers and a failing RNG. Run under Miri with the others.

use crate::tests::*;
use crate::*;
use core::ffi::c_void;
use core::ptr::{null, null_mut};

/// A hex string's bytes.
fn hex<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    assert_eq!(s.len(), 2 * N);
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex");
    }
    out
}

/// crates/wireseal-mcu/vectors/xeddsa_libxeddsa.json, vector 1: message
/// `from ‖ id ‖ portnum ‖ 0x73`. libxeddsa negated this key's scalar, so
/// its nonce hashes the scalar reduced mod q, as ours does: the same `Z`
/// gives the same bytes (for keys it does not negate, libxeddsa hashes the
/// clamped scalar unreduced and the bytes differ, both valid).
const PEER_PRIVATE: &str = "000fc0f0903e08f7c9f72e58d92988da66bc30660b9efb65d040fea6c7f83054";
const PEER_PUBLIC: &str = "a6bd6e9879893f349b62342a74cde60fea6b951b260e7187ba38780507abff24";
const PEER_Z: &str = "b2b916a7600878e98fe685f81f2326432d28919dd09c24f4bcffdfdfed0dd3c4\
                      f0cee3fc3cf535906251d2390778a4085a0376f5d6175f70e5ab52c9214d178e";
const PEER_SIG: &str = "2f0719f62da964902e7b52e1b2a19b64effc82a552c6ccb1a824d0c179dc4bef\
                        d6d8706750375c50838c8c3a4466b88c8ec07c145b47585da3214b4f481a2b08";
const PEER_FROM: u32 = 0xac42_d474;
const PEER_ID: u32 = 0x1927_db27;
const PEER_PORT: u32 = 3;
const PEER_PAYLOAD: [u8; 1] = [0x73];

/// Hands out the 64 bytes `ctx` points to: the vector's `Z`.
unsafe extern "C" fn fixed_z(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32 {
    if len != 64 {
        return -1;
    }
    // SAFETY: the test passes 64 readable bytes and a buffer of `len`.
    unsafe { core::ptr::copy_nonoverlapping(ctx.cast::<u8>(), buf, len) };
    0
}

fn signer() -> Box<WsXeddsaSigner> {
    Box::new(WsXeddsaSigner {
        magic: 0,
        body: [0; WS_XEDDSA_SIGNER_WORDS],
    })
}

fn key() -> Box<WsXeddsaKey> {
    Box::new(WsXeddsaKey {
        magic: 0,
        body: [0; WS_XEDDSA_KEY_WORDS],
    })
}

#[test]
fn the_libxeddsa_vector_signs_again_from_its_random_input_and_verifies() {
    let private: [u8; 32] = hex(PEER_PRIVATE);
    let public: [u8; 32] = hex(PEER_PUBLIC);
    let mut z: [u8; 64] = hex(PEER_Z);
    let want: [u8; 64] = hex(PEER_SIG);
    let (mut s, mut k, mut sig) = (signer(), key(), [0u8; 64]);
    // SAFETY: live blocks and buffers of the lengths given.
    unsafe {
        assert_eq!(
            ws_xeddsa_signer_init(&mut *s, private.as_ptr()),
            WsStatus::Ok
        );
        let st = ws_xeddsa_sign(
            &*s,
            Some(fixed_z),
            z.as_mut_ptr().cast(),
            PEER_FROM,
            PEER_ID,
            PEER_PORT,
            PEER_PAYLOAD.as_ptr(),
            1,
            sig.as_mut_ptr(),
        );
        assert_eq!(st, WsStatus::Ok);
        assert_eq!(sig, want, "the same signature as libxeddsa's");
        assert_eq!(ws_xeddsa_key_init(&mut *k, public.as_ptr()), WsStatus::Ok);
        let verify = |from: u32, payload: &[u8], sig: &[u8]| {
            ws_xeddsa_key_verify(
                &*k,
                from,
                PEER_ID,
                PEER_PORT,
                payload.as_ptr(),
                payload.len(),
                sig.as_ptr(),
                sig.len(),
            )
        };
        assert_eq!(verify(PEER_FROM, &PEER_PAYLOAD, &sig), WsStatus::Ok);
        assert_eq!(verify(PEER_FROM + 1, &PEER_PAYLOAD, &sig), WsStatus::Auth);
        assert_eq!(verify(PEER_FROM, &[0x74], &sig), WsStatus::Auth);
        assert_eq!(verify(PEER_FROM, &PEER_PAYLOAD, &sig[..63]), WsStatus::Auth);
        ws_xeddsa_signer_deinit(&mut *s);
        ws_xeddsa_key_deinit(&mut *k);
    }
    assert_eq!((s.magic, k.magic), (0, 0));
    assert!(s.body.iter().chain(&k.body).all(|&w| w == 0), "wiped");
}

#[test]
fn a_signature_verifies_one_shot_and_the_wrong_key_refuses_it() {
    let (mut s, mut ctx, mut sig) = (signer(), 3u8, [0u8; 64]);
    // SAFETY: live blocks and buffers of the lengths given.
    unsafe {
        assert_eq!(
            ws_xeddsa_signer_init(&mut *s, OUR_PRIVATE.as_ptr()),
            WsStatus::Ok
        );
        let st = ws_xeddsa_sign(
            &*s,
            Some(counter_rng),
            (&raw mut ctx).cast(),
            FROM,
            ID,
            1,
            PLAINTEXT.as_ptr(),
            PLAINTEXT.len(),
            sig.as_mut_ptr(),
        );
        assert_eq!(st, WsStatus::Ok);
        let mut public = [0u8; 32];
        assert_eq!(
            ws_x25519_public_key(OUR_PRIVATE.as_ptr(), public.as_mut_ptr()),
            WsStatus::Ok
        );
        for (pk, want) in [(public, WsStatus::Ok), (SENDER_PUBLIC, WsStatus::Auth)] {
            let st = ws_xeddsa_verify(
                pk.as_ptr(),
                FROM,
                ID,
                1,
                PLAINTEXT.as_ptr(),
                PLAINTEXT.len(),
                sig.as_ptr(),
                64,
            );
            assert_eq!(st, want);
        }
        ws_xeddsa_signer_deinit(&mut *s);
    }
}

#[test]
fn refusals_before_any_curve_arithmetic() {
    let (mut s, mut k, mut sig) = (signer(), key(), [0xffu8; 64]);
    let sp: *mut WsXeddsaSigner = &mut *s;
    let kp: *mut WsXeddsaKey = &mut *k;
    // SAFETY: live blocks and buffers of the lengths given, or NULL.
    unsafe {
        let sign = |signer: *const WsXeddsaSigner, out: *mut u8| {
            ws_xeddsa_sign(
                signer,
                Some(counter_rng),
                null_mut(),
                1,
                2,
                3,
                PLAINTEXT.as_ptr(),
                10,
                out,
            )
        };
        // Not set up: a zeroed block, as a C static is.
        assert_eq!(sign(sp, sig.as_mut_ptr()), WsStatus::State);
        assert_eq!(sign(null(), sig.as_mut_ptr()), WsStatus::NullPointer);
        assert_eq!(sign(sp, null_mut()), WsStatus::NullPointer);
        // The output over the signer block or the payload.
        assert_eq!(sign(sp, sp.cast::<u8>().add(8)), WsStatus::InvalidInput);
        let mut buf = [0u8; 80];
        let bp = buf.as_mut_ptr();
        let st = ws_xeddsa_sign(
            sp,
            Some(counter_rng),
            null_mut(),
            1,
            2,
            3,
            bp,
            10,
            bp.add(4),
        );
        assert_eq!(st, WsStatus::InvalidInput);
        // An unclamped (all-zero) private key; NULLs; a key over its block.
        assert_eq!(
            ws_xeddsa_signer_init(sp, [0u8; 32].as_ptr()),
            WsStatus::InvalidKey
        );
        assert_eq!(s.magic, 0, "left unset");
        assert_eq!(
            ws_xeddsa_signer_init(null_mut(), OUR_PRIVATE.as_ptr()),
            WsStatus::NullPointer
        );
        assert_eq!(ws_xeddsa_signer_init(sp, null()), WsStatus::NullPointer);
        assert_eq!(
            ws_xeddsa_signer_init(sp, sp.cast::<u8>().add(8)),
            WsStatus::InvalidInput
        );
        // Verifying keys: u = -1 has no Edwards counterpart.
        let mut minus_one = [0xffu8; 32];
        minus_one[0] = 0xec;
        minus_one[31] = 0x7f;
        assert_eq!(
            ws_xeddsa_key_init(kp, minus_one.as_ptr()),
            WsStatus::InvalidKey
        );
        assert_eq!(ws_xeddsa_key_init(kp, null()), WsStatus::NullPointer);
        assert_eq!(
            ws_xeddsa_key_init(kp, kp.cast::<u8>().add(16)),
            WsStatus::InvalidInput
        );
        let verify = |key: *const WsXeddsaKey, sig: *const u8| {
            ws_xeddsa_key_verify(key, 1, 2, 3, PLAINTEXT.as_ptr(), 10, sig, 64)
        };
        assert_eq!(verify(kp, sig.as_ptr()), WsStatus::State);
        assert_eq!(verify(null(), sig.as_ptr()), WsStatus::NullPointer);
        assert_eq!(
            ws_xeddsa_verify(null(), 1, 2, 3, null(), 0, sig.as_ptr(), 64),
            WsStatus::NullPointer
        );
        ws_xeddsa_signer_deinit(null_mut());
        ws_xeddsa_key_deinit(null_mut());
    }
    assert!(sig.iter().all(|&b| b == 0xff), "nothing written");
}

#[test]
fn a_failing_rng_or_none_releases_no_signature() {
    let (mut s, mut sig) = (signer(), [0xffu8; 64]);
    // SAFETY: live blocks and buffers of the lengths given.
    unsafe {
        assert_eq!(
            ws_xeddsa_signer_init(&mut *s, OUR_PRIVATE.as_ptr()),
            WsStatus::Ok
        );
        let st = ws_xeddsa_sign(&*s, None, null_mut(), 1, 2, 3, null(), 0, sig.as_mut_ptr());
        assert_eq!(st, WsStatus::NullPointer);
        let st = ws_xeddsa_sign(
            &*s,
            Some(failing_rng),
            null_mut(),
            1,
            2,
            3,
            null(),
            0,
            sig.as_mut_ptr(),
        );
        assert_eq!(st, WsStatus::RngFailed);
        ws_xeddsa_signer_deinit(&mut *s);
    }
    assert!(sig.iter().all(|&b| b == 0), "the output wiped");
}
