//! MQTT envelopes for the `meshtastic_envelope_*` tests, built by a
//! test-side protobuf writer written from the public schema's field numbers
//! (not by the library's own encoder), and the channel keys of a test mesh.
#![allow(dead_code)]

use wireseal::keys::StaticSecret;
use wireseal::meshtastic::ChannelKey;

/// A minimal protobuf writer (wire types 0, 2 and 5 only).
#[derive(Default, Clone)]
pub struct Pb(Vec<u8>);

impl Pb {
    fn varint(&mut self, mut v: u64) -> &mut Self {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
        self
    }
    pub fn uint(&mut self, field: u32, v: u64) -> &mut Self {
        self.varint(u64::from(field) << 3).varint(v)
    }
    pub fn fixed32(&mut self, field: u32, v: u32) -> &mut Self {
        self.varint(u64::from(field) << 3 | 5);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Self {
        self.varint(u64::from(field) << 3 | 2)
            .varint(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    pub fn done(&self) -> Vec<u8> {
        self.0.clone()
    }
}

/// A `Data` message: port number, payload and an optional signature.
pub fn data(portnum: u64, payload: &[u8], sig: Option<&[u8; 64]>) -> Vec<u8> {
    let mut d = Pb::default();
    d.uint(1, portnum).bytes(2, payload);
    if let Some(s) = sig {
        d.bytes(10, s);
    }
    d.done()
}

/// The `MeshPacket` fields a test sets.
pub struct Pkt<'a> {
    pub from: u32,
    pub to: u32,
    pub id: u32,
    pub channel: u32,
    pub encrypted: Option<&'a [u8]>,
    pub decoded: Option<&'a [u8]>,
    pub public_key: Option<&'a [u8; 32]>,
    pub pki: bool,
}

/// A `ServiceEnvelope` around the packet, with fields the decoder skips.
pub fn envelope(p: &Pkt<'_>, channel_id: &str, gateway_id: &str) -> Vec<u8> {
    let mut m = Pb::default();
    m.fixed32(1, p.from)
        .fixed32(2, p.to)
        .uint(3, u64::from(p.channel));
    if let Some(d) = p.decoded {
        m.bytes(4, d);
    }
    if let Some(e) = p.encrypted {
        m.bytes(5, e);
    }
    m.fixed32(6, p.id).fixed32(7, 1_700_000_000);
    m.varint(8 << 3 | 5)
        .0
        .extend_from_slice(&(-5.25f32).to_le_bytes()); // rx_snr, a float
    m.uint(9, 3).uint(12, (-90i64) as u64).uint(15, 7); // rx_rssi (12)
    if let Some(k) = p.public_key {
        m.bytes(16, k);
    }
    if p.pki {
        m.uint(17, 1);
    }
    m.uint(21, 2); // transport_mechanism
    let mut e = Pb::default();
    e.bytes(1, &m.done())
        .bytes(2, channel_id.as_bytes())
        .bytes(3, gateway_id.as_bytes());
    e.uint(99, 1); // a field from the future
    e.done()
}

/// A broadcast sealed under a channel key, in an envelope.
pub fn channel_packet(key: &ChannelKey, name: &str, from: u32, id: u32, plain: &[u8]) -> Vec<u8> {
    let mut ct = plain.to_vec();
    key.seal_in_place(from, id, &mut ct).unwrap();
    envelope(
        &Pkt {
            from,
            to: u32::MAX,
            id,
            channel: u32::from(key.hash(name)),
            encrypted: Some(&ct),
            decoded: None,
            public_key: None,
            pki: false,
        },
        name,
        "!gw000001",
    )
}

/// Our node's key, six senders and the channel keys of the test mesh.
pub struct Mesh {
    pub ours: [u8; 32],
    pub ours_secret: [u8; 32],
    pub senders: Vec<(u32, StaticSecret)>,
    pub long_fast: ChannelKey,
    pub ops_a: ChannelKey,
    pub ops_b: ChannelKey,
}

/// A fresh mesh: `LongFast` with the default key, and two `Ops` keys whose
/// channel hashes collide.
pub fn mesh() -> Mesh {
    let ours = StaticSecret::generate();
    let a: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(3));
    let mut b = a;
    b[0] ^= 0x55;
    b[1] ^= 0x55; // the same XOR: the same hash for the same name
    Mesh {
        ours: *ours.public_key(),
        ours_secret: *ours.expose(),
        // 2.8 identities: each sender's number is the CRC-32 of its key.
        senders: (0..6)
            .map(|_| {
                let k = StaticSecret::generate();
                (wireseal::meshtastic::node_number(k.public_key()), k)
            })
            .collect(),
        long_fast: ChannelKey::from_psk(&[1]).unwrap(),
        ops_a: ChannelKey::from_psk(&a).unwrap(),
        ops_b: ChannelKey::from_psk(&b).unwrap(),
    }
}
