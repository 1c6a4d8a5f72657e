//! The stateless step, the same for every envelope and safe to run on any
//! thread: the envelope's fields, channel trial decryption, the routing of
//! PKC direct messages to our nodes, and the signature checked against the
//! key the node table holds now.

use super::nodes::NodeTable;
use super::outcome::is_broadcast;
use super::verified::{self, verify, Verified};
use super::{
    Channels, Checked, Decoded, Decryption, Pending, Pkc, Reception, Signature, Undecoded,
};
use crate::meshtastic::envelope::{self, Data, Head, Payload, NODEINFO_APP, PKI_CHANNEL_ID};
use crate::meshtastic::identity::{node_number, Identity};
use crate::meshtastic::pkc::OVERHEAD;
use crate::meshtastic::xeddsa::{VerifyingKey, SIGNATURE_LEN};
use crate::meshtastic::MAX_PAYLOAD_LEN;
#[allow(unused_imports)]
use crate::prelude::*;

/// The stateless step: envelope, channel trial decryption, routing of PKC,
/// and the signature against the key known now.
pub(super) fn parse(
    channels: &Channels,
    nodes: &NodeTable,
    verified: &Verified,
    env: Head,
    payload: Payload<'_>,
) -> (Decoded, Pending) {
    let packet = env.packet;
    let mut head = Decoded {
        from: packet.from,
        to: packet.to,
        id: packet.id,
        channel_id: env.channel_id,
        gateway_id: env.gateway_id,
        channel_hash: packet.channel,
        reception: Reception {
            rx_time: packet.rx_time,
            rx_snr_bits: packet.rx_snr_bits,
            rx_rssi: packet.rx_rssi,
            hop_limit: packet.hop_limit,
            hop_start: packet.hop_start,
            relay_node: packet.relay_node,
            next_hop: packet.next_hop,
            via_mqtt: packet.via_mqtt,
            transport: packet.transport_mechanism,
            claimed_signed: packet.xeddsa_signed,
        },
        data: None,
        decryption: Decryption::None,
        signature: Signature::Absent,
        identity: None,
        verdict: None,
        key_event: None,
        our_node: None,
        error: None,
    };
    let mut pkc = None;
    match payload {
        Payload::Decoded(data) => {
            head.data = Some(data);
            head.decryption = Decryption::Plain;
        }
        Payload::Encrypted(ct) => {
            let ours = channels.our_nodes.iter().position(|&n| n == head.to);
            let offered = packet.public_key.as_slice().try_into().ok();
            if head.channel_id == PKI_CHANNEL_ID || packet.pki_encrypted {
                match ours {
                    None if channels.our_nodes.is_empty() => {
                        head.error = Some(Undecoded::NoNodeKey)
                    }
                    None => head.error = Some(Undecoded::NotForUs),
                    Some(i) => {
                        head.our_node = Some(head.to);
                        pkc = Some(Pkc::new(i, ct.into_owned(), offered));
                    }
                }
            } else if let Some(i) = ours.filter(|_| {
                head.channel_hash == 0
                    && !is_broadcast(head.to)
                    && ct.len() > OVERHEAD
                    && channels.by_hash[0].is_empty()
            }) {
                // A direct message uplinked on a channel topic: the firmware
                // tries PKC for hash 0 addressed to it.
                head.our_node = Some(head.to);
                pkc = Some(Pkc::new(i, ct.into_owned(), offered));
            } else {
                match try_channels(channels, &head, &ct) {
                    Ok((i, data)) => {
                        head.data = Some(data);
                        head.decryption = Decryption::Channel(i);
                    }
                    Err(e) => head.error = Some(e),
                }
            }
        }
    }
    let nodeinfo = head.data.as_ref().and_then(nodeinfo_key);
    if let Some(key) = nodeinfo {
        head.identity = Some(identity(&head, key));
    }
    let announced = nodeinfo.flatten();
    let pending = Pending {
        signature: check_ahead(nodes, verified, &head, announced),
        pkc,
        announced,
        settled: None,
    };
    (head, pending)
}

/// The identity a NodeInfo reports for its sender.
pub(super) fn identity(d: &Decoded, key: Option<[u8; 32]>) -> Identity {
    let signed = d
        .data
        .as_ref()
        .is_some_and(|data| data.xeddsa_signature.len() == SIGNATURE_LEN);
    Identity::of(d.from, key.as_ref(), signed)
}

/// Verifies a 64-byte signature with the sender's pinned key, or for a
/// first NodeInfo with the announced key when it hashes to the sender (the
/// result kept for an earlier copy, if there is one).
fn check_ahead(
    nodes: &NodeTable,
    verified: &Verified,
    d: &Decoded,
    announced: Option<[u8; 32]>,
) -> Option<Checked> {
    let data = d.data.as_ref()?;
    if data.xeddsa_signature.len() != SIGNATURE_LEN {
        return None;
    }
    let (key, vk) = match nodes.get(d.from) {
        Some(k) => (k.public_key, k.verifying_key),
        None => {
            let a = announced.filter(|a| node_number(a) == d.from)?;
            (a, VerifyingKey::from_x25519(&a).ok())
        }
    };
    let digest = verified::digest(&key, d.from, d.id, data);
    let (valid, fresh) = match verified.get(&digest) {
        Some(v) => (v, false),
        None => (verify(vk, d.from, d.id, data), true),
    };
    Some(Checked {
        key,
        valid,
        digest,
        fresh,
    })
}

/// Tries the channels with the packet's hash, the one the envelope names first.
fn try_channels(
    channels: &Channels,
    head: &Decoded,
    ct: &[u8],
) -> Result<(usize, Data), Undecoded> {
    let candidates = usize::try_from(head.channel_hash)
        .ok()
        .and_then(|h| channels.by_hash.get(h))
        .filter(|c| !c.is_empty())
        .ok_or(Undecoded::NoChannel)?;
    let named = candidates
        .iter()
        .filter(|&&i| channels.list[i].name == head.channel_id);
    let others = candidates
        .iter()
        .filter(|&&i| channels.list[i].name != head.channel_id);
    let mut buf = [0u8; MAX_PAYLOAD_LEN];
    let buf = &mut buf[..ct.len()];
    for &i in named.chain(others) {
        buf.copy_from_slice(ct);
        // `ct` is at most one LoRa payload (envelope::check), so this opens.
        if let Ok(plain) = channels.list[i].key.open_in_place(head.from, head.id, buf) {
            if let Ok(data) = envelope::decode_data(plain) {
                return Ok((i, data));
            }
        }
    }
    Err(Undecoded::WrongChannelKey)
}

/// For a NodeInfo packet whose payload is a `User`: the key it announces
/// (`User.public_key` when 32 bytes). `None` for any other packet.
pub(super) fn nodeinfo_key(data: &Data) -> Option<Option<[u8; 32]>> {
    if data.portnum != NODEINFO_APP {
        return None;
    }
    envelope::announced_key(&data.payload).ok()
}

/// The PKC ciphertext of an envelope that decoded before (read again by a
/// batch that dropped it).
#[cfg(feature = "std")]
pub(super) fn pkc_ciphertext(envelope: &[u8]) -> Vec<u8> {
    let payload = envelope::decode(envelope)
        .ok()
        .and_then(|env| env.packet)
        .and_then(|p| p.payload_variant);
    match payload {
        Some(envelope::PayloadVariant::Encrypted(ct)) => ct,
        _ => Vec::new(),
    }
}
