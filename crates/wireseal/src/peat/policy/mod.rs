//! The encryption policy peat-btle proposed (docs/encryption-performance.md)
//! and never built: pure data plus one pure decision.
//!
//! [`Policy::decide`] (or [`PolicyRules::decide`] without an allocator) maps (data type, peer link, battery, update rate, policy) to
//! the protection a message gets, in four steps:
//!
//! 1. **base**, from the policy [`Level`]: `None` → plain, `MeshWide` →
//!    mesh-wide, `PeerE2ee` → per-peer, `Selective` → the policy's
//!    classification of the data type;
//! 2. **link override** for the peer's [`Link`] (by default: a trusted local
//!    link lowers to plain, a known peer keeps, an untrusted relay raises to
//!    per-peer);
//! 3. **adaptive** rule: battery below a threshold or update rate above a
//!    threshold lowers to plain;
//! 4. **floor**: a type on the always-encrypt list ends at least at
//!    `max(mesh-wide, its classification)`; no rule can take it lower.
//!
//! The level is only the starting point: the link rule and the floor
//! override it, including at [`Level::None`]. With the defaults, a node at
//! `None` still sends to an untrusted relay per-peer and sends emergencies
//! mesh-wide; a node at `None` with no mesh key or no session cannot send
//! those at all, and must not fall back to plain.
//!
//! A receiver cannot know the sender's battery or update rate, so it checks
//! against [`Policy::required_floor`], the lowest protection the decision could choose
//! for the data type and link under any conditions. A receiver built with
//! [`super::Receiver::with_policy`] rejects any document below that floor
//! ([`admits`] with [`super::Mode::Strict`]) and accepts the rest, plain ones
//! included where the policy itself sends plain.
//!
//! Every value a user types or reads has one kebab-case name, through
//! `FromStr` and `Display` (`mesh-wide`, `known-peer`, `sensitive-chat`,
//! `app:7`, `always-encrypt`); [`explain()`] gives a decision as the record
//! the command line and Python print.

#[cfg(feature = "std")]
mod explain;
mod names;
mod rules;

#[cfg(feature = "std")]
pub use explain::{explain, Explanation, Field, EXPLANATION_FIELDS};

use super::Error;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use rules::{classify_in, decide_rules, floor_in};

/// How a single message is protected, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protection {
    /// Sent in the clear.
    Plain,
    /// Mesh-wide ChaCha20-Poly1305 (0xAE frame).
    MeshWide,
    /// Per-peer end-to-end (0xAF frame).
    PeerE2ee,
}

/// The policy's overall level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// No encryption as the base (development, trusted networks). The link
    /// rule and the always-encrypt floor still apply and can raise it.
    None,
    /// Everything mesh-wide (peat-btle's default).
    MeshWide,
    /// By data type, per the classification table.
    Selective,
    /// Everything per-peer end-to-end.
    PeerE2ee,
}

/// What a message carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// A counter update.
    Counter,
    /// A heartbeat.
    Heartbeat,
    /// A position report.
    Location,
    /// A chat message.
    Chat,
    /// An emergency alert.
    Emergency,
    /// A chat message for one recipient only.
    SensitiveChat,
    /// An application-defined type.
    App(u16),
}

/// The kind of link to the peer a message goes to (or comes from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Link {
    /// Same device or a trusted local connection.
    TrustedLocal,
    /// A known, authenticated mesh peer.
    KnownPeer,
    /// An unknown peer or an untrusted relay.
    UntrustedRelay,
}

/// What a link does to the base protection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Override {
    /// Leave it.
    Keep,
    /// Raise it to at least this.
    AtLeast(Protection),
    /// Lower it to at most this.
    AtMost(Protection),
}

/// The adaptive rule: when to drop to plain, and what never drops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptive {
    /// Lower to plain when the battery is below this percentage.
    pub battery_below_percent: u8,
    /// Lower to plain when updates come faster than this (Hz).
    pub rate_above_hz: f64,
}

impl Adaptive {
    /// The adaptive rule from thresholds a user gave: plain below
    /// `battery_below_percent` (0 to 100) or above `rate_above_hz` (a finite
    /// number of Hz, 0 or more). A threshold left out never fires.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] for a percentage above 100 or a rate that is
    /// negative, infinite or not a number.
    pub fn new(
        battery_below_percent: Option<u8>,
        rate_above_hz: Option<f64>,
    ) -> Result<Self, Error> {
        Ok(Self {
            battery_below_percent: battery_below_percent.map_or(Ok(0), check_percent)?,
            rate_above_hz: rate_above_hz.map_or(Ok(f64::INFINITY), check_rate)?,
        })
    }
}

fn check_percent(p: u8) -> Result<u8, Error> {
    if p > 100 {
        return Err(Error::InvalidValue {
            what: "battery percentage",
            expected: "0 to 100",
        });
    }
    Ok(p)
}

fn check_rate(r: f64) -> Result<f64, Error> {
    if !(r.is_finite() && r >= 0.0) {
        return Err(Error::InvalidValue {
            what: "update rate",
            expected: "a finite number of Hz, 0 or more",
        });
    }
    Ok(r)
}

/// The classification peat-btle's analysis proposes: counters and
/// heartbeats plain; location, chat and emergencies mesh-wide; sensitive
/// chat per-peer (application types: [`Policy::unlisted`], mesh-wide).
pub const DEFAULT_CLASSES: [(DataType, Protection); 6] = [
    (DataType::Counter, Protection::Plain),
    (DataType::Heartbeat, Protection::Plain),
    (DataType::Location, Protection::MeshWide),
    (DataType::Chat, Protection::MeshWide),
    (DataType::Emergency, Protection::MeshWide),
    (DataType::SensitiveChat, Protection::PeerE2ee),
];

/// The types no rule may lower below mesh-wide by default.
pub const DEFAULT_ALWAYS_ENCRYPT: [DataType; 2] = [DataType::Emergency, DataType::SensitiveChat];

/// A policy's rules over borrowed tables: what the decision reads. A
/// [`Policy`] lends one ([`Policy::rules`]); firmware without an allocator
/// builds one over static tables ([`PolicyRules::new`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyRules<'a> {
    /// The overall level.
    pub level: Level,
    /// Classification used at [`Level::Selective`] (first match wins).
    pub classes: &'a [(DataType, Protection)],
    /// Protection of a type the classification does not list.
    pub unlisted: Protection,
    /// Override for a trusted local link.
    pub trusted_local: Override,
    /// Override for a known peer.
    pub known_peer: Override,
    /// Override for an untrusted relay.
    pub untrusted_relay: Override,
    /// The adaptive rule, if enabled.
    pub adaptive: Option<Adaptive>,
    /// Types no rule may lower below `max(MeshWide, classification)`.
    pub always_encrypt: &'a [DataType],
}

impl PolicyRules<'static> {
    /// The rules of [`Policy::new`]: `level` with the default
    /// classification and link rules, no adaptive rule, and emergencies and
    /// sensitive chat always encrypted.
    pub const fn new(level: Level) -> Self {
        Self {
            level,
            classes: &DEFAULT_CLASSES,
            unlisted: Protection::MeshWide,
            trusted_local: Override::AtMost(Protection::Plain),
            known_peer: Override::Keep,
            untrusted_relay: Override::AtLeast(Protection::PeerE2ee),
            adaptive: None,
            always_encrypt: &DEFAULT_ALWAYS_ENCRYPT,
        }
    }
}

impl PolicyRules<'_> {
    /// The classification of `t` (or [`PolicyRules::unlisted`]).
    pub fn classify(&self, t: DataType) -> Protection {
        classify_in(self, t)
    }

    /// [`Policy::decide`] under these rules.
    pub fn decide(&self, data: DataType, link: Link, cond: Conditions) -> Decision {
        decide_rules(self, data, link, cond)
    }

    /// [`Policy::required_floor`] under these rules.
    pub fn required_floor(&self, data: DataType, link: Link) -> Protection {
        floor_in(self, data, link)
    }
}

/// The whole policy, as data.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// The overall level.
    pub level: Level,
    /// Classification used at [`Level::Selective`] (first match wins).
    pub classes: Vec<(DataType, Protection)>,
    /// Protection of a type the classification does not list.
    pub unlisted: Protection,
    /// Override for a trusted local link.
    pub trusted_local: Override,
    /// Override for a known peer.
    pub known_peer: Override,
    /// Override for an untrusted relay.
    pub untrusted_relay: Override,
    /// The adaptive rule, if enabled.
    pub adaptive: Option<Adaptive>,
    /// Types no rule may lower below `max(MeshWide, classification)`.
    pub always_encrypt: Vec<DataType>,
}

#[cfg(feature = "alloc")]
impl Policy {
    /// The classification peat-btle's analysis proposes: counters and
    /// heartbeats plain; location, chat and emergencies mesh-wide; sensitive
    /// chat per-peer; application types mesh-wide.
    pub fn default_classes() -> Vec<(DataType, Protection)> {
        DEFAULT_CLASSES.to_vec()
    }

    /// A policy at `level` with the default classification and link rules,
    /// no adaptive rule, and emergencies and sensitive chat always encrypted.
    pub fn new(level: Level) -> Self {
        let r = PolicyRules::new(level);
        Self {
            level,
            classes: r.classes.to_vec(),
            unlisted: r.unlisted,
            trusted_local: r.trusted_local,
            known_peer: r.known_peer,
            untrusted_relay: r.untrusted_relay,
            adaptive: r.adaptive,
            always_encrypt: r.always_encrypt.to_vec(),
        }
    }

    /// The rules, borrowed.
    pub fn rules(&self) -> PolicyRules<'_> {
        PolicyRules {
            level: self.level,
            classes: &self.classes,
            unlisted: self.unlisted,
            trusted_local: self.trusted_local,
            known_peer: self.known_peer,
            untrusted_relay: self.untrusted_relay,
            adaptive: self.adaptive,
            always_encrypt: &self.always_encrypt,
        }
    }

    /// Adds the adaptive rule with these thresholds, as given (any values:
    /// a threshold nothing reaches never fires). [`Adaptive::new`] checks
    /// thresholds a user typed.
    pub fn with_adaptive(mut self, battery_below_percent: u8, rate_above_hz: f64) -> Self {
        self.adaptive = Some(Adaptive {
            battery_below_percent,
            rate_above_hz,
        });
        self
    }

    /// The classification of `t` (or [`Policy::unlisted`]).
    pub fn classify(&self, t: DataType) -> Protection {
        classify_in(self, t)
    }

    /// Decides the protection of one message. Pure: same inputs, same
    /// output.
    ///
    /// The level only sets the base: the link override and the
    /// always-encrypt floor apply on top of every level, [`Level::None`]
    /// included (by default an untrusted relay gets per-peer, emergencies at
    /// least mesh-wide). A node that lacks the keys for the result must not
    /// send the message plain.
    pub fn decide(&self, data: DataType, link: Link, cond: Conditions) -> Decision {
        decide_rules(self, data, link, cond)
    }

    /// The lowest protection [`Policy::decide`] could return for `data`
    /// sent over `link`, over every battery level (0–100 %) and every finite
    /// update rate (≥ 0 Hz): what a receiver, which knows neither, must
    /// require.
    ///
    /// The conditions enter the decision only through the adaptive rule's
    /// yes/no (step 3), so evaluating one case where it fires if it ever can
    /// and one where it stays off if it ever can covers every outcome.
    pub fn required_floor(&self, data: DataType, link: Link) -> Protection {
        floor_in(self, data, link)
    }
}

/// The device's conditions when a message is sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Conditions {
    /// Battery charge, percent.
    pub battery_percent: u8,
    /// How often this data type is being updated, Hz.
    pub update_rate_hz: f64,
}

impl Conditions {
    /// A full battery and no updates: the adaptive rule stays off whenever
    /// it can. The default, and what the command line and Python assume
    /// when no conditions are given.
    pub const FULL_POWER: Conditions = Conditions {
        battery_percent: 100,
        update_rate_hz: 0.0,
    };

    /// Conditions a user gave: a battery charge from 0 to 100 % and an update
    /// rate that is a finite number of Hz, 0 or more.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] for values outside those ranges.
    pub fn new(battery_percent: u8, update_rate_hz: f64) -> Result<Self, Error> {
        Ok(Self {
            battery_percent: check_percent(battery_percent)?,
            update_rate_hz: check_rate(update_rate_hz)?,
        })
    }
}

impl Default for Conditions {
    /// [`Conditions::FULL_POWER`].
    fn default() -> Self {
        Self::FULL_POWER
    }
}

/// Which step set the final protection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The level / classification.
    Base,
    /// The link override.
    Link,
    /// The adaptive rule.
    Adaptive,
    /// The always-encrypt floor.
    AlwaysEncrypt,
}

/// The result of [`Policy::decide`], with its trail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The protection to use.
    pub protection: Protection,
    /// After step 1.
    pub base: Protection,
    /// After step 2.
    pub after_link: Protection,
    /// After step 3.
    pub after_adaptive: Protection,
    /// The last rule that changed the protection.
    pub decided_by: Rule,
}

/// Whether a receiver in `mode` accepts a message that arrived with
/// `received` protection when the policy requires `required`. Strict mode
/// accepts nothing weaker than the policy would have used; permissive mode
/// accepts everything (legacy nodes). A policy receiver
/// ([`super::Receiver::with_policy`]) applies the strict rule with
/// `required` = [`Policy::required_floor`].
#[cfg(feature = "std")]
pub fn admits(mode: super::Mode, required: Protection, received: Protection) -> bool {
    match mode {
        super::Mode::Strict => received >= required,
        super::Mode::Permissive => true,
    }
}
