//! `Genesis` (mesh id and secret from a name and a seed) and `MeshSealer`
//! (mesh-wide frames).

use crate::args::{self, to_js};
use crate::errors::{self, JsResult};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::peat as pt;
use zeroize::Zeroizing;

/// Mesh id and mesh secret derived from a mesh name and a 32-byte seed.
#[wasm_bindgen(js_name = peat_Genesis)]
pub struct Genesis {
    inner: pt::Genesis,
}

#[wasm_bindgen(js_class = peat_Genesis)]
impl Genesis {
    /// Derives the genesis of mesh `name` from `seed` (32 bytes), or from a
    /// fresh seed from the platform's CSPRNG when `seed` is absent (not
    /// kept).
    ///
    /// # Errors
    ///
    /// `invalid_input` for an empty name; `too_long` for a name over 65535
    /// bytes; `invalid_key` for a seed that is not 32 bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] seed: Option<JsValue>,
    ) -> JsResult<Genesis> {
        let name = args::string(&name, "name")?;
        let inner = match seed {
            Some(seed) => {
                let seed = Zeroizing::new(args::array::<32>(&seed, "seed")?);
                pt::Genesis::derive(&name, &seed)
            }
            None => pt::Genesis::generate(&name),
        };
        Ok(Self {
            inner: inner.map_err(errors::peat)?,
        })
    }

    /// The mesh id (8 upper-case hex digits).
    #[wasm_bindgen(getter, js_name = meshId)]
    pub fn mesh_id(&self) -> String {
        self.inner.mesh_id().to_string()
    }

    /// The mesh secret (32 bytes).
    #[wasm_bindgen(getter)]
    pub fn secret(&self) -> Uint8Array {
        to_js(self.inner.secret().expose())
    }

    /// A sealer for this mesh's mesh-wide frames.
    pub fn sealer(&self) -> MeshSealer {
        MeshSealer {
            inner: pt::MeshSealer::from_key(self.inner.mesh_key()),
        }
    }
}

/// Seals and opens mesh-wide frames (`0xAE 0x00 | nonce(12) | ct |
/// tag(16)`, ChaCha20-Poly1305) with nonces drawn in bulk from the
/// platform's CSPRNG.
#[wasm_bindgen(js_name = peat_MeshSealer)]
pub struct MeshSealer {
    inner: pt::MeshSealer,
}

#[wasm_bindgen(js_class = peat_MeshSealer)]
impl MeshSealer {
    /// A sealer for `meshId` (any case; letters are upper-cased) and its
    /// 32-byte `secret`.
    ///
    /// # Errors
    ///
    /// `invalid_input` / `too_long` for a string that is not a mesh id;
    /// `invalid_key` for a secret that is not 32 bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = meshId, unchecked_param_type = "string")] mesh_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] secret: JsValue,
    ) -> JsResult<MeshSealer> {
        let id = super::parse_id(&mesh_id, "meshId")?;
        let secret = Zeroizing::new(args::array::<32>(&secret, "secret")?);
        Ok(Self {
            inner: pt::MeshSealer::new(&id, &secret),
        })
    }

    /// Seals a document into a mesh-wide frame.
    ///
    /// # Errors
    ///
    /// `invalid_input` when `plaintext` is not a `Uint8Array`.
    pub fn seal(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] plaintext: JsValue,
    ) -> JsResult<Uint8Array> {
        let plaintext = args::secret_bytes(&plaintext, "plaintext")?;
        Ok(to_js(&self.inner.seal_to_vec(&plaintext)))
    }

    /// Opens a mesh-wide frame.
    ///
    /// # Errors
    ///
    /// `auth` when the tag does not verify (wrong mesh or modified);
    /// `truncated` for a frame shorter than its overhead; `malformed` for
    /// a frame that is not mesh-wide; `invalid_input` when `frame` is not
    /// a `Uint8Array`.
    pub fn open(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] frame: JsValue,
    ) -> JsResult<Uint8Array> {
        let frame = args::bytes(&frame, "frame")?;
        let v = Zeroizing::new(self.inner.open_to_vec(&frame).map_err(errors::peat)?);
        Ok(to_js(&v))
    }
}
