//! Direct messages and anonymous requests: sealed under the secret two
//! identities share (`Mesh::createDatagram`, `createAnonDatagram`,
//! `BaseChatMesh::composeMsgPacket`).

use super::cipher::{ciphertext_len, CipherKey};
use super::error::Error;
use super::identity::{LocalIdentity, PublicIdentity};
use super::packet::{PacketOut, PayloadType};
use super::plaintext::{compose_text, TextType};
use super::{MAC_SIZE, MAX_PACKET_PAYLOAD, MAX_TEXT_LEN, PUB_KEY_SIZE};
use crate::secret::Secret;

/// The cipher two identities share.
///
/// # Errors
/// As [`LocalIdentity::shared_secret`].
pub fn peer_cipher(ours: &LocalIdentity, peer: &PublicIdentity) -> Result<CipherKey, Error> {
    Ok(CipherKey::new(ours.shared_secret(peer)?))
}

/// Writes a peer payload `dest_hash ‖ src_hash ‖ MAC ‖ ciphertext` (TXT_MSG,
/// REQ, RESPONSE, PATH); returns its length.
///
/// # Errors
/// [`Error::PayloadTooLong`] over 184 bytes; [`Error::BufferTooSmall`].
pub fn seal_peer_payload(
    cipher: &CipherKey,
    dest_hash: u8,
    src_hash: u8,
    plaintext: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    let n = 2 + MAC_SIZE + ciphertext_len(plaintext.len());
    if n > MAX_PACKET_PAYLOAD {
        return Err(Error::PayloadTooLong { len: n });
    }
    if out.len() < n {
        return Err(Error::BufferTooSmall { required: n });
    }
    out[0] = dest_hash;
    out[1] = src_hash;
    cipher.seal_into(plaintext, &mut out[2..n])?;
    Ok(n)
}

/// Writes a TXT_MSG packet from `ours` to `peer`, flooded with an empty
/// path (a first message; later ones go direct along a learned path
/// through [`seal_peer_payload`] and [`PacketOut`]); returns its length.
///
/// # Errors
/// [`Error::InvalidKey`] for a low-order peer key; [`Error::Argument`] for
/// text over 160 bytes; [`Error::BufferTooSmall`].
pub fn encode_text_message(
    ours: &LocalIdentity,
    peer: &PublicIdentity,
    timestamp: u32,
    attempt: u8,
    text: &str,
    out: &mut [u8],
) -> Result<usize, Error> {
    let cipher = peer_cipher(ours, peer)?;
    let mut pt = Secret::<{ 7 + MAX_TEXT_LEN }>::new([0u8; 7 + MAX_TEXT_LEN]);
    let n = compose_text(
        timestamp,
        TextType::Plain,
        attempt,
        None,
        text,
        pt.expose_mut(),
    )?;
    let mut payload = [0u8; MAX_PACKET_PAYLOAD];
    let len = seal_peer_payload(
        &cipher,
        peer.hash(),
        ours.public().hash(),
        &pt.expose()[..n],
        &mut payload,
    )?;
    PacketOut::flood(PayloadType::TxtMsg, &payload[..len]).encode_into(out)
}

/// Writes an ANON_REQ packet from `ours` to `peer` (flood, empty path):
/// `dest_hash ‖ our key ‖ MAC ‖ ciphertext` of `timestamp ‖ data`; returns
/// its length.
///
/// # Errors
/// [`Error::InvalidKey`] for a low-order peer key;
/// [`Error::PayloadTooLong`]; [`Error::BufferTooSmall`].
pub fn encode_anon_request(
    ours: &LocalIdentity,
    peer: &PublicIdentity,
    timestamp: u32,
    data: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    let cipher = peer_cipher(ours, peer)?;
    let head = 1 + PUB_KEY_SIZE;
    let n = head + MAC_SIZE + ciphertext_len(4 + data.len());
    if n > MAX_PACKET_PAYLOAD {
        return Err(Error::PayloadTooLong { len: n });
    }
    let mut pt = Secret::<MAX_PACKET_PAYLOAD>::new([0u8; MAX_PACKET_PAYLOAD]);
    pt.expose_mut()[..4].copy_from_slice(&timestamp.to_le_bytes());
    pt.expose_mut()[4..4 + data.len()].copy_from_slice(data);
    let mut payload = [0u8; MAX_PACKET_PAYLOAD];
    payload[0] = peer.hash();
    payload[1..head].copy_from_slice(ours.public().as_bytes());
    cipher.seal_into(&pt.expose()[..4 + data.len()], &mut payload[head..n])?;
    PacketOut::flood(PayloadType::AnonReq, &payload[..n]).encode_into(out)
}
