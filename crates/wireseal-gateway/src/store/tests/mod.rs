//! The store's tests: SQLite files on disk and PostgreSQL servers the tests
//! start and stop (the test kit's `PgServer`). The scenarios are written once
//! ([`scenarios`]) and run against both; [`probe`] reads the tables back
//! with each database's own client.

mod hostile;
mod migration;
mod pg_tests;
mod probe;
mod scenarios;
mod sqlite_tests;
mod throughput;
mod writer_tests;

use super::{NodeUpdate, Reception, Record, StoredPacket};

/// Gateway ids used by the tests.
pub const GW: [&str; 3] = ["!0000a001", "!0000a002", "!0000a003"];

/// A public key whose bytes are all `b`.
pub fn key(b: u8) -> [u8; 32] {
    [b; 32]
}

/// A decoded text message on LongFast from `from`, heard by `gw` at `t` ms.
pub fn text(from: u32, id: u32, gw: &str, t: u64, msg: &str) -> Record {
    Record {
        packet: StoredPacket {
            from,
            key: id.into(),
            to: 0xffff_ffff,
            channel_id: "LongFast".into(),
            decryption: "channel".into(),
            channel_name: Some("LongFast".into()),
            portnum: Some(1),
            payload: Some(msg.as_bytes().to_vec()),
            text: Some(msg.as_bytes().to_vec()),
            signature: "absent".into(),
            identity: None,
            error: None,
            our_node: None,
        },
        reception: Reception {
            gateway_id: gw.into(),
            topic: format!("msh/EU_868/2/e/LongFast/{gw}"),
            rx_time_ms: t,
            rx_time: Some((t / 1000) as u32),
            rssi: Some(-97),
            snr: Some(6.25),
            hop_start: Some(3),
            hop_limit: Some(2),
            relay_node: 0,
            transport: 1,
        },
        node: None,
    }
}

/// A NodeInfo from `from` announcing `key` and names.
pub fn node_info(
    from: u32,
    id: u32,
    gw: &str,
    t: u64,
    key: Option<[u8; 32]>,
    (long, short): (&[u8], &[u8]),
    identity: &str,
) -> Record {
    let mut r = text(from, id, gw, t, "");
    r.packet.portnum = Some(4);
    r.packet.payload = Some(vec![0x0a, 0x09, b'!', b'1', b'2']);
    r.packet.text = None;
    r.packet.identity = Some(identity.into());
    r.node = Some(NodeUpdate {
        public_key: key,
        long_name: Some(long.to_vec()),
        short_name: Some(short.to_vec()),
        identity: Some(identity.into()),
    });
    r
}

/// One record of every kind the gateway stores, each its own packet, heard
/// by `gw` at `t` ms. The order and (`from`, `id`) are fixed.
pub fn kinds(gw: &str, t: u64) -> Vec<Record> {
    let mut v = Vec::new();
    v.push(text(0x1001, 1, gw, t, "hello mesh"));
    let mut pos = text(0x1002, 2, gw, t, "");
    pos.packet.portnum = Some(3);
    pos.packet.payload = Some(vec![
        0x0d, 0x00, 0x00, 0x80, 0x1d, 0x15, 0x00, 0x00, 0x7f, 0x06,
    ]);
    pos.packet.text = None;
    v.push(pos);
    v.push(node_info(
        0x1003,
        3,
        gw,
        t,
        Some(key(3)),
        (b"Base Camp", b"BC"),
        "matches",
    ));
    let mut dm = text(0x1004, 4, gw, t, "direct to us");
    dm.packet.to = 0x0a0b_0c0d;
    dm.packet.channel_id = "PKI".into();
    dm.packet.decryption = "pkc".into();
    dm.packet.channel_name = None;
    dm.packet.our_node = Some(0x0a0b_0c0d);
    dm.node = Some(NodeUpdate {
        public_key: Some(key(4)),
        ..Default::default()
    });
    v.push(dm);
    let mut other = text(0x1005, 5, gw, t, "");
    other.packet.to = 0x0909_0909;
    other.packet.channel_id = "PKI".into();
    other.packet.decryption = "none".into();
    other.packet.channel_name = None;
    other.packet.portnum = None;
    other.packet.payload = None;
    other.packet.text = None;
    other.packet.error = Some("pkc_not_for_us".into());
    v.push(other);
    let mut signed = text(0x1006, 6, gw, t, "signed hello");
    signed.packet.signature = "valid".into();
    v.push(signed);
    let mut forged = text(0x1007, 7, gw, t, "forged hello");
    forged.packet.signature = "invalid".into();
    v.push(forged);
    let mut plain = text(0x1008, 8, gw, t, "plain hello");
    plain.packet.decryption = "plain".into();
    plain.packet.channel_name = None;
    v.push(plain);
    let mut unknown = text(0x1009, 9, gw, t, "");
    unknown.packet.channel_id = "Secret".into();
    unknown.packet.decryption = "none".into();
    unknown.packet.channel_name = None;
    unknown.packet.portnum = None;
    unknown.packet.payload = None;
    unknown.packet.text = None;
    unknown.packet.error = Some("no_channel".into());
    v.push(unknown);
    v.push(node_info(
        0x100a,
        10,
        gw,
        t,
        Some(key(10)),
        (b"Liar", b"LI"),
        "mismatch",
    ));
    v.push(node_info(
        0x100b,
        11,
        gw,
        t,
        None,
        (b"Old Timer", b"OT"),
        "legacy",
    ));
    let mut unsigned_key = text(0x100c, 12, gw, t, "signed by a stranger");
    unsigned_key.packet.signature = "unknown_key".into();
    v.push(unsigned_key);
    v
}

/// A deterministic mix like the gateway bench's feed: 70% LongFast
/// packets (text, position, NodeInfo from 200 nodes), 20% PKC direct
/// messages from 50 senders, 10% signed text broadcasts; each packet heard
/// by `gateways` gateways, the copies interleaved with the next packets.
/// Packet ids look random, as the firmware's do (distinct: the `n`th
/// packet's id is `n` times an odd constant), and `first` numbers the first.
pub fn traffic(packets: usize, gateways: usize, t0: u64) -> Vec<Record> {
    traffic_from(0, packets, gateways, t0)
}

/// [`traffic`] starting at packet number `first`.
pub fn traffic_from(first: usize, packets: usize, gateways: usize, t0: u64) -> Vec<Record> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = Vec::with_capacity(packets * gateways);
    let mut pending: Vec<Record> = Vec::new();
    for _ in 0..first {
        next();
    }
    for i in first..first + packets {
        let r = next();
        let t = t0 + i as u64 / 10;
        let kind = r % 10;
        let from = 0x2000_0000 + (r >> 8) as u32 % 200;
        let id = (i as u32 + 1).wrapping_mul(0x9e37_79b1);
        let mut rec = match kind {
            0..=3 => text(from, id, GW[0], t, "CQ CQ from the ridge, anyone copy? 73"),
            4 | 5 => {
                let mut p = text(from, id, GW[0], t, "");
                p.packet.portnum = Some(3);
                p.packet.payload = Some((0..22).map(|b| (b as u8) ^ (r as u8)).collect());
                p.packet.text = None;
                p
            }
            6 => {
                let k = (from % 256) as u8;
                node_info(
                    from,
                    id,
                    GW[0],
                    t,
                    Some(key(k)),
                    (b"Ridge Relay 7", b"RR7"),
                    "matches",
                )
            }
            7 | 8 => {
                let from = 0x3000_0000 + (r >> 8) as u32 % 50;
                let mut p = text(from, id, GW[0], t, "meet at the trailhead at 9");
                p.packet.to = 0x0a0b_0c0d;
                p.packet.channel_id = "PKI".into();
                p.packet.decryption = "pkc".into();
                p.packet.channel_name = None;
                p
            }
            _ => {
                let from = 0x3000_0000 + (r >> 8) as u32 % 50;
                let mut p = text(from, id, GW[0], t, "signed broadcast, verify me");
                p.packet.signature = "valid".into();
                p
            }
        };
        rec.reception.rssi = Some(-60 - (r % 60) as i32);
        for g in 0..gateways {
            let mut c = rec.clone();
            c.reception.gateway_id = GW[g % GW.len()].into();
            c.reception.topic = format!("msh/EU_868/2/e/{}/{}", c.packet.channel_id, GW[g % 3]);
            c.reception.relay_node = (g as u32 * 17) % 256;
            c.reception.rx_time_ms = t + g as u64;
            if g == 0 {
                out.push(c);
            } else {
                pending.push(c);
            }
        }
        if pending.len() >= 2 * gateways {
            out.append(&mut pending);
        }
    }
    out.append(&mut pending);
    out
}
