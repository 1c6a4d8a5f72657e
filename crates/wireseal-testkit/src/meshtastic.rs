//! Meshtastic traffic built with the library's encoder: plain envelopes,
//! and a hostile feed whose channel ids, gateway ids, topics and node names
//! are chosen to break topics, logs and paths.

use wireseal::meshtastic::channel::ChannelKey;
use wireseal::meshtastic::envelope::{
    self, Data, MeshPacket, PayloadVariant, ServiceEnvelope, User,
};

/// A LongFast text message (`text`) from `from` with packet id `id`, as
/// gateway `gw` heard it through relay `relay`: its topic and envelope.
pub fn text_envelope(from: u32, id: u32, text: &str, gw: &str, relay: u32) -> (String, Vec<u8>) {
    let key = ChannelKey::from_psk(&[1]).expect("the default key");
    let data = Data {
        portnum: envelope::TEXT_MESSAGE_APP,
        payload: text.as_bytes().to_vec(),
        ..Default::default()
    };
    let body = key
        .seal_to_vec(from, id, &envelope::encode_data(&data))
        .expect("a short payload");
    let env = ServiceEnvelope {
        packet: Some(MeshPacket {
            from,
            to: u32::MAX,
            id,
            channel: u32::from(key.hash("LongFast")),
            payload_variant: Some(PayloadVariant::Encrypted(body)),
            rx_time: 1_760_000_000 + id,
            rx_rssi: -90,
            hop_limit: 2,
            hop_start: 3,
            relay_node: relay,
            ..Default::default()
        }),
        channel_id: "LongFast".into(),
        gateway_id: gw.into(),
    };
    (
        format!("msh/EU_868/2/e/LongFast/{gw}"),
        envelope::encode_to_vec(&env),
    )
}

/// A plain envelope carrying `data` from `from`, published by `gateway_id`.
pub fn plain(from: u32, id: u32, channel_id: &str, gateway_id: &str, data: Data) -> Vec<u8> {
    envelope::encode_to_vec(&ServiceEnvelope {
        packet: Some(MeshPacket {
            from,
            to: u32::MAX,
            id,
            payload_variant: Some(PayloadVariant::Decoded(data)),
            ..Default::default()
        }),
        channel_id: channel_id.into(),
        gateway_id: gateway_id.into(),
    })
}

/// Ids meant to break a topic, a log line or a path, and a few good ones.
pub fn hostile_ids() -> Vec<String> {
    let mut v: Vec<String> = [
        "Long#Fast",
        "a+b",
        "x/../y",
        "/",
        "#",
        "+",
        "$SYS",
        "nul\0id",
        "line\nbreak",
        "esc\x1b[2J",
        "\u{202e}evil",
        "..",
        ".",
        " pad",
        "tab\there",
        "c:\\x",
        "del\x7f",
        "LongFast",
        "Café Net",
        "!0a0b0c0d",
        "!deadbeef",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("y".repeat(64));
    v.push("é".repeat(32));
    v
}

/// Topics a broker takes from a publisher (no wildcards, no control
/// characters: Mosquitto disconnects a client that publishes one) that are
/// still odd: empty and many levels, long levels, bidirectional text, `$`
/// and `..` levels.
pub fn hostile_topics() -> Vec<String> {
    vec![
        "msh/US/2/e/LongFast/!0a0b0c0d".into(),
        "msh/US/2/e/Long Fast/!gw".into(),
        "msh/////".into(),
        "msh/".to_owned() + &"l/".repeat(150) + "end",
        "msh/US/2/e/".to_owned() + &"z".repeat(900),
        "msh/US/2/e/\u{202e}/xy".into(),
        "msh/US/2/e/$x/..".into(),
    ]
}

/// A small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// One of `v`.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next_u64() % v.len() as u64) as usize]
    }
}

/// `n` envelopes (topic, bytes) from `nodes` senders: texts, NodeInfo and
/// map reports (without an id), every id, name and topic drawn from the
/// hostile lists.
pub fn hostile_feed(n: usize, nodes: u32, seed: u64) -> Vec<(String, Vec<u8>)> {
    let ids = hostile_ids();
    let topics = hostile_topics();
    let mut rng = Rng(seed | 1);
    (0..n)
        .map(|i| {
            let from = 0x4000_0000 + (rng.next_u64() % u64::from(nodes.max(1))) as u32;
            let name = rng.pick(&ids).clone();
            let data = match i % 3 {
                0 => Data {
                    portnum: envelope::TEXT_MESSAGE_APP,
                    payload: format!("msg {i} {name}").into_bytes(),
                    ..Default::default()
                },
                1 => Data {
                    portnum: envelope::NODEINFO_APP,
                    payload: envelope::encode_user(&User {
                        id: rng.pick(&ids).clone(),
                        long_name: name,
                        short_name: rng.pick(&ids).chars().take(4).collect(),
                        ..Default::default()
                    }),
                    ..Default::default()
                },
                _ => Data {
                    portnum: envelope::MAP_REPORT_APP,
                    payload: name.into_bytes(),
                    ..Default::default()
                },
            };
            let id = if i % 3 == 2 { 0 } else { i as u32 + 1 };
            let (channel, gateway) = (rng.pick(&ids).clone(), rng.pick(&ids).clone());
            let env = plain(from, id, &channel, &gateway, data);
            (rng.pick(&topics).clone(), env)
        })
        .collect()
}
