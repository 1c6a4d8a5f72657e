//! Several node keys of ours, and nodes firmware 2.8 renumbered: direct
//! messages to any of our nodes are opened and say which node they were
//! for, in the record and the store; a key seen under an older number and
//! under its `crc32` links the two, in the record, the node table and the
//! store (also across a restart of the gateway); another key under a known
//! number stays a conflict.

use crate::store::storing;
use crate::support::{peers, Running};
use crate::traffic::plain;
use std::time::Duration;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::envelope::{
    self, Data, MeshPacket, PayloadVariant, ServiceEnvelope, User,
};
use wireseal::meshtastic::{node_number, PkcEngine, PkcPacket};
use wireseal_gateway::{Config, Event};
use wireseal_testkit::db::Db;
use wireseal_testkit::mosquitto::Mosquitto;
use wireseal_testkit::mqtt::publish_qos1;

/// A direct message from a fresh sender to `to`, whose public key is `to_public`.
fn dm(to: u32, to_public: &[u8; 32], id: u32, text: &str) -> (String, Vec<u8>) {
    let sender = StaticSecret::generate();
    let public = *sender.public_key();
    let from = node_number(&public);
    let mut e = PkcEngine::new(sender).unwrap();
    let plain = envelope::encode_data(&Data {
        portnum: envelope::TEXT_MESSAGE_APP,
        payload: text.as_bytes().to_vec(),
        ..Default::default()
    });
    let ct = e
        .seal_to_vec(
            0,
            PkcPacket {
                peer_public: to_public,
                from,
                id,
            },
            &plain,
        )
        .unwrap();
    let env = ServiceEnvelope {
        packet: Some(MeshPacket {
            from,
            to,
            id,
            payload_variant: Some(PayloadVariant::Encrypted(ct)),
            public_key: public.to_vec(),
            pki_encrypted: true,
            hop_start: 3,
            hop_limit: 3,
            ..Default::default()
        }),
        channel_id: "PKI".into(),
        gateway_id: "!0000c001".into(),
    };
    (
        "msh/EU_868/2/e/PKI/!0000c001".into(),
        envelope::encode_to_vec(&env),
    )
}

fn nodeinfo(from: u32, id: u32, key: &[u8; 32], name: &str) -> (String, Vec<u8>) {
    let data = Data {
        portnum: envelope::NODEINFO_APP,
        payload: envelope::encode_user(&User {
            id: format!("!{from:08x}"),
            long_name: name.into(),
            short_name: "RN".into(),
            public_key: key.to_vec(),
            ..Default::default()
        }),
        ..Default::default()
    };
    (
        "msh/EU_868/2/e/LongFast/!0000c001".into(),
        plain(from, id, "LongFast", "!0000c001", data),
    )
}

#[test]
fn direct_messages_to_each_of_our_nodes() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (StaticSecret::generate(), StaticSecret::generate());
    let (pa, pb) = (*a.public_key(), *b.public_key());
    let fa = dir.path().join("a.key");
    std::fs::write(&fa, hex::encode(a.expose())).unwrap();
    let keys = dir.path().join("keys");
    std::fs::create_dir(&keys).unwrap();
    std::fs::write(keys.join("node-b.key"), hex::encode(b.expose())).unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let (c, _k) = storing(&broker, &db, "keys");
    let gw = Running::start(Config {
        key_file: vec![format!("!0000aaaa={}", fa.display())],
        keys_dir: Some(keys),
        ..c
    });
    let node_b = node_number(&pb);
    let other = StaticSecret::generate();
    let msgs = [
        dm(0xaaaa, &pa, 1, "to a"),
        dm(node_b, &pb, 2, "to b"),
        dm(0x7777, other.public_key(), 3, "to someone"),
    ];
    assert_eq!(publish_qos1(broker.port, &msgs, 1_000).unwrap(), 3);
    let got = gw.take(3, Duration::from_secs(30));
    assert_eq!(
        (got[0]["text"].as_str(), got[0]["our_node"].as_str()),
        (Some("to a"), Some("!0000aaaa"))
    );
    let b_id = format!("!{node_b:08x}");
    assert_eq!(
        (got[1]["text"].as_str(), got[1]["our_node"].as_str()),
        (Some("to b"), Some(b_id.as_str()))
    );
    assert_eq!(got[2]["error"], "pkc_not_for_us");
    assert!(got[2].get("our_node").is_none());
    let s = gw.stop().unwrap();
    assert_eq!(s["decryption"]["pkc"], 2, "{s}");
    assert_eq!(
        db.count("SELECT count(*) FROM packets WHERE our_node = 43690"),
        1
    );
    assert_eq!(
        db.count(&format!(
            "SELECT count(*) FROM packets WHERE our_node = {node_b}"
        )),
        1
    );
}

#[test]
fn renumbered_nodes_are_linked_and_other_keys_conflict() {
    if !peers(false) {
        return;
    }
    let broker = Mosquitto::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = Db::Sqlite(dir.path().join("mesh.db"));
    let k = *StaticSecret::generate().public_key();
    let new = node_number(&k);
    let old = new ^ 0x00a5_5a00;
    // A first gateway sees only the old number; a second one, with a
    // fresh node table, sees the new: the store links them.
    let (c, _k1) = storing(&broker, &db, "renumber-1");
    let gw = Running::start(c.clone());
    publish_qos1(broker.port, &[nodeinfo(old, 1, &k, "Before 2.8")], 100).unwrap();
    gw.take(1, Duration::from_secs(30));
    gw.stop().unwrap();
    let gw = Running::start(c);
    let msgs = [
        nodeinfo(new, 2, &k, "After 2.8"),
        nodeinfo(old, 3, &k, "Before 2.8"),
        nodeinfo(new, 4, &[7; 32], "Impostor"),
    ];
    publish_qos1(broker.port, &msgs, 100).unwrap();
    let got = gw.take(3, Duration::from_secs(30));
    // The second gateway saw the old number after the new one: linked too.
    assert_eq!(got[1]["key_event"], "renumbered", "{}", got[1]);
    assert_eq!(got[1]["renumbered_to"], format!("!{new:08x}"));
    assert_eq!(got[2]["key_event"], "conflict", "{}", got[2]);
    gw.wait_for("renumbered", Duration::from_secs(5));
    assert!(gw
        .seen()
        .iter()
        .any(|e| matches!(e, Event::Renumbered { from, to } if *from == old && *to == new)));
    gw.stop().unwrap();
    let row = |n: u32| {
        db.rows(&format!(
        "SELECT CAST(renumbered_from AS TEXT), CAST(renumbered_to AS TEXT), long_name FROM nodes WHERE node = {n}"
    ))
    };
    assert_eq!(row(old)[0][1].as_deref(), Some(new.to_string().as_str()));
    assert_eq!(row(new)[0][0].as_deref(), Some(old.to_string().as_str()));
    assert_eq!(
        row(new)[0][2].as_deref(),
        Some("After 2.8"),
        "the impostor cannot rename it"
    );
    assert_eq!(
        db.count(&format!(
            "SELECT key_conflicts FROM nodes WHERE node = {new}"
        )),
        1
    );
}
