//! From the library's decoded packet to the store's [`Record`]: the packet,
//! this reception of it, and what a NodeInfo says about its sender.

use super::{NodeUpdate, Reception, Record, StoredPacket};
use wireseal::meshtastic::app::App;
use wireseal::meshtastic::decoder::{Decoded, Decoder, Decryption};
use wireseal::meshtastic::envelope::{NODEINFO_APP, TEXT_MESSAGE_APP};
use wireseal::meshtastic::packet_key::PacketKey;

/// The ids of a packet as the store keeps them: the envelope's, or the
/// library's fixed label for one that cannot be used as it is.
#[derive(Debug, Clone, Copy)]
pub struct Ids<'a> {
    /// `ServiceEnvelope.channel_id`, or the label.
    pub channel_id: &'a str,
    /// `ServiceEnvelope.gateway_id`, or the label.
    pub gateway_id: &'a str,
}

/// The record of `d`, keyed `key`, which came on `topic` and was taken from
/// MQTT at `rx_time_ms` (Unix milliseconds, the gateway's clock).
pub fn record(
    decoder: &Decoder,
    d: &Decoded,
    key: PacketKey,
    ids: Ids<'_>,
    topic: &str,
    rx_time_ms: u64,
) -> Record {
    let r = &d.reception;
    let data = d.data.as_ref();
    let channel_name = match d.decryption {
        Decryption::Channel(i) => decoder.channel_name(i).map(str::to_owned),
        _ => None,
    };
    let node = data.filter(|x| x.portnum == NODEINFO_APP).and_then(|x| {
        match App::decode(x.portnum, &x.payload) {
            Some(App::User(u)) => Some(NodeUpdate {
                public_key: <[u8; 32]>::try_from(u.public_key.as_slice()).ok(),
                long_name: Some(u.long_name.into_bytes()),
                short_name: Some(u.short_name.into_bytes()),
                identity: d.identity.map(|i| i.as_str().to_owned()),
            }),
            _ => None,
        }
    });
    let snr = r.rx_snr();
    Record {
        packet: StoredPacket {
            from: d.from,
            key: key.as_i64(),
            to: d.to,
            channel_id: ids.channel_id.to_owned(),
            decryption: d.decryption.as_str().to_owned(),
            channel_name,
            portnum: data.and_then(|x| u32::try_from(x.portnum).ok()),
            payload: data.map(|x| x.payload.clone()),
            text: data
                .filter(|x| x.portnum == TEXT_MESSAGE_APP)
                .map(|x| x.payload.clone()),
            signature: d.signature.as_str().to_owned(),
            identity: d.identity.map(|i| i.as_str().to_owned()),
            error: d.error.map(|e| e.as_str().to_owned()),
            our_node: d.our_node,
        },
        reception: Reception {
            gateway_id: ids.gateway_id.to_owned(),
            topic: topic.to_owned(),
            rx_time_ms,
            rx_time: (r.rx_time != 0).then_some(r.rx_time),
            rssi: (r.rx_rssi != 0).then_some(r.rx_rssi),
            snr: (r.rx_snr_bits != 0 && snr.is_finite()).then_some(snr),
            hop_start: Some(r.hop_start),
            hop_limit: Some(r.hop_limit),
            relay_node: r.relay_node,
            transport: r.transport,
        },
        node,
    }
}
