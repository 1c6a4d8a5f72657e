//! The one spelling of every policy value: kebab-case names for
//! [`Protection`], [`Level`], [`Link`], [`Rule`], [`DataType`],
//! [`Override`], [`Mode`] and
//! [`SessionState`], through `FromStr` and
//! `Display`. The command line, Python, JSON and the docs all use these.

use super::{DataType, Level, Link, Override, Protection, Rule};
#[cfg(feature = "std")]
use crate::peat::Mode;
use crate::peat::{Error, SessionState};
use core::fmt;
use core::str::FromStr;

/// Gives a fieldless enum its names: `ALL`, `as_str`, `Display` and
/// `FromStr` (exact match; anything else is [`Error::InvalidValue`] listing
/// the names).
macro_rules! names {
    (
        $ty:ident, $what:literal,
        [$first:ident => $first_name:literal $(, $v:ident => $name:literal)* $(,)?]
    ) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$ty::$first $(, $ty::$v)*];

            /// The value's name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $ty::$first => $first_name,
                    $($ty::$v => $name,)*
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = Error;

            /// Parses the value's name, exactly as `Display` writes it.
            ///
            /// # Errors
            /// [`Error::InvalidValue`] for any other text.
            fn from_str(s: &str) -> Result<Self, Error> {
                Self::ALL
                    .iter()
                    .find(|v| v.as_str() == s)
                    .copied()
                    .ok_or(Error::InvalidValue {
                        what: $what,
                        expected: concat!($first_name $(, ", ", $name)*),
                    })
            }
        }
    };
}

names!(Protection, "protection", [
    Plain => "plain",
    MeshWide => "mesh-wide",
    PeerE2ee => "peer-e2ee",
]);

names!(Level, "policy level", [
    None => "none",
    MeshWide => "mesh-wide",
    Selective => "selective",
    PeerE2ee => "peer-e2ee",
]);

names!(Link, "link", [
    TrustedLocal => "trusted-local",
    KnownPeer => "known-peer",
    UntrustedRelay => "untrusted-relay",
]);

names!(Rule, "rule", [
    Base => "base",
    Link => "link",
    Adaptive => "adaptive",
    AlwaysEncrypt => "always-encrypt",
]);

#[cfg(feature = "std")]
names!(Mode, "receive mode", [
    Strict => "strict",
    Permissive => "permissive",
]);

names!(SessionState, "session state", [
    AwaitingPeerKey => "awaiting-peer-key",
    Established => "established",
    Closed => "closed",
]);

/// The data types that have a name (every one but [`DataType::App`]).
const NAMED_TYPES: [(DataType, &str); 6] = [
    (DataType::Counter, "counter"),
    (DataType::Heartbeat, "heartbeat"),
    (DataType::Location, "location"),
    (DataType::Chat, "chat"),
    (DataType::Emergency, "emergency"),
    (DataType::SensitiveChat, "sensitive-chat"),
];

/// Prefix of an application type's name (`app:7`).
const APP_PREFIX: &str = "app:";

const DATA_TYPE_ERROR: Error = Error::InvalidValue {
    what: "data type",
    expected:
        "counter, heartbeat, location, chat, emergency, sensitive-chat or app:N (N from 0 to 65535)",
};

impl DataType {
    /// The data types that have a name, in declaration order (application
    /// types are `app:N`).
    pub const NAMED: [DataType; 6] = [
        DataType::Counter,
        DataType::Heartbeat,
        DataType::Location,
        DataType::Chat,
        DataType::Emergency,
        DataType::SensitiveChat,
    ];
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::App(n) => write!(f, "{APP_PREFIX}{n}"),
            named => {
                let name = NAMED_TYPES
                    .iter()
                    .find(|(t, _)| t == named)
                    .map_or("", |(_, s)| s);
                f.write_str(name)
            }
        }
    }
}

impl FromStr for DataType {
    type Err = Error;

    /// Parses `counter`, `heartbeat`, `location`, `chat`, `emergency`,
    /// `sensitive-chat` or `app:N` (N in decimal, 0 to 65535).
    ///
    /// # Errors
    /// [`Error::InvalidValue`] for any other text.
    fn from_str(s: &str) -> Result<Self, Error> {
        if let Some((t, _)) = NAMED_TYPES.iter().find(|(_, name)| *name == s) {
            return Ok(*t);
        }
        let digits = s.strip_prefix(APP_PREFIX).ok_or(DATA_TYPE_ERROR)?;
        // Decimal digits only, as `Display` writes them: no sign, no spaces,
        // no leading zero.
        let canonical = digits == "0" || !digits.starts_with('0');
        if digits.is_empty() || !canonical || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(DATA_TYPE_ERROR);
        }
        digits
            .parse::<u16>()
            .map(DataType::App)
            .map_err(|_| DATA_TYPE_ERROR)
    }
}

const OVERRIDE_ERROR: Error = Error::InvalidValue {
    what: "link override",
    expected: "keep, at-least:PROTECTION or at-most:PROTECTION (plain, mesh-wide, peer-e2ee)",
};

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Override::Keep => f.write_str("keep"),
            Override::AtLeast(p) => write!(f, "at-least:{p}"),
            Override::AtMost(p) => write!(f, "at-most:{p}"),
        }
    }
}

impl FromStr for Override {
    type Err = Error;

    /// Parses `keep`, `at-least:PROTECTION` or `at-most:PROTECTION`.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] for any other text.
    fn from_str(s: &str) -> Result<Self, Error> {
        if s == "keep" {
            return Ok(Override::Keep);
        }
        let protection = |p: &str| p.parse::<Protection>().map_err(|_| OVERRIDE_ERROR);
        match s.split_once(':') {
            Some(("at-least", p)) => Ok(Override::AtLeast(protection(p)?)),
            Some(("at-most", p)) => Ok(Override::AtMost(protection(p)?)),
            _ => Err(OVERRIDE_ERROR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Protection::ALL {
            assert_eq!(p.to_string().parse::<Protection>(), Ok(*p));
        }
        for l in Level::ALL {
            assert_eq!(l.to_string().parse::<Level>(), Ok(*l));
        }
        for l in Link::ALL {
            assert_eq!(l.to_string().parse::<Link>(), Ok(*l));
        }
        for r in Rule::ALL {
            assert_eq!(r.to_string().parse::<Rule>(), Ok(*r));
        }
        for t in DataType::NAMED
            .into_iter()
            .chain([DataType::App(0), DataType::App(65535)])
        {
            assert_eq!(t.to_string().parse::<DataType>(), Ok(t));
        }
        for o in [
            Override::Keep,
            Override::AtLeast(Protection::PeerE2ee),
            Override::AtMost(Protection::Plain),
        ] {
            assert_eq!(o.to_string().parse::<Override>(), Ok(o));
        }
    }

    #[test]
    fn one_spelling_only() {
        for bad in ["known_peer", "Known-Peer", "knownpeer", " known-peer", ""] {
            assert!(bad.parse::<Link>().is_err(), "{bad:?}");
        }
        assert_eq!(
            "mesh_wide".parse::<Level>(),
            Err(Error::InvalidValue {
                what: "policy level",
                expected: "none, mesh-wide, selective, peer-e2ee",
            })
        );
        for bad in [
            "app:",
            "app:-1",
            "app:+1",
            "app:65536",
            "app: 1",
            "app:07",
            "sensitive_chat",
            "App:1",
        ] {
            assert!(bad.parse::<DataType>().is_err(), "{bad:?}");
        }
        assert_eq!("app:0".parse::<DataType>(), Ok(DataType::App(0)));
        for bad in ["at-least", "at-least:", "at-most:secret", "Keep"] {
            assert!(bad.parse::<Override>().is_err(), "{bad:?}");
        }
    }
}
