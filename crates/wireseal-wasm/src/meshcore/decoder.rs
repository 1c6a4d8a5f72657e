//! `Decoder`: one packet in, the library's record out as an object (the
//! object `JSON.parse` makes of the line `wireseal meshcore decode --json`
//! prints, built from the record's tape); `packetHash` and `parse` for the
//! header alone.

use super::keys::{channel_of, identity_of};
use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use crate::record_object;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::batch::Batch;
use wireseal::meshcore as mc;

#[wasm_bindgen(typescript_custom_section)]
const RECORD_TYPES: &str = r#"
/** The record of one MeshCore packet: what `wireseal meshcore decode --json` prints. Keys, hashes and bytes are lowercase hex; a field that does not apply is `null`. */
export interface meshcore_PacketRecord {
  payload_type: string;
  route_type: string;
  transport_codes: [number, number] | null;
  path: string[];
  hash: string;
  payload_len: number;
  /** ADVERT: `public_key`, `timestamp`, `signature` (`"valid"`/`"invalid"`), `node_type`, `name`, `lat`, `lon`, `feat1`, `feat2`. */
  advert?: Record<string, unknown>;
  /** GRP_TXT: `channel_hash`, `decrypted`, `channel`, `timestamp`, `text_type`, `attempt`, `text`. */
  grp_txt?: Record<string, unknown>;
  grp_data?: Record<string, unknown>;
  txt_msg?: Record<string, unknown>;
  req?: Record<string, unknown>;
  response?: Record<string, unknown>;
  returned_path?: Record<string, unknown>;
  anon_req?: Record<string, unknown>;
  ack?: { checksum: number };
  /** Other types: the payload as hex. */
  payload?: string;
}

/** A packet's header fields, as `parse` reads them. */
export interface meshcore_PacketHeader {
  routeType: string;
  payloadType: string;
  transportCodes: [number, number] | null;
  pathHashSize: number;
  path: Uint8Array[];
  payload: Uint8Array;
  hash: Uint8Array;
}
"#;

/// Decodes MeshCore packets with the channels, identities and peers it
/// holds, trying every matching key; only the keys given are used.
#[wasm_bindgen(js_name = meshcore_Decoder)]
pub struct Decoder {
    inner: mc::Decoder,
}

#[wasm_bindgen(js_class = meshcore_Decoder)]
impl Decoder {
    /// A decoder of options `channels` (numbered in this order, as the
    /// record's `channel` reports them), our `identities` (direct messages
    /// to them open) and `peers` (32-byte public keys of senders whose
    /// messages to us open).
    ///
    /// # Errors
    ///
    /// `invalid_key` for a peer key that is not an Ed25519 point;
    /// `invalid_input` for options of the wrong type.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ channels?: meshcore_ChannelKey[], identities?: meshcore_LocalIdentity[], peers?: Uint8Array[] }"
        )]
        options: JsValue,
    ) -> JsResult<Decoder> {
        let mut d = Self {
            inner: mc::Decoder::new(),
        };
        let list = |name: &str| -> JsResult<Vec<JsValue>> {
            match args::option(&options, name)? {
                None => Ok(Vec::new()),
                Some(v) => args::array_items(&v, &format!("options.{name}")),
            }
        };
        for c in list("channels")? {
            d.add_channel(&c)?;
        }
        for i in list("identities")? {
            d.add_identity(&i)?;
        }
        for p in list("peers")? {
            d.add_peer(&p)?;
        }
        Ok(d)
    }

    /// Adds a channel; returns its number.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `channel` is not a `ChannelKey`.
    #[wasm_bindgen(js_name = addChannel)]
    pub fn add_channel(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "meshcore_ChannelKey")] channel: &JsValue,
    ) -> JsResult<usize> {
        let key = channel_of(channel, "channel")?.copy()?;
        Ok(self.inner.add_channel(key))
    }

    /// Adds one of our identities.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `identity` is not a `LocalIdentity`.
    #[wasm_bindgen(js_name = addIdentity)]
    pub fn add_identity(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "meshcore_LocalIdentity")] identity: &JsValue,
    ) -> JsResult<()> {
        let id = identity_of(identity, "identity")?.copy()?;
        self.inner.add_identity(id);
        Ok(())
    }

    /// Adds a peer by its 32-byte public key; `false` when it was known.
    ///
    /// # Errors
    ///
    /// `invalid_key` for a key that is not 32 bytes or not an Ed25519
    /// point; `invalid_input` when it is not a `Uint8Array`.
    #[wasm_bindgen(js_name = addPeer)]
    pub fn add_peer(
        &mut self,
        #[wasm_bindgen(js_name = publicKey, unchecked_param_type = "Uint8Array")]
        public_key: &JsValue,
    ) -> JsResult<bool> {
        let key = args::bytes(public_key, "publicKey")?;
        let peer = mc::PublicIdentity::from_slice(&key).map_err(errors::meshcore)?;
        Ok(self.inner.add_peer(peer))
    }

    /// Decodes one packet (`now` in milliseconds, default 0, ages the
    /// shared-secret caches) to its record: `payload_type`, `route_type`,
    /// `transport_codes`, `path`, `hash`, `payload_len` and an object named
    /// after the type. A well-formed packet that nothing opens is a record
    /// with `decrypted: false`.
    ///
    /// # Errors
    ///
    /// A packet the firmware drops throws the error of its kind
    /// (`truncated`, `too_long`, `malformed`, `unsupported`) with `reason`
    /// set to the library's reason (`payload_too_short`, `version`, ...);
    /// `invalid_input` for arguments of the wrong type.
    #[wasm_bindgen(unchecked_return_type = "meshcore_PacketRecord")]
    pub fn decode(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] raw: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: JsValue,
    ) -> JsResult<JsValue> {
        record_object::to_object(&self.decoded(&raw, &now)?)
    }

    /// Decodes many packets in one call (one crossing into WebAssembly for
    /// the whole array): returns, in input order, each packet's record or
    /// the `WiresealError` that `decode` would throw for it.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `raws` is not an array of `Uint8Array`s or
    /// `now` is not a time (nothing is decoded then).
    #[wasm_bindgen(
        js_name = decodeBatch,
        unchecked_return_type = "Array<meshcore_PacketRecord | import('../errors.js').WiresealError>"
    )]
    pub fn decode_batch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] raws: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: JsValue,
    ) -> JsResult<Array> {
        let now = super::opt_int(&now, 1 << 53, "now")?.unwrap_or(0);
        let items = args::byte_arrays(&raws, "raws")?;
        let refs: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
        let decoded = self
            .inner
            .decode_batch(&Batch::calling_thread(), now, &refs);
        record_object::results(&decoded, record_object::to_object, |e| errors::meshcore(*e))
    }

    /// The decoder's record of one packet as one line of JSON: what
    /// `wireseal meshcore decode --json` prints for it.
    ///
    /// # Errors
    ///
    /// As [`Decoder::decode`].
    #[wasm_bindgen(js_name = decodeJson)]
    pub fn decode_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] raw: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "number")] now: JsValue,
    ) -> JsResult<String> {
        Ok(wireseal_io::record::meshcore_to_json(
            &self.decoded(&raw, &now)?,
        ))
    }
}

impl Decoder {
    /// The arguments of `decode` and `decodeJson`, checked, and the packet
    /// decoded.
    fn decoded(&mut self, raw: &JsValue, now: &JsValue) -> JsResult<mc::Decoded> {
        let now = super::opt_int(now, 1 << 53, "now")?.unwrap_or(0);
        let raw = args::bytes(raw, "raw")?;
        self.inner.decode(now, &raw).map_err(errors::meshcore)
    }
}

/// The packet hash (8 bytes) observers publish and the firmware logs: of
/// the type, the payload, and for TRACE the path length.
///
/// # Errors
///
/// As [`Decoder::decode`], for a packet the firmware drops.
#[wasm_bindgen(js_name = meshcore_packetHash)]
pub fn packet_hash(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] raw: JsValue,
) -> JsResult<Uint8Array> {
    let raw = args::bytes(&raw, "raw")?;
    let p = mc::Packet::parse(&raw).map_err(errors::meshcore)?;
    Ok(to_js(&p.hash()))
}

/// The header fields of a packet, parsed with every check the firmware
/// makes: `routeType`, `payloadType` (names as in the record),
/// `transportCodes` (a pair, or `null`), `pathHashSize`, `path` (the hops,
/// bytes each), `payload` and `hash` (8 bytes).
///
/// # Errors
///
/// As [`Decoder::decode`], for a packet the firmware drops.
#[wasm_bindgen(js_name = meshcore_parse, unchecked_return_type = "meshcore_PacketHeader")]
pub fn parse(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] raw: JsValue,
) -> JsResult<JsValue> {
    let raw = args::bytes(&raw, "raw")?;
    let p = mc::Packet::parse(&raw).map_err(errors::meshcore)?;
    let codes = match p.transport_codes {
        Some([a, b]) => Array::of2(&JsValue::from(a), &JsValue::from(b)).into(),
        None => JsValue::NULL,
    };
    let hops: Array = p.hops().map(|h| JsValue::from(to_js(h))).collect();
    args::object(&[
        ("routeType", JsValue::from_str(p.route.as_str())),
        ("payloadType", JsValue::from_str(p.payload_type.as_str())),
        ("transportCodes", codes),
        ("pathHashSize", JsValue::from(p.path_len.hash_size() as u32)),
        ("path", hops.into()),
        ("payload", to_js(p.payload).into()),
        ("hash", to_js(&p.hash()).into()),
    ])
}
