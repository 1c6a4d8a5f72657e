//! Meshtastic gateway rows: envelopes decoded per second in
//! process (70% channel, 20% PKC from 50 senders, 10% signed broadcasts) on
//! one core and on all cores, PKC direct messages from 50 cached senders
//! ([`decode`]), channel envelopes against meshtastic-mqtt-json (PyPI 3.0.0)
//! on the same bytes in the same run with every field compared, XEdDSA
//! verification by curve25519-dalek against aws-lc-rs ([`peer`]), and the
//! `wireseal meshtastic gateway` process end to end through a local
//! Mosquitto ([`end_to_end`]), and into its SQLite and PostgreSQL stores
//! with the firmware's JSON published back ([`store`]), on a feed half
//! Meshtastic and half MeshCore observers' ([`mixed`]), on a hostile feed
//! ([`guard`]), pruning while it ingests ([`retention`]), and its read side
//! over a large store ([`read`]).
//!
//! The feed is made with the library's encoder (envelope, AES-CTR, PKC,
//! XEdDSA; [`feed`]); the peer decodes it with the `meshtastic` package's
//! own protobufs. This module holds what the rows share: the feed's types,
//! the gateway's node, and why a run of the process gave no figure.

mod decode;
mod end_to_end;
pub(crate) mod feed;
mod guard;
mod mixed;
mod peer;
mod process;
mod read;
mod retention;
mod store;
mod traffic;

use crate::peers::Skip;
use crate::{Ctx, Row};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::decoder::{Decoded, Decryption, Signature};
use wireseal::meshtastic::Decoder;

const SECTION: &str = "meshtastic";
/// The gateway's node number (PKC direct messages are addressed to it).
pub const OUR_NODE: u32 = 0x0a0b_0c0d;
/// PKC senders (and signers) in the feed.
pub const SENDERS: usize = 50;
/// The channel of the feed's channel and signed packets.
const LONGFAST: &str = "LongFast";

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

/// Why a run of the gateway process gave no figure.
pub(crate) enum RunError {
    /// Something it needs is missing (the baseline row is skipped).
    Skip(Skip),
    /// The gateway's output was wrong: the run fails.
    Fail(String),
}

impl From<Skip> for RunError {
    fn from(s: Skip) -> Self {
        RunError::Skip(s)
    }
}

/// Runs the rows.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let n = if ctx.full { 32_768 } else { 4_096 };
    let feed = feed::feed(n, 13);
    let mut rows = decode::rows(ctx, &feed);
    let mqtt_json = peer::versus_mqtt_json(ctx, &feed);
    let mqtt_json_rate = mqtt_json.baseline;
    rows.push(mqtt_json);
    rows.extend(peer::xeddsa_rows(ctx));
    rows.push(end_to_end::row(ctx, &feed, mqtt_json_rate));
    rows.extend(store::rows(ctx));
    rows.extend(mixed::rows(ctx));
    rows.extend(guard::rows(ctx));
    rows.extend(retention::rows(ctx));
    rows.extend(read::rows(ctx));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_mix_and_every_packet_decodes() {
        let f = feed::feed(500, 1);
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

    /// `cargo test --release -p wireseal-bench --lib
    /// meshtastic::gateway::tests::rows -- --ignored --nocapture` prints the
    /// rows (WIRESEAL_BIN names the `wireseal` binary for the end-to-end
    /// row).
    #[test]
    #[ignore = "a benchmark"]
    fn rows() {
        for r in run(&Ctx { full: false }) {
            println!("{r:?}");
        }
    }
}
