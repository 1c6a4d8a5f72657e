//! Message types in a packet's contents. BIP324's application layer starts
//! every message with its type: one byte, a short id in `1..=255`, or a
//! zero byte and the 12-byte ASCII command of the v1 protocol, padded with
//! NULs. The two forms are equivalent (BIP324 1.0.1): a short id and the
//! 13-byte form of its command name the same message, so [`parse`] gives
//! the command for either, and [`encode_type`] writes the short form
//! whenever the command has one.
//!
//! The ids are the BIP's table (1 to 28) and the allocations it keeps in
//! `bip-0324/message_type_ids.md` (29 to 36 for utreexo, BIP 183; 37 for
//! `feature`, BIP 434): [`SHORT_IDS`], the one table both directions use.

use super::Error;

/// Bytes of a command in the long form (after the zero byte).
pub const COMMAND_LEN: usize = 12;

/// Every assigned short id and its command, in id order.
pub const SHORT_IDS: [(u8, &str); 37] = [
    (1, "addr"),
    (2, "block"),
    (3, "blocktxn"),
    (4, "cmpctblock"),
    (5, "feefilter"),
    (6, "filteradd"),
    (7, "filterclear"),
    (8, "filterload"),
    (9, "getblocks"),
    (10, "getblocktxn"),
    (11, "getdata"),
    (12, "getheaders"),
    (13, "headers"),
    (14, "inv"),
    (15, "mempool"),
    (16, "merkleblock"),
    (17, "notfound"),
    (18, "ping"),
    (19, "pong"),
    (20, "sendcmpct"),
    (21, "tx"),
    (22, "getcfilters"),
    (23, "cfilter"),
    (24, "getcfheaders"),
    (25, "cfheaders"),
    (26, "getcfcheckpt"),
    (27, "cfcheckpt"),
    (28, "addrv2"),
    (29, "uproof"),
    (30, "getuproof"),
    (31, "uttls"),
    (32, "getuttls"),
    (33, "usummary"),
    (34, "utreexotx"),
    (35, "uroot"),
    (36, "geturoot"),
    (37, "feature"),
];

/// The short id of `command`, if it has one.
pub fn short_id(command: &str) -> Option<u8> {
    SHORT_IDS
        .iter()
        .find(|(_, c)| *c == command)
        .map(|(id, _)| *id)
}

/// The command short id `id` stands for, if it is assigned.
pub fn command(id: u8) -> Option<&'static str> {
    SHORT_IDS
        .get(usize::from(id).wrapping_sub(1))
        .filter(|(i, _)| *i == id)
        .map(|(_, c)| *c)
}

/// A message as read from a packet's contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message<'a> {
    /// Its command, whichever form named it.
    pub command: &'a str,
    /// Whether the short form named it.
    pub short: bool,
    /// The payload after the type.
    pub payload: &'a [u8],
}

/// Reads the message type at the start of `contents`.
///
/// # Errors
///
/// [`Error::Truncated`] for empty contents or a long form cut short;
/// [`Error::UnknownMessageType`] for a short id no BIP assigns;
/// [`Error::MalformedCommand`] for a long-form command that is empty, holds
/// a byte outside printable ASCII, or has anything but NULs after its first
/// NUL.
pub fn parse(contents: &[u8]) -> Result<Message<'_>, Error> {
    match contents.split_first() {
        None => Err(Error::Truncated { len: 0, min: 1 }),
        Some((&0, rest)) => {
            let Some((name, payload)) = rest.split_at_checked(COMMAND_LEN) else {
                return Err(Error::Truncated {
                    len: contents.len(),
                    min: 1 + COMMAND_LEN,
                });
            };
            let end = name.iter().position(|&b| b == 0).unwrap_or(COMMAND_LEN);
            let (text, padding) = name.split_at(end);
            if text.is_empty()
                || !text.iter().all(|b| b.is_ascii_graphic())
                || padding.iter().any(|&b| b != 0)
            {
                return Err(Error::MalformedCommand);
            }
            let command = core::str::from_utf8(text).map_err(|_| Error::MalformedCommand)?;
            Ok(Message {
                command,
                short: false,
                payload,
            })
        }
        Some((&id, payload)) => Ok(Message {
            command: command(id).ok_or(Error::UnknownMessageType { id })?,
            short: true,
            payload,
        }),
    }
}

/// A message type as it goes on the wire: one byte or thirteen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodedType {
    bytes: [u8; 1 + COMMAND_LEN],
    len: u8,
}

impl EncodedType {
    /// The type's bytes, to put before the payload.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// The type for `command`: its short id when it has one, else the zero
/// byte and the command padded to [`COMMAND_LEN`] bytes.
///
/// # Errors
///
/// [`Error::MalformedCommand`] for a command that is empty, longer than
/// [`COMMAND_LEN`] bytes or not printable ASCII.
pub fn encode_type(command: &str) -> Result<EncodedType, Error> {
    let mut bytes = [0u8; 1 + COMMAND_LEN];
    if let Some(id) = short_id(command) {
        bytes[0] = id;
        return Ok(EncodedType { bytes, len: 1 });
    }
    let b = command.as_bytes();
    if b.is_empty() || b.len() > COMMAND_LEN || !b.iter().all(|c| c.is_ascii_graphic()) {
        return Err(Error::MalformedCommand);
    }
    bytes[1..1 + b.len()].copy_from_slice(b);
    Ok(EncodedType {
        bytes,
        len: 1 + COMMAND_LEN as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_in_order_and_both_directions_agree() {
        for (k, (id, cmd)) in SHORT_IDS.iter().enumerate() {
            assert_eq!(usize::from(*id), k + 1);
            assert_eq!(command(*id), Some(*cmd));
            assert_eq!(short_id(cmd), Some(*id));
        }
        assert_eq!(command(0), None);
        assert_eq!(command(38), None);
        assert_eq!(command(255), None);
    }
}
