//! `PacketCipher`: the packet layer keyed from a caller-chosen shared
//! secret, only with the `test-vectors` feature, which the tests' package
//! builds with and the published package leaves out.

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::bip324::{
    Error, Network, Next, PacketType, Role, Session, SessionKeys, HEADER_LEN, LENGTH_LEN, TAG_LEN,
};
use wireseal::secret::Secret;
use zeroize::Zeroizing;

/// **Test vectors only.** The packet layer of one side of a session,
/// keyed from the 32-byte BIP324 ECDH shared secret (as in the BIP's test
/// vectors): FSChaCha20 lengths, FSChaCha20Poly1305 contents, rekeying
/// every 224 packets. Two ciphers from the same secret reuse every nonce;
/// real sessions come from `Connection`.
#[wasm_bindgen(js_name = bip324_PacketCipher)]
pub struct PacketCipher {
    session: Session,
    keys: SessionKeys,
    role: Role,
}

#[wasm_bindgen(js_class = bip324_PacketCipher)]
impl PacketCipher {
    /// Keys for `role` from `sharedSecret`; options: `network` (a name, the
    /// magic as 8 hex digits, or the 4 magic bytes; mainnet by default) and
    /// `maxContents` (the most contents bytes a received packet may carry;
    /// Bitcoin Core's limit by default).
    ///
    /// # Errors
    ///
    /// `invalid_key` for a secret that is not 32 bytes; `invalid_input` for
    /// an unknown role or network or arguments of the wrong type.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = sharedSecret, unchecked_param_type = "Uint8Array")]
        shared_secret: JsValue,
        #[wasm_bindgen(unchecked_param_type = "'initiator' | 'responder'")] role: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ network?: string | Uint8Array, maxContents?: number }"
        )]
        options: Option<JsValue>,
    ) -> JsResult<PacketCipher> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let s = Zeroizing::new(args::array::<32>(&shared_secret, "sharedSecret")?);
        let role = super::role(&role)?;
        let network: Network = super::network(&options)?;
        let keys = SessionKeys::from_shared_secret(&Secret::new(*s), network);
        let mut session = Session::from_keys(&keys, role);
        if let Some(m) = super::max_contents(&options)? {
            session = session.with_max_contents(m);
        }
        Ok(Self {
            session,
            keys,
            role,
        })
    }

    /// The session id (32 bytes).
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> Uint8Array {
        to_js(&self.keys.session_id)
    }

    /// `[send, receive]` garbage terminators (16 bytes each).
    #[wasm_bindgen(
        getter,
        js_name = garbageTerminators,
        unchecked_return_type = "[Uint8Array, Uint8Array]"
    )]
    pub fn garbage_terminators(&self) -> Array {
        let (s, r) = self.keys.terminators(self.role);
        Array::of2(&to_js(&s), &to_js(&r))
    }

    /// Encrypts one packet; options: `decoy` (a decoy packet) and `aad`
    /// (the garbage, for the first packet).
    ///
    /// # Errors
    ///
    /// `too_long` for contents over the wire's maximum; `invalid_input`
    /// for arguments of the wrong type.
    pub fn seal(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] contents: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ decoy?: boolean, aad?: Uint8Array }")]
        options: Option<JsValue>,
    ) -> JsResult<Uint8Array> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let contents = args::secret_bytes(&contents, "contents")?;
        let kind = super::kind(&options)?;
        let aad = super::bytes_option(&options, "aad")?;
        let v = self
            .session
            .sender
            .seal_to_vec(&contents, kind, &aad)
            .map_err(errors::bip324)?;
        Ok(to_js(&v))
    }

    /// Decrypts the packet at the start of `data` (option `aad`: the
    /// garbage, for the first packet). Returns `[contents, decoy,
    /// consumed]`, or `undefined` when more bytes are needed.
    ///
    /// # Errors
    ///
    /// `auth` when the tag fails; `too_long` for a length over
    /// `maxContents`; `poisoned` after any failure (every failure poisons
    /// the receiver); `invalid_input` for arguments of the wrong type.
    #[wasm_bindgen(unchecked_return_type = "[Uint8Array, boolean, number] | undefined")]
    pub fn open(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ aad?: Uint8Array }")] options: Option<
            JsValue,
        >,
    ) -> JsResult<JsValue> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let mut buf = Zeroizing::new(args::bytes(&data, "data")?);
        let aad = super::bytes_option(&options, "aad")?;
        match self
            .session
            .receiver
            .open_next(&aad, &mut buf)
            .map_err(errors::bip324)?
        {
            Next::NeedMore(_) => Ok(JsValue::UNDEFINED),
            Next::Packet { packet, consumed } => Ok(Array::of3(
                &to_js(packet.contents),
                &JsValue::from_bool(packet.kind == PacketType::Decoy),
                &JsValue::from_f64(consumed as f64),
            )
            .into()),
        }
    }

    /// The first half of `open`, for callers that read the length field
    /// first: decrypts the 3-byte length field of the next packet and
    /// returns its contents length; the packet's remaining `contents
    /// length + 17` bytes go to `openBody`.
    ///
    /// # Errors
    ///
    /// `truncated` / `too_long` for a field that is not 3 bytes; `too_long`
    /// for a length over `maxContents`; `state` when a length is pending;
    /// `poisoned` after any failure.
    #[wasm_bindgen(js_name = decryptLength)]
    pub fn decrypt_length(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] field: JsValue,
    ) -> JsResult<usize> {
        let field = args::bytes(&field, "field")?;
        let f: [u8; LENGTH_LEN] = field.as_slice().try_into().map_err(|_| {
            errors::bip324(if field.len() < LENGTH_LEN {
                Error::Truncated {
                    len: field.len(),
                    min: LENGTH_LEN,
                }
            } else {
                Error::TooLong {
                    len: field.len(),
                    max: LENGTH_LEN,
                }
            })
        })?;
        let rest = self
            .session
            .receiver
            .decrypt_length(f)
            .map_err(errors::bip324)?;
        Ok(rest.saturating_sub(HEADER_LEN + TAG_LEN))
    }

    /// The second half of `open`: verifies and decrypts `body` (header,
    /// contents and tag of the packet whose length `decryptLength` just
    /// returned; option `aad`). Returns `[contents, decoy]`.
    ///
    /// # Errors
    ///
    /// `auth` when the tag fails; `truncated` / `too_long` for a body of
    /// another length; `state` without a pending length; `poisoned` after
    /// any failure.
    #[wasm_bindgen(js_name = openBody, unchecked_return_type = "[Uint8Array, boolean]")]
    pub fn open_body(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] body: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ aad?: Uint8Array }")] options: Option<
            JsValue,
        >,
    ) -> JsResult<Array> {
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let mut buf = Zeroizing::new(args::bytes(&body, "body")?);
        let aad = super::bytes_option(&options, "aad")?;
        let p = self
            .session
            .receiver
            .open_body(&aad, &mut buf)
            .map_err(errors::bip324)?;
        Ok(Array::of2(
            &to_js(p.contents),
            &JsValue::from_bool(p.kind == PacketType::Decoy),
        ))
    }
}
