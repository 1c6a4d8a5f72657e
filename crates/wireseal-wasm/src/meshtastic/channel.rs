//! `ChannelKey`: channel packets (AES-CTR) under a PSK as the radio
//! expands it.

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::meshtastic as mt;

/// A channel key expanded from its PSK (bytes, or text: `"AQ=="`,
/// `"hex:..."`, `"none"`, `"default"`, `"simpleN"`) as the firmware does,
/// with its AES key schedule made once for every packet it opens or seals.
#[wasm_bindgen(js_name = meshtastic_ChannelKey)]
pub struct ChannelKey {
    inner: mt::ChannelCipher,
}

#[wasm_bindgen(js_class = meshtastic_ChannelKey)]
impl ChannelKey {
    /// The key for `psk`.
    ///
    /// # Errors
    ///
    /// `invalid_input` / `invalid_key` for an unusable PSK.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string")] psk: JsValue,
    ) -> JsResult<ChannelKey> {
        Ok(Self {
            inner: super::channel_key(&psk)?.into(),
        })
    }

    /// Whether packets are encrypted (a PSK of `none` leaves them clear).
    #[wasm_bindgen(getter, js_name = isEncrypted)]
    pub fn is_encrypted(&self) -> bool {
        self.inner.key().is_encrypted()
    }

    /// The length the PSK was zero-padded from (a 1-15-byte PSK padded to
    /// AES-128, 17-31 to AES-256), `undefined` when it was not padded.
    #[wasm_bindgen(getter, js_name = paddedFrom)]
    pub fn padded_from(&self) -> Option<usize> {
        self.inner.key().padded_from()
    }

    /// The channel hash of channel `name` under this key.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `name` is not a string.
    pub fn hash(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> JsResult<u8> {
        Ok(self.inner.key().hash(&args::string(&name, "name")?))
    }

    /// Encrypts a channel payload sent by node `from` with packet `id`.
    ///
    /// # Errors
    ///
    /// `too_long` for more than the radio's payload; `invalid_input` for
    /// arguments of the wrong type.
    pub fn encrypt(
        &self,
        from: f64,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] plaintext: JsValue,
    ) -> JsResult<Uint8Array> {
        self.apply(from, id, &plaintext, "plaintext")
    }

    /// Decrypts a channel payload (AES-CTR: the same operation).
    ///
    /// # Errors
    ///
    /// As [`ChannelKey::encrypt`].
    pub fn decrypt(
        &self,
        from: f64,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] payload: JsValue,
    ) -> JsResult<Uint8Array> {
        self.apply(from, id, &payload, "payload")
    }
}

impl ChannelKey {
    fn apply(&self, from: f64, id: f64, data: &JsValue, what: &str) -> JsResult<Uint8Array> {
        let from = args::u32_arg(from, "from")?;
        let id = args::u32_arg(id, "id")?;
        let mut buf = args::bytes(data, what)?;
        self.inner
            .seal_in_place(from, id, &mut buf)
            .map_err(errors::meshtastic)?;
        Ok(to_js(&buf))
    }
}
