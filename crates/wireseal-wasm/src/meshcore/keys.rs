//! `ChannelKey` and `LocalIdentity`: the library's keys, shared (`Rc`) with
//! the handles the decoder and the builders take, and each channel keeping
//! what it was made from (wiped on drop) so that a `Decoder` can make its
//! own copy by the library's rule.
//!
//! wasm-bindgen checks a `&ChannelKey` parameter in JavaScript and throws a
//! plain `Error` for anything else, and turning a `JsValue` into the class
//! takes the object away from its owner. So the decoder and the builders
//! take their keys as `JsValue` and ask the object for a fresh handle
//! through a hidden method ([`channel_of`], [`identity_of`]): anything
//! else is an `invalid_input` `WiresealError`.

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use crate::wipe::WipedBytes;
use js_sys::{Function, Reflect, Uint8Array};
use std::rc::Rc;
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wireseal::meshcore as mc;
use zeroize::Zeroizing;

/// The hidden method of [`ChannelKey`] that hands out a handle.
const CHANNEL_HANDLE: &str = "_wiresealChannelHandle";
/// The hidden method of [`LocalIdentity`] that hands out a handle.
const IDENTITY_HANDLE: &str = "_wiresealIdentityHandle";

/// How a channel key was given: a decoder's own copy is made again from
/// it by the library's rule (the library's keys are not `Clone`).
enum Source {
    Bytes(WipedBytes),
    Base64(Zeroizing<String>),
    Hashtag(String),
    Public,
}

impl Source {
    fn key(&self) -> Result<mc::ChannelKey, mc::Error> {
        match self {
            Source::Bytes(b) => mc::ChannelKey::from_bytes(b),
            Source::Base64(t) => mc::ChannelKey::from_base64(t),
            Source::Hashtag(n) => mc::ChannelKey::hashtag(n),
            Source::Public => Ok(mc::ChannelKey::public()),
        }
    }
}

/// A group channel's key: 16 or 32 bytes, found by its one-byte hash.
#[wasm_bindgen(js_name = meshcore_ChannelKey)]
pub struct ChannelKey {
    inner: Rc<mc::ChannelKey>,
    source: Rc<Source>,
}

impl ChannelKey {
    fn of(source: Source) -> JsResult<Self> {
        let inner = source.key().map_err(errors::meshcore)?;
        Ok(Self {
            inner: Rc::new(inner),
            source: Rc::new(source),
        })
    }

    /// The library's key.
    pub(super) fn key(&self) -> &mc::ChannelKey {
        &self.inner
    }

    /// A library key of the same channel, for a decoder of its own.
    ///
    /// # Errors
    ///
    /// Never in practice (the library read the same source once).
    pub(super) fn copy(&self) -> JsResult<mc::ChannelKey> {
        self.source.key().map_err(errors::meshcore)
    }
}

#[wasm_bindgen(js_class = meshcore_ChannelKey)]
impl ChannelKey {
    /// A channel of a 16- or 32-byte key.
    ///
    /// # Errors
    ///
    /// `invalid_key` (reason `invalid_key`) for any other length;
    /// `invalid_input` when `key` is not a `Uint8Array`.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] key: JsValue,
    ) -> JsResult<ChannelKey> {
        Self::of(Source::Bytes(args::secret_bytes(&key, "key")?))
    }

    /// A channel of base64 key text as the apps share it (padding
    /// optional).
    ///
    /// # Errors
    ///
    /// `invalid_key` when it is not base64 of 16 or 32 bytes (the text is
    /// never repeated); `invalid_input` when `text` is not a string.
    #[wasm_bindgen(js_name = fromBase64)]
    pub fn from_base64(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> JsResult<ChannelKey> {
        let text = Zeroizing::new(args::string(&text, "text")?);
        Self::of(Source::Base64(text))
    }

    /// A hashtag channel (`"#test"` or `"test"`, case kept): the key is
    /// SHA-256 of `#name`, first 16 bytes.
    ///
    /// # Errors
    ///
    /// `invalid_input` for an empty name, one with white space or control
    /// characters, or one that is not a string.
    pub fn hashtag(
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> JsResult<ChannelKey> {
        Self::of(Source::Hashtag(args::string(&name, "name")?))
    }

    /// The public channel (key `izOH6cXN6mrJ5e26oRXNcg==`, hash 0x11).
    ///
    /// # Errors
    ///
    /// Never in practice.
    #[wasm_bindgen(js_name = public)]
    pub fn public_channel() -> JsResult<ChannelKey> {
        Self::of(Source::Public)
    }

    /// The channel's hash byte, as packets carry it.
    #[wasm_bindgen(getter)]
    pub fn hash(&self) -> u8 {
        self.inner.hash()
    }

    /// The key's length (16 or 32).
    #[wasm_bindgen(getter, js_name = keyLen)]
    pub fn key_len(&self) -> usize {
        self.inner.key_len()
    }

    /// `ChannelKey(hash=0x11, <secret>)`: never the key.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        format!("ChannelKey(hash=0x{:02x}, <secret>)", self.inner.hash())
    }

    /// A handle on the same key, for the decoder and the builders (see the
    /// module's docs); not part of the API.
    #[wasm_bindgen(js_name = _wiresealChannelHandle, skip_typescript)]
    pub fn handle(&self) -> ChannelKey {
        Self {
            inner: Rc::clone(&self.inner),
            source: Rc::clone(&self.source),
        }
    }
}

/// Our MeshCore identity: the firmware's 64-byte Ed25519 private key.
#[wasm_bindgen(js_name = meshcore_LocalIdentity)]
pub struct LocalIdentity {
    inner: Rc<mc::LocalIdentity>,
}

impl LocalIdentity {
    fn of(inner: Result<mc::LocalIdentity, mc::Error>) -> JsResult<Self> {
        Ok(Self {
            inner: Rc::new(inner.map_err(errors::meshcore)?),
        })
    }

    /// The library's identity.
    pub(super) fn identity(&self) -> &mc::LocalIdentity {
        &self.inner
    }

    /// A library identity of the same key, for a decoder of its own.
    ///
    /// # Errors
    ///
    /// Never in practice (the library read the same key once).
    pub(super) fn copy(&self) -> JsResult<mc::LocalIdentity> {
        mc::LocalIdentity::from_private_key(self.inner.private_key().expose())
            .map_err(errors::meshcore)
    }
}

#[wasm_bindgen(js_class = meshcore_LocalIdentity)]
impl LocalIdentity {
    /// Reads our key as hex: 64 characters for a seed, 128 for the
    /// firmware's `prv.key`.
    ///
    /// # Errors
    ///
    /// `invalid_key` otherwise (the text is never repeated);
    /// `invalid_input` when `text` is not a string.
    #[wasm_bindgen(js_name = fromHex)]
    pub fn from_hex(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> JsResult<LocalIdentity> {
        let text = Zeroizing::new(args::string(&text, "text")?);
        Self::of(mc::LocalIdentity::from_hex(&text))
    }

    /// The identity of a 32-byte Ed25519 seed (RFC 8032 key generation).
    ///
    /// # Errors
    ///
    /// `invalid_key` for a seed that is not 32 bytes or whose public key
    /// starts with 00 or FF; `invalid_input` when `seed` is not a
    /// `Uint8Array`.
    #[wasm_bindgen(js_name = fromSeed)]
    pub fn from_seed(
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] seed: JsValue,
    ) -> JsResult<LocalIdentity> {
        let seed = args::secret_bytes(&seed, "seed")?;
        let seed: Zeroizing<[u8; 32]> = Zeroizing::new(
            seed.as_slice()
                .try_into()
                .map_err(|_| key_length("seed", seed.len(), "32 bytes"))?,
        );
        Self::of(mc::LocalIdentity::from_seed(&seed))
    }

    /// The identity of the firmware's 64-byte private key.
    ///
    /// # Errors
    ///
    /// `invalid_key` for a key that is not 64 bytes, whose scalar is not
    /// clamped or whose public key starts with 00 or FF; `invalid_input`
    /// when `privateKey` is not a `Uint8Array`.
    #[wasm_bindgen(js_name = fromPrivateKey)]
    pub fn from_private_key(
        #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")]
        private_key: JsValue,
    ) -> JsResult<LocalIdentity> {
        let key = args::secret_bytes(&private_key, "privateKey")?;
        let key: Zeroizing<[u8; 64]> = Zeroizing::new(
            key.as_slice()
                .try_into()
                .map_err(|_| key_length("private key", key.len(), "64 bytes"))?,
        );
        Self::of(mc::LocalIdentity::from_private_key(&key))
    }

    /// A fresh identity from the platform's CSPRNG.
    pub fn generate() -> LocalIdentity {
        Self {
            inner: Rc::new(mc::LocalIdentity::generate()),
        }
    }

    /// The Ed25519 public key (32 bytes).
    #[wasm_bindgen(getter, js_name = publicKey)]
    pub fn public_key(&self) -> Uint8Array {
        to_js(self.inner.public().as_bytes())
    }

    /// The firmware's 64-byte private key (what `get prv.key` prints), for
    /// export.
    #[wasm_bindgen(js_name = privateKey)]
    pub fn private_key(&self) -> Uint8Array {
        to_js(self.inner.private_key().expose())
    }

    /// Our RFC 8032 signature (64 bytes) of `message`.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `message` is not a `Uint8Array`.
    pub fn sign(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] message: JsValue,
    ) -> JsResult<Uint8Array> {
        let message = args::bytes(&message, "message")?;
        Ok(to_js(&self.inner.sign(&message)))
    }

    /// `LocalIdentity(publicKey=HEX)`: never the private key.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        let hex: String = self
            .inner
            .public()
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("LocalIdentity(publicKey={hex})")
    }

    /// A handle on the same identity, for the decoder and the builders (see
    /// the module's docs); not part of the API.
    #[wasm_bindgen(js_name = _wiresealIdentityHandle, skip_typescript)]
    pub fn handle(&self) -> LocalIdentity {
        Self {
            inner: Rc::clone(&self.inner),
        }
    }
}

/// The library's error for a key of the wrong length (kind and reason
/// `invalid_key`).
pub(super) fn key_length(what: &'static str, len: usize, expected: &'static str) -> JsValue {
    errors::meshcore(mc::Error::KeyLength {
        what,
        len,
        expected,
    })
}

/// A handle on the object behind `v`: calls its hidden `method` and takes
/// the fresh object it returns (the caller's object stays whole).
fn handle_of<T: TryFromJsValue>(v: &JsValue, method: &str, what: &str, class: &str) -> JsResult<T> {
    let wrong = || errors::invalid_input(format!("{what} must be a {class}"));
    if !v.is_object() {
        return Err(wrong());
    }
    let f: Function = Reflect::get(v, &JsValue::from_str(method))
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(wrong)?;
    let handle = f
        .call0(v)
        .map_err(|_| errors::invalid_input(format!("{what}: the {class} was freed")))?;
    T::try_from_js_value(handle).map_err(|_| wrong())
}

/// The [`ChannelKey`] behind argument `v`.
///
/// # Errors
///
/// `invalid_input` when `v` is not a live `ChannelKey`.
pub(super) fn channel_of(v: &JsValue, what: &str) -> JsResult<ChannelKey> {
    handle_of(v, CHANNEL_HANDLE, what, "ChannelKey")
}

/// The [`LocalIdentity`] behind argument `v`.
///
/// # Errors
///
/// `invalid_input` when `v` is not a live `LocalIdentity`.
pub(super) fn identity_of(v: &JsValue, what: &str) -> JsResult<LocalIdentity> {
    handle_of(v, IDENTITY_HANDLE, what, "LocalIdentity")
}
