//! The gateway's counts, in one struct of atomics that any thread may read
//! while the gateway runs (a metrics exporter, an embedding program), named
//! with the library's vocabulary: the outcome enums' `as_str` name each count
//! of a [`Named`] set. The metric table (`metrics.rs`) lays the counts out for
//! a scrape and for [`Counters::snapshot`].

use std::sync::atomic::{AtomicU64, Ordering};
use wireseal::meshcore::PayloadType;
use wireseal::meshtastic::app::PacketKind;
use wireseal::meshtastic::decoder::{Decoded, Decryption, KeyEvent, Signature, Undecoded};
use wireseal::meshtastic::identity::Identity;
use wireseal::meshtastic::policy::Verdict;

/// A set of counts, one per word of a library vocabulary (its `NAMES`),
/// bumped by the outcome's `index()`.
#[derive(Debug)]
pub struct Named<const N: usize> {
    names: &'static [&'static str; N],
    slots: [AtomicU64; N],
}

impl<const N: usize> Named<N> {
    pub(crate) const fn new(names: &'static [&'static str; N]) -> Self {
        Self {
            names,
            slots: [const { AtomicU64::new(0) }; N],
        }
    }

    /// Adds one to the word at `index` (the outcome's `index()`).
    pub fn bump_at(&self, index: usize) {
        if let Some(slot) = self.slots.get(index) {
            slot.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Adds one to `name` (a name not in the set is not counted).
    pub fn bump(&self, name: &str) {
        if let Some(i) = self.names.iter().position(|n| *n == name) {
            self.bump_at(i);
        }
    }

    /// The count of `name`.
    pub fn get(&self, name: &str) -> u64 {
        self.names
            .iter()
            .position(|n| *n == name)
            .map_or(0, |i| self.slots[i].load(Ordering::Relaxed))
    }

    /// Every (name, count).
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.names
            .iter()
            .zip(&self.slots)
            .map(|(n, v)| (*n, v.load(Ordering::Relaxed)))
    }
}

/// One count.
#[derive(Debug, Default)]
pub struct Count(AtomicU64);

impl Count {
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds one.
    pub fn bump(&self) {
        self.add(1);
    }

    /// Sets the value (a level rather than a count).
    pub fn set(&self, n: u64) {
        self.0.store(n, Ordering::Relaxed);
    }

    /// The value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

static KIND_NAMES: [&str; PacketKind::ALL.len()] = {
    let mut out = [""; PacketKind::ALL.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = PacketKind::ALL[i].as_str();
        i += 1;
    }
    out
};

/// MeshCore payload types by name (`reserved` for 12 to 14), in the order
/// of [`meshcore_type_index`].
pub static MESHCORE_TYPES: [&str; 14] = {
    let mut out = [""; 14];
    let mut bits = 0u8;
    while bits < 16 {
        out[meshcore_type_index(PayloadType::from_bits(bits))] =
            PayloadType::from_bits(bits).as_str();
        bits += 1;
    }
    out
};

/// The slot of a MeshCore payload type in [`MESHCORE_TYPES`].
pub const fn meshcore_type_index(t: PayloadType) -> usize {
    match t.bits() {
        b @ 0..=11 => b as usize,
        12..=14 => 12,
        _ => 13,
    }
}

/// Why MeshCore messages were dropped: the feed's refusals
/// ([`Refusal::NAMES`](crate::meshcore::feed::Refusal::NAMES)), the
/// library's reasons for packets the firmware drops
/// ([`wireseal::meshcore::Error::reason`]), the flood guard (`flood`), and
/// `other` for any reason the library adds later.
pub static MESHCORE_DROPS: [&str; 14] = [
    "oversized",
    "json",
    "not_packet",
    "no_raw",
    "hex",
    "version",
    "reserved_hash_size",
    "path_too_long",
    "payload_too_long",
    "payload_too_short",
    "truncated",
    "too_long",
    "flood",
    "other",
];

/// What the gateway counts of its MeshCore feeds.
#[derive(Debug)]
pub struct MeshcoreCounters {
    /// MQTT messages taken on the MeshCore topics.
    pub messages: Count,
    /// Packets read, by payload type.
    pub packets: Named<14>,
    /// Packets a channel key or one of our identities opened, by payload
    /// type.
    pub decrypted: Named<14>,
    /// Messages dropped, by reason ([`MESHCORE_DROPS`]).
    pub dropped: Named<14>,
    /// Copies of a packet already taken from another observer (or again).
    pub duplicates: Count,
    /// Receptions handed to the sinks (every copy the flood guard let pass).
    pub receptions: Count,
    /// Peers the decoder knows (a level).
    pub peers: Count,
    /// Verified adverts whose key was not added: the peer limit is reached.
    pub peers_refused: Count,
}

impl Default for MeshcoreCounters {
    fn default() -> Self {
        Self {
            messages: Count::default(),
            packets: Named::new(&MESHCORE_TYPES),
            decrypted: Named::new(&MESHCORE_TYPES),
            dropped: Named::new(&MESHCORE_DROPS),
            duplicates: Count::default(),
            receptions: Count::default(),
            peers: Count::default(),
            peers_refused: Count::default(),
        }
    }
}

impl MeshcoreCounters {
    /// Counts a drop for `reason`: a name of [`MESHCORE_DROPS`], else `other`.
    pub fn drop_for(&self, reason: &str) {
        match MESHCORE_DROPS.iter().position(|n| *n == reason) {
            Some(i) => self.dropped.bump_at(i),
            None => self.dropped.bump("other"),
        }
    }
}

/// Everything the gateway counts.
#[derive(Debug)]
pub struct Counters {
    /// MQTT messages taken from the broker.
    pub messages: Count,
    /// Messages whose envelope decoded (packets).
    pub packets: Count,
    /// Messages that are not envelopes.
    pub malformed: Count,
    /// Messages over the envelope's size limit.
    pub oversized: Count,
    /// Packets whose channel or gateway id cannot be used as it is (stored
    /// and counted under the library's fixed label).
    pub unusable_ids: Count,
    /// Packets refused by the flood guard.
    pub flood_refused: Count,
    /// Packets per decryption outcome.
    pub decryption: Named<4>,
    /// Packets per signature outcome.
    pub signature: Named<5>,
    /// Packets per reason they were not decoded.
    pub error: Named<12>,
    /// Packets per kind.
    pub kind: Named<13>,
    /// NodeInfo packets per identity.
    pub identity: Named<3>,
    /// Decoded packets per signature-policy verdict.
    pub policy: Named<3>,
    /// Node-table events.
    pub key_event: Named<4>,
    /// Administration and key-verification packets.
    pub control: Count,
    /// Connections made to the broker.
    pub connects: Count,
    /// Failed attempts to reach the broker, and connections lost.
    pub connection_errors: Count,
    /// JSON lines written.
    pub json_lines: Count,
    /// Records republished (`--publish`).
    pub republished: Count,
    /// Firmware JSON objects published (`--firmware-json`).
    pub firmware_json: Count,
    /// Publications dropped because the output connection's queue was full.
    pub publish_dropped: Count,
    /// Failures of the output connection (it reconnects by itself).
    pub output_errors: Count,
    /// Messages on the gateway's own output topics, ignored.
    pub own_output: Count,
    /// Acknowledgements sent to the broker.
    pub acks: Count,
    /// Acknowledgements the client's queue refused.
    pub ack_dropped: Count,
    /// Acknowledgements due on a connection that had closed (the broker
    /// sends those messages again).
    pub acks_for_closed_connection: Count,
    /// Messages taken and not yet acknowledged (a level).
    pub held: Count,
    /// When the oldest message taken and not yet acknowledged was taken, in
    /// Unix milliseconds (0 while none is held).
    pub oldest_held_ms: Count,
    /// Packet rows the store inserted or completed.
    pub stored_packets: Count,
    /// Reception rows the store inserted.
    pub stored_receptions: Count,
    /// MeshCore packet rows the store inserted or completed.
    pub stored_meshcore_packets: Count,
    /// MeshCore reception rows the store inserted.
    pub stored_meshcore_receptions: Count,
    /// Receptions already stored.
    pub store_duplicates: Count,
    /// Records the store refused.
    pub store_rejected: Count,
    /// Fields the store shortened or rewrote.
    pub store_capped: Count,
    /// Failed attempts to write to the store.
    pub store_unavailable: Count,
    /// Packets removed by retention.
    pub pruned_packets: Count,
    /// Receptions removed by retention.
    pub pruned_receptions: Count,
    /// Connections to the read side (`--http`), by how they were admitted:
    /// `full`, `spare` (over the limits: one probe answered) or `refused`
    /// (closed unread).
    pub http_connections: Named<3>,
    /// The MeshCore feeds.
    pub meshcore: MeshcoreCounters,
    /// Time to decode one message, in seconds.
    pub decode_seconds: prometheus_client::metrics::histogram::Histogram,
    /// Time from a message reaching the store's writer to its commit, in
    /// seconds.
    pub store_lag_seconds: prometheus_client::metrics::histogram::Histogram,
}

impl Default for Counters {
    fn default() -> Self {
        Self {
            messages: Count::default(),
            packets: Count::default(),
            malformed: Count::default(),
            oversized: Count::default(),
            unusable_ids: Count::default(),
            flood_refused: Count::default(),
            decryption: Named::new(&Decryption::NAMES),
            signature: Named::new(&Signature::NAMES),
            error: Named::new(&Undecoded::NAMES),
            kind: Named::new(&KIND_NAMES),
            identity: Named::new(&Identity::NAMES),
            policy: Named::new(&Verdict::NAMES),
            key_event: Named::new(&KeyEvent::NAMES),
            control: Count::default(),
            connects: Count::default(),
            connection_errors: Count::default(),
            json_lines: Count::default(),
            republished: Count::default(),
            firmware_json: Count::default(),
            publish_dropped: Count::default(),
            output_errors: Count::default(),
            own_output: Count::default(),
            acks: Count::default(),
            ack_dropped: Count::default(),
            acks_for_closed_connection: Count::default(),
            held: Count::default(),
            oldest_held_ms: Count::default(),
            stored_packets: Count::default(),
            stored_receptions: Count::default(),
            stored_meshcore_packets: Count::default(),
            stored_meshcore_receptions: Count::default(),
            store_duplicates: Count::default(),
            store_rejected: Count::default(),
            store_capped: Count::default(),
            store_unavailable: Count::default(),
            pruned_packets: Count::default(),
            pruned_receptions: Count::default(),
            http_connections: Named::new(&crate::http::admit::Admission::NAMES),
            meshcore: MeshcoreCounters::default(),
            decode_seconds: decode_histogram(),
            store_lag_seconds: store_lag_histogram(),
        }
    }
}

impl Counters {
    /// Counts the outcomes of a decoded packet.
    pub fn record(&self, d: &Decoded) {
        self.packets.bump();
        self.decryption.bump_at(d.decryption.index());
        self.signature.bump_at(d.signature.index());
        self.kind.bump_at(PacketKind::of(d.portnum()).index());
        if let Some(e) = d.error {
            self.error.bump_at(e.index());
        }
        if let Some(v) = d.verdict {
            self.policy.bump_at(v.index());
        }
        if let Some(i) = d.identity {
            self.identity.bump_at(i.index());
        }
        if d.control().is_some() {
            self.control.bump();
        }
        if let Some(e) = d.key_event {
            self.key_event.bump_at(e.index());
        }
    }

    /// Whether a key event is the learning of a key (a renumbered node
    /// learns one too).
    pub fn learned(e: &KeyEvent) -> bool {
        matches!(e, KeyEvent::Learned { .. } | KeyEvent::Renumbered { .. })
    }

    /// Seconds since the oldest message held was taken, at `now_ms` (Unix
    /// milliseconds); 0 while none is held.
    pub fn oldest_held_age(&self, now_ms: u64) -> f64 {
        match self.oldest_held_ms.get() {
            0 => 0.0,
            t => now_ms.saturating_sub(t) as f64 / 1000.0,
        }
    }
}

/// The decode-time histogram's buckets: 10 µs to about 38 ms.
pub fn decode_histogram() -> prometheus_client::metrics::histogram::Histogram {
    use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
    Histogram::new(exponential_buckets(1e-5, 2.5, 10))
}

/// The store-lag histogram's buckets: 1 ms to about 60 s.
pub fn store_lag_histogram() -> prometheus_client::metrics::histogram::Histogram {
    use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
    Histogram::new(exponential_buckets(1e-3, 2.5, 13))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wireseal::meshtastic::decoder::{Decryption, Signature, Undecoded};
    use wireseal::meshtastic::policy::Concern;
    use wireseal::meshtastic::{Error, Identity, Verdict};

    /// Every name the library gives an outcome has its slot: the counters
    /// and the library agree.
    #[test]
    fn every_library_name_has_a_slot() {
        for d in [
            Decryption::Channel(0),
            Decryption::Pkc,
            Decryption::Plain,
            Decryption::None,
        ] {
            assert!(Decryption::NAMES.contains(&d.as_str()), "{d}");
        }
        for s in [
            Signature::Valid,
            Signature::Invalid,
            Signature::Malformed,
            Signature::Absent,
            Signature::UnknownKey,
        ] {
            assert!(Signature::NAMES.contains(&s.as_str()), "{s}");
        }
        for e in [
            Undecoded::NoChannel,
            Undecoded::WrongChannelKey,
            Undecoded::NotForUs,
            Undecoded::NoNodeKey,
            Undecoded::UnknownSender,
            Undecoded::Failed(Error::Auth),
            Undecoded::Failed(Error::InvalidKey),
            Undecoded::Failed(Error::Malformed { what: "x" }),
            Undecoded::Failed(Error::Truncated { len: 0, min: 1 }),
            Undecoded::Failed(Error::TooLong { len: 2, max: 1 }),
            Undecoded::Failed(Error::UnclampedKey),
            Undecoded::Replay,
        ] {
            assert!(Undecoded::NAMES.contains(&e.as_str()), "{e}");
        }
        for i in [Identity::Matches, Identity::Mismatch, Identity::Legacy] {
            assert!(Identity::NAMES.contains(&i.as_str()));
        }
        for v in [
            Verdict::Accept,
            Verdict::Flag(Concern::Downgrade),
            Verdict::Drop(Concern::Unsigned),
        ] {
            assert!(Verdict::NAMES.contains(&v.as_str()));
        }
        for k in [
            KeyEvent::Learned { node: 1 },
            KeyEvent::TableFull { node: 1 },
            KeyEvent::Renumbered {
                node: 1,
                from: 1,
                to: 2,
            },
            KeyEvent::Conflict {
                node: 1,
                pinned: [0; 32],
                offered: [1; 32],
            },
        ] {
            assert!(KeyEvent::NAMES.contains(&k.as_str()));
        }
        assert_eq!(KIND_NAMES[0], "text");
        assert_eq!(MESHCORE_TYPES[5], "grp_txt");
        assert_eq!(MESHCORE_TYPES[12], "reserved");
        assert_eq!(MESHCORE_TYPES[13], "raw_custom");
        for (i, n) in crate::meshcore::feed::Refusal::NAMES.iter().enumerate() {
            assert_eq!(MESHCORE_DROPS[i], *n);
        }
        let c = Counters::default();
        c.meshcore.drop_for("a reason the library adds later");
        c.meshcore.drop_for("hex");
        assert_eq!(c.snapshot()["meshcore"]["dropped"]["other"], 1);
        assert_eq!(c.snapshot()["meshcore"]["dropped"]["hex"], 1);
        c.signature.bump("valid");
        assert_eq!(c.snapshot()["signature"]["valid"], 1);
    }
}
