//! Per-peer E2EE replay and counter rules: forged and edited counters, exact
//! replays, a frame aged out of the nonce history, the history size, failed
//! opens that change no state, and the outbound counter.

use crate::peat_peer_support;

use peat_peer_support::{node, pair, A, B};
use wireseal::peat::*;

#[test]
fn forged_huge_counter_does_not_block_the_next_genuine_frame() {
    let (mut a, mut b) = pair();
    let genuine0 = a.seal_to_vec(0, B, b"first").unwrap();
    assert_eq!(b.open_to_vec(0, &genuine0).unwrap().plaintext, b"first");
    // Forged: counter 1,000,000, random ciphertext and tag.
    let mut forged = a.seal_to_vec(0, B, b"ignored").unwrap();
    forged[10..18].copy_from_slice(&1_000_000u64.to_le_bytes());
    let n = forged.len();
    forged[n - 1] ^= 0x55;
    assert_eq!(b.open_to_vec(0, &forged), Err(Error::Auth));
    // A forged frame with a fresh random body (attacker knows no key).
    let mut junk = forged.clone();
    for (i, x) in junk[30..].iter_mut().enumerate() {
        *x = i as u8;
    }
    assert_eq!(b.open_to_vec(0, &junk), Err(Error::Auth));
    // The genuine next frame (counter 2) still opens.
    let genuine = a.seal_to_vec(0, B, b"still here").unwrap();
    assert_eq!(PeerHeader::parse(&genuine).unwrap().counter, 2);
    assert_eq!(b.open_to_vec(0, &genuine).unwrap().plaintext, b"still here");
}

/// Rewrites the (unauthenticated) counter of a per-peer frame.
fn with_counter(frame: &[u8], counter: u64) -> Vec<u8> {
    let mut f = frame.to_vec();
    f[10..18].copy_from_slice(&counter.to_le_bytes());
    f
}

#[test]
fn replays_are_rejected_whatever_their_counter() {
    let (mut a, mut b) = pair();
    let f0 = a.seal_to_vec(0, B, b"zero").unwrap();
    let f1 = a.seal_to_vec(0, B, b"one").unwrap();
    assert_eq!(b.open_to_vec(0, &f1).unwrap().counter, 1);
    // A genuine frame that arrives late (lower counter, fresh nonce) is
    // delivered: the counter is advisory and never rejects a verified frame.
    let late = b.open_to_vec(0, &f0).unwrap();
    assert_eq!((late.counter, &late.plaintext[..]), (0, &b"zero"[..]));
    assert_eq!(
        b.session_info(A).unwrap().highest_inbound_counter,
        Some(1),
        "the highest verified counter does not go back"
    );
    // Exact replays, and replays with the counter edited to anything: the
    // nonce gives them away (the tag still verifies, it does not cover the
    // counter).
    for f in [&f0, &f1] {
        for c in [0, 1, 2, 50, 1_000_000, u64::MAX - 1, u64::MAX] {
            assert_eq!(
                b.open_to_vec(0, &with_counter(f, c)),
                Err(Error::Replay),
                "counter {c}"
            );
        }
    }
    let before = b.session_info(A).unwrap();
    assert_eq!(before.nonces_remembered, 2);
    let f2 = a.seal_to_vec(0, B, b"two").unwrap();
    assert_eq!(b.open_to_vec(0, &f2).unwrap().plaintext, b"two");
}

#[test]
fn aged_out_frame_with_counter_max_does_not_block_the_next_genuine_frame() {
    let (mut a, b) = pair();
    let mut b = b.with_nonce_history(64);
    // The history size applies to sessions set up afterwards: re-establish.
    b.remove(A);
    let KeyExchangeOutcome::Established { .. } =
        b.handle_key_exchange(0, &a.key_exchange_frame()).unwrap()
    else {
        panic!("responder must establish")
    };
    let old = a.seal_to_vec(0, B, b"old").unwrap();
    assert_eq!(b.open_to_vec(0, &old).unwrap().plaintext, b"old");
    // 63 more frames: the old nonce is still remembered.
    for i in 0..63u32 {
        let f = a.seal_to_vec(0, B, &i.to_le_bytes()).unwrap();
        assert!(b.open_to_vec(0, &f).is_ok(), "{i}");
    }
    assert_eq!(b.session_info(A).unwrap().nonces_remembered, 64);
    assert!(matches!(
        b.open_to_vec(0, &with_counter(&old, u64::MAX)),
        Err(Error::Replay)
    ));
    // One more: the old nonce ages out of the 64-entry history.
    let f = a.seal_to_vec(0, B, b"64th").unwrap();
    assert!(b.open_to_vec(0, &f).is_ok());
    // The attack: the genuine old frame with its counter raised to u64::MAX.
    // Its tag verifies (the counter is not covered), so it is delivered once
    // more: the documented residual risk, the same as peat-btle's.
    let replay = b.open_to_vec(0, &with_counter(&old, u64::MAX)).unwrap();
    assert_eq!(
        (replay.counter, &replay.plaintext[..]),
        (u64::MAX, &b"old"[..])
    );
    assert_eq!(
        b.session_info(A).unwrap().highest_inbound_counter,
        Some(u64::MAX)
    );
    // But it silences nobody: the next genuine frames (counter 65, 66) open.
    for want in [65u64, 66] {
        let next = a.seal_to_vec(0, B, b"still here").unwrap();
        let m = b.open_to_vec(0, &next).unwrap();
        assert_eq!((m.counter, &m.plaintext[..]), (want, &b"still here"[..]));
    }
    // And the replayed frame cannot be replayed again while remembered.
    assert!(matches!(
        b.open_to_vec(0, &with_counter(&old, 7)),
        Err(Error::Replay)
    ));
}

#[test]
fn nonce_history_size_is_configurable_with_a_minimum() {
    assert_eq!(node(B, 0xb2).nonce_history(), DEFAULT_NONCE_HISTORY);
    assert_eq!(DEFAULT_NONCE_HISTORY, 4096);
    assert_eq!(
        node(B, 0xb2).with_nonce_history(3).nonce_history(),
        MIN_NONCE_HISTORY
    );
    assert_eq!(node(B, 0xb2).with_nonce_history(100).nonce_history(), 100);
    // With the default, a frame 4095 frames old is still caught.
    let (mut a, mut b) = pair();
    let first = a.seal_to_vec(0, B, b"first").unwrap();
    b.open_to_vec(0, &first).unwrap();
    for _ in 0..DEFAULT_NONCE_HISTORY - 1 {
        let f = a.seal_to_vec(0, B, b"x").unwrap();
        b.open_to_vec(0, &f).unwrap();
    }
    assert_eq!(
        b.session_info(A).unwrap().nonces_remembered,
        DEFAULT_NONCE_HISTORY
    );
    assert!(matches!(
        b.open_to_vec(0, &with_counter(&first, u64::MAX)),
        Err(Error::Replay)
    ));
}

#[test]
fn failed_opens_change_no_state() {
    let (mut a, mut b) = pair();
    let f0 = a.seal_to_vec(5, B, b"zero").unwrap();
    b.open_to_vec(5, &f0).unwrap();
    let before = b.session_info(A).unwrap();
    assert_eq!(
        before,
        SessionInfo {
            state: SessionState::Established,
            last_activity: 5,
            next_outbound_counter: 0,
            highest_inbound_counter: Some(0),
            nonces_remembered: 1,
        }
    );
    let next = a.seal_to_vec(5, B, b"next").unwrap();
    // Tampered in every byte after the header's routing fields, with the
    // counter raised as well, and a replay, all at a later time.
    let mut bad = Vec::new();
    for i in 18..next.len() {
        let mut t = with_counter(&next, u64::MAX);
        t[i] ^= 0x01;
        bad.push(t);
    }
    bad.push(with_counter(&f0, 1_000_000));
    for (i, t) in bad.iter().enumerate() {
        assert!(b.open_to_vec(900, t).is_err(), "{i}");
        assert_eq!(b.session_info(A).unwrap(), before, "frame {i}");
    }
    // The genuine frame whose nonce the tampered ones carried still opens:
    // no failed attempt entered the history.
    assert_eq!(b.open_to_vec(1000, &next).unwrap().plaintext, b"next");
    let after = b.session_info(A).unwrap();
    assert_eq!(after.last_activity, 1000);
    assert_eq!(after.highest_inbound_counter, Some(1));
    assert_eq!(after.nonces_remembered, 2);
}

#[test]
fn next_counter_can_be_set_and_is_reported() {
    let (mut a, mut b) = pair();
    a.set_next_counter(B, 41).unwrap();
    let f = a.seal_to_vec(0, B, b"x").unwrap();
    assert_eq!(PeerHeader::parse(&f).unwrap().counter, 41);
    assert_eq!(b.open_to_vec(0, &f).unwrap().counter, 41);
    assert_eq!(a.session_info(B).unwrap().next_outbound_counter, 42);
    assert_eq!(
        a.set_next_counter(0x7777, 1),
        Err(Error::NoSession { peer: 0x7777 })
    );
    // The outbound counter stops at u64::MAX instead of wrapping.
    a.set_next_counter(B, u64::MAX - 1).unwrap();
    assert!(a.seal_to_vec(0, B, b"last").is_ok());
    assert_eq!(a.seal_to_vec(0, B, b"x"), Err(Error::Exhausted));
}
