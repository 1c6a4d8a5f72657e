//! Adverts: a node's signed announcement of its key, kind, position and
//! name (`Mesh::createAdvert`, `AdvertDataBuilder`, `AdvertDataParser`).

use super::error::Error;
use super::identity::{LocalIdentity, PublicIdentity, SIGNATURE_SIZE};
use super::packet::{PacketOut, PayloadType};
use super::payload::AdvertPayload;
use super::{MAX_ADVERT_DATA_SIZE, PUB_KEY_SIZE};
use core::fmt;

const LATLON: u8 = 0x10;
const FEAT1: u8 = 0x20;
const FEAT2: u8 = 0x40;
const NAME: u8 = 0x80;

/// What kind of node advertises (the app data flags' low nibble).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// No type given (0).
    None,
    /// A companion (chat) node.
    Chat,
    /// A repeater.
    Repeater,
    /// A room server.
    Room,
    /// A sensor.
    Sensor,
    /// Another value (5-15).
    Other(u8),
}

impl NodeType {
    /// The type of a flags byte's low nibble.
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 0x0f {
            0 => NodeType::None,
            1 => NodeType::Chat,
            2 => NodeType::Repeater,
            3 => NodeType::Room,
            4 => NodeType::Sensor,
            v => NodeType::Other(v),
        }
    }

    /// The four bits.
    pub const fn bits(self) -> u8 {
        match self {
            NodeType::None => 0,
            NodeType::Chat => 1,
            NodeType::Repeater => 2,
            NodeType::Room => 3,
            NodeType::Sensor => 4,
            NodeType::Other(v) => v & 0x0f,
        }
    }

    /// The stable name: `none`, `chat`, `repeater`, `room`, `sensor`,
    /// `other`.
    pub const fn as_str(self) -> &'static str {
        match self {
            NodeType::None => "none",
            NodeType::Chat => "chat",
            NodeType::Repeater => "repeater",
            NodeType::Room => "room",
            NodeType::Sensor => "sensor",
            NodeType::Other(_) => "other",
        }
    }
}

impl fmt::Display for NodeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An advert's app data, read as the firmware reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdvertData<'a> {
    /// The node's kind.
    pub node_type: NodeType,
    /// Latitude and longitude in microdegrees, when given.
    pub location: Option<(i32, i32)>,
    /// The first feature word, when given.
    pub feat1: Option<u16>,
    /// The second feature word, when given.
    pub feat2: Option<u16>,
    /// The name's bytes (up to a NUL, as the firmware's C string ends
    /// there), when given; receivers ignore adverts without one.
    pub name: Option<&'a [u8]>,
}

impl<'a> AdvertData<'a> {
    /// Parses app data (already cut to 32 bytes). `None` when the flags
    /// announce fields the data does not hold (the firmware marks such
    /// data invalid) or there is no flags byte.
    pub fn parse(app_data: &'a [u8]) -> Option<Self> {
        let (&flags, mut rest) = app_data.split_first()?;
        let mut take = |n: usize| -> Option<&'a [u8]> {
            let (a, b) = rest.split_at_checked(n)?;
            rest = b;
            Some(a)
        };
        let location = if flags & LATLON != 0 {
            let lat = take(4)?;
            let lon = take(4)?;
            Some((
                i32::from_le_bytes(lat.try_into().ok()?),
                i32::from_le_bytes(lon.try_into().ok()?),
            ))
        } else {
            None
        };
        let feat1 = match flags & FEAT1 {
            0 => None,
            _ => Some(u16::from_le_bytes(take(2)?.try_into().ok()?)),
        };
        let feat2 = match flags & FEAT2 {
            0 => None,
            _ => Some(u16::from_le_bytes(take(2)?.try_into().ok()?)),
        };
        let name = if flags & NAME != 0 {
            let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
            Some(&rest[..end]).filter(|n| !n.is_empty())
        } else {
            None
        };
        Some(Self {
            node_type: NodeType::from_bits(flags),
            location,
            feat1,
            feat2,
            name,
        })
    }

    /// The name as text: the longest valid UTF-8 prefix.
    pub fn name_str(&self) -> Option<&'a str> {
        let n = self.name?;
        Some(match core::str::from_utf8(n) {
            Ok(s) => s,
            Err(e) => core::str::from_utf8(&n[..e.valid_up_to()]).unwrap_or_default(),
        })
    }
}

/// Checks an advert's signature over `public_key ‖ timestamp ‖ app_data`
/// (app data cut to 32 bytes, as receivers cut it). An advert whose key is
/// not a curve point does not verify.
pub fn verify_advert(advert: &AdvertPayload<'_>) -> bool {
    let Ok(id) = PublicIdentity::from_bytes(advert.public_key) else {
        return false;
    };
    verify_advert_with(&id, advert)
}

/// [`verify_advert`] with the key already read (a known node's).
pub fn verify_advert_with(id: &PublicIdentity, advert: &AdvertPayload<'_>) -> bool {
    if id.as_bytes() != advert.public_key {
        return false;
    }
    let mut msg = [0u8; PUB_KEY_SIZE + 4 + MAX_ADVERT_DATA_SIZE];
    let n = signed_message(
        &mut msg,
        advert.public_key,
        advert.timestamp,
        advert.app_data,
    );
    id.verify(&msg[..n], advert.signature)
}

fn signed_message(out: &mut [u8], key: &[u8; 32], timestamp: u32, app_data: &[u8]) -> usize {
    let app = &app_data[..app_data.len().min(MAX_ADVERT_DATA_SIZE)];
    out[..32].copy_from_slice(key);
    out[32..36].copy_from_slice(&timestamp.to_le_bytes());
    out[36..36 + app.len()].copy_from_slice(app);
    36 + app.len()
}

/// What a node puts in its advert.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdvertOut<'a> {
    /// The node's kind.
    pub node_type: NodeType,
    /// Latitude and longitude in degrees, when shared.
    pub location: Option<(f64, f64)>,
    /// The name, cut at a whole UTF-8 character to fit (31 bytes, 23 with
    /// a location); empty for none.
    pub name: &'a str,
}

impl AdvertOut<'_> {
    /// Writes the app data as the firmware's builder does (location as
    /// `int32(deg × 1e6)`, truncated toward zero); returns its length.
    ///
    /// # Errors
    /// [`Error::Argument`] for a latitude outside ±90 or a longitude
    /// outside ±180 degrees (or not a number).
    pub fn encode_app_data(&self, out: &mut [u8; MAX_ADVERT_DATA_SIZE]) -> Result<usize, Error> {
        out[0] = self.node_type.bits();
        let mut i = 1;
        if let Some((lat, lon)) = self.location {
            if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                return Err(Error::Argument {
                    what: "location",
                    reason: "latitude within ±90 and longitude within ±180 degrees",
                });
            }
            out[0] |= LATLON;
            // Truncation toward zero, as C's conversion does.
            out[1..5].copy_from_slice(&((lat * 1e6) as i32).to_le_bytes());
            out[5..9].copy_from_slice(&((lon * 1e6) as i32).to_le_bytes());
            i = 9;
        }
        let name = utf8_prefix(self.name, MAX_ADVERT_DATA_SIZE - i);
        if !name.is_empty() {
            out[0] |= NAME;
            out[i..i + name.len()].copy_from_slice(name.as_bytes());
            i += name.len();
        }
        Ok(i)
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends at a whole
/// character.
pub(crate) fn utf8_prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Writes the ADVERT packet a node floods for itself (empty path): its
/// key, `timestamp`, the signature and the app data. Returns its length
/// (at most 1 + 1 + 100 + 32 bytes).
///
/// # Errors
/// As [`AdvertOut::encode_app_data`]; [`Error::BufferTooSmall`].
pub fn encode_advert(
    identity: &LocalIdentity,
    timestamp: u32,
    advert: &AdvertOut<'_>,
    out: &mut [u8],
) -> Result<usize, Error> {
    let mut app = [0u8; MAX_ADVERT_DATA_SIZE];
    let app_len = advert.encode_app_data(&mut app)?;
    let key = identity.public().as_bytes();
    let mut msg = [0u8; PUB_KEY_SIZE + 4 + MAX_ADVERT_DATA_SIZE];
    let n = signed_message(&mut msg, key, timestamp, &app[..app_len]);
    let signature = identity.sign(&msg[..n]);
    let mut payload = [0u8; PUB_KEY_SIZE + 4 + SIGNATURE_SIZE + MAX_ADVERT_DATA_SIZE];
    payload[..36].copy_from_slice(&msg[..36]);
    payload[36..100].copy_from_slice(&signature);
    payload[100..100 + app_len].copy_from_slice(&app[..app_len]);
    PacketOut::flood(PayloadType::Advert, &payload[..100 + app_len]).encode_into(out)
}
