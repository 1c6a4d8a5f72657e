//! Replay state under load: Meshtastic's [`ReplayWindow`] and peat's
//! per-session nonce history against 1,000,000 random senders. The bounds
//! are asserted structurally, by counting what the state still remembers
//! through the public API, never by sampling resident memory. Bounded in
//! count (seeded randomness, no clock, no I/O).

use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::ReplayWindow;
use wireseal::peat::{KeyExchangeOutcome, PeerSessions, PEER_HEADER_LEN};

const SENDERS: usize = 1_000_000;

/// A bijection on u32 (odd multiplier), so the senders are distinct but
/// scattered over the id space.
fn sender(i: usize) -> u32 {
    (i as u32).wrapping_mul(0x9E37_79B1) ^ 0x5bd1_e995
}

#[test]
fn meshtastic_window_remembers_at_most_max_senders() {
    let (ids_per_sender, max_senders) = (64, 1024);
    let mut w = ReplayWindow::new(ids_per_sender, max_senders);
    let mut rng = StdRng::seed_from_u64(14);
    let ids: Vec<u32> = (0..SENDERS).map(|_| rng.gen()).collect();
    for (i, &id) in ids.iter().enumerate() {
        assert!(w.accept(sender(i), id), "sender {i} is new");
    }
    // Each sender sent one id: the window remembers exactly the last
    // `max_senders` of them and nothing older.
    let remembered = (0..SENDERS).filter(|&i| w.seen(sender(i), ids[i])).count();
    assert_eq!(remembered, max_senders);
    assert!((SENDERS - max_senders..SENDERS).all(|i| w.seen(sender(i), ids[i])));
    // Replays of remembered packets are refused and change nothing.
    for (i, &id) in ids.iter().enumerate().skip(SENDERS - max_senders) {
        assert!(!w.accept(sender(i), id));
    }
    let again = (0..SENDERS).filter(|&i| w.seen(sender(i), ids[i])).count();
    assert_eq!(again, max_senders);
    println!("meshtastic: {SENDERS} senders, {remembered} remembered (max {max_senders})");
}

#[test]
fn meshtastic_window_many_ids_per_sender() {
    // 1,000,000 packets from 4,096 senders (each sends ~244 ids): at most
    // `ids_per_sender` ids per sender, `max_senders` senders.
    let (ids_per_sender, max_senders, senders) = (64, 1024, 4096);
    let mut w = ReplayWindow::new(ids_per_sender, max_senders);
    let mut rng = StdRng::seed_from_u64(15);
    let packets: Vec<(u32, u32)> = (0..SENDERS)
        .map(|_| (sender(rng.gen_range(0..senders)), rng.gen()))
        .collect();
    for &(from, id) in &packets {
        w.accept(from, id);
    }
    let remembered = packets.iter().filter(|&&(f, id)| w.seen(f, id)).count();
    let distinct: std::collections::HashSet<u32> = packets
        .iter()
        .filter(|&&(f, id)| w.seen(f, id))
        .map(|&(f, _)| f)
        .collect();
    assert!(
        distinct.len() <= max_senders,
        "{} senders remembered",
        distinct.len()
    );
    assert!(
        remembered <= ids_per_sender * max_senders,
        "{remembered} ids remembered"
    );
    println!(
        "meshtastic: {SENDERS} packets from {senders} senders, {remembered} ids of {} senders remembered",
        distinct.len()
    );
}

const US: u32 = 0x0000_0001;

/// A peer node with an established session to us.
fn establish(us: &mut PeerSessions, id: u32, now: u64) -> PeerSessions {
    let mut peer = PeerSessions::new(id, StaticSecret::generate());
    let hello = peer.initiate(now, US).expect("peer has room");
    let KeyExchangeOutcome::Established { response, .. } =
        us.handle_key_exchange(now, &hello).expect("we have room")
    else {
        panic!("new peer {id:08x} ignored");
    };
    peer.handle_key_exchange(now, &response)
        .expect("peer accepts");
    peer
}

#[test]
fn peat_sessions_and_nonce_history_stay_bounded() {
    let (max_sessions, history, timeout) = (16, 64, 1_000);
    let mut us = PeerSessions::new(US, StaticSecret::generate())
        .with_max_sessions(max_sessions)
        .with_nonce_history(history)
        .with_ttl(timeout);
    let mut rng = StdRng::seed_from_u64(16);

    // 2,000 genuine peers, one after another, each after the previous ones
    // went idle past the timeout; each sends 3 * history frames.
    let mut now = 0;
    let mut last = None;
    for p in 0..2_000u32 {
        now += timeout + 1;
        let mut peer = establish(&mut us, 0x1000 + p, now);
        for k in 0..3 * history {
            let frame = peer.seal_to_vec(now, US, &k.to_le_bytes()).expect("seal");
            let msg = us.open_to_vec(now, &frame).expect("genuine frame opens");
            assert_eq!(msg.sender, 0x1000 + p);
            let info = us.session_info(0x1000 + p).expect("session");
            assert!(
                info.nonces_remembered <= history,
                "{}",
                info.nonces_remembered
            );
        }
        assert!(us.len() <= max_sessions, "{} sessions", us.len());
        last = Some((peer, 0x1000 + p));
    }
    let (mut peer, peer_id) = last.expect("at least one peer");
    assert_eq!(
        us.session_info(peer_id).map(|i| i.nonces_remembered),
        Some(history)
    );

    // 1,000,000 frames claiming random senders (and a random nonce and tag):
    // none gets past the session lookup or the tag, so no state moves.
    let genuine = peer.seal_to_vec(now, US, b"template").expect("seal");
    let before = us.session_info(peer_id);
    let (mut refused, mut sessions_max) = (0usize, 0usize);
    let mut frame = genuine.clone();
    for i in 0..SENDERS {
        // Half claim a random sender, half the live peer with a random nonce.
        let from = if i % 2 == 0 { rng.gen() } else { peer_id };
        frame[6..10].copy_from_slice(&from.to_le_bytes());
        rng.fill_bytes(&mut frame[18..PEER_HEADER_LEN]);
        rng.fill_bytes(&mut frame[PEER_HEADER_LEN..]);
        refused += usize::from(us.open_to_vec(now, &frame).is_err());
        sessions_max = sessions_max.max(us.len());
    }
    assert_eq!(refused, SENDERS);
    assert!(sessions_max <= max_sessions);
    assert_eq!(
        us.session_info(peer_id),
        before,
        "a forged frame moved state"
    );
    // The genuine frame still opens once, then is a replay.
    us.open_to_vec(now, &genuine).expect("genuine opens");
    assert!(us.open_to_vec(now, &genuine).is_err(), "replay refused");
    println!(
        "peat: 2,000 peers x {} frames, then {SENDERS} forged senders: {} sessions (max {max_sessions}), {} nonces remembered (max {history})",
        3 * history,
        us.len(),
        us.session_info(peer_id).map_or(0, |i| i.nonces_remembered)
    );
}
