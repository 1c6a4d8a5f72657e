//! `Encryptor`: plaintext in pieces of any size, the stream out as it is
//! ready (the header first, then whole chunks, the trailer at `finish()`).

use super::{batch, encrypt_options, finished, password, Input, Output};
use crate::errors::{self, JsResult};
use crate::wipe::WipedBytes;
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wireseal::aescrypt as ac;

/// A streaming encryptor: `update(data)` returns the ciphertext that is
/// ready (the header first, then whole chunks, one chunk behind the
/// input), `finish()` the rest with the trailer. Memory stays at a few MiB
/// whatever the size of the stream.
#[wasm_bindgen(js_name = aescrypt_Encryptor)]
pub struct Encryptor {
    inner: Option<ac::Encryptor>,
    /// The current piece of plaintext (wiped on drop).
    input: WipedBytes,
    /// The ciphertext of the current piece.
    out: Vec<u8>,
}

#[wasm_bindgen(js_class = aescrypt_Encryptor)]
impl Encryptor {
    /// Derives the password key (slow for version 3, by design) for a
    /// stream written with `options` (`version`, `iterations`,
    /// `extensions`, as `encrypt` takes them).
    ///
    /// # Errors
    ///
    /// `invalid_input` for arguments or options of the wrong type;
    /// `unsupported` for a version other than 2 or 3.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] password: JsValue,
        #[wasm_bindgen(
            unchecked_optional_param_type = "{ version?: 2 | 3; iterations?: number; extensions?: Array<{ identifier: string; value?: Uint8Array | string } | { container: number }> }"
        )]
        options: JsValue,
    ) -> JsResult<Encryptor> {
        let password = self::password(&password)?;
        let opts = encrypt_options(&options)?;
        let e = ac::Encryptor::new(&password, &opts).map_err(errors::aescrypt)?;
        Ok(Self::from(e))
    }

    /// Encrypts `data`; returns the ciphertext ready so far (possibly
    /// empty).
    ///
    /// # Errors
    ///
    /// `invalid_input` when `data` is not a `Uint8Array`; `state` after
    /// `finish()`.
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    ) -> JsResult<Uint8Array> {
        let data = Input::new(&data, "data")?;
        let e = self.inner.as_mut().ok_or_else(|| finished("Encryptor"))?;
        let mut out = Output::new(e.update_len(data.len()))?;
        update(e, &data, &mut self.input, &mut self.out, &mut out)?;
        Ok(out.written())
    }

    /// Pads and encrypts what is left; returns it with the trailer.
    ///
    /// # Errors
    ///
    /// `state` when `finish()` was already called.
    pub fn finish(&mut self) -> JsResult<Uint8Array> {
        let e = self.inner.take().ok_or_else(|| finished("Encryptor"))?;
        finish(e, &mut self.out, None)
    }
}

impl From<ac::Encryptor> for Encryptor {
    fn from(e: ac::Encryptor) -> Self {
        Self {
            inner: Some(e),
            input: WipedBytes::default(),
            out: Vec::new(),
        }
    }
}

/// Encrypts `data` a chunk at a time into `out`.
fn update(
    e: &mut ac::Encryptor,
    data: &Input,
    input: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    out: &mut Output,
) -> JsResult<()> {
    let b = batch();
    data.pieces(input, |piece| {
        scratch.clear();
        scratch.resize(e.update_len(piece.len()), 0);
        let n = e
            .update_into(&b, piece, scratch)
            .map_err(errors::aescrypt)?;
        out.push(scratch.get(..n).unwrap_or_default())
    })
}

/// Finishes `e`: into `into` (which must then be full) or a new array.
fn finish(e: ac::Encryptor, scratch: &mut Vec<u8>, into: Option<Output>) -> JsResult<Uint8Array> {
    scratch.clear();
    scratch.resize(e.finish_len(), 0);
    let n = e.finish_into(scratch).map_err(errors::aescrypt)?;
    let tail = scratch.get(..n).unwrap_or_default();
    let mut out = match into {
        Some(o) => o,
        None => Output::new(tail.len())?,
    };
    out.push(tail)?;
    if !out.is_full() {
        return Err(errors::error(
            wireseal::error::ErrorKind::BufferTooSmall,
            "internal: output size mismatch",
        ));
    }
    Ok(out.written())
}

/// Encrypts the whole of `data` with `e`, written with `opts`, into one
/// array of exactly the stream's length.
pub(super) fn whole(
    mut e: ac::Encryptor,
    opts: &ac::EncryptOptions,
    data: &Input,
) -> JsResult<Uint8Array> {
    let mut out = Output::new(ac::encrypted_len(opts, data.len()))?;
    let mut input = WipedBytes::default();
    let mut scratch = Vec::new();
    update(&mut e, data, &mut input, &mut scratch, &mut out)?;
    finish(e, &mut scratch, Some(out))
}
