//! The gateway's JSON record of one decoded packet, shared by
//! `wireseal meshtastic gateway` (which prints it) and the bench (which
//! measures producing it and compares it with meshtastic-mqtt-json), so both
//! write the same fields. The fields are documented in docs/gateway.md.

use serde_json::{json, Value};
use wireseal::meshtastic::decoder::{Decoded, Decryption};
use wireseal::meshtastic::Decoder;

/// The JSON object of one packet (fields documented in docs/gateway.md).
pub fn packet_json(decoder: &Decoder, d: &Decoded) -> Value {
    let decrypted = match d.decryption {
        Decryption::Channel(i) => format!("channel:{}", decoder.channel_name(i).unwrap_or("?")),
        Decryption::Pkc => "pkc".to_owned(),
        Decryption::Plain => "plain".to_owned(),
        Decryption::No => "no".to_owned(),
    };
    let mut v = json!({
        "from": d.from,
        "to": d.to,
        "id": d.id,
        "channel_id": d.channel_id,
        "gateway_id": d.gateway_id,
        "portnum": d.portnum(),
        "payload_hex": d.payload().map(hex::encode),
        "decrypted": decrypted,
        "signature": d.signature.as_str(),
    });
    if let Some(t) = d.text() {
        v["text"] = json!(t);
    }
    if let Some(e) = d.error {
        v["error"] = json!(e.reason());
    }
    v
}
