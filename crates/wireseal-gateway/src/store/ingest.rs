//! From the library's decoded packet to the store's [`Record`]: the packet,
//! this reception of it, and what a NodeInfo says about its sender.

use super::{NodeUpdate, Reception, Record, StoredPacket};
use wireseal::meshtastic::app::App;
use wireseal::meshtastic::decoder::{Decoded, Decoder, Decryption};
use wireseal::meshtastic::envelope::{NODEINFO_APP, TEXT_MESSAGE_APP};

/// The record of `d`, which came on `topic` and was taken from MQTT at
/// `rx_time_ms` (Unix milliseconds, the gateway's clock).
pub fn record(decoder: &Decoder, d: &Decoded, topic: &str, rx_time_ms: u64) -> Record {
    let r = &d.reception;
    let data = d.data.as_ref();
    let (decryption, channel_name) = match d.decryption {
        Decryption::Channel(i) => ("channel", decoder.channel_name(i).map(str::to_owned)),
        Decryption::Pkc => ("pkc", None),
        Decryption::Plain => ("plain", None),
        Decryption::No => ("no", None),
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
            id: d.id,
            to: d.to,
            channel_id: d.channel_id.clone(),
            decryption: decryption.to_owned(),
            channel_name,
            portnum: data.and_then(|x| u32::try_from(x.portnum).ok()),
            payload: data.map(|x| x.payload.clone()),
            text: data
                .filter(|x| x.portnum == TEXT_MESSAGE_APP)
                .map(|x| x.payload.clone()),
            signature: d.signature.as_str().to_owned(),
            identity: d.identity.map(|i| i.as_str().to_owned()),
            error: d.error.map(|e| e.reason().to_owned()),
        },
        reception: Reception {
            gateway_id: d.gateway_id.clone(),
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
