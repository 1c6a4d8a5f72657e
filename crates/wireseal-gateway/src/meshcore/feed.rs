//! One message of a MeshCore observer feed, read. Everything in it is
//! hostile: nothing read here picks a topic, a table, markup or a query.
//!
//! A message is one of two shapes, told apart by its first byte:
//!
//! - `{` (0x7B): an observer's JSON object, as meshcoretomqtt and
//!   meshcore-packet-capture publish on `meshcore/{IATA}/{PUBKEY}/packets`
//!   (every value a string: `raw` the whole packet in hex, `SNR`, `RSSI`,
//!   `direction` `rx` or `tx`, `origin_id` the observer's public key,
//!   `type` `PACKET`, ...). At most [`MAX_JSON`] bytes.
//! - anything else: the packet's bytes themselves. A packet never starts
//!   with 0x7B: its version bits would be 01, which the firmware drops.
//!
//! The observer is the JSON's `origin_id` when it is a public key (64 hex
//! digits), else a topic level that is one, else unknown (stored under the
//! library's label). `SNR` and `RSSI` that are not numbers in range are
//! left out, not refused; a JSON object that does not parse, a `type` other
//! than `PACKET`, no `raw`, or a `raw` that is not hex are refused with a
//! [`Refusal`].

use serde::Deserialize;
use std::borrow::Cow;

/// Largest observer JSON object taken, in bytes (one with the longest
/// packet is under 1 KiB).
pub const MAX_JSON: usize = 4096;

/// Why a message was refused before its packet was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// A JSON object over [`MAX_JSON`] bytes.
    Oversized,
    /// Not a JSON object of the observer's shape.
    Json,
    /// An observer JSON object that is not a packet (`type` other than
    /// `PACKET`: a status or debug message).
    NotPacket,
    /// An observer JSON object without `raw`.
    NoRaw,
    /// `raw` is not hex digits in pairs.
    Hex,
}

impl Refusal {
    /// The stable names, in [`Refusal::index`] order.
    pub const NAMES: [&'static str; 5] = ["oversized", "json", "not_packet", "no_raw", "hex"];

    /// The stable name: `oversized`, `json`, `not_packet`, `no_raw`, `hex`.
    pub const fn as_str(self) -> &'static str {
        Self::NAMES[self.index()]
    }

    /// The position of its name in [`Refusal::NAMES`].
    pub const fn index(self) -> usize {
        match self {
            Refusal::Oversized => 0,
            Refusal::Json => 1,
            Refusal::NotPacket => 2,
            Refusal::NoRaw => 3,
            Refusal::Hex => 4,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which way the observer's radio saw the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Received.
    Rx,
    /// Sent by the observer itself.
    Tx,
    /// Not said (a raw feed) or said otherwise.
    Unknown,
}

impl Direction {
    /// The stored name: `rx`, `tx`, or empty when unknown.
    pub const fn as_str(self) -> &'static str {
        match self {
            Direction::Rx => "rx",
            Direction::Tx => "tx",
            Direction::Unknown => "",
        }
    }
}

/// A feed message read: the packet's bytes and what the observer said of
/// its reception.
#[derive(Debug, Clone, PartialEq)]
pub struct Observed<'a> {
    /// The packet (not parsed yet).
    pub raw: Cow<'a, [u8]>,
    /// The observer's public key, when the message or its topic names one.
    pub observer: Option<[u8; 32]>,
    /// Signal to noise ratio in dB.
    pub snr: Option<f32>,
    /// Received signal strength in dBm.
    pub rssi: Option<i32>,
    /// Received or sent.
    pub direction: Direction,
}

/// A number as the observers write it: a string, or a JSON number.
#[derive(Deserialize)]
#[serde(untagged)]
enum Number<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Value(f64),
}

impl Number<'_> {
    fn value(&self) -> Option<f64> {
        match self {
            Number::Text(t) => t.trim().parse().ok(),
            Number::Value(v) => Some(*v),
        }
        .filter(|v: &f64| v.is_finite())
    }
}

/// The fields of an observer's JSON object the gateway reads (others are
/// skipped).
#[derive(Deserialize)]
struct ObserverJson<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    raw: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    origin_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    direction: Option<Cow<'a, str>>,
    #[serde(rename = "SNR", borrow, default)]
    snr: Option<Number<'a>>,
    #[serde(rename = "RSSI", borrow, default)]
    rssi: Option<Number<'a>>,
}

/// A public key written as 64 hex digits (either case).
pub fn public_key(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    (text.len() == 64 && hex::decode_to_slice(text, &mut out).is_ok()).then_some(out)
}

/// The last level of `topic` that is a public key.
fn topic_observer(topic: &str) -> Option<[u8; 32]> {
    topic.rsplit('/').find_map(public_key)
}

/// Reads one message of a MeshCore feed that came on `topic`.
///
/// # Errors
/// A [`Refusal`] for a message that carries no packet to read.
pub fn read<'a>(topic: &str, payload: &'a [u8]) -> Result<Observed<'a>, Refusal> {
    if payload.first() != Some(&b'{') {
        return Ok(Observed {
            raw: Cow::Borrowed(payload),
            observer: topic_observer(topic),
            snr: None,
            rssi: None,
            direction: Direction::Unknown,
        });
    }
    if payload.len() > MAX_JSON {
        return Err(Refusal::Oversized);
    }
    let j: ObserverJson<'_> = serde_json::from_slice(payload).map_err(|_| Refusal::Json)?;
    if j.kind.as_deref().is_some_and(|k| k != "PACKET") {
        return Err(Refusal::NotPacket);
    }
    let hex_text = j.raw.ok_or(Refusal::NoRaw)?;
    let raw = hex::decode(hex_text.as_bytes()).map_err(|_| Refusal::Hex)?;
    let observer = j
        .origin_id
        .as_deref()
        .and_then(public_key)
        .or_else(|| topic_observer(topic));
    let snr = j.snr.as_ref().and_then(Number::value);
    let rssi = j.rssi.as_ref().and_then(Number::value);
    Ok(Observed {
        raw: Cow::Owned(raw),
        observer,
        snr: snr
            .filter(|v| (-100.0..=100.0).contains(v))
            .map(|v| v as f32),
        rssi: rssi
            .filter(|v| (-200.0..=50.0).contains(v))
            .map(|v| v.round() as i32),
        direction: match j.direction.as_deref() {
            Some("rx") => Direction::Rx,
            Some("tx") => Direction::Tx,
            _ => Direction::Unknown,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90";

    fn json(fields: &str) -> Vec<u8> {
        format!("{{{fields}}}").into_bytes()
    }

    #[test]
    fn observer_json_as_meshcoretomqtt_writes_it() {
        let m = json(&format!(
            r#""origin":"Base <b>","origin_id":"{KEY}","timestamp":"2026-01-02T03:04:05",
            "type":"PACKET","direction":"rx","time":"03:04:05","date":"2/1/2026","len":"12",
            "packet_type":"5","route":"F","payload_len":"9","raw":"1500AABBCC","SNR":"6.25",
            "RSSI":"-97","score":"1000","hash":"0011223344556677""#
        ));
        let o = read("meshcore/SEA/x/packets", &m).unwrap();
        assert_eq!(&*o.raw, [0x15, 0x00, 0xaa, 0xbb, 0xcc]);
        assert_eq!(o.observer, public_key(KEY));
        assert_eq!(
            (o.snr, o.rssi, o.direction),
            (Some(6.25), Some(-97), Direction::Rx)
        );
    }

    #[test]
    fn the_observer_from_the_topic_and_numbers_left_out() {
        let m = json(r#""raw":"11","SNR":"loud","RSSI":-9999,"direction":"sideways""#);
        let o = read(&format!("meshcore/SEA/{KEY}/packets"), &m).unwrap();
        assert_eq!(o.observer, public_key(KEY));
        assert_eq!(
            (o.snr, o.rssi, o.direction),
            (None, None, Direction::Unknown)
        );
        let o = read("meshcore/SEA/not-a-key/packets", &m).unwrap();
        assert_eq!(o.observer, None);
    }

    #[test]
    fn raw_bytes_are_the_packet() {
        let o = read(&format!("raw/{KEY}"), &[0x11, 0x00, 1, 2, 3]).unwrap();
        assert_eq!(&*o.raw, [0x11, 0x00, 1, 2, 3]);
        assert_eq!(
            (o.observer, o.direction),
            (public_key(KEY), Direction::Unknown)
        );
        // A leading space is a packet's header byte, not JSON.
        assert!(matches!(
            read("t", b" {\"raw\":\"11\"}").unwrap().raw,
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn hostile_messages_are_refused_by_name() {
        let cases: [(Vec<u8>, Refusal); 8] = [
            (json(r#""raw":"zz""#), Refusal::Hex),
            (json(r#""raw":"123""#), Refusal::Hex),
            (json(r#""raw":"11","type":"STATUS""#), Refusal::NotPacket),
            (json(r#""origin":"x""#), Refusal::NoRaw),
            (b"{not json".to_vec(), Refusal::Json),
            (json(r#""raw":7"#), Refusal::Json),
            (
                json(&format!(r#""raw":"11","pad":"{}""#, "x".repeat(MAX_JSON))),
                Refusal::Oversized,
            ),
            // Nesting as deep as the size allows, in a field skipped unread.
            (
                format!("{}1{}", "{\"a\":".repeat(500), "}".repeat(500)).into_bytes(),
                Refusal::NoRaw,
            ),
        ];
        for (m, want) in cases {
            assert_eq!(read("t", &m), Err(want), "{}", String::from_utf8_lossy(&m));
        }
        for r in [
            Refusal::Oversized,
            Refusal::Json,
            Refusal::NotPacket,
            Refusal::NoRaw,
        ] {
            assert_eq!(Refusal::NAMES[r.index()], r.as_str());
        }
    }
}
