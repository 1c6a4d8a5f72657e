//! `EnvelopeDecoder`: MQTT `ServiceEnvelope`s in, one record per packet out
//! (channel or PKC decryption, node keys learned from NodeInfo, signatures
//! checked, the firmware's signature policy applied), as the gateway's
//! record or as the 2.7 firmware's MQTT JSON.

use crate::args;
use crate::errors::{self, JsResult};
use crate::record_object;
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wireseal::batch::Batch;
use wireseal::meshtastic::record::PacketRecord;
use wireseal::meshtastic::{self as mt, ReplayWindow, SignaturePolicy};
use wireseal_io::firmware_json::{self, Names};

/// Decodes the envelopes of one MQTT feed: channels by name and PSK, our
/// nodes' keys for PKC direct messages to them, an optional replay window.
#[wasm_bindgen(js_name = meshtastic_EnvelopeDecoder)]
pub struct EnvelopeDecoder {
    inner: mt::Decoder,
    /// Long names from the NodeInfo packets `decodeFirmwareJson` has seen
    /// (the firmware's NodeDB for traceroutes), bounded as the gateway's.
    names: Names,
}

#[wasm_bindgen(js_class = meshtastic_EnvelopeDecoder)]
impl EnvelopeDecoder {
    /// A decoder with no channels, no node key and no replay window;
    /// option `signaturePolicy`: `"compatible"` (the firmware's default),
    /// `"balanced"` or `"strict"`.
    ///
    /// # Errors
    ///
    /// `invalid_input` for an unknown policy or options of the wrong type.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ signaturePolicy?: 'compatible' | 'balanced' | 'strict' }"
        )]
        options: Option<JsValue>,
    ) -> JsResult<EnvelopeDecoder> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let policy = args::string_option(&options, "signaturePolicy")?;
        let policy: SignaturePolicy = policy
            .as_deref()
            .unwrap_or("compatible")
            .parse()
            .map_err(errors::meshtastic)?;
        Ok(Self {
            inner: mt::Decoder::new().with_signature_policy(policy),
            names: Names::default(),
        })
    }

    /// Adds channel `name` with its PSK (bytes as configured on the radio,
    /// or text as the apps show it); returns its index.
    ///
    /// # Errors
    ///
    /// `invalid_input` / `invalid_key` for an unusable name or PSK.
    #[wasm_bindgen(js_name = addChannel)]
    pub fn add_channel(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | string")] psk: JsValue,
    ) -> JsResult<usize> {
        let name = args::string(&name, "name")?;
        Ok(self.inner.add_channel_key(&name, super::channel_key(&psk)?))
    }

    /// Adds a node of ours (its number and X25519 private key), for PKC
    /// messages to it; a node given again gets the new key.
    ///
    /// # Errors
    ///
    /// `invalid_key` for an unusable key; `invalid_input` for a node
    /// number out of range.
    #[wasm_bindgen(js_name = setNode)]
    pub fn set_node(
        &mut self,
        node: f64,
        #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")]
        private_key: JsValue,
    ) -> JsResult<()> {
        let node = args::u32_arg(node, "node")?;
        let own = args::static_secret(&private_key, "privateKey")?;
        let engine = mt::PkcEngine::with_capacity(own, mt::decoder::DEFAULT_PKC_PEERS)
            .map_err(errors::meshtastic)?;
        let d = core::mem::take(&mut self.inner);
        self.inner = d.with_node_engine(node, engine);
        Ok(())
    }

    /// Rejects repeated `(from, id)` pairs (reported as `error: "replay"`).
    ///
    /// # Errors
    ///
    /// `invalid_input` for sizes that are not non-negative integers.
    #[wasm_bindgen(js_name = setReplayWindow)]
    pub fn set_replay_window(
        &mut self,
        #[wasm_bindgen(js_name = idsPerSender)] ids_per_sender: f64,
        #[wasm_bindgen(js_name = maxSenders)] max_senders: f64,
    ) -> JsResult<()> {
        let window = ReplayWindow::new(
            args::usize_arg(ids_per_sender, "idsPerSender")?,
            args::usize_arg(max_senders, "maxSenders")?,
        );
        let d = core::mem::take(&mut self.inner);
        self.inner = d.with_replay_window(window);
        Ok(())
    }

    /// The signature policy's name.
    #[wasm_bindgen(getter, js_name = signaturePolicy)]
    pub fn signature_policy(&self) -> String {
        self.inner.signature_policy().as_str().to_owned()
    }

    /// How `node`'s number relates to its pinned key (`"matches"`,
    /// `"mismatch"`, `"legacy"`), `undefined` when no key is pinned.
    ///
    /// # Errors
    ///
    /// `invalid_input` for a node number out of range.
    #[wasm_bindgen(js_name = nodeIdentity)]
    pub fn node_identity(&self, node: f64) -> JsResult<Option<String>> {
        let node = args::u32_arg(node, "node")?;
        Ok(self
            .inner
            .nodes()
            .identity(node)
            .map(|i| i.as_str().to_owned()))
    }

    /// Decodes one envelope (`now` in milliseconds) to the gateway's record
    /// object: the keys `wireseal meshtastic gateway` writes (`from`, `to`,
    /// `id`, `channel_id`, `portnum`, `payload_hex`, `decryption`, ...). A
    /// packet that cannot be decrypted is a record whose `error` says why;
    /// only an unusable envelope throws.
    ///
    /// # Errors
    ///
    /// `malformed` / `truncated` / `too_long` for an envelope that is not a
    /// usable `ServiceEnvelope`; `invalid_input` for arguments.
    #[wasm_bindgen(unchecked_return_type = "Record<string, unknown>")]
    pub fn decode(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] envelope: JsValue,
    ) -> JsResult<JsValue> {
        let d = self.decoded(now, &envelope)?;
        record_object::to_object(&PacketRecord::new(&self.inner, &d))
    }

    /// Decodes one envelope to the gateway's JSON record, as text (the line
    /// `wireseal meshtastic gateway` prints for it).
    ///
    /// # Errors
    ///
    /// As [`EnvelopeDecoder::decode`].
    #[wasm_bindgen(js_name = decodeRecord)]
    pub fn decode_record(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] envelope: JsValue,
    ) -> JsResult<String> {
        let d = self.decoded(now, &envelope)?;
        Ok(wireseal_io::record::to_json(&PacketRecord::new(
            &self.inner,
            &d,
        )))
    }

    /// Decodes many envelopes in one call (one crossing into WebAssembly
    /// for the whole array); returns, in input order, a record object or
    /// the `WiresealError` that `decode` would throw for that envelope.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `envelopes` is not an array of `Uint8Array`s
    /// (nothing is decoded then).
    #[wasm_bindgen(
        js_name = decodeBatch,
        unchecked_return_type = "Array<Record<string, unknown> | import('../errors.js').WiresealError>"
    )]
    pub fn decode_batch(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] envelopes: JsValue,
    ) -> JsResult<Array> {
        let now = args::millis(now)?;
        let items = args::byte_arrays(&envelopes, "envelopes")?;
        let refs: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
        let decoded = self
            .inner
            .decode_batch(now, &Batch::calling_thread(), &refs);
        let inner = &self.inner;
        record_object::results(
            &decoded,
            |d| record_object::to_object(&PacketRecord::new(inner, d)),
            |e| errors::meshtastic(*e),
        )
    }

    /// Decodes one envelope to the JSON object the 2.7 firmware published
    /// on MQTT for the packet (`MeshPacketSerializer`, removed in 2.8), as
    /// text: the bytes `wireseal meshtastic gateway --firmware-json`
    /// publishes on `ROOT/2/json/<channel>/<!gateway>`, with the same
    /// `wireseal_*` keys. `undefined` where the gateway publishes none (a
    /// packet not decrypted, or one that came through MQTT). A traceroute
    /// names the nodes whose NodeInfo this method has decoded (at most
    /// 65,536 of them), `Unknown` otherwise.
    ///
    /// # Errors
    ///
    /// As [`EnvelopeDecoder::decode`].
    #[wasm_bindgen(js_name = decodeFirmwareJson)]
    pub fn decode_firmware_json(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] envelope: JsValue,
    ) -> JsResult<Option<String>> {
        let d = self.decoded(now, &envelope)?;
        self.names.learn_from(&d);
        Ok(firmware_json::object(
            &d,
            &firmware_json::sender(&d),
            &self.names,
        ))
    }
}

impl EnvelopeDecoder {
    /// The arguments of `decode`, `decodeRecord` and `decodeFirmwareJson`,
    /// checked, and the envelope decoded.
    fn decoded(&mut self, now: f64, envelope: &JsValue) -> JsResult<mt::decoder::Decoded> {
        let now = args::millis(now)?;
        let envelope = args::bytes(envelope, "envelope")?;
        self.inner
            .decode(now, &envelope)
            .map_err(errors::meshtastic)
    }
}
