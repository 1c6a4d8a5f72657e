//! `PeerSessions`: per-peer E2EE sessions (0xAF frames, 0xB0 key
//! exchange), replay detection by nonce history.

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::error::ErrorKind;
use wireseal::peat as pt;
use zeroize::Zeroizing;

/// Largest session table a caller may ask for.
const MAX_SESSIONS: u64 = 1 << 16;

/// Per-peer E2EE sessions of one node: `now` is milliseconds on the
/// caller's clock.
#[wasm_bindgen(js_name = peat_PeerSessions)]
pub struct PeerSessions {
    inner: pt::PeerSessions,
}

#[wasm_bindgen(js_class = peat_PeerSessions)]
impl PeerSessions {
    /// Sessions for node `nodeId` with X25519 identity `privateKey`;
    /// options: `maxSessions` (at most 65536) and `ttlMs` (a session idle
    /// that long expires).
    ///
    /// # Errors
    ///
    /// `invalid_key` for an unusable key; `invalid_input` for arguments of
    /// the wrong type or out of range.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = nodeId)] node_id: f64,
        #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")]
        private_key: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ maxSessions?: number, ttlMs?: number }")]
        options: Option<JsValue>,
    ) -> JsResult<PeerSessions> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let node_id = args::u32_arg(node_id, "nodeId")?;
        let key = args::static_secret(&private_key, "privateKey")?;
        let mut s = pt::PeerSessions::new(node_id, key);
        if let Some(m) = args::int_option(&options, "maxSessions", MAX_SESSIONS)? {
            s = s.with_max_sessions(m as usize);
        }
        if let Some(t) = args::int_option(&options, "ttlMs", 1 << 53)? {
            s = s.with_ttl(t);
        }
        Ok(Self { inner: s })
    }

    /// Our public key (32 bytes).
    #[wasm_bindgen(getter, js_name = publicKey)]
    pub fn public_key(&self) -> Uint8Array {
        to_js(self.inner.public_key())
    }

    /// Starts a session with `peer`; returns the key-exchange frame to send.
    ///
    /// # Errors
    ///
    /// `limit` when the session table is full; `invalid_input` for
    /// arguments out of range.
    pub fn initiate(&mut self, now: f64, peer: f64) -> JsResult<Uint8Array> {
        let now = args::millis(now)?;
        let peer = args::u32_arg(peer, "peer")?;
        let f = self.inner.initiate(now, peer).map_err(errors::peat)?;
        Ok(to_js(&f))
    }

    /// Handles a peer's key-exchange frame. Returns `[peer, response]`:
    /// the frame to send back, or `undefined` when the frame was ignored
    /// (a session with that peer exists already).
    ///
    /// # Errors
    ///
    /// `truncated` / `too_long` / `malformed` for a frame that is not a
    /// key exchange; `invalid_key` for an unusable peer key; `limit` when
    /// the session table is full.
    #[wasm_bindgen(
        js_name = handleKeyExchange,
        unchecked_return_type = "[number, Uint8Array | undefined]"
    )]
    pub fn handle_key_exchange(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<Array> {
        let now = args::millis(now)?;
        let frame = args::bytes(&frame, "frame")?;
        let r = self
            .inner
            .handle_key_exchange(now, &frame)
            .map_err(errors::peat)?;
        Ok(match r {
            pt::KeyExchangeOutcome::Established { peer, response } => {
                Array::of2(&JsValue::from(peer), &to_js(&response))
            }
            pt::KeyExchangeOutcome::Ignored { peer } => {
                Array::of2(&JsValue::from(peer), &JsValue::UNDEFINED)
            }
            #[allow(unreachable_patterns)]
            _ => {
                return Err(errors::error(
                    ErrorKind::State,
                    "unknown key-exchange outcome",
                ))
            }
        })
    }

    /// Seals `plaintext` for `peer` (an established session).
    ///
    /// # Errors
    ///
    /// `state` without an established session with `peer`; `exhausted`
    /// when its counter is used up; `invalid_input` for arguments.
    pub fn seal(
        &mut self,
        now: f64,
        peer: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] plaintext: JsValue,
    ) -> JsResult<Uint8Array> {
        let now = args::millis(now)?;
        let peer = args::u32_arg(peer, "peer")?;
        let plaintext = args::secret_bytes(&plaintext, "plaintext")?;
        let v = self
            .inner
            .seal_to_vec(now, peer, &plaintext)
            .map_err(errors::peat)?;
        Ok(to_js(&v))
    }

    /// Opens a per-peer frame; returns `[sender, counter, plaintext]`
    /// (the counter is advisory: the tag does not cover it).
    ///
    /// # Errors
    ///
    /// `auth` when the tag does not verify; `replay` for a nonce seen
    /// before; `truncated` / `malformed` for a frame that is not per-peer;
    /// `state` without a session with the sender; `policy` for a frame
    /// addressed to another node.
    #[wasm_bindgen(unchecked_return_type = "[number, number, Uint8Array]")]
    pub fn open(
        &mut self,
        now: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<Array> {
        let now = args::millis(now)?;
        let frame = args::bytes(&frame, "frame")?;
        let m = self.inner.open_to_vec(now, &frame).map_err(errors::peat)?;
        let plaintext = Zeroizing::new(m.plaintext);
        Ok(Array::of3(
            &JsValue::from(m.sender),
            &JsValue::from_f64(m.counter as f64),
            &to_js(&plaintext),
        ))
    }

    /// The session state with `peer`: `"awaiting-peer-key"`,
    /// `"established"`, `"closed"`, or `undefined` when there is none.
    ///
    /// # Errors
    ///
    /// `invalid_input` for a peer number out of range.
    #[wasm_bindgen(
        unchecked_return_type = "'awaiting-peer-key' | 'established' | 'closed' | undefined"
    )]
    pub fn state(&self, peer: f64) -> JsResult<Option<String>> {
        let peer = args::u32_arg(peer, "peer")?;
        Ok(self.inner.state(peer).map(|s| s.as_str().to_owned()))
    }

    /// Closes the session with `peer` (its key is dropped).
    ///
    /// # Errors
    ///
    /// `invalid_input` for a peer number out of range.
    pub fn close(&mut self, peer: f64) -> JsResult<()> {
        let peer = args::u32_arg(peer, "peer")?;
        self.inner.close(peer);
        Ok(())
    }

    /// Removes every session idle for longer than the timeout; returns
    /// their peers.
    ///
    /// # Errors
    ///
    /// `invalid_input` for a time that is not a non-negative integer.
    #[wasm_bindgen(js_name = cleanupExpired, unchecked_return_type = "number[]")]
    pub fn cleanup_expired(&mut self, now: f64) -> JsResult<Array> {
        let now = args::millis(now)?;
        Ok(self
            .inner
            .cleanup_expired(now)
            .into_iter()
            .map(JsValue::from)
            .collect())
    }
}
