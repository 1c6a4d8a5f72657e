//! The synthetic feed of the gateway's rows, made with the library's
//! encoder: LongFast channel packets (text, positions, node info) from 200
//! nodes, PKC direct messages to [`OUR_NODE`] from [`SENDERS`] senders, and
//! broadcasts those senders sign with XEdDSA, each in its MQTT envelope.

use super::{Feed, Kind, LONGFAST, OUR_NODE, SENDERS};
use rand::{Rng, SeedableRng};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey};
use wireseal::meshtastic::{ChannelKey, PkcEngine, PkcPacket};

const CHANNEL_NODES: u32 = 200;
const GATEWAY_ID: &str = "!b3c4d5e6";
const BROADCAST: u32 = 0xffff_ffff;

/// A PKC sender: node number, engine (sealing to us) and signing key.
struct Sender {
    num: u32,
    public: [u8; 32],
    engine: PkcEngine,
    signer: SigningKey,
}

fn text(rng: &mut impl Rng, i: usize) -> Vec<u8> {
    let len = rng.gen_range(8..=120);
    let mut s = format!("msg {i}: ");
    while s.len() < len {
        s.push(char::from(b'a' + rng.gen_range(0..26u8)));
    }
    s.into_bytes()
}

/// A `Position` (latitude_i 1, longitude_i 2, altitude 3, time 4), encoded
/// by hand in field order.
fn position(rng: &mut impl Rng) -> Vec<u8> {
    let mut p = vec![0x0d];
    p.extend(rng.gen_range(1i32..900_000_000).to_le_bytes());
    p.push(0x15);
    p.extend(rng.gen_range(1i32..1_800_000_000).to_le_bytes());
    p.push(0x18);
    p.push(rng.gen_range(1u8..127));
    p.push(0x25);
    p.extend(rng.gen_range(1_700_000_000u32..1_800_000_000).to_le_bytes());
    p
}

fn channel_envelope(rng: &mut impl Rng, from: u32, id: u32, data: &Data) -> Vec<u8> {
    let key = ChannelKey::from_psk(&[1]).expect("default PSK");
    let body = key
        .seal_to_vec(from, id, &envelope::encode_data(data))
        .expect("a LoRa-sized payload");
    let hop_start = rng.gen_range(3..=7);
    envelope::encode_to_vec(&ServiceEnvelope {
        packet: Some(MeshPacket {
            from,
            to: BROADCAST,
            id,
            channel: u32::from(key.hash(LONGFAST)),
            payload_variant: Some(PayloadVariant::Encrypted(body)),
            rx_time: rng.gen_range(1_700_000_000..1_800_000_000),
            hop_limit: rng.gen_range(0..=hop_start),
            hop_start,
            ..Default::default()
        }),
        channel_id: LONGFAST.into(),
        gateway_id: GATEWAY_ID.into(),
    })
}

/// A plain channel packet: 60% text, 20% position, 20% node info.
fn channel_packet(rng: &mut impl Rng, i: usize, nodes: &[[u8; 32]]) -> Vec<u8> {
    let n = rng.gen_range(0..CHANNEL_NODES);
    let from = 0x1000_0000 + n;
    let data = match rng.gen_range(0..10) {
        0..=5 => Data {
            portnum: envelope::TEXT_MESSAGE_APP,
            payload: text(rng, i),
            bitfield: rng.gen_bool(0.5).then_some(1),
            ..Default::default()
        },
        6 | 7 => Data {
            portnum: 3,
            payload: position(rng),
            ..Default::default()
        },
        _ => Data {
            portnum: envelope::NODEINFO_APP,
            payload: envelope::encode_user(&envelope::User {
                id: format!("!{from:08x}"),
                long_name: format!("Node {n}"),
                short_name: format!("N{}", n % 100),
                public_key: nodes[n as usize].to_vec(),
                ..Default::default()
            }),
            want_response: rng.gen_bool(0.3),
            ..Default::default()
        },
    };
    channel_envelope(rng, from, i as u32 + 1, &data)
}

fn pkc_packet(rng: &mut impl Rng, i: usize, s: &mut Sender, our: &[u8; 32]) -> Vec<u8> {
    let id = i as u32 + 1;
    let plaintext = envelope::encode_data(&Data {
        portnum: envelope::TEXT_MESSAGE_APP,
        payload: text(rng, i),
        ..Default::default()
    });
    let to_us = PkcPacket {
        peer_public: our,
        from: s.num,
        id,
    };
    let ct = s.engine.seal_to_vec(0, to_us, &plaintext).expect("seal");
    envelope::encode_to_vec(&ServiceEnvelope {
        packet: Some(MeshPacket {
            from: s.num,
            to: OUR_NODE,
            id,
            payload_variant: Some(PayloadVariant::Encrypted(ct)),
            public_key: s.public.to_vec(),
            pki_encrypted: true,
            hop_limit: 3,
            hop_start: 3,
            ..Default::default()
        }),
        channel_id: envelope::PKI_CHANNEL_ID.into(),
        gateway_id: GATEWAY_ID.into(),
    })
}

fn signed_packet(rng: &mut impl Rng, i: usize, s: &Sender) -> Vec<u8> {
    let id = i as u32 + 1;
    let payload = text(rng, i);
    let sig = s.signer.sign(&SignedFields {
        from: s.num,
        id,
        portnum: envelope::TEXT_MESSAGE_APP as u32,
        payload: &payload,
    });
    let data = Data {
        portnum: envelope::TEXT_MESSAGE_APP,
        payload,
        xeddsa_signature: sig.to_vec(),
        ..Default::default()
    };
    channel_envelope(rng, s.num, id, &data)
}

/// `n` envelopes: 70% channel, 20% PKC from 50 senders, 10% signed
/// broadcasts from those senders; the first 50 are one PKC packet per sender.
pub fn feed(n: usize, seed: u64) -> Feed {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let our = StaticSecret::generate();
    let our_public = *our.public_key();
    let mut senders: Vec<Sender> = (0..SENDERS as u32)
        .map(|i| {
            let k = StaticSecret::generate();
            Sender {
                num: 0x2000_0000 + i,
                public: *k.public_key(),
                signer: SigningKey::from_secret(&k),
                engine: PkcEngine::new(k).expect("a clamped key"),
            }
        })
        .collect();
    let nodes: Vec<[u8; 32]> = (0..CHANNEL_NODES)
        .map(|_| *StaticSecret::generate().public_key())
        .collect();
    let topic = |c: &str| format!("msh/US/2/e/{c}/{GATEWAY_ID}");
    let envelopes = (0..n)
        .map(|i| {
            let kind = match i % 10 {
                _ if i < SENDERS => Kind::Pkc,
                0..=6 => Kind::Channel,
                7 | 8 => Kind::Pkc,
                _ => Kind::Signed,
            };
            let s = rng.gen_range(0..SENDERS);
            let bytes = match kind {
                Kind::Channel => channel_packet(&mut rng, i, &nodes),
                Kind::Pkc => {
                    let s = if i < SENDERS { i } else { s };
                    pkc_packet(&mut rng, i, &mut senders[s], &our_public)
                }
                Kind::Signed => signed_packet(&mut rng, i, &senders[s]),
            };
            let t = if kind == Kind::Pkc {
                topic(envelope::PKI_CHANNEL_ID)
            } else {
                topic(LONGFAST)
            };
            (kind, t, bytes)
        })
        .collect();
    Feed { our, envelopes }
}
