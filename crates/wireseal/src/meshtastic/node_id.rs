//! Node numbers as the firmware writes them: `!` and eight lower-case hex
//! digits (`NodeDB::getNodeId`, `printf("!%08x", num)`), the form every
//! Meshtastic topic, log and user interface shows.
//!
//! ```
//! use wireseal::meshtastic::NodeId;
//!
//! let n: NodeId = "!0a0b0c0d".parse()?;
//! assert_eq!(n.0, 0x0a0b_0c0d);
//! assert_eq!(n.to_string(), "!0a0b0c0d");
//! assert_eq!("0x0a0b0c0d".parse::<NodeId>()?, n);
//! assert_eq!("168496141".parse::<NodeId>()?, n);
//! assert!(NodeId::parse_canonical("!a0b0c0d").is_none()); // seven digits
//! # Ok::<(), wireseal::meshtastic::Error>(())
//! ```

use super::Error;

/// A node number, shown as `!%08x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The broadcast address (`0xffffffff`).
    pub const BROADCAST: NodeId = NodeId(u32::MAX);

    /// The exact form the firmware writes: `!` and eight hex digits (either
    /// case); `None` for anything else. Use it for ids that come from the
    /// network (`ServiceEnvelope.gateway_id`, `User.id`), where only the
    /// firmware's own form is taken.
    pub fn parse_canonical(text: &str) -> Option<NodeId> {
        let hex = text.strip_prefix('!')?;
        if hex.len() != 8 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(hex, 16).ok().map(NodeId)
    }

    /// The id as the eight-digit text (with its `!`), without allocating.
    pub fn text(&self) -> [u8; 9] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [b'!'; 9];
        for (i, slot) in out[1..].iter_mut().enumerate() {
            *slot = DIGITS[((self.0 >> (28 - 4 * i)) & 15) as usize];
        }
        out
    }
}

impl From<u32> for NodeId {
    fn from(n: u32) -> Self {
        NodeId(n)
    }
}

impl From<NodeId> for u32 {
    fn from(n: NodeId) -> Self {
        n.0
    }
}

impl core::fmt::Display for NodeId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let text = self.text();
        // Only ASCII digits and '!' are written above.
        f.write_str(core::str::from_utf8(&text).map_err(|_| core::fmt::Error)?)
    }
}

impl core::str::FromStr for NodeId {
    type Err = Error;

    /// `!hex` (one to eight digits), `0x` hex, or decimal, as operators type
    /// node numbers.
    ///
    /// # Errors
    /// [`Error::UnknownName`] when the text is none of these or does not fit
    /// 32 bits.
    fn from_str(s: &str) -> Result<Self, Error> {
        let bad = Error::UnknownName {
            what: "node id",
            expected: "!hex (e.g. !0a0b0c0d), 0x hex or a decimal number",
        };
        let (digits, radix) = match (s.strip_prefix('!'), s.strip_prefix("0x")) {
            (Some(h), _) => (h, 16),
            (_, Some(h)) => (h, 16),
            _ => (s, 10),
        };
        let ok = !digits.is_empty()
            && digits.len() <= if radix == 16 { 8 } else { 10 }
            && digits.bytes().all(|b| match radix {
                16 => b.is_ascii_hexdigit(),
                _ => b.is_ascii_digit(),
            });
        if !ok {
            return Err(bad);
        }
        u32::from_str_radix(digits, radix)
            .map(NodeId)
            .map_err(|_| bad)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for NodeId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses() {
        assert_eq!(NodeId(0).to_string(), "!00000000");
        assert_eq!(NodeId(u32::MAX).to_string(), "!ffffffff");
        assert_eq!(NodeId(0xdead_beef).to_string(), "!deadbeef");
        for s in ["!deadbeef", "!DEADBEEF", "0xdeadbeef", "3735928559"] {
            assert_eq!(s.parse::<NodeId>().unwrap(), NodeId(0xdead_beef), "{s}");
        }
        assert_eq!("!1".parse::<NodeId>().unwrap(), NodeId(1));
        for s in [
            "",
            "!",
            "!123456789",
            "0x",
            "-1",
            "4294967296",
            "!xyz",
            "+5",
            " 5",
        ] {
            assert!(s.parse::<NodeId>().is_err(), "{s:?}");
        }
        assert_eq!(
            NodeId::parse_canonical("!0a0b0c0d"),
            Some(NodeId(0x0a0b_0c0d))
        );
        for s in [
            "0a0b0c0d",
            "!a0b0c0d",
            "!0a0b0c0d0",
            "!0a0b0c0g",
            "!+a0b0c0d",
        ] {
            assert_eq!(NodeId::parse_canonical(s), None, "{s}");
        }
    }
}
