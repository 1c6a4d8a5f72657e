//! The bench's observer feed, built with the library from fixed keys:
//! adverts from the peers, group texts on two known channels and one
//! unknown, direct messages to our identity from known peers and to other
//! nodes, and acknowledgements: the mix a busy observer forwards.

use rand::{Rng, SeedableRng};
use wireseal::meshcore::{
    encode_advert, encode_text_message, AdvertOut, ChannelKey, Decoder, LocalIdentity, NodeType,
    PacketOut, PayloadType, PUBLIC_CHANNEL_KEY,
};

/// The hashtag channel both decoders are given.
const HASHTAG: &str = "#wireseal-bench";
/// A channel neither decoder knows.
const UNKNOWN: [u8; 16] = [0x77; 16];

/// The feed and its keys.
pub struct Feed {
    /// Every packet, in the order sent.
    pub mixed: Vec<Vec<u8>>,
    /// The adverts alone.
    pub adverts: Vec<Vec<u8>>,
    /// How many packets of `mixed` our keys open.
    pub expected_opened: usize,
    counts: [(&'static str, usize); 5],
    us: LocalIdentity,
    peers: Vec<LocalIdentity>,
}

fn identity(seed: u8) -> LocalIdentity {
    (0..=255u8)
        .find_map(|i| LocalIdentity::from_seed(&[seed ^ i; 32]).ok())
        .expect("an identity")
}

fn hashtag_key() -> [u8; 16] {
    let d = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, HASHTAG.as_bytes());
    d.as_ref()[..16].try_into().expect("16 bytes")
}

impl Feed {
    /// Builds the feed (deterministic).
    pub fn build() -> Self {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x3e5c);
        let us = identity(200);
        let peers: Vec<LocalIdentity> = (1..=8).map(identity).collect();
        let channels = [
            ChannelKey::public(),
            ChannelKey::hashtag(HASHTAG).expect("name"),
            ChannelKey::from_bytes(&UNKNOWN).expect("16 bytes"),
        ];
        let names = [
            "Ottawa Hill",
            "Repeater 🌲 north",
            "Kanata-7",
            "Bob",
            "Orléans base",
        ];
        let mut out = [0u8; 255];
        let (mut mixed, mut adverts) = (Vec::new(), Vec::new());
        let mut counts = [
            ("adverts", 0),
            ("group texts", 0),
            ("DMs", 0),
            ("acks", 0),
            ("unknown", 0),
        ];
        let mut expected_opened = 0;
        for i in 0..1000usize {
            let ts = 1_764_000_000 + i as u32;
            let peer = &peers[i % peers.len()];
            let raw = match i % 10 {
                0 | 1 => {
                    let lat = rng.gen_range(44.0..46.0);
                    let lon = rng.gen_range(-76.5..-75.0);
                    let advert = AdvertOut {
                        node_type: [NodeType::Chat, NodeType::Repeater, NodeType::Room][i % 3],
                        location: (i % 4 != 0).then_some((lat, lon)),
                        name: names[i % names.len()],
                    };
                    let n = encode_advert(peer, ts, &advert, &mut out).expect("advert");
                    counts[0].1 += 1;
                    adverts.push(out[..n].to_vec());
                    out[..n].to_vec()
                }
                2..=5 => {
                    let ch = &channels[i % 5 % 3];
                    let len = rng.gen_range(4..120);
                    let text: String = (0..len)
                        .map(|_| char::from(rng.gen_range(b'a'..=b'z')))
                        .collect();
                    let n = ch
                        .encode_group_text(
                            ts,
                            &format!("{}: {text}", names[i % names.len()]),
                            &mut out,
                        )
                        .expect("group text");
                    if i % 5 % 3 == 2 {
                        counts[4].1 += 1;
                    } else {
                        counts[1].1 += 1;
                        expected_opened += 1;
                    }
                    out[..n].to_vec()
                }
                6 | 7 => {
                    let to = if i % 10 == 6 {
                        us.public()
                    } else {
                        peers[(i + 1) % peers.len()].public()
                    };
                    let n = encode_text_message(peer, to, ts, 0, "on my way, ETA 10 min", &mut out)
                        .expect("text message");
                    if i % 10 == 6 {
                        expected_opened += 1;
                    }
                    counts[2].1 += 1;
                    out[..n].to_vec()
                }
                _ => {
                    let ack: [u8; 4] = rng.gen();
                    counts[3].1 += 1;
                    PacketOut::flood(PayloadType::Ack, &ack)
                        .to_vec()
                        .expect("ack")
                }
            };
            mixed.push(raw);
        }
        Self {
            mixed,
            adverts,
            expected_opened,
            counts,
            us,
            peers,
        }
    }

    /// Our decoder, holding the keys the peers are given.
    pub fn decoder(&self) -> Decoder {
        let mut d = Decoder::new();
        d.add_channel(ChannelKey::public());
        d.add_channel(ChannelKey::hashtag(HASHTAG).expect("name"));
        d.add_identity(
            LocalIdentity::from_private_key(self.us.private_key().expose()).expect("key"),
        );
        for p in &self.peers {
            d.add_peer(*p.public());
        }
        d
    }

    /// What the feed holds, in words.
    pub fn mix_summary(&self) -> String {
        self.counts
            .iter()
            .map(|(what, n)| format!("{n} {what}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The packets as hex lines.
    pub fn hex_lines(&self, packets: &[Vec<u8>]) -> String {
        packets.iter().map(|p| hex::encode(p) + "\n").collect()
    }

    fn channel_args(&self) -> Vec<String> {
        vec![
            "--channel-key".into(),
            hex::encode(PUBLIC_CHANNEL_KEY),
            "--channel-key".into(),
            hex::encode(hashtag_key()),
        ]
    }

    /// The Python peer's key arguments: the channels, our key, the peers.
    pub fn py_key_args(&self) -> Vec<String> {
        let mut a = self.channel_args();
        a.push("--node-key".into());
        a.push(hex::encode(self.us.private_key().expose()));
        for p in &self.peers {
            a.push("--peer".into());
            a.push(hex::encode(p.public().as_bytes()));
        }
        a
    }

    /// The Node peer's key arguments: the channels (it opens nothing else).
    pub fn js_key_args(&self) -> Vec<String> {
        self.channel_args()
    }
}
