//! `PkcEngine`: PKC direct messages through the shared-secret cache.

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::meshtastic as mt;

/// `now`, the peer's key, `from` and `id` of a PKC call, checked.
fn packet_args(
    now: f64,
    peer_public: &JsValue,
    from: f64,
    id: f64,
) -> JsResult<(u64, [u8; 32], u32, u32)> {
    Ok((
        args::millis(now)?,
        args::array::<32>(peer_public, "peerPublic")?,
        args::u32_arg(from, "from")?,
        args::u32_arg(id, "id")?,
    ))
}

/// Largest cache a caller may ask for (each slot is preallocated).
const MAX_CACHE_PEERS: u64 = 1 << 20;

/// A node's PKC state: its key, the per-peer shared-secret cache (a repeat
/// message skips the X25519) and an optional replay window.
#[wasm_bindgen(js_name = meshtastic_PkcEngine)]
pub struct PkcEngine {
    inner: mt::PkcEngine,
}

#[wasm_bindgen(js_class = meshtastic_PkcEngine)]
impl PkcEngine {
    /// An engine for `privateKey`; options: `capacity` (peers cached,
    /// default 16, at most 2^20), `ttlMs` (entries expire that long after
    /// derivation), `replayWindow` (`[idsPerSender, maxSenders]`: repeated
    /// `(from, id)` pairs are refused with `replay`).
    ///
    /// # Errors
    ///
    /// `invalid_key` for an unclamped key; `invalid_input` / `limit` for
    /// unusable options.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")]
        private_key: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ capacity?: number, ttlMs?: number, replayWindow?: [number, number] }"
        )]
        options: Option<JsValue>,
    ) -> JsResult<PkcEngine> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let own = args::static_secret(&private_key, "privateKey")?;
        let capacity = args::int_option(&options, "capacity", MAX_CACHE_PEERS)?.unwrap_or(16);
        let mut e = mt::PkcEngine::with_capacity(own, (capacity as usize).max(1))
            .map_err(errors::meshtastic)?;
        if let Some(t) = args::int_option(&options, "ttlMs", u64::MAX)? {
            e = e.with_ttl(t);
        }
        if let Some(w) = args::option(&options, "replayWindow")? {
            let items = args::array_items(&w, "options.replayWindow")?;
            let [ids, senders] = items.as_slice() else {
                return Err(errors::invalid_input(
                    "options.replayWindow must be [idsPerSender, maxSenders]",
                ));
            };
            let n = |v: &JsValue, what: &str| args::usize_arg(v.as_f64().unwrap_or(f64::NAN), what);
            let window = mt::ReplayWindow::new(n(ids, "idsPerSender")?, n(senders, "maxSenders")?);
            e = e.with_replay_window(window);
        }
        Ok(Self { inner: e })
    }

    /// Our public key (32 bytes).
    #[wasm_bindgen(getter, js_name = publicKey)]
    pub fn public_key(&self) -> Uint8Array {
        to_js(self.inner.public_key())
    }

    /// Replaces our key; every cached peer key is flushed.
    ///
    /// # Errors
    ///
    /// `invalid_key` for an unusable key (the engine is unchanged).
    #[wasm_bindgen(js_name = setOwnKey)]
    pub fn set_own_key(
        &mut self,
        #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")]
        private_key: JsValue,
    ) -> JsResult<()> {
        let own = args::static_secret(&private_key, "privateKey")?;
        self.inner.set_own_key(own).map_err(errors::meshtastic)
    }

    /// Forgets a peer's cached key; returns whether it was cached.
    ///
    /// # Errors
    ///
    /// `invalid_key` for a key that is not 32 bytes.
    #[wasm_bindgen(js_name = invalidatePeer)]
    pub fn invalidate_peer(
        &mut self,
        #[wasm_bindgen(js_name = peerPublic, unchecked_param_type = "Uint8Array")]
        peer_public: JsValue,
    ) -> JsResult<bool> {
        Ok(self
            .inner
            .invalidate_peer(&args::array::<32>(&peer_public, "peerPublic")?))
    }

    /// The cache's counters: `{ hits, misses, evictions, expirations,
    /// flushes, len }`.
    ///
    /// # Errors
    ///
    /// Never in practice.
    #[wasm_bindgen(
        js_name = cacheStats,
        unchecked_return_type = "{ hits: number, misses: number, evictions: number, expirations: number, flushes: number, len: number }"
    )]
    pub fn cache_stats(&self) -> JsResult<JsValue> {
        let s = self.inner.cache().stats();
        let n = |v: u64| JsValue::from_f64(v as f64);
        args::object(&[
            ("hits", n(s.hits)),
            ("misses", n(s.misses)),
            ("evictions", n(s.evictions)),
            ("expirations", n(s.expirations)),
            ("flushes", n(s.flushes)),
            ("len", n(self.inner.cache().len() as u64)),
        ])
    }

    /// Seals `plaintext` to `peerPublic` as node `from` with packet `id`:
    /// `ciphertext | tag(8) | extraNonce(4)`, the extraNonce from the
    /// platform's CSPRNG. `now` is milliseconds on the caller's clock (for
    /// the cache's TTL).
    ///
    /// # Errors
    ///
    /// `too_long` for a plaintext over the radio's limit; `invalid_key`
    /// for an unusable peer key; `invalid_input` for arguments of the
    /// wrong type.
    pub fn seal(
        &mut self,
        now: f64,
        #[wasm_bindgen(js_name = peerPublic, unchecked_param_type = "Uint8Array")]
        peer_public: JsValue,
        from: f64,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] plaintext: JsValue,
    ) -> JsResult<Uint8Array> {
        let (now, peer, from, id) = packet_args(now, &peer_public, from, id)?;
        let packet = mt::PkcPacket {
            peer_public: &peer,
            from,
            id,
        };
        let plaintext = args::secret_bytes(&plaintext, "plaintext")?;
        let out = self
            .inner
            .seal_to_vec(now, packet, &plaintext)
            .map_err(errors::meshtastic)?;
        Ok(to_js(&out))
    }

    /// Opens a PKC payload from `peerPublic` (node `from`, packet `id`).
    ///
    /// # Errors
    ///
    /// `auth` when the tag does not verify (wrong key or modified);
    /// `truncated` / `too_long` for a payload no seal makes; `replay` with
    /// a replay window; `invalid_key` / `invalid_input` for arguments.
    pub fn open(
        &mut self,
        now: f64,
        #[wasm_bindgen(js_name = peerPublic, unchecked_param_type = "Uint8Array")]
        peer_public: JsValue,
        from: f64,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] payload: JsValue,
    ) -> JsResult<Uint8Array> {
        let (now, peer, from, id) = packet_args(now, &peer_public, from, id)?;
        let packet = mt::PkcPacket {
            peer_public: &peer,
            from,
            id,
        };
        let payload = args::bytes(&payload, "payload")?;
        // The plaintext on the stack (a payload is at most one radio frame),
        // wiped when it has been copied out.
        let mut out = zeroize::Zeroizing::new([0u8; mt::MAX_PAYLOAD_LEN]);
        let n = self
            .inner
            .open_into(now, packet, &payload, &mut out[..])
            .map_err(errors::meshtastic)?;
        Ok(to_js(&out[..n]))
    }
}
