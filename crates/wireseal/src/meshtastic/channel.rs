//! Channel packets: PSK expansion, AES-128/256-CTR, and the channel hash.
//!
//! Channel packets carry no authentication tag (the firmware has none):
//! anyone holding the PSK can forge them. Use PKC direct messages when that
//! matters.
//!
//! Counter block: `LE64(id) | LE32(from) | 00000000`, the last four bytes a
//! big-endian block counter from 0.
//!
//! A PSK is written as text in one of these forms (the `FromStr` of
//! [`ChannelKey`], the only place the library reads PSK text):
//!
//! | text | bytes |
//! |---|---|
//! | `none` | `[0]`: no encryption |
//! | `default` | `[1]`: the firmware's default key |
//! | `simpleN` (N = 0..=254) | `[N + 1]`: the default key with its last byte moved by N |
//! | `hex:HEX` or `0xHEX` | hex, 0 to 32 bytes |
//! | `base64:B64` | base64 (standard or URL-safe, padding optional), 0 to 32 bytes |
//! | bare text | base64 or hex of 1, 16 or 32 bytes, when exactly one of the two reads it so |
//!
//! Bare text that reads as both (a 2-digit hex byte is also 2 base64
//! characters) is refused as ambiguous; bare text of any other length needs
//! a prefix, since the firmware zero-pads such a key rather than refusing it.

use super::{Error, MAX_PAYLOAD_LEN};
use crate::primitives::aes_ctr;
#[cfg(feature = "alloc")]
use alloc::{vec, vec::Vec};
#[cfg(feature = "alloc")]
use base64::Engine as _;
#[cfg(feature = "alloc")]
use zeroize::Zeroizing;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The firmware's default channel key (PSK index 1, "AQ==").
pub const DEFAULT_PSK: [u8; 16] = [
    0xd4, 0xf1, 0xbb, 0x3a, 0x20, 0x29, 0x07, 0x59, 0xf0, 0xbc, 0xff, 0xab, 0xcf, 0x4e, 0x69, 0x01,
];

/// Longest PSK a channel holds (`ChannelSettings.psk`, 32 bytes).
pub const MAX_PSK_LEN: usize = 32;

/// The calls of a channel key ([`ChannelKey`], [`ChannelCipher`]) over its
/// `apply` (the keystream of (`from`, `id`) on a payload within the limit).
macro_rules! channel_calls {
    () => {
        /// Encrypts a channel packet's payload in place for sender `from`,
        /// packet `id` (no tag: see the module docs); returns `buf`, which holds
        /// the ciphertext (as long as the plaintext). The payload passes
        /// unchanged on an unencrypted channel.
        ///
        /// # Errors
        /// [`Error::TooLong`] above [`MAX_PAYLOAD_LEN`] (a LoRa frame's
        /// payload); `buf` is left as it was.
        pub fn seal_in_place<'a>(
            &self,
            from: u32,
            id: u32,
            buf: &'a mut [u8],
        ) -> Result<&'a mut [u8], Error> {
            self.apply(from, id, buf)
        }

        /// Decrypts a channel packet's payload in place (the same keystream as
        /// [`Self::seal_in_place`]; nothing is verified, channel packets
        /// carry no tag); returns `buf`.
        ///
        /// # Errors
        /// [`Error::TooLong`] above [`MAX_PAYLOAD_LEN`]; `buf` is left as it was.
        pub fn open_in_place<'a>(
            &self,
            from: u32,
            id: u32,
            buf: &'a mut [u8],
        ) -> Result<&'a mut [u8], Error> {
            self.apply(from, id, buf)
        }

        /// [`Self::seal_in_place`] on a copy of `plaintext`.
        ///
        /// # Errors
        /// As [`Self::seal_in_place`].
        #[cfg(feature = "alloc")]
        pub fn seal_to_vec(&self, from: u32, id: u32, plaintext: &[u8]) -> Result<Vec<u8>, Error> {
            let mut v = plaintext.to_vec();
            self.apply(from, id, &mut v)?;
            Ok(v)
        }

        /// [`Self::open_in_place`] on a copy of `payload`.
        ///
        /// # Errors
        /// As [`Self::open_in_place`].
        #[cfg(feature = "alloc")]
        pub fn open_to_vec(&self, from: u32, id: u32, payload: &[u8]) -> Result<Vec<u8>, Error> {
            let mut v = payload.to_vec();
            self.apply(from, id, &mut v)?;
            Ok(v)
        }
    };
}

/// An expanded channel key: none (plaintext channel), AES-128 or AES-256.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ChannelKey {
    key: [u8; 32],
    len: u8,
    /// Length of the PSK given, when it was zero-padded.
    padded_from: u8,
}

impl core::fmt::Debug for ChannelKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ChannelKey({} bytes, redacted)", self.len)
    }
}

impl ChannelKey {
    /// Expands a PSK as the firmware does (`Channels::getKey`): empty = no
    /// encryption; one byte = an index over the default key (0 = no
    /// encryption, i adds i-1 to its last byte); 16 and 32 bytes as they
    /// are; 2–15 bytes zero-padded to 16 and 17–31 zero-padded to 32 (see
    /// [`ChannelKey::padded_from`]).
    ///
    /// # Errors
    /// [`Error::InvalidPsk`] for a PSK longer than [`MAX_PSK_LEN`] (the
    /// firmware's channel settings cannot hold one).
    pub fn from_psk(psk: &[u8]) -> Result<Self, Error> {
        let mut key = [0u8; 32];
        let (len, padded_from) = match psk.len() {
            0 => (0, 0),
            1 => match psk[0] {
                0 => (0, 0),
                index => {
                    key[..16].copy_from_slice(&DEFAULT_PSK);
                    key[15] = key[15].wrapping_add(index - 1);
                    (16, 0)
                }
            },
            16 => {
                key[..16].copy_from_slice(psk);
                (16, 0)
            }
            32 => {
                key.copy_from_slice(psk);
                (32, 0)
            }
            n @ 2..=15 => {
                key[..n].copy_from_slice(psk);
                (16, n as u8)
            }
            n @ 17..=31 => {
                key[..n].copy_from_slice(psk);
                (32, n as u8)
            }
            n => return Err(Error::InvalidPsk { len: n }),
        };
        Ok(Self {
            key,
            len,
            padded_from,
        })
    }

    /// The expanded key bytes (empty when the channel is unencrypted).
    pub fn expanded(&self) -> &[u8] {
        &self.key[..usize::from(self.len)]
    }

    /// Whether packets on this channel are encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.len != 0
    }

    /// The length of the PSK this key was made from when the firmware's rule
    /// zero-padded it (2–15 or 17–31 bytes); `None` for a PSK used as given.
    pub fn padded_from(&self) -> Option<usize> {
        (self.padded_from != 0).then_some(usize::from(self.padded_from))
    }

    /// The one-byte channel hash: XOR of the name's bytes XOR the XOR of
    /// the expanded key's bytes.
    pub fn hash(&self, name: &str) -> u8 {
        xor(name.as_bytes()) ^ xor(self.expanded())
    }

    channel_calls!();

    /// The CTR keystream of (`from`, `id`) applied to `buf`.
    fn apply<'a>(&self, from: u32, id: u32, buf: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
        let buf = within_payload_limit(buf)?;
        if self.is_encrypted() {
            let ok = aes_ctr::apply_keystream(self.expanded(), &counter_block(from, id), buf);
            debug_assert!(ok, "expanded keys are 16 or 32 bytes");
        }
        Ok(buf)
    }
}

/// `buf`, or [`Error::TooLong`] above [`MAX_PAYLOAD_LEN`].
fn within_payload_limit(buf: &mut [u8]) -> Result<&mut [u8], Error> {
    if buf.len() > MAX_PAYLOAD_LEN {
        return Err(Error::TooLong {
            len: buf.len(),
            max: MAX_PAYLOAD_LEN,
        });
    }
    Ok(buf)
}

/// A [`ChannelKey`] with its AES key schedule made once: the same packets,
/// for a program that opens or seals many of one channel (a decoder keeps
/// one per configured channel). Expanding the key costs about what the
/// keystream of a 200-byte packet does, and more with AES-NI; a
/// [`ChannelKey`] pays it on every call. Larger than the key (the schedule:
/// up to about a kilobyte), zeroized when dropped.
///
/// In the npm package's Node entry, the key is also given to the host's AES
/// (`crate::host`), which makes the keystream of payloads from
/// `host::CTR_MIN` bytes.
#[derive(Debug)]
pub struct ChannelCipher {
    key: ChannelKey,
    /// `None` for an unencrypted channel.
    ctr: Option<aes_ctr::CtrKey>,
    #[cfg(wireseal_wasm_host)]
    host: Option<crate::host::HostAes>,
}

impl Clone for ChannelCipher {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
            ctr: self.ctr.clone(),
            #[cfg(wireseal_wasm_host)]
            host: self.host.as_ref().and_then(crate::host::HostAes::try_clone),
        }
    }
}

impl From<ChannelKey> for ChannelCipher {
    fn from(key: ChannelKey) -> Self {
        let ctr = if key.is_encrypted() {
            aes_ctr::CtrKey::new(key.expanded())
        } else {
            None
        };
        Self {
            #[cfg(wireseal_wasm_host)]
            host: if ctr.is_some() {
                crate::host::HostAes::new(key.expanded())
            } else {
                None
            },
            key,
            ctr,
        }
    }
}

impl ChannelCipher {
    /// The key.
    pub fn key(&self) -> &ChannelKey {
        &self.key
    }

    channel_calls!();

    fn apply<'a>(&self, from: u32, id: u32, buf: &'a mut [u8]) -> Result<&'a mut [u8], Error> {
        let buf = within_payload_limit(buf)?;
        if let Some(ctr) = &self.ctr {
            let iv = counter_block(from, id);
            #[cfg(wireseal_wasm_host)]
            if self.host.as_ref().is_some_and(|h| h.apply_ctr(&iv, buf)) {
                return Ok(buf);
            }
            ctr.apply_keystream(&iv, buf);
        }
        Ok(buf)
    }
}

#[cfg(feature = "alloc")]
impl core::str::FromStr for ChannelKey {
    type Err = Error;

    /// Reads PSK text (the forms in the [module docs](self)) and expands it
    /// with [`ChannelKey::from_psk`]. Errors never contain the text.
    fn from_str(text: &str) -> Result<Self, Error> {
        let psk = parse_psk(text)?;
        Self::from_psk(&psk)
    }
}

crate::visibility::pub_if_hazmat! {
    /// The initial counter block for (from, id).
    fn counter_block(from: u32, id: u32) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..8].copy_from_slice(&u64::from(id).to_le_bytes());
        b[8..12].copy_from_slice(&from.to_le_bytes());
        b
    }
}

fn xor(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |a, b| a ^ b)
}

#[cfg(feature = "alloc")]
/// Lengths bare PSK text may decode to: an index byte, AES-128, AES-256.
const BARE_LENGTHS: [usize; 3] = [1, 16, 32];

#[cfg(feature = "alloc")]
fn text_error(reason: &'static str) -> Error {
    Error::PskText { reason }
}

#[cfg(feature = "alloc")]
/// The PSK bytes of `text`; see the module docs for the forms.
fn parse_psk(text: &str) -> Result<Zeroizing<Vec<u8>>, Error> {
    let t = text.trim();
    if t.is_empty() {
        return Err(text_error(
            "the channel PSK is empty (write `none` for an unencrypted channel)",
        ));
    }
    let prefixed = |decoded: Option<Zeroizing<Vec<u8>>>, reason| {
        let v = decoded.ok_or(text_error(reason))?;
        if v.len() > MAX_PSK_LEN {
            return Err(Error::InvalidPsk { len: v.len() });
        }
        Ok(v)
    };
    if let Some(h) = t.strip_prefix("hex:").or_else(|| t.strip_prefix("0x")) {
        return prefixed(hex(h), "the channel PSK after `hex:` or `0x` is not hex");
    }
    if let Some(b) = t.strip_prefix("base64:") {
        return prefixed(b64(b), "the channel PSK after `base64:` is not base64");
    }
    match t {
        "none" => return Ok(Zeroizing::new(vec![0])),
        "default" => return Ok(Zeroizing::new(vec![1])),
        _ => {}
    }
    if let Some(n) = t.strip_prefix("simple") {
        return match n.parse::<u8>() {
            Ok(i) if i < u8::MAX => Ok(Zeroizing::new(vec![i + 1])),
            _ => Err(text_error("`simpleN` takes N from 0 to 254")),
        };
    }
    let legal = |v: &Option<Zeroizing<Vec<u8>>>| {
        v.as_ref().is_some_and(|v| BARE_LENGTHS.contains(&v.len()))
    };
    let (as_hex, as_b64) = (hex(t), b64(t));
    match (legal(&as_hex), legal(&as_b64)) {
        (true, true) => Err(text_error(
            "the channel PSK reads as both hex and base64; prefix it with `hex:` or `base64:`",
        )),
        (true, false) => Ok(as_hex.expect("checked")),
        (false, true) => Ok(as_b64.expect("checked")),
        (false, false) => Err(text_error(
            "the channel PSK is neither base64 nor hex of 1, 16 or 32 bytes \
             (prefix `hex:` or `base64:` for a key the firmware zero-pads)",
        )),
    }
}

#[cfg(feature = "alloc")]
/// Hex digits (either case), or `None`.
fn hex(s: &str) -> Option<Zeroizing<Vec<u8>>> {
    if s.len() % 2 != 0 {
        return None;
    }
    let mut out = Zeroizing::new(alloc::vec![0u8; s.len() / 2]);
    crate::hex_text::decode_into(s, &mut out).ok()?;
    Some(out)
}

#[cfg(feature = "alloc")]
/// Base64, standard or URL-safe alphabet, padding optional, or `None`.
fn b64(s: &str) -> Option<Zeroizing<Vec<u8>>> {
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use base64::engine::DecodePaddingMode;
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    for alphabet in [&base64::alphabet::STANDARD, &base64::alphabet::URL_SAFE] {
        if let Ok(v) = GeneralPurpose::new(alphabet, config).decode(s) {
            return Some(Zeroizing::new(v));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cipher gives its key's bytes: unencrypted, AES-128 and AES-256
    /// channels, both ways, with the same length limit.
    #[test]
    fn a_cipher_matches_its_key() {
        for psk in [&[0u8][..], &[1], &[7; 16], &[9; 32]] {
            let key = ChannelKey::from_psk(psk).unwrap();
            let cipher = ChannelCipher::from(key.clone());
            assert_eq!(cipher.key().expanded(), key.expanded());
            for len in [0, 1, 16, 33, MAX_PAYLOAD_LEN] {
                let plain: Vec<u8> = (0..len).map(|i| i as u8).collect();
                let sealed = key.seal_to_vec(0x0a0b_0c0d, 77, &plain).unwrap();
                assert_eq!(cipher.seal_to_vec(0x0a0b_0c0d, 77, &plain).unwrap(), sealed);
                assert_eq!(cipher.open_to_vec(0x0a0b_0c0d, 77, &sealed).unwrap(), plain);
                let mut buf = sealed.clone();
                cipher.open_in_place(0x0a0b_0c0d, 77, &mut buf).unwrap();
                assert_eq!(buf, plain);
            }
            let mut long = vec![5u8; MAX_PAYLOAD_LEN + 1];
            assert!(matches!(
                cipher.open_in_place(1, 2, &mut long),
                Err(Error::TooLong { .. })
            ));
            assert_eq!(long, vec![5u8; MAX_PAYLOAD_LEN + 1], "left as it was");
        }
    }

    fn bytes(text: &str) -> Result<Vec<u8>, Error> {
        parse_psk(text).map(|v| v.to_vec())
    }

    #[test]
    fn psk_text_forms() {
        assert_eq!(bytes("AQ==").unwrap(), [1]);
        assert_eq!(bytes(" AQ==\n").unwrap(), [1]);
        assert_eq!(bytes("none").unwrap(), [0]);
        assert_eq!(bytes("default").unwrap(), [1]);
        assert_eq!(bytes("simple0").unwrap(), [1]);
        assert_eq!(bytes("simple254").unwrap(), [255]);
        assert!(matches!(bytes("simple255"), Err(Error::PskText { .. })));
        assert_eq!(bytes("hex:01").unwrap(), [1]);
        assert_eq!(bytes("0x01").unwrap(), [1]);
        assert_eq!(bytes("hex:").unwrap(), Vec::<u8>::new());
        assert_eq!(bytes("base64:AQ").unwrap(), [1]);
        // 16 bytes as 32 hex digits: base64 would be 24 bytes, so hex.
        let h = "000102030405060708090a0b0c0d0e0f";
        assert_eq!(bytes(h).unwrap(), (0u8..16).collect::<Vec<_>>());
        // 16 bytes as base64 with and without padding, and URL-safe.
        assert_eq!(bytes("AAECAwQFBgcICQoLDA0ODw==").unwrap().len(), 16);
        assert_eq!(bytes("AAECAwQFBgcICQoLDA0ODw").unwrap().len(), 16);
        assert_eq!(bytes("-_-_-_-_-_-_-_-_-_-_-w").unwrap().len(), 16);
    }

    #[test]
    fn psk_text_refusals() {
        let reason = |t: &str| match bytes(t) {
            Err(Error::PskText { reason }) => reason,
            other => panic!("{t:?}: {other:?}"),
        };
        assert!(reason("").contains("empty"));
        // "0A": one byte as hex and one byte as unpadded base64; "01" is
        // not base64 (its last character has bits past the byte set).
        assert!(reason("0A").contains("both"));
        assert_eq!(bytes("01").unwrap(), [1]);
        // 20 bytes: the firmware pads it, so it needs a prefix.
        assert!(reason(&"ab".repeat(20)).contains("neither"));
        assert_eq!(
            bytes(&format!("hex:{}", "ab".repeat(20))).unwrap().len(),
            20
        );
        assert!(reason("hex:zz").contains("not hex"));
        assert!(reason("base64:!!").contains("not base64"));
        assert_eq!(
            bytes(&format!("hex:{}", "ab".repeat(33))),
            Err(Error::InvalidPsk { len: 33 })
        );
        // The message never repeats the text.
        let secret = "s3cr3t-psk-value";
        let e = bytes(secret).unwrap_err().to_string();
        assert!(!e.contains(secret), "{e}");
    }

    #[test]
    fn firmware_length_rule() {
        assert!(!ChannelKey::from_psk(&[]).unwrap().is_encrypted());
        assert!(!ChannelKey::from_psk(&[0]).unwrap().is_encrypted());
        let k = ChannelKey::from_psk(&[7; 5]).unwrap();
        assert_eq!((k.expanded().len(), k.padded_from()), (16, Some(5)));
        let k = ChannelKey::from_psk(&[7; 20]).unwrap();
        assert_eq!((k.expanded().len(), k.padded_from()), (32, Some(20)));
        assert_eq!(ChannelKey::from_psk(&[7; 16]).unwrap().padded_from(), None);
        assert_eq!(ChannelKey::from_psk(&[7; 32]).unwrap().padded_from(), None);
        assert_eq!(
            ChannelKey::from_psk(&[7; 33]).unwrap_err(),
            Error::InvalidPsk { len: 33 }
        );
    }

    #[test]
    fn payloads_over_a_lora_frame_are_refused_untouched() {
        let k = ChannelKey::from_psk(&[1]).unwrap();
        let mut big = vec![9u8; MAX_PAYLOAD_LEN + 1];
        assert_eq!(
            k.seal_in_place(1, 2, &mut big).unwrap_err(),
            Error::TooLong {
                len: MAX_PAYLOAD_LEN + 1,
                max: MAX_PAYLOAD_LEN
            }
        );
        assert!(big.iter().all(|&b| b == 9));
        let mut ok = vec![0u8; MAX_PAYLOAD_LEN];
        assert_eq!(
            k.open_in_place(1, 2, &mut ok).unwrap().len(),
            MAX_PAYLOAD_LEN
        );
    }
}
