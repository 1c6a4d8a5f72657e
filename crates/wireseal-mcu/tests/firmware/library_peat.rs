//! peat per-peer E2EE in the library's `no_std` core inside the emulated
//! Cortex-M4: the key exchange, sessions in the fixed table, frames sealed
//! with the caller's RNG, replays and tampering refused, the table's cap;
//! and the encryption policy's decision over static rules.

use crate::library::test_rng;
use wireseal::keys::StaticSecret;
use wireseal::peat::policy::{Conditions, DataType, Level, Link, PolicyRules, Protection};
use wireseal::peat::{
    Error, KeyExchangeOutcome, PeerSessions, SessionState, CORE_MAX_SESSIONS, PEER_OVERHEAD,
};
use wireseal_mcu::harness::group;

pub fn run() {
    sessions();
    table_cap();
    policy();
}

/// Two nodes with fresh keys and an established session.
pub fn pair(seed: u8) -> (PeerSessions, PeerSessions) {
    let mut rng = test_rng(seed);
    let mut a = PeerSessions::new(0x1111, StaticSecret::generate_with_rng(&mut rng));
    let mut b = PeerSessions::new(0x2222, StaticSecret::generate_with_rng(&mut rng));
    if let Ok(kx) = a.initiate(1, 0x2222) {
        if let Ok(KeyExchangeOutcome::Established { response, .. }) = b.handle_key_exchange(1, &kx)
        {
            let _ = a.handle_key_exchange(2, &response);
        }
    }
    (a, b)
}

fn sessions() {
    let mut g = group("library: peat key exchange, per-peer frames in a fixed table");
    let (mut a, mut b) = pair(5);
    g.check(
        a.state(0x2222) == Some(SessionState::Established)
            && b.state(0x1111) == Some(SessionState::Established),
        format_args!("sessions {:?} / {:?}", a.state(0x2222), b.state(0x1111)),
    );
    let mut rng = test_rng(6);
    let doc = [0x5au8; 100];
    let mut frame = [0u8; 100 + PEER_OVERHEAD];
    let n = a.seal_with_rng_into(3, &mut rng, 0x2222, &doc, &mut frame);
    g.check(n == Ok(frame.len()), format_args!("seal {n:?}"));
    let sealed = frame;
    let r = b.open_in_place(4, &mut frame).map(|p| p == doc);
    g.check(r == Ok(true), format_args!("open {r:?}"));
    let mut again = sealed;
    let r = b.open_in_place(5, &mut again).map(|p| p.len());
    g.check(r == Err(Error::Replay), format_args!("replay: {r:?}"));
    for i in [0usize, 5, 20, 40, sealed.len() - 1] {
        let mut t = sealed;
        t[i] ^= 0x10;
        let r = b.open_in_place(5, &mut t).map(|p| p.len());
        g.check(r.is_err(), format_args!("byte {i} flipped: {r:?}"));
    }
    // To a node that is not us.
    let r = a.open_in_place(5, &mut sealed.clone()).map(|p| p.len());
    g.check(
        matches!(r, Err(Error::NotForUs { .. })),
        format_args!("not for us: {r:?}"),
    );
    let info = b.session_info(0x1111);
    g.check(
        info.is_some_and(|i| i.nonces_remembered == 1 && i.highest_inbound_counter == Some(0)),
        format_args!("{info:?}"),
    );
    // Expired sessions are refused, then removed.
    let b = b.with_ttl(1000);
    let mut b = b;
    let r = b.seal_with_rng_into(10_000, &mut rng, 0x1111, &doc, &mut frame);
    g.check(
        matches!(r, Err(Error::SessionExpired { .. })),
        format_args!("expired: {r:?}"),
    );
    g.check(
        b.remove_expired(10_000) == 1 && b.is_empty(),
        format_args!("cleanup"),
    );
    g.end();
}

fn table_cap() {
    let mut g = group("library: peat fixed session table refuses past its cap");
    let mut rng = test_rng(7);
    let mut hub = PeerSessions::new(1, StaticSecret::generate_with_rng(&mut rng));
    let mut ok = 0;
    for i in 0..CORE_MAX_SESSIONS as u32 {
        let mut peer = PeerSessions::new(100 + i, StaticSecret::generate_with_rng(&mut rng));
        if let Ok(kx) = peer.initiate(1, 1) {
            if let Ok(KeyExchangeOutcome::Established { .. }) = hub.handle_key_exchange(1, &kx) {
                ok += 1;
            }
        }
    }
    g.check(
        ok == CORE_MAX_SESSIONS && hub.len() == CORE_MAX_SESSIONS,
        format_args!("{ok} established, table {}", hub.len()),
    );
    let mut late = PeerSessions::new(999, StaticSecret::generate_with_rng(&mut rng));
    let r = late
        .initiate(1, 1)
        .map(|kx| hub.handle_key_exchange(2, &kx));
    g.check(
        matches!(r, Ok(Err(Error::SessionLimit { .. }))),
        format_args!("17th peer: {r:?}"),
    );
    g.end();
}

fn policy() {
    let mut g = group("library: peat policy decisions over static rules");
    let full = Conditions::FULL_POWER;
    let cases = [
        // Selective: counters plain over a known peer; emergencies never
        // below mesh-wide, even on a trusted local link; an untrusted
        // relay always per-peer; Level::None still honours the floor.
        (
            Level::Selective,
            DataType::Counter,
            Link::KnownPeer,
            Protection::Plain,
        ),
        (
            Level::Selective,
            DataType::Emergency,
            Link::TrustedLocal,
            Protection::MeshWide,
        ),
        (
            Level::Selective,
            DataType::Chat,
            Link::UntrustedRelay,
            Protection::PeerE2ee,
        ),
        (
            Level::None,
            DataType::Emergency,
            Link::KnownPeer,
            Protection::MeshWide,
        ),
        (
            Level::MeshWide,
            DataType::Heartbeat,
            Link::KnownPeer,
            Protection::MeshWide,
        ),
    ];
    for (level, data, link, want) in cases {
        let got = PolicyRules::new(level).decide(data, link, full).protection;
        g.check(
            got == want,
            format_args!("{level:?} {data:?} {link:?}: {got:?}"),
        );
    }
    let floor = PolicyRules::new(Level::Selective).required_floor(DataType::Chat, Link::KnownPeer);
    g.check(
        floor == Protection::MeshWide,
        format_args!("floor {floor:?}"),
    );
    g.end();
}
