//! `attribution_data` (BOLT #4 attributable failures and fulfills): the 920
//! bytes a hop returns beside `update_fail_htlc`'s failure packet or in
//! `update_fulfill_htlc`, telling the origin how long each hop held the HTLC
//! and, through truncated HMACs, which hop broke a failure.
//!
//! Layout: `htlc_hold_times` (20 big-endian `u32`, units of 100 ms) then
//! `truncated_hmacs` (210 HMACs of 4 bytes: 20 of the nearest hop, one per
//! position it may hold on the path, then 19 of the next, down to 1). Every
//! hop shifts the block right (pruning each hop's HMAC for a position past
//! 20), puts its hold time and its 20 HMACs in front (keyed by `um`, over
//! the return packet as it received or created it, the hold times and the
//! HMACs of the hops after it) and obfuscates the block with its `ammagext`
//! stream. The origin undoes this hop by hop ([`super::failure::unwrap_attributed`],
//! [`super::fulfill::unwrap`]).
//!
//! Only the first [`MAX_HOPS`] hops of a route (of up to 27) can vouch, and
//! only hops whose incoming HTLC carried no `path_key` add attribution data
//! ([`Incoming`]): a blinded path's hops after its introduction node add
//! none, and the origin reads the data up to the introduction node
//! ([`HopSecrets::with_blinded_tail`](super::HopSecrets::with_blinded_tail)).

use super::keys::{derive, HopSecrets, KeyKind, SharedSecret};
use super::Error;
use crate::primitives::chacha20::KeyStream;
use crate::primitives::hmac_stream::HmacSha256Stream;
use crate::primitives::sha::ct_eq;
use core::fmt;
use core::str::FromStr;

/// Hops whose hold time and HMACs attribution data carries (the first 20 of
/// a route).
pub const MAX_HOPS: usize = 20;
/// Milliseconds per unit of a hold time on the wire.
pub const HOLD_TIME_UNIT_MS: u64 = 100;
/// The hold time a hop reports when it has no accurate timing (BOLT #4:
/// zero); what the drivers use when none is given.
pub const UNKNOWN_HOLD_TIME_MS: u64 = 0;
/// Bytes of one hold time.
const HOLD_LEN: usize = 4;
/// Bytes of one truncated HMAC.
const MAC_LEN: usize = 4;
/// HMACs in the block: 20 + 19 + ... + 1.
const MAC_COUNT: usize = MAX_HOPS * (MAX_HOPS + 1) / 2;
/// Where the HMACs start.
const MACS_AT: usize = MAX_HOPS * HOLD_LEN;
/// Size of `attribution_data`: 80 bytes of hold times and 840 of HMACs.
pub const ATTRIBUTION_LEN: usize = MACS_AT + MAC_COUNT * MAC_LEN;

/// A hold time in milliseconds as its wire units: 100 ms each, rounded
/// down, saturating at `u32::MAX`.
pub const fn hold_time_units(ms: u64) -> u32 {
    let units = ms / HOLD_TIME_UNIT_MS;
    if units > u32::MAX as u64 {
        u32::MAX
    } else {
        units as u32
    }
}

/// A hold time in wire units as milliseconds.
pub const fn hold_time_ms(units: u32) -> u64 {
    units as u64 * HOLD_TIME_UNIT_MS
}

/// How the `update_add_htlc` a hop received reached it, which decides
/// whether the hop adds attribution data (BOLT #4): only a hop whose
/// incoming HTLC carried no `path_key` adds or updates it.
///
/// Spelled (`FromStr` / `Display`) `unblinded` or `blinded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Incoming {
    /// No `path_key`: outside a blinded path, or its introduction node (the
    /// path key came in the onion's `current_path_key`). The hop adds its
    /// hold time and HMACs, to a new block when none came from downstream.
    #[default]
    Unblinded,
    /// A `path_key` came with the HTLC: the hop is inside a blinded path,
    /// past its introduction node. It neither adds nor updates attribution
    /// data, and passes none upstream (hold times from inside a blinded path
    /// would help the origin find its hops).
    Blinded,
}

impl Incoming {
    /// [`Incoming::Blinded`] when the incoming `update_add_htlc` carried a
    /// path key.
    pub fn from_path_key<K>(path_key: Option<K>) -> Self {
        match path_key {
            Some(_) => Incoming::Blinded,
            None => Incoming::Unblinded,
        }
    }

    /// Whether a hop that received its HTLC this way adds attribution data.
    pub const fn adds_attribution(self) -> bool {
        matches!(self, Incoming::Unblinded)
    }

    /// The name `Display` prints and `FromStr` reads.
    pub const fn name(self) -> &'static str {
        match self {
            Incoming::Unblinded => "unblinded",
            Incoming::Blinded => "blinded",
        }
    }

    /// What this hop sends upstream from the attribution data `received`
    /// from downstream: a blinded hop drops it, any other adds its layer
    /// with `add` (to a new block when nothing came).
    pub(crate) fn pass_on(
        self,
        received: Option<AttributionData>,
        add: impl FnOnce(&mut AttributionData),
    ) -> Option<AttributionData> {
        self.adds_attribution().then(|| {
            let mut a = match received {
                Some(mut a) => {
                    a.shift_right();
                    a
                }
                None => AttributionData::new(),
            };
            add(&mut a);
            a
        })
    }
}

impl fmt::Display for Incoming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Incoming {
    type Err = Error;

    /// `unblinded` or `blinded`.
    fn from_str(s: &str) -> Result<Self, Error> {
        [Incoming::Unblinded, Incoming::Blinded]
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or(Error::UnknownIncoming)
    }
}

/// The 920-byte `attribution_data` block, as it travels (obfuscated).
#[derive(Clone, PartialEq, Eq)]
pub struct AttributionData([u8; ATTRIBUTION_LEN]);

impl Default for AttributionData {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for AttributionData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AttributionData({ATTRIBUTION_LEN} bytes)")
    }
}

impl AttributionData {
    /// The all-zero block a hop starts from when none came from downstream.
    pub const fn new() -> Self {
        Self([0; ATTRIBUTION_LEN])
    }

    /// The block in `bytes` (exactly [`ATTRIBUTION_LEN`] bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Truncated`] / [`Error::TooLong`] for any other length.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        match bytes.len() {
            len if len < ATTRIBUTION_LEN => Err(Error::Truncated {
                len,
                min: ATTRIBUTION_LEN,
            }),
            len if len > ATTRIBUTION_LEN => Err(Error::TooLong {
                len,
                max: ATTRIBUTION_LEN,
            }),
            _ => {
                let mut b = [0u8; ATTRIBUTION_LEN];
                b.copy_from_slice(bytes);
                Ok(Self(b))
            }
        }
    }

    /// The 920 bytes.
    pub const fn as_bytes(&self) -> &[u8; ATTRIBUTION_LEN] {
        &self.0
    }

    /// Applies (or removes) hop `ss`'s `ammagext` stream.
    pub(crate) fn crypt(&mut self, ss: &SharedSecret) {
        let key = derive(KeyKind::AmmagExt, ss.expose());
        KeyStream::new(key.expose(), 0).xor(&mut self.0);
    }

    fn mac(&self, idx: usize) -> &[u8] {
        let at = MACS_AT + idx * MAC_LEN;
        &self.0[at..at + MAC_LEN]
    }

    /// The HMACs of the hops after the nearest one that its HMAC for
    /// `position` (hops to the last hop) covers, concatenated.
    fn downstream(&self, position: usize, out: &mut [u8; (MAX_HOPS - 1) * MAC_LEN]) -> usize {
        let mut idx = 2 * MAX_HOPS - position - 1;
        for j in 0..position {
            out[j * MAC_LEN..(j + 1) * MAC_LEN].copy_from_slice(self.mac(idx));
            idx += MAX_HOPS - j - 1;
        }
        position * MAC_LEN
    }

    /// Start of block `k` (the HMACs of the `k`-th hop from the nearest).
    const fn block(k: usize) -> usize {
        MAX_HOPS * k - k * (k.saturating_sub(1)) / 2
    }

    /// Makes room for a new nearest hop: hold times move right by one, each
    /// hop's HMAC block moves one block right losing its HMAC for position
    /// 19, and the last hop's block drops out.
    pub(crate) fn shift_right(&mut self) {
        self.0.copy_within(..MACS_AT - HOLD_LEN, HOLD_LEN);
        for k in (1..MAX_HOPS).rev() {
            let (from, len) = (Self::block(k - 1) + 1, MAX_HOPS - k);
            let to = Self::block(k);
            self.0.copy_within(
                MACS_AT + from * MAC_LEN..MACS_AT + (from + len) * MAC_LEN,
                MACS_AT + to * MAC_LEN,
            );
        }
    }

    /// The inverse of [`AttributionData::shift_right`] at the origin: the
    /// next hop's hold time and HMACs become the nearest.
    pub(crate) fn shift_left(&mut self) {
        self.0.copy_within(HOLD_LEN..MACS_AT, 0);
        for k in 0..MAX_HOPS - 1 {
            let (from, len) = (Self::block(k + 1), MAX_HOPS - k - 1);
            let to = Self::block(k) + 1;
            self.0.copy_within(
                MACS_AT + from * MAC_LEN..MACS_AT + (from + len) * MAC_LEN,
                MACS_AT + to * MAC_LEN,
            );
        }
    }

    /// Puts this hop's hold time in front and its 20 HMACs (one per position
    /// it may hold) over `message` (keyed `um`), after
    /// [`AttributionData::shift_right`] or on a new block.
    pub(crate) fn add_hop(&mut self, um: &HmacSha256Stream, hold_units: u32, message: &[u8]) {
        self.0[..HOLD_LEN].copy_from_slice(&hold_units.to_be_bytes());
        // Every HMAC starts with the message and the first hold times: keep
        // the state after them and extend it one hold time per position.
        let mut prefix = um.clone();
        prefix.update(message);
        let mut down = [0u8; (MAX_HOPS - 1) * MAC_LEN];
        for position in 0..MAX_HOPS {
            prefix.update(&self.0[position * HOLD_LEN..(position + 1) * HOLD_LEN]);
            let n = self.downstream(position, &mut down);
            let mut m = prefix.clone();
            m.update(&down[..n]);
            let tag = m.finalize();
            let at = MACS_AT + (MAX_HOPS - position - 1) * MAC_LEN;
            self.0[at..at + MAC_LEN].copy_from_slice(&tag[..MAC_LEN]);
        }
    }

    /// At the origin, on a block the hop's stream has been removed from:
    /// whether the nearest hop's HMAC for `position` verifies (compared in
    /// constant time), and the hold time it reports.
    pub(crate) fn verify(
        &self,
        um: &HmacSha256Stream,
        message: &[u8],
        position: usize,
    ) -> (bool, u32) {
        let mut m = um.clone();
        m.update(message);
        m.update(&self.0[..(position + 1) * HOLD_LEN]);
        let mut down = [0u8; (MAX_HOPS - 1) * MAC_LEN];
        let n = self.downstream(position, &mut down);
        m.update(&down[..n]);
        let tag = m.finalize();
        let ok = ct_eq(&tag[..MAC_LEN], self.mac(MAX_HOPS - position - 1));
        let hold = u32::from_be_bytes([self.0[0], self.0[1], self.0[2], self.0[3]]);
        (ok, hold)
    }
}

/// What the origin learned from attribution data.
///
/// Spelled (`FromStr` / `Display`) `valid`, `absent` or `broken`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Attribution {
    /// No attribution data came back.
    Absent,
    /// Every hop that could vouch did: each one up to the hop that failed
    /// (at most the first 20).
    Valid,
    /// A hop's HMAC did not verify (it, or the hop after it, changed the
    /// data, or it does not support attribution); the hops before it
    /// vouched.
    Broken,
}

impl Attribution {
    /// The name `Display` prints and `FromStr` reads.
    pub const fn name(self) -> &'static str {
        match self {
            Attribution::Absent => "absent",
            Attribution::Valid => "valid",
            Attribution::Broken => "broken",
        }
    }
}

impl fmt::Display for Attribution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Attribution {
    type Err = Error;

    /// `valid`, `absent` or `broken`.
    fn from_str(s: &str) -> Result<Self, Error> {
        [Attribution::Valid, Attribution::Absent, Attribution::Broken]
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or(Error::UnknownAttribution)
    }
}

/// The origin's walk over the attribution data of a route, hop by hop.
pub(crate) struct Walk {
    data: Option<AttributionData>,
    /// Hops that can vouch: `min(route length, 20)`.
    vouching: usize,
    /// Hold times of the hops that vouched so far, in wire units.
    pub(crate) hold_units: Vec<u32>,
    /// The first hop (1-based) whose HMAC failed.
    pub(crate) broken_at: Option<usize>,
    pub(crate) present: bool,
}

impl Walk {
    /// Starts a walk over `route`'s hops that can vouch (its first
    /// [`HopSecrets::attributing`], at most [`MAX_HOPS`]); `data` of the
    /// wrong length breaks at the first hop (it sent malformed data).
    pub(crate) fn new(route: &HopSecrets, data: Option<&[u8]>) -> Self {
        let parsed = data.map(AttributionData::from_slice);
        let vouching = route.attributing().min(MAX_HOPS);
        Self {
            data: parsed.as_ref().and_then(|r| r.as_ref().ok().cloned()),
            vouching,
            hold_units: Vec::with_capacity(vouching),
            broken_at: (vouching > 0 && matches!(parsed, Some(Err(_)))).then_some(1),
            present: data.is_some(),
        }
    }

    /// How many hops can vouch.
    pub(crate) fn vouching(&self) -> usize {
        self.vouching
    }

    /// Hop `i` (0-based): removes its stream and checks its HMAC over
    /// `message`. `record` is false once the origin has what it needs (past
    /// the failing hop); the work is the same either way.
    pub(crate) fn step(
        &mut self,
        i: usize,
        ss: &SharedSecret,
        um: &HmacSha256Stream,
        message: &[u8],
        record: bool,
    ) {
        let Some(data) = self.data.as_mut() else {
            return;
        };
        if i >= self.vouching {
            return;
        }
        data.crypt(ss);
        let (ok, hold) = data.verify(um, message, self.vouching - i - 1);
        data.shift_left();
        if record && self.broken_at.is_none() {
            if ok {
                self.hold_units.push(hold);
            } else {
                self.broken_at = Some(i + 1);
            }
        }
    }

    /// The status after the walk.
    pub(crate) fn status(&self) -> Attribution {
        match (self.present, self.broken_at) {
            (false, _) => Attribution::Absent,
            (true, None) => Attribution::Valid,
            (true, Some(_)) => Attribution::Broken,
        }
    }

    /// The hold times that vouched, in milliseconds.
    pub(crate) fn hold_times_ms(&self) -> Vec<u64> {
        self.hold_units.iter().map(|u| hold_time_ms(*u)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_units() {
        assert_eq!(ATTRIBUTION_LEN, 920);
        assert_eq!(AttributionData::block(0), 0);
        assert_eq!(AttributionData::block(1), 20);
        assert_eq!(AttributionData::block(19), 209);
        assert_eq!(hold_time_units(0), 0);
        assert_eq!(hold_time_units(99), 0);
        assert_eq!(hold_time_units(100), 1);
        assert_eq!(hold_time_units(12_345), 123);
        assert_eq!(hold_time_units(u64::MAX), u32::MAX);
        assert_eq!(hold_time_units(429_496_729_500), u32::MAX);
        assert_eq!(hold_time_units(429_496_729_599), u32::MAX);
        assert_eq!(hold_time_units(429_496_729_400), u32::MAX - 1);
        assert_eq!(hold_time_ms(u32::MAX), 429_496_729_500);
    }

    /// Shifting right then left gives back every HMAC that survives the
    /// prune (each block's HMAC for position 19 and the last block do not).
    #[test]
    fn shifts_are_inverse_on_what_survives() {
        let mut a = AttributionData::new();
        for (i, b) in a.0.iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        let before = a.clone();
        a.shift_right();
        a.shift_left();
        assert_eq!(a.0[..MACS_AT - HOLD_LEN], before.0[..MACS_AT - HOLD_LEN]);
        for k in 0..MAX_HOPS - 1 {
            let start = MACS_AT + (AttributionData::block(k) + 1) * MAC_LEN;
            let end = MACS_AT + AttributionData::block(k + 1) * MAC_LEN;
            assert_eq!(a.0[start..end], before.0[start..end], "block {k}");
        }
    }

    #[test]
    fn from_slice_checks_the_length() {
        assert_eq!(
            AttributionData::from_slice(&[0; 919]),
            Err(Error::Truncated { len: 919, min: 920 })
        );
        assert_eq!(
            AttributionData::from_slice(&[0; 921]),
            Err(Error::TooLong { len: 921, max: 920 })
        );
        assert_eq!(
            AttributionData::from_slice(&[0; 920]),
            Ok(AttributionData::new())
        );
        for a in [Attribution::Valid, Attribution::Absent, Attribution::Broken] {
            assert_eq!(a.to_string().parse::<Attribution>(), Ok(a));
        }
        for i in [Incoming::Unblinded, Incoming::Blinded] {
            assert_eq!(i.to_string().parse::<Incoming>(), Ok(i));
        }
        assert_eq!("Blinded".parse::<Incoming>(), Err(Error::UnknownIncoming));
        assert_eq!(Incoming::from_path_key(Some(())), Incoming::Blinded);
        assert_eq!(Incoming::from_path_key(None::<()>), Incoming::Unblinded);
        assert_eq!(
            "VALID".parse::<Attribution>(),
            Err(Error::UnknownAttribution)
        );
    }
}
