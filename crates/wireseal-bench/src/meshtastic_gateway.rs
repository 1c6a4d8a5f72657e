//! Meshtastic gateway rows: envelopes decoded per second in
//! process (70% channel, 20% PKC from 50 senders, 10% signed broadcasts) on
//! one core and on all cores, PKC direct messages from 50 cached senders,
//! channel envelopes against meshtastic-mqtt-json (PyPI 3.0.0) on the same
//! bytes in the same run with every field compared, XEdDSA verification by
//! curve25519-dalek against aws-lc-rs, and the `wireseal meshtastic gateway`
//! process end to end through a local Mosquitto
//! ([`crate::meshtastic_gateway_broker`]), and into its SQLite and
//! PostgreSQL stores with the firmware's JSON published back
//! ([`crate::meshtastic_gateway_store`]), and its read side over a large
//! store ([`crate::meshtastic_gateway_read`]).
//!
//! The feed is made here with the library's encoder (envelope, AES-CTR, PKC,
//! XEdDSA); the peer decodes it with the `meshtastic` package's own protobufs.

use super::meshtastic_gateway_broker as broker;
use super::meshtastic_gateway_peer as peer;
use super::{Better, Ctx, Row};
use rand::{Rng, SeedableRng};
use wireseal::batch::Batch;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{Decoded, Decryption, Signature};
use wireseal::meshtastic::envelope::{self, Data, MeshPacket, PayloadVariant, ServiceEnvelope};
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey};
use wireseal::meshtastic::{ChannelKey, Decoder, PkcEngine, PkcPacket};

const SECTION: &str = "meshtastic";
/// The gateway's node number (PKC direct messages are addressed to it).
pub const OUR_NODE: u32 = 0x0a0b_0c0d;
/// PKC senders (and signers) in the feed.
pub const SENDERS: usize = 50;
const CHANNEL_NODES: u32 = 200;
const LONGFAST: &str = "LongFast";
const GATEWAY_ID: &str = "!b3c4d5e6";
const BROADCAST: u32 = 0xffff_ffff;

/// What one envelope of the feed is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A LongFast channel packet (text, position or node info).
    Channel,
    /// A PKC direct message to [`OUR_NODE`].
    Pkc,
    /// A LongFast text broadcast signed with XEdDSA by a PKC sender.
    Signed,
}

/// A synthetic gateway feed and the node key that opens its PKC packets.
pub struct Feed {
    /// Our node's key.
    pub our: StaticSecret,
    /// Envelopes with their kind and MQTT topic.
    pub envelopes: Vec<(Kind, String, Vec<u8>)>,
}

impl Feed {
    /// The envelopes of one kind.
    pub fn of(&self, kind: Kind) -> Vec<&[u8]> {
        self.envelopes
            .iter()
            .filter(|e| e.0 == kind)
            .map(|e| e.2.as_slice())
            .collect()
    }

    /// Every envelope.
    pub fn all(&self) -> Vec<&[u8]> {
        self.envelopes.iter().map(|e| e.2.as_slice()).collect()
    }

    /// A decoder configured as the gateway runs it here (`--channel
    /// LongFast=AQ== --node !0a0b0c0d --key-...`), warmed by one pass over the
    /// feed: the PKC cache holds the 50 senders and the node table pins them.
    ///
    /// # Panics
    /// When a packet of the feed does not decode as expected.
    pub fn decoder(&self) -> Decoder {
        let mut d = Decoder::new()
            .with_node(OUR_NODE, dup(&self.our))
            .expect("a clamped key");
        d.add_channel(LONGFAST, &[1]).expect("default PSK");
        for _ in 0..2 {
            for (kind, _, e) in &self.envelopes {
                let got = d.decode(0, e).expect("envelope");
                check(*kind, &got);
            }
        }
        d
    }
}

/// Panics unless `d` is what the feed made.
fn check(kind: Kind, d: &Decoded) {
    let ok = d.error.is_none()
        && match kind {
            Kind::Channel => d.decryption == Decryption::Channel(0),
            Kind::Pkc => d.decryption == Decryption::Pkc,
            Kind::Signed => d.decryption == Decryption::Channel(0),
        };
    assert!(ok, "bench feed: {kind:?} packet decoded as {d:?}");
    // The first pass sees some signed packets before their sender's key.
    assert!(
        kind != Kind::Signed || matches!(d.signature, Signature::Valid | Signature::UnknownKey),
        "bench feed: signature {:?}",
        d.signature
    );
}

/// A second handle on the same key.
fn dup(k: &StaticSecret) -> StaticSecret {
    StaticSecret::from_bytes(k.expose()).expect("a valid key")
}

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

/// Packets per second from seconds per `n` packets.
fn rate(n: usize, secs: f64) -> f64 {
    n as f64 / secs
}

/// Runs the rows.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let n = if ctx.full { 32_768 } else { 4_096 };
    let samples = ctx.samples();
    let feed = feed(n, 13);
    let mut rows = Vec::new();

    // The mix, decode_batch on one thread against all cores, alternately.
    let all = Batch::all_cores();
    let one = Batch::with_threads(1);
    let envs = feed.all();
    let (mut d1, mut dn) = (feed.decoder(), feed.decoder());
    let (t1, tn) = ctx.time_pair_job(
        samples,
        || d1.decode_batch(0, &one, &envs),
        || dn.decode_batch(0, &all, &envs),
    );
    rows.push(Row::new(
        SECTION,
        format!("gw mix 70/20/10 decode x {n}, {} threads", all.threads()),
        "pkt/s",
        Better::Higher,
        rate(n, tn),
        "same batch on 1 core",
        Some(rate(n, t1)),
    ));

    // PKC direct messages from 50 cached senders, one core, against the
    // firmware's way on the same envelopes: parse, then X25519 + SHA-256 +
    // AES-256-CCM per packet (no cache, no JSON: a lower bound on its cost).
    let pkc = feed.of(Kind::Pkc);
    let (mut i, mut j) = (0, 0);
    let (per_pkt, per_pkt_uncached) = ctx.time_pair_per_op(
        || {
            i = (i + 1) % pkc.len();
            d1.decode(0, pkc[i]).expect("envelope")
        },
        || {
            j = (j + 1) % pkc.len();
            open_uncached_envelope(&feed.our, pkc[j])
        },
    );
    rows.push(
        Row::new(
            SECTION,
            "gw PKC DM envelopes, 50 cached senders, 1 core",
            "pkt/s",
            Better::Higher,
            1.0 / per_pkt,
            "uncached (ECDH per packet)",
            Some(1.0 / per_pkt_uncached),
        )
        .seed("target >= 500,000/s"),
    );

    let mqtt_json = peer::versus_mqtt_json(ctx, &feed);
    let mqtt_json_rate = mqtt_json.baseline;
    rows.push(mqtt_json);
    rows.extend(peer::xeddsa_rows(ctx));
    rows.push(broker::end_to_end(ctx, &feed, mqtt_json_rate));
    rows.extend(super::meshtastic_gateway_store::rows(ctx));
    rows.extend(super::meshtastic_gateway_guard::rows(ctx));
    rows.extend(super::meshtastic_gateway_retention::rows(ctx));
    rows.extend(super::meshtastic_gateway_read::rows(ctx));
    rows
}

/// Opens a PKC envelope the firmware's way: every packet pays an ECDH.
fn open_uncached_envelope(our: &StaticSecret, bytes: &[u8]) -> Vec<u8> {
    let env = envelope::decode(bytes).expect("envelope");
    let p = env.packet.expect("packet");
    let Some(PayloadVariant::Encrypted(ct)) = &p.payload_variant else {
        panic!("bench feed: PKC packet without a payload")
    };
    let sender: [u8; 32] = p.public_key.as_slice().try_into().expect("key");
    crate::meshtastic::open_uncached(our, &sender, p.from, p.id, ct).expect("opens")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_mix_and_every_packet_decodes() {
        let f = feed(500, 1);
        let count = |k| f.envelopes.iter().filter(|e| e.0 == k).count();
        assert_eq!(
            (count(Kind::Channel), count(Kind::Pkc), count(Kind::Signed)),
            (315, 140, 45)
        );
        let mut d = f.decoder();
        for (kind, _, e) in &f.envelopes {
            let got = d.decode(0, e).unwrap();
            check(*kind, &got);
            if *kind == Kind::Signed {
                assert_eq!(got.signature, Signature::Valid);
            }
        }
        assert_eq!(d.pkc_engine().unwrap().cache().len(), SENDERS);
    }

    /// `cargo test --release -p wireseal-bench --lib meshtastic_gateway --
    /// --ignored --nocapture` prints the rows (WIRESEAL_BIN names the
    /// `wireseal` binary for the end-to-end row).
    #[test]
    #[ignore = "a benchmark"]
    fn rows() {
        for r in run(&Ctx { full: false }) {
            println!("{r:?}");
        }
    }
}
