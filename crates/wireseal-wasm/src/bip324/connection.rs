//! `Connection`: one end of a v2 connection, sans-IO.

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::bip324::{self as b2, Config, Event};
use wireseal::keys::EllSwiftKeypair;
use zeroize::Zeroizing;

/// One end of a v2 connection, sans-IO: `receiveData(bytes)` returns the
/// contents of the application packets completed by those bytes (decoys
/// are dropped); `dataToSend()` returns what to write to the peer;
/// `send(contents)` queues a packet once `established`.
///
/// Errors: `unsupported` for a v1 peer (`peerIsV1`), `malformed` for a
/// peer on another network ("network mismatch", naming both) or without a
/// garbage terminator, `auth` for a packet that fails, `poisoned` after
/// any failure, `state` for `send` before `established`, `invalid_input`
/// for an unknown network or role name.
#[wasm_bindgen(js_name = bip324_Connection)]
pub struct Connection {
    inner: b2::Connection,
    peer_is_v1: bool,
}

#[wasm_bindgen(js_class = bip324_Connection)]
impl Connection {
    /// A connection in `role` (`"initiator"` or `"responder"`); options:
    /// `network` (a name, the magic as 8 hex digits, or the 4 magic bytes;
    /// mainnet by default), `garbage` (sent after our key, at most
    /// `MAX_GARBAGE_LEN` bytes), `decoys` (packets sent before our version
    /// packet), `maxContents` (the most contents bytes a received packet
    /// may carry; Bitcoin Core's limit by default), `pool` (a `KeyPool`
    /// our key is taken from) and `secretKey` (32 bytes: our key, whose
    /// encoding still gets fresh randomness). Without either, a fresh key.
    ///
    /// # Errors
    ///
    /// `invalid_input` for an unknown role or network or options of the
    /// wrong type; `too_long` for garbage over `MAX_GARBAGE_LEN`;
    /// `invalid_key` for an unusable `secretKey`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "'initiator' | 'responder'")] role: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ network?: string | Uint8Array, garbage?: Uint8Array, decoys?: Uint8Array[], maxContents?: number, pool?: bip324_KeyPool, secretKey?: Uint8Array }"
        )]
        options: Option<JsValue>,
    ) -> JsResult<Connection> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let role = super::role(&role)?;
        let mut config = Config::new(super::network(&options)?)
            .with_garbage(super::bytes_option(&options, "garbage")?)
            .with_decoys(decoys(&options)?);
        if let Some(m) = super::max_contents(&options)? {
            config = config.with_max_contents(m);
        }
        let key = match args::option(&options, "secretKey")? {
            Some(k) => {
                let k = Zeroizing::new(args::array::<32>(&k, "options.secretKey")?);
                EllSwiftKeypair::from_secret_bytes(&k)
                    .map_err(|e| errors::bip324(b2::Error::from(e)))?
            }
            None => match args::option(&options, "pool")? {
                Some(p) => super::pool::take_from(&p)?,
                None => EllSwiftKeypair::generate(),
            },
        };
        let inner = b2::Connection::new(role, key, &config).map_err(errors::bip324)?;
        Ok(Self {
            inner,
            peer_is_v1: false,
        })
    }

    /// True after a responder's `receiveData` threw `unsupported` because
    /// the peer opened with a v1 `version` message: fall back to v1 with
    /// the bytes received so far (nothing was sent to the peer).
    #[wasm_bindgen(getter, js_name = peerIsV1)]
    pub fn peer_is_v1(&self) -> bool {
        self.peer_is_v1
    }

    /// Whether the handshake is complete (the peer's version packet arrived).
    #[wasm_bindgen(getter)]
    pub fn established(&self) -> bool {
        self.inner.is_established()
    }

    /// The network, as its name or its magic as 8 hex digits.
    #[wasm_bindgen(getter)]
    pub fn network(&self) -> String {
        self.inner.network().to_string()
    }

    /// The session id (32 bytes) once the keys are derived, else
    /// `undefined`.
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> Option<Uint8Array> {
        self.inner.session_id().map(|s| to_js(s))
    }

    /// The bytes to write to the peer (and forgets them). After a failure
    /// it still returns what was queued before it (e.g. our terminator, so
    /// that a peer on another network sees the mismatch too).
    #[wasm_bindgen(js_name = dataToSend)]
    pub fn data_to_send(&mut self) -> Uint8Array {
        let out = self.inner.transmit();
        let b = to_js(out);
        let n = out.len();
        self.inner.transmitted(n);
        b
    }

    /// Queues a packet with `contents`; option `decoy: true` sends a decoy
    /// (the peer drops it).
    ///
    /// # Errors
    ///
    /// `state` before the handshake is complete; `too_long` for contents
    /// over the wire's maximum; `poisoned` after a failure;
    /// `invalid_input` for arguments of the wrong type.
    pub fn send(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] contents: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ decoy?: boolean }")] options: Option<
            JsValue,
        >,
    ) -> JsResult<()> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let contents = args::uint8_array(&contents, "contents")?;
        let kind = super::kind(&options)?;
        // Straight from the array into the packet being queued: no copy of
        // the plaintext in the module's memory to make and wipe.
        let len = contents.length() as usize;
        self.inner
            .send_with(len, kind, |room| contents.copy_to(room))
            .map_err(errors::bip324)
    }

    /// Feeds received bytes; returns the contents of every application
    /// packet they complete. Any failure poisons the connection.
    ///
    /// # Errors
    ///
    /// `unsupported` for a v1 peer (then `peerIsV1`); `malformed` for a
    /// peer on another network or without a garbage terminator; `auth` for
    /// a packet whose tag fails; `too_long` for a packet over
    /// `maxContents`; `poisoned` after an earlier failure;
    /// `invalid_input` when `data` is not a `Uint8Array`.
    #[wasm_bindgen(js_name = receiveData, unchecked_return_type = "Uint8Array[]")]
    pub fn receive_data(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    ) -> JsResult<Array> {
        let data = args::uint8_array(&data, "data")?;
        let r = (|| -> Result<Array, b2::Error> {
            // Straight into the connection's buffer, a read's room at a
            // time (no copy of the whole array first).
            let (len, mut at) = (data.length(), 0u32);
            while at < len {
                let room = self.inner.receive_buffer();
                // Below `len`, a u32.
                let n = (len - at).min(u32::try_from(room.len()).unwrap_or(u32::MAX));
                data.subarray(at, at + n).copy_to(&mut room[..n as usize]);
                self.inner.received(n as usize)?;
                at += n;
            }
            let got = Array::new();
            while let Some(e) = self.inner.poll_event()? {
                if let Event::Packet(p) = e {
                    got.push(&to_js(p));
                }
            }
            Ok(got)
        })();
        r.map_err(|e| {
            self.peer_is_v1 = e == b2::Error::V1Peer;
            errors::bip324(e)
        })
    }
}

/// The `decoys` option: an array of `Uint8Array`s, none when absent.
fn decoys(options: &JsValue) -> JsResult<Vec<Vec<u8>>> {
    let Some(v) = args::option(options, "decoys")? else {
        return Ok(Vec::new());
    };
    args::array_items(&v, "options.decoys")?
        .iter()
        .map(|d| args::bytes(d, "options.decoys[i]"))
        .collect()
}
