//! `wireseal/meshtastic`: channel packets, PKC direct messages through the
//! shared-secret cache, MQTT envelopes, XEdDSA signatures and node numbers.

mod channel;
mod envelope;
mod pkc;

pub use channel::ChannelKey;
pub use envelope::EnvelopeDecoder;
pub use pkc::PkcEngine;

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic as mt;
use wireseal::meshtastic::xeddsa::{SignedFields, SigningKey, VerifyingKey};

/// A channel PSK as JavaScript gives it: bytes as configured on the radio,
/// or text as the apps show it (base64, `hex:HEX`, `none`, `default`,
/// `simpleN`), expanded by the library's one rule.
pub(crate) fn channel_key(psk: &JsValue) -> JsResult<mt::ChannelKey> {
    if let Some(text) = psk.as_string() {
        return text.parse().map_err(errors::meshtastic);
    }
    let b = args::secret_bytes(psk, "psk")
        .map_err(|_| errors::invalid_input("psk must be a Uint8Array or a string"))?;
    mt::ChannelKey::from_psk(&b).map_err(errors::meshtastic)
}

/// A fresh X25519 private key (32 bytes, clamped).
#[wasm_bindgen(js_name = meshtastic_generatePrivateKey)]
pub fn generate_private_key() -> Uint8Array {
    to_js(StaticSecret::generate().expose())
}

/// The X25519 public key (32 bytes) of `privateKey`.
///
/// # Errors
///
/// `invalid_key` for a key that is not 32 clamped bytes.
#[wasm_bindgen(js_name = meshtastic_publicKey)]
pub fn public_key(
    #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")] private_key: JsValue,
) -> JsResult<Uint8Array> {
    Ok(to_js(
        args::static_secret(&private_key, "privateKey")?.public_key(),
    ))
}

/// Size of a sealed PKC payload for `plaintextLen` bytes.
///
/// # Errors
///
/// `invalid_input` for a length that is not a non-negative integer.
#[wasm_bindgen(js_name = meshtastic_sealedLen)]
pub fn sealed_len(#[wasm_bindgen(js_name = plaintextLen)] plaintext_len: f64) -> JsResult<usize> {
    Ok(mt::sealed_len(args::usize_arg(
        plaintext_len,
        "plaintextLen",
    )?))
}

/// Plaintext size of a sealed PKC payload of `sealedLen` bytes.
///
/// # Errors
///
/// `truncated` / `too_long` when no payload has that size.
#[wasm_bindgen(js_name = meshtastic_openedLen)]
pub fn opened_len(#[wasm_bindgen(js_name = sealedLen)] sealed_len: f64) -> JsResult<usize> {
    mt::opened_len(args::usize_arg(sealed_len, "sealedLen")?).map_err(errors::meshtastic)
}

/// The one-byte hash of channel `name` under `psk` (bytes or text).
///
/// # Errors
///
/// `invalid_input` / `invalid_key` for an unusable PSK.
#[wasm_bindgen(js_name = meshtastic_channelHash)]
pub fn channel_hash(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array | string")] psk: JsValue,
) -> JsResult<u8> {
    let name = args::string(&name, "name")?;
    Ok(channel_key(&psk)?.hash(&name))
}

/// The node number firmware 2.8 gives the node with `publicKey`:
/// `crc32(publicKey)`.
///
/// # Errors
///
/// `invalid_key` for a key that is not 32 bytes.
#[wasm_bindgen(js_name = meshtastic_nodeNumber)]
pub fn node_number(
    #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")] public_key: JsValue,
) -> JsResult<u32> {
    Ok(mt::node_number(&args::array::<32>(
        &public_key,
        "publicKey",
    )?))
}

/// Checks a packet's XEdDSA signature (`Data.xeddsa_signature`, 64 bytes)
/// over `from ‖ id ‖ portnum ‖ payload` under the sender's X25519
/// `publicKey`; `true` when it verifies.
///
/// # Errors
///
/// `invalid_key` for a public key that is not 32 bytes or has no Edwards
/// form; `invalid_input` for arguments of the wrong type.
#[wasm_bindgen(js_name = meshtastic_xeddsaVerify)]
pub fn xeddsa_verify(
    #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")] public_key: JsValue,
    from: f64,
    id: f64,
    portnum: f64,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] payload: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] signature: JsValue,
) -> JsResult<bool> {
    let key = VerifyingKey::from_x25519(&args::array::<32>(&public_key, "publicKey")?)
        .map_err(errors::meshtastic)?;
    let payload = args::bytes(&payload, "payload")?;
    let signature = args::bytes(&signature, "signature")?;
    let fields = SignedFields {
        from: args::u32_arg(from, "from")?,
        id: args::u32_arg(id, "id")?,
        portnum: args::u32_arg(portnum, "portnum")?,
        payload: &payload,
    };
    Ok(key.verify(&fields, &signature).is_ok())
}

/// Signs a packet as the node with X25519 `privateKey` (XEdDSA, hedged
/// with fresh randomness): the 64-byte `Data.xeddsa_signature`.
///
/// # Errors
///
/// `invalid_key` for an unusable private key; `invalid_input` for
/// arguments of the wrong type.
#[wasm_bindgen(js_name = meshtastic_xeddsaSign)]
pub fn xeddsa_sign(
    #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")] private_key: JsValue,
    from: f64,
    id: f64,
    portnum: f64,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] payload: JsValue,
) -> JsResult<Uint8Array> {
    let own = args::static_secret(&private_key, "privateKey")?;
    let payload = args::bytes(&payload, "payload")?;
    let fields = SignedFields {
        from: args::u32_arg(from, "from")?,
        id: args::u32_arg(id, "id")?,
        portnum: args::u32_arg(portnum, "portnum")?,
        payload: &payload,
    };
    Ok(to_js(&SigningKey::from_secret(&own).sign(&fields)))
}
