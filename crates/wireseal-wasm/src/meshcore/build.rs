//! The builders: the packets a node sends, byte for byte as the firmware
//! builds them (flood, empty path).

use super::keys::{channel_of, identity_of};
use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::meshcore as mc;

/// The GRP_TXT packet a node floods for `text` (`"<sender>: <message>"`,
/// at most 160 bytes) on `channelKey`'s channel at `timestamp` (seconds).
///
/// # Errors
///
/// `invalid_input` for text over 160 bytes or arguments of the wrong type.
#[wasm_bindgen(js_name = meshcore_encryptGroup)]
pub fn encrypt_group(
    #[wasm_bindgen(js_name = channelKey, unchecked_param_type = "meshcore_ChannelKey")]
    channel_key: &JsValue,
    timestamp: f64,
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> JsResult<Uint8Array> {
    let channel = channel_of(channel_key, "channelKey")?;
    let timestamp = args::u32_arg(timestamp, "timestamp")?;
    let text = args::string(&text, "text")?;
    let mut out = [0u8; mc::MAX_TRANS_UNIT];
    let n = channel
        .key()
        .encode_group_text(timestamp, &text, &mut out)
        .map_err(errors::meshcore)?;
    Ok(to_js(out.get(..n).unwrap_or_default()))
}

/// The signed ADVERT packet a chat node floods for itself: `name` (cut at
/// a whole UTF-8 character to 31 bytes, 23 with a location), `timestamp`,
/// and options `lat` and `lon` in degrees (both or neither).
///
/// # Errors
///
/// `invalid_input` for a location out of range, one of `lat`/`lon`
/// without the other, or arguments of the wrong type.
#[wasm_bindgen(js_name = meshcore_advert)]
pub fn advert(
    #[wasm_bindgen(unchecked_param_type = "meshcore_LocalIdentity")] identity: &JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    timestamp: f64,
    #[wasm_bindgen(unchecked_optional_param_type = "{ lat?: number, lon?: number }")]
    options: JsValue,
) -> JsResult<Uint8Array> {
    let identity = identity_of(identity, "identity")?;
    let name = args::string(&name, "name")?;
    let timestamp = args::u32_arg(timestamp, "timestamp")?;
    let lat = float_option(&options, "lat")?;
    let lon = float_option(&options, "lon")?;
    if lat.is_some() != lon.is_some() {
        return Err(errors::invalid_input(
            "lat and lon go together: give both or neither",
        ));
    }
    let advert = mc::AdvertOut {
        node_type: mc::NodeType::Chat,
        location: lat.zip(lon),
        name: &name,
    };
    let mut out = [0u8; mc::MAX_TRANS_UNIT];
    let n = mc::encode_advert(identity.identity(), timestamp, &advert, &mut out)
        .map_err(errors::meshcore)?;
    Ok(to_js(out.get(..n).unwrap_or_default()))
}

/// The TXT_MSG packet `identity` floods to the peer with `peerPublicKey`
/// (32 bytes): `text` (at most 160 bytes) at `timestamp`, send `attempt`
/// (default 0; 0-3 in the flags, from 4 on also after a NUL).
///
/// # Errors
///
/// `invalid_key` for a peer key that is not a usable Ed25519 point;
/// `invalid_input` for text over 160 bytes or arguments of the wrong type.
#[wasm_bindgen(js_name = meshcore_textMessage)]
pub fn text_message(
    #[wasm_bindgen(unchecked_param_type = "meshcore_LocalIdentity")] identity: &JsValue,
    #[wasm_bindgen(js_name = peerPublicKey, unchecked_param_type = "Uint8Array")]
    peer_public_key: JsValue,
    timestamp: f64,
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "number")] attempt: JsValue,
) -> JsResult<Uint8Array> {
    let identity = identity_of(identity, "identity")?;
    let peer = args::bytes(&peer_public_key, "peerPublicKey")?;
    let peer = mc::PublicIdentity::from_slice(&peer).map_err(errors::meshcore)?;
    let timestamp = args::u32_arg(timestamp, "timestamp")?;
    let text = args::string(&text, "text")?;
    let attempt = super::opt_int(&attempt, u64::from(u8::MAX), "attempt")?.unwrap_or(0);
    let mut out = [0u8; mc::MAX_TRANS_UNIT];
    let n = mc::encode_text_message(
        identity.identity(),
        &peer,
        timestamp,
        // At most 255: checked above.
        attempt as u8,
        &text,
        &mut out,
    )
    .map_err(errors::meshcore)?;
    Ok(to_js(out.get(..n).unwrap_or_default()))
}

/// A number option (any finite value), or `None` when absent.
fn float_option(options: &JsValue, name: &str) -> JsResult<Option<f64>> {
    match args::option(options, name)? {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(errors::invalid_input(format!(
                "options.{name} must be a finite number"
            ))),
        },
    }
}
