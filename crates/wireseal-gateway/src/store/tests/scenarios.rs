//! Scenarios run against SQLite and PostgreSQL alike: a store to write
//! through and a probe to read the tables back.

use super::probe::{node_text, packet_text, write, Probe};
use super::*;
use crate::store::Store;

/// Every kind of record stored once, receptions from two gateways kept,
/// the same receptions again dropped.
pub fn every_kind_once(store: &mut Store, p: &mut dyn Probe) {
    let first = write(store, &kinds(GW[0], 1_000));
    let n = kinds(GW[0], 0).len() as u64;
    assert_eq!(
        (
            first.records as u64,
            first.packets,
            first.receptions,
            first.duplicates
        ),
        (n, n, n, 0)
    );
    assert_eq!((first.nodes, first.keys), (n, 3));
    assert!(first.rejected.is_empty(), "{:?}", first.rejected);
    let second = write(store, &kinds(GW[1], 2_000));
    assert_eq!(
        (second.packets, second.receptions, second.duplicates),
        (0, n, 0)
    );
    let again = write(store, &kinds(GW[0], 3_000));
    assert_eq!(
        (again.packets, again.receptions, again.duplicates),
        (0, 0, n)
    );
    let n = n as i64;
    assert_eq!(p.count("SELECT count(*) FROM packets"), n);
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 2 * n);
    assert_eq!(
        p.count("SELECT count(DISTINCT gateway_id) FROM receptions"),
        2
    );
    assert_eq!(p.count("SELECT count(*) FROM nodes"), n);
    assert_eq!(p.count("SELECT count(*) FROM node_keys"), 3);

    assert_eq!(
        packet_text(p, "text", 0x1001).as_deref(),
        Some("hello mesh")
    );
    assert_eq!(packet_text(p, "decryption", 0x1004).as_deref(), Some("pkc"));
    assert_eq!(packet_text(p, "channel_id", 0x1004).as_deref(), Some("PKI"));
    assert_eq!(
        packet_text(p, "error", 0x1005).as_deref(),
        Some("pkc_not_for_us")
    );
    assert_eq!(
        p.int("SELECT portnum FROM packets WHERE from_node = 4101"),
        None
    );
    assert_eq!(
        packet_text(p, "signature", 0x1006).as_deref(),
        Some("valid")
    );
    assert_eq!(
        packet_text(p, "signature", 0x1007).as_deref(),
        Some("invalid")
    );
    assert_eq!(
        packet_text(p, "signature", 0x100c).as_deref(),
        Some("unknown_key")
    );
    assert_eq!(
        packet_text(p, "decryption", 0x1008).as_deref(),
        Some("plain")
    );
    assert_eq!(
        packet_text(p, "error", 0x1009).as_deref(),
        Some("no_channel")
    );
    assert_eq!(
        packet_text(p, "channel_name", 0x1001).as_deref(),
        Some("LongFast")
    );
    assert_eq!(
        packet_text(p, "identity", 0x1003).as_deref(),
        Some("matches")
    );
    assert_eq!(
        p.int("SELECT portnum FROM packets WHERE from_node = 4098"),
        Some(3)
    );
    assert_eq!(
        p.bytes("SELECT payload FROM packets WHERE from_node = 4098"),
        kinds(GW[0], 0)[1].packet.payload
    );
    assert_eq!(
        p.int("SELECT to_node FROM packets WHERE from_node = 4100"),
        Some(0x0a0b_0c0d)
    );
    assert_eq!(
        node_text(p, "long_name", 0x1003).as_deref(),
        Some("Base Camp")
    );
    assert_eq!(node_text(p, "short_name", 0x1003).as_deref(), Some("BC"));
    assert_eq!(
        node_text(p, "identity", 0x100a).as_deref(),
        Some("mismatch")
    );
    assert_eq!(node_text(p, "identity", 0x100b).as_deref(), Some("legacy"));
    assert_eq!(
        p.bytes("SELECT public_key FROM nodes WHERE node = 4100"),
        Some(key(4).to_vec())
    );
    assert_eq!(
        p.bytes("SELECT public_key FROM nodes WHERE node = 4107"),
        None
    );
    assert_eq!(
        p.int("SELECT first_seen_ms FROM nodes WHERE node = 4097"),
        Some(1_000)
    );
    assert_eq!(
        p.int("SELECT last_seen_ms FROM nodes WHERE node = 4097"),
        Some(3_000)
    );
    let rx = "FROM receptions WHERE from_node = 4097 AND gateway_id = '!0000a002'";
    assert_eq!(p.int(&format!("SELECT rssi {rx}")), Some(-97));
    assert_eq!(
        p.int(&format!("SELECT CAST(snr * 100 AS BIGINT) {rx}")),
        Some(625)
    );
    assert_eq!(p.int(&format!("SELECT hop_start {rx}")), Some(3));
    assert_eq!(p.int(&format!("SELECT hop_limit {rx}")), Some(2));
    assert_eq!(p.int(&format!("SELECT transport {rx}")), Some(1));
    assert_eq!(p.int(&format!("SELECT rx_time_ms {rx}")), Some(2_000));
    assert_eq!(p.int(&format!("SELECT rx_time {rx}")), Some(2));
    assert_eq!(
        p.text(&format!("SELECT topic {rx}")).as_deref(),
        Some("msh/EU_868/2/e/LongFast/!0000a002")
    );
}

/// The first decoded copy of a packet is its content, in one batch or
/// across batches; a later decoded copy does not replace it.
pub fn first_decoded_kept(store: &mut Store, p: &mut dyn Probe) {
    let undecoded = |from, id, gw: &str| {
        let mut r = text(from, id, gw, 100, "");
        r.packet.decryption = "none".into();
        r.packet.channel_name = None;
        r.packet.portnum = None;
        r.packet.payload = None;
        r.packet.text = None;
        r.packet.error = Some("no_channel".into());
        r
    };
    write(store, &[undecoded(0x2001, 1, GW[0])]);
    assert_eq!(p.int("SELECT portnum FROM packets"), None);
    let c = write(store, &[text(0x2001, 1, GW[1], 101, "first decoded")]);
    assert_eq!(c.packets, 1);
    let c = write(store, &[text(0x2001, 1, GW[2], 102, "second decoded")]);
    assert_eq!(c.packets, 0);
    assert_eq!(
        packet_text(p, "text", 0x2001).as_deref(),
        Some("first decoded")
    );
    assert_eq!(packet_text(p, "error", 0x2001), None);
    assert_eq!(
        packet_text(p, "decryption", 0x2001).as_deref(),
        Some("channel")
    );
    write(
        store,
        &[
            undecoded(0x2002, 2, GW[0]),
            text(0x2002, 2, GW[1], 103, "decoded later in the batch"),
            text(0x2002, 2, GW[2], 104, "decoded last"),
        ],
    );
    assert_eq!(
        packet_text(p, "text", 0x2002).as_deref(),
        Some("decoded later in the batch")
    );
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 6);
}

/// Copies from one gateway through different relays or transports are
/// distinct receptions; the same copy twice is one.
pub fn distinct_receptions(store: &mut Store, p: &mut dyn Probe) {
    let copy = |relay, transport| {
        let mut r = text(0x3001, 1, GW[0], 100, "relayed");
        r.reception.relay_node = relay;
        r.reception.transport = transport;
        r
    };
    let batch = [copy(0, 1), copy(0x2a, 1), copy(0x2a, 5), copy(0x2a, 1)];
    let c = write(store, &batch);
    assert_eq!((c.packets, c.receptions, c.duplicates), (1, 3, 1));
    let c = write(store, &batch);
    assert_eq!((c.packets, c.receptions, c.duplicates), (0, 0, 4));
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 3);
    assert_eq!(
        p.count("SELECT count(*) FROM receptions WHERE relay_node = 42"),
        2
    );
}

/// The first key is pinned; another key is counted once however often it
/// comes and cannot rename the node; the pinned key can.
pub fn keys_pinned(store: &mut Store, p: &mut dyn Probe) {
    let k = |b| Some(key(b));
    write(
        store,
        &[node_info(
            0x4001,
            1,
            GW[0],
            10,
            k(1),
            (b"Alice", b"AL"),
            "matches",
        )],
    );
    let impostor = node_info(0x4001, 2, GW[0], 20, k(2), (b"Mallory", b"MA"), "mismatch");
    let c = write(store, std::slice::from_ref(&impostor));
    assert_eq!(c.keys, 1);
    assert_eq!(node_text(p, "long_name", 0x4001).as_deref(), Some("Alice"));
    assert_eq!(node_text(p, "identity", 0x4001).as_deref(), Some("matches"));
    assert_eq!(
        p.int("SELECT key_conflicts FROM nodes WHERE node = 16385"),
        Some(1)
    );
    let again = node_info(0x4001, 3, GW[1], 30, k(2), (b"Mallory", b"MA"), "mismatch");
    let c = write(store, &[impostor, again]);
    assert_eq!(c.keys, 0);
    assert_eq!(
        p.int("SELECT key_conflicts FROM nodes WHERE node = 16385"),
        Some(1)
    );
    assert_eq!(
        p.bytes("SELECT public_key FROM nodes WHERE node = 16385"),
        Some(key(1).to_vec())
    );
    write(
        store,
        &[node_info(
            0x4001,
            4,
            GW[0],
            40,
            k(1),
            (b"Alice B", b"AB"),
            "matches",
        )],
    );
    assert_eq!(
        node_text(p, "long_name", 0x4001).as_deref(),
        Some("Alice B")
    );
    write(
        store,
        &[node_info(
            0x4001,
            5,
            GW[0],
            50,
            None,
            (b"Nokey", b"NK"),
            "legacy",
        )],
    );
    assert_eq!(
        node_text(p, "long_name", 0x4001).as_deref(),
        Some("Alice B")
    );
    assert_eq!(
        p.count("SELECT count(*) FROM node_keys WHERE node = 16385"),
        2
    );

    write(
        store,
        &[node_info(
            0x4002,
            1,
            GW[0],
            10,
            None,
            (b"Legacy", b"LG"),
            "legacy",
        )],
    );
    assert_eq!(node_text(p, "long_name", 0x4002).as_deref(), Some("Legacy"));
    write(
        store,
        &[node_info(
            0x4002,
            2,
            GW[0],
            20,
            k(5),
            (b"Keyed", b"KY"),
            "matches",
        )],
    );
    assert_eq!(node_text(p, "long_name", 0x4002).as_deref(), Some("Keyed"));
    assert_eq!(
        p.bytes("SELECT public_key FROM nodes WHERE node = 16386"),
        Some(key(5).to_vec())
    );
    assert_eq!(
        p.int("SELECT key_conflicts FROM nodes WHERE node = 16386"),
        Some(0)
    );
}

/// Three gateways writing the same packets at once, each its own
/// connection and its own receptions: every packet once, every reception
/// kept, no error (rows are locked in key order, so no deadlock).
pub fn concurrent_gateways(open: &(dyn Fn() -> Store + Sync), p: &mut dyn Probe) {
    let feed = traffic(6_000, 3, 1_000_000);
    std::thread::scope(|s| {
        for g in GW {
            let mine: Vec<Record> = feed
                .iter()
                .filter(|r| r.reception.gateway_id == g)
                .cloned()
                .collect();
            s.spawn(move || {
                let mut store = open();
                for chunk in mine.chunks(500) {
                    let c = store.write_batch(chunk).expect("batch committed");
                    assert!(c.rejected.is_empty(), "{:?}", c.rejected);
                }
            });
        }
    });
    assert_eq!(p.count("SELECT count(*) FROM packets"), 6_000);
    assert_eq!(p.count("SELECT count(*) FROM receptions"), 18_000);
    assert_eq!(
        p.count("SELECT count(*) FROM (SELECT DISTINCT from_node, packet_id FROM receptions) x"),
        6_000
    );
    assert_eq!(
        p.count("SELECT count(*) FROM nodes"),
        p.count("SELECT count(*) FROM (SELECT DISTINCT from_node FROM packets) x")
    );
}
