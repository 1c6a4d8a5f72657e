//! The payload area of an onion packet, and how its unused tail is filled.
//!
//! BOLT #4 fixes payment onions at 1300 bytes of payload and says onion
//! message packets SHOULD be 1366 or 32834 bytes long (payload areas of 1300
//! and 32768): any other size would single out its sender. This library
//! builds and reads exactly those two areas.

use super::packet::onion_len;
use super::Error;
use core::fmt;
use core::str::FromStr;

/// A payload area BOLT #4 defines.
///
/// Its spelling (`FromStr` / `Display`) is kebab-case: `payment` (1300 bytes:
/// payment onions and small onion messages) or `message-large` (32768
/// bytes: large onion messages). `FromStr` also takes the size in bytes,
/// written in decimal (`1300`, `32768`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Area {
    /// 1300 bytes: every payment onion, and small onion messages.
    #[default]
    Payment,
    /// 32768 bytes: large onion messages.
    MessageLarge,
}

impl Area {
    /// Both areas, smallest first.
    pub const ALL: [Area; 2] = [Area::Payment, Area::MessageLarge];

    /// The area's size in bytes (1300 or 32768).
    pub const fn bytes(self) -> usize {
        match self {
            Area::Payment => super::PAYMENT_AREA,
            Area::MessageLarge => super::MESSAGE_AREA_LARGE,
        }
    }

    /// Size of an onion with this area (1366 or 32834 bytes).
    pub const fn onion_len(self) -> usize {
        onion_len(self.bytes())
    }

    /// The area of `bytes` bytes.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownArea`] for any size but 1300 and 32768.
    pub const fn from_bytes(bytes: usize) -> Result<Self, Error> {
        match bytes {
            super::PAYMENT_AREA => Ok(Area::Payment),
            super::MESSAGE_AREA_LARGE => Ok(Area::MessageLarge),
            _ => Err(Error::UnknownArea),
        }
    }

    /// The name `Display` prints and `FromStr` reads.
    pub const fn name(self) -> &'static str {
        match self {
            Area::Payment => "payment",
            Area::MessageLarge => "message-large",
        }
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Area {
    type Err = Error;

    /// `payment`, `message-large`, `1300` or `32768`.
    fn from_str(s: &str) -> Result<Self, Error> {
        if let Some(a) = Area::ALL.into_iter().find(|a| a.name() == s) {
            return Ok(a);
        }
        match s.parse::<usize>() {
            Ok(n) if !s.starts_with('+') => Area::from_bytes(n),
            _ => Err(Error::UnknownArea),
        }
    }
}

impl TryFrom<usize> for Area {
    type Error = Error;

    fn try_from(bytes: usize) -> Result<Self, Error> {
        Area::from_bytes(bytes)
    }
}

/// How the unused tail of the payload area is filled before encryption.
///
/// Spelled (`FromStr` / `Display`) `deterministic` or `random`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Padding {
    /// BOLT #4's construction and the default: the ChaCha20 stream of the
    /// `pad` key derived from the session key. As unpredictable as the
    /// session key, and reproducible from it (the specification's vectors
    /// use it).
    #[default]
    Deterministic,
    /// Fresh bytes from the operating system's CSPRNG.
    Random,
}

impl Padding {
    /// The name `Display` prints and `FromStr` reads.
    pub const fn name(self) -> &'static str {
        match self {
            Padding::Deterministic => "deterministic",
            Padding::Random => "random",
        }
    }
}

impl fmt::Display for Padding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Padding {
    type Err = Error;

    /// `deterministic` or `random`.
    fn from_str(s: &str) -> Result<Self, Error> {
        [Padding::Deterministic, Padding::Random]
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or(Error::UnknownPadding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sizes() {
        for a in Area::ALL {
            assert_eq!(a.to_string().parse::<Area>(), Ok(a));
            assert_eq!(a.bytes().to_string().parse::<Area>(), Ok(a));
            assert_eq!(Area::try_from(a.bytes()), Ok(a));
        }
        assert_eq!(Area::Payment.onion_len(), 1366);
        assert_eq!(Area::MessageLarge.onion_len(), 32834);
        for bad in [
            "",
            "Payment",
            "1301",
            "+1300",
            "0x514",
            "message_large",
            "65536",
        ] {
            assert_eq!(bad.parse::<Area>(), Err(Error::UnknownArea), "{bad}");
        }
        assert_eq!(Area::from_bytes(0), Err(Error::UnknownArea));
        for p in [Padding::Deterministic, Padding::Random] {
            assert_eq!(p.to_string().parse::<Padding>(), Ok(p));
        }
        assert_eq!("Random".parse::<Padding>(), Err(Error::UnknownPadding));
        assert_eq!(Padding::default(), Padding::Deterministic);
    }
}
