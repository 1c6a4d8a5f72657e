//! What the gateway writes: one JSON object per packet (stdout), counts per
//! outcome, and rate-limited log lines (stderr).

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use wireseal::meshtastic::decoder::{Decoded, Decryption, Identity, KeyEvent, Signature, Verdict};

/// Counts per outcome.
#[derive(Debug, Default)]
pub struct Stats {
    counts: BTreeMap<&'static str, u64>,
}

impl Stats {
    /// Adds one to `what`.
    pub fn bump(&mut self, what: &'static str) {
        *self.counts.entry(what).or_insert(0) += 1;
    }

    /// Adds `n` to `what` (a count of 0 still appears).
    pub fn add(&mut self, what: &'static str, n: u64) {
        *self.counts.entry(what).or_insert(0) += n;
    }

    /// Sets `what` to `n` (a level rather than a count).
    pub fn set(&mut self, what: &'static str, n: u64) {
        self.counts.insert(what, n);
    }

    /// Counts the outcomes of a decoded packet.
    pub fn record(&mut self, d: &Decoded) {
        self.bump("packets");
        self.bump(match d.decryption {
            Decryption::Channel(_) => "decrypted_channel",
            Decryption::Pkc => "decrypted_pkc",
            Decryption::Plain => "plain",
            Decryption::No => "not_decrypted",
        });
        if let Some(e) = d.error {
            self.bump(match e.reason() {
                "no-channel" => "no_channel",
                "wrong-channel-key" => "wrong_channel_key",
                "pkc-not-for-us" => "pkc_not_for_us",
                "pkc-no-node-key" => "pkc_no_node_key",
                "pkc-unknown-sender" => "pkc_unknown_sender",
                "auth-failed" => "auth_failed",
                "replay" => "replay",
                _ => "undecryptable",
            });
        }
        self.bump(match d.signature {
            Signature::Valid => "signature_valid",
            Signature::Invalid => "signature_invalid",
            Signature::Malformed => "signature_malformed",
            Signature::UnknownKey => "signature_unknown_key",
            Signature::Absent => "signature_absent",
        });
        match d.verdict {
            Some(Verdict::Flag(_)) => self.bump("policy_flagged"),
            Some(Verdict::Drop(_)) => self.bump("policy_dropped"),
            _ => {}
        }
        match d.identity {
            Some(Identity::Matches) => self.bump("identity_matches"),
            Some(Identity::Mismatch) => self.bump("identity_mismatch"),
            Some(Identity::Legacy) => self.bump("identity_legacy"),
            None => {}
        }
        if d.control().is_some() {
            self.bump("control");
        }
        match d.key_event {
            Some(KeyEvent::Learned { .. }) => self.bump("keys_learned"),
            Some(KeyEvent::Conflict { .. }) => self.bump("key_conflicts"),
            Some(KeyEvent::TableFull { .. }) => self.bump("node_table_full"),
            None => {}
        }
    }

    /// The counts as a JSON object.
    pub fn to_json(&self) -> Value {
        json!(self.counts)
    }

    /// One count.
    pub fn get(&self, what: &str) -> u64 {
        self.counts.get(what).copied().unwrap_or(0)
    }
}

/// Log lines to stderr, at most `burst` per `period` per kind; the number
/// suppressed is reported with the next line that gets through.
#[derive(Debug)]
pub struct Log {
    period: Duration,
    burst: u32,
    kinds: BTreeMap<&'static str, (Instant, u32, u64)>,
}

impl Default for Log {
    fn default() -> Self {
        Self {
            period: Duration::from_secs(10),
            burst: 5,
            kinds: BTreeMap::new(),
        }
    }
}

impl Log {
    /// Logs `msg` under `kind` unless this kind is over its rate.
    pub fn line(&mut self, kind: &'static str, msg: &str) {
        let now = Instant::now();
        let e = self.kinds.entry(kind).or_insert((now, 0, 0));
        if now.duration_since(e.0) >= self.period {
            *e = (now, 0, e.2);
        }
        if e.1 < self.burst {
            e.1 += 1;
            let suppressed = std::mem::take(&mut e.2);
            if suppressed > 0 {
                eprintln!(
                    "wireseal gateway: {kind}: {msg} ({suppressed} similar lines suppressed)"
                );
            } else {
                eprintln!("wireseal gateway: {kind}: {msg}");
            }
        } else {
            e.2 += 1;
        }
    }
}
