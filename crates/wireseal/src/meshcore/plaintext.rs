//! The decrypted payloads' layouts and the structure checks that stand
//! behind MeshCore's 2-byte MAC.
//!
//! A wrong key passes the MAC once in 65,536 tries; the firmware then
//! takes the first match. Here a plaintext counts only when its structure
//! is what a sender makes: the text type is one a sender uses, the text is
//! UTF-8 (a character cut at the very end allowed: the firmware cuts long
//! text by bytes) without control characters other than tab, CR and LF
//! (people and node command lines write none), and what follows is at most
//! a block of zeros: the sender's padding, after a NUL some senders add
//! (pymc-core), or after the `0x00, attempt` pair a direct message
//! adds on its fifth try and later. A random one-block plaintext passes
//! these a few times in a million (`noise_rarely_has_a_senders_structure`
//! in the library's tests measures it), so a false "decrypted" needs both
//! the MAC and the structure to collide.

use super::error::Error;
use super::MAX_TEXT_LEN;

/// The text type of a message (flags bits 2-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextType {
    /// Plain text.
    Plain,
    /// A command for a node's command line.
    CliCommand,
    /// Text signed by a room server: a 4-byte sender key prefix first.
    Signed,
}

impl TextType {
    /// The stable name: `plain`, `cli_command`, `signed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TextType::Plain => "plain",
            TextType::CliCommand => "cli_command",
            TextType::Signed => "signed",
        }
    }

    const fn bits(self) -> u8 {
        match self {
            TextType::Plain => 0,
            TextType::CliCommand => 1,
            TextType::Signed => 2,
        }
    }
}

/// A decrypted text (a group text, or a direct message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<'a> {
    /// The sender's clock (seconds since 1970).
    pub timestamp: u32,
    /// The text type.
    pub text_type: TextType,
    /// The send attempt (0-3 from the flags; the trailing byte after a
    /// NUL from the fifth attempt on).
    pub attempt: u8,
    /// The room server's sender prefix of a signed text.
    pub sender_prefix: Option<[u8; 4]>,
    /// The text (a group text reads `"<sender>: <message>"`).
    pub text: &'a str,
}

/// UTF-8 text followed by the sender's tail; `None` unless the structure
/// holds. `attempt_tail` allows the `0x00, attempt` pair.
fn text_then_padding(bytes: &[u8], attempt_tail: bool) -> Option<(&str, Option<u8>)> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let text = match core::str::from_utf8(&bytes[..end]) {
        Ok(t) => t,
        // A character cut at the very end (the firmware cuts by bytes).
        Err(e) if e.error_len().is_none() => {
            core::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?
        }
        Err(_) => return None,
    };
    if text
        .bytes()
        .any(|b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
    {
        return None;
    }
    let mut tail = &bytes[end..];
    let mut attempt = None;
    if attempt_tail && tail.len() >= 2 && tail[1] != 0 {
        attempt = Some(tail[1]);
        tail = &tail[2..];
    }
    // At most a block: a NUL some senders add (pymc-core ends every direct
    // message with one) and fewer than 16 bytes of padding.
    if tail.len() > 16 || tail.iter().any(|&b| b != 0) {
        return None;
    }
    Some((text, attempt))
}

/// Reads a group text plaintext `timestamp(4) flags(1) text`, padding
/// kept. `None` when its structure is not a sender's (see the module).
pub fn parse_group_text(plaintext: &[u8]) -> Option<Text<'_>> {
    let (ts, rest) = plaintext.split_first_chunk::<4>()?;
    let (&flags, rest) = rest.split_first()?;
    if flags >> 2 != 0 {
        return None;
    }
    let (text, _) = text_then_padding(rest, false)?;
    Some(Text {
        timestamp: u32::from_le_bytes(*ts),
        text_type: TextType::Plain,
        attempt: flags & 3,
        sender_prefix: None,
        text,
    })
}

/// Reads a direct message plaintext `timestamp(4) flags(1) [prefix(4)]
/// text [0x00 attempt]`, padding kept. `None` when its structure is not a
/// sender's.
pub fn parse_direct_text(plaintext: &[u8]) -> Option<Text<'_>> {
    let (ts, rest) = plaintext.split_first_chunk::<4>()?;
    let (&flags, mut rest) = rest.split_first()?;
    let text_type = match flags >> 2 {
        0 => TextType::Plain,
        1 => TextType::CliCommand,
        2 => TextType::Signed,
        _ => return None,
    };
    let mut sender_prefix = None;
    if text_type == TextType::Signed {
        let (p, r) = rest.split_first_chunk::<4>()?;
        sender_prefix = Some(*p);
        rest = r;
    }
    let (text, attempt) = text_then_padding(rest, true)?;
    Some(Text {
        timestamp: u32::from_le_bytes(*ts),
        text_type,
        attempt: attempt.unwrap_or(flags & 3),
        sender_prefix,
        text,
    })
}

/// Group data: `data_type u16, data_len u8, data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupData<'a> {
    /// The application's data type.
    pub data_type: u16,
    /// The data.
    pub data: &'a [u8],
}

/// Reads a group data plaintext. `None` when the length byte overruns the
/// plaintext or the rest is not zero padding.
pub fn parse_group_data(plaintext: &[u8]) -> Option<GroupData<'_>> {
    let (t, rest) = plaintext.split_first_chunk::<2>()?;
    let (&len, rest) = rest.split_first()?;
    let (data, tail) = rest.split_at_checked(usize::from(len))?;
    if tail.len() >= 16 || tail.iter().any(|&b| b != 0) {
        return None;
    }
    Some(GroupData {
        data_type: u16::from_le_bytes(*t),
        data,
    })
}

/// The plaintext of a text: `timestamp(4) flags(1) [prefix] text`, then
/// `0x00, attempt` for a direct message's fifth attempt or later, as
/// `BaseChatMesh::composeMsgPacket` and `sendGroupMessage` write it (no
/// NUL otherwise). Returns its length.
///
/// # Errors
/// [`Error::Argument`] for text over 160 bytes or an attempt over 3 on a
/// group text; [`Error::BufferTooSmall`].
pub fn compose_text(
    timestamp: u32,
    text_type: TextType,
    attempt: u8,
    sender_prefix: Option<[u8; 4]>,
    text: &str,
    out: &mut [u8],
) -> Result<usize, Error> {
    if text.len() > MAX_TEXT_LEN {
        return Err(Error::Argument {
            what: "text",
            reason: "at most 160 bytes",
        });
    }
    let prefix_len = if sender_prefix.is_some() { 4 } else { 0 };
    let tail = if attempt > 3 { 2 } else { 0 };
    let n = 5 + prefix_len + text.len() + tail;
    if out.len() < n {
        return Err(Error::BufferTooSmall { required: n });
    }
    out[..4].copy_from_slice(&timestamp.to_le_bytes());
    out[4] = (text_type.bits() << 2) | (attempt & 3);
    let mut i = 5;
    if let Some(p) = sender_prefix {
        out[5..9].copy_from_slice(&p);
        i = 9;
    }
    out[i..i + text.len()].copy_from_slice(text.as_bytes());
    i += text.len();
    if attempt > 3 {
        out[i] = 0;
        out[i + 1] = attempt;
        i += 2;
    }
    Ok(i)
}
