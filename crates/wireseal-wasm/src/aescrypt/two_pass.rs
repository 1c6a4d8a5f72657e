//! `VerifyPass` and `ReleasePass`: the library's two-pass reader, for a
//! stream that can be read twice (a `Blob`, a file). The first pass
//! checks the password and the HMAC and keeps a digest of every chunk;
//! the second decrypts the same bytes again and hands out each chunk's
//! plaintext only once its ciphertext matched. Nothing is held but a chunk
//! or two, whatever the size of the stream. `decryptBlob` in
//! `js/src/aescrypt.js` drives both over `blob.stream()`.

use super::{batch, finished, limits, password, Input};
use crate::args::to_js;
use crate::errors::{self, JsResult};
use crate::wipe::WipedBytes;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::aescrypt::{self as ac, CHUNK};

/// The first pass over a stream: `update(data)` feeds it in pieces of any
/// size (the password is checked as soon as the header and session block
/// are in), `finish()` checks its length and HMAC and returns the
/// `ReleasePass` that reads it again. It decrypts nothing and holds 32
/// bytes per MiB of stream.
#[wasm_bindgen(js_name = aescrypt_VerifyPass)]
pub struct VerifyPass {
    inner: Option<ac::VerifyPass>,
    /// The current piece of the stream.
    input: Vec<u8>,
}

#[wasm_bindgen(js_class = aescrypt_VerifyPass)]
impl VerifyPass {
    /// A first pass over one stream encrypted with `password`; option
    /// `maxIterations` caps a version 3 stream's PBKDF2 rounds
    /// (10,000,000 by default).
    ///
    /// # Errors
    ///
    /// `invalid_input` for arguments or options of the wrong type.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] password: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ maxIterations?: number }")]
        options: JsValue,
    ) -> JsResult<VerifyPass> {
        let password = self::password(&password)?;
        let limits = limits(&options)?;
        Ok(Self {
            inner: Some(ac::VerifyPass::new(&password, &limits)),
            input: Vec::new(),
        })
    }

    /// Offers a version 3 key stretched ahead of reading, as
    /// `Decryptor.offerKey` does.
    ///
    /// # Errors
    ///
    /// `invalid_input` / `invalid_key` for arguments of the wrong type or
    /// length; `state` after `finish()` or an earlier failure.
    #[wasm_bindgen(js_name = offerKey)]
    pub fn offer_key(
        &mut self,
        #[wasm_bindgen(js_name = publicIv, unchecked_param_type = "Uint8Array")] public_iv: JsValue,
        iterations: f64,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] key: JsValue,
    ) -> JsResult<()> {
        let key = super::stretch::offered(&public_iv, iterations, &key)?;
        let v = self.inner.as_mut().ok_or_else(|| finished("VerifyPass"))?;
        v.offer_key(key);
        Ok(())
    }

    /// Feeds the next bytes of the stream.
    ///
    /// # Errors
    ///
    /// `auth` for a wrong password; `malformed`, `unsupported`, `limit`
    /// for a header that is not AES Crypt's, of an unknown version or
    /// beyond the limits; `invalid_input` when `data` is not a
    /// `Uint8Array`; `state` after `finish()` or an earlier failure (any
    /// failure ends the pass).
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    ) -> JsResult<()> {
        let data = Input::new(&data, "data")?;
        let v = self.inner.as_mut().ok_or_else(|| finished("VerifyPass"))?;
        let b = batch();
        let r = data.pieces(&mut self.input, |p| {
            v.update(&b, p).map_err(errors::aescrypt)
        });
        if r.is_err() {
            self.inner = None;
        }
        r
    }

    /// Ends the first pass: checks the stream's length and HMAC, and
    /// returns the second pass.
    ///
    /// # Errors
    ///
    /// `auth` for a failed HMAC (the data was damaged or altered);
    /// `truncated` for a stream cut short; `malformed` for a broken one;
    /// `state` after `finish()` or an earlier failure.
    pub fn finish(&mut self) -> JsResult<ReleasePass> {
        let v = self.inner.take().ok_or_else(|| finished("VerifyPass"))?;
        let r = v.finish().map_err(errors::aescrypt)?;
        // A released piece is at most a chunk: room for it up front, so the
        // buffer never moves (leaving plaintext behind).
        let most = usize::try_from(r.plaintext_len()).map_or(CHUNK, |n| n.min(CHUNK));
        Ok(ReleasePass {
            plaintext_len: r.plaintext_len(),
            version: r.header().version.as_u8(),
            inner: Some(r),
            input: Vec::new(),
            out: WipedBytes::with_capacity(most),
        })
    }
}

/// The second pass, from `VerifyPass.finish()`: `update(data)` feeds the
/// same stream again, from its first byte, and returns the plaintext of
/// every chunk (1 MiB) the data completes, each only once its ciphertext
/// matched what the first pass verified; `finish()` checks that the whole
/// stream was fed. Bytes that differ from the first pass's fail with
/// `malformed` (the input changed) and nothing from a changed chunk is
/// returned.
#[wasm_bindgen(js_name = aescrypt_ReleasePass)]
pub struct ReleasePass {
    inner: Option<ac::ReleasePass>,
    plaintext_len: u64,
    version: u8,
    /// The current piece of the stream.
    input: Vec<u8>,
    /// Plaintext released by the current piece (wiped after each move out
    /// and on drop).
    out: WipedBytes,
}

#[wasm_bindgen(js_class = aescrypt_ReleasePass)]
impl ReleasePass {
    /// Feeds the next bytes of the stream; returns the verified plaintext
    /// of the chunks they complete (none, one, or more for more than a
    /// chunk of data). Data of at most `nextLen` bytes completes at most
    /// one chunk.
    ///
    /// # Errors
    ///
    /// `malformed` when the bytes differ from those the first pass
    /// verified (what this call released before the changed chunk is
    /// wiped: feed at most `nextLen` bytes at a time to receive every
    /// verified chunk); `invalid_input` when `data` is not a `Uint8Array`;
    /// `state` after `finish()` or an earlier failure (any failure ends the
    /// pass).
    #[wasm_bindgen(unchecked_return_type = "Uint8Array[]")]
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    ) -> JsResult<Array> {
        let data = Input::new(&data, "data")?;
        let r = self.inner.as_mut().ok_or_else(|| finished("ReleasePass"))?;
        let b = batch();
        let released = Array::new();
        let mut at = 0;
        while at < data.len {
            // What completes the current step, so that each call releases
            // at most one chunk (extra bytes go in whole, to be refused).
            let want = match r.next_len() {
                0 => CHUNK,
                n => n,
            };
            let n = want.min(data.len - at);
            self.input.clear();
            self.input.resize(n, 0);
            // Both ends fit in u32: `data.len` does.
            data.array
                .subarray(at as u32, (at + n) as u32)
                .copy_to(&mut self.input);
            if let Err(e) = r.update(&b, &self.input, &mut self.out) {
                self.inner = None;
                self.out.wipe();
                for p in released.iter() {
                    let p = Uint8Array::from(p);
                    p.fill(0, 0, p.length());
                }
                return Err(errors::aescrypt(e));
            }
            if !self.out.is_empty() {
                released.push(&to_js(&self.out));
                self.out.wipe();
            }
            at += n;
        }
        Ok(released)
    }

    /// Ends the second pass.
    ///
    /// # Errors
    ///
    /// `malformed` when the stream ended before the bytes the first pass
    /// read; `state` after `finish()` or an earlier failure.
    pub fn finish(&mut self) -> JsResult<()> {
        let r = self.inner.take().ok_or_else(|| finished("ReleasePass"))?;
        r.finish().map(|_| ()).map_err(errors::aescrypt)
    }

    /// How many bytes complete the current step (the rest of the header
    /// and session block, of the current chunk, or of the trailer); 0 once
    /// the whole stream was fed.
    #[wasm_bindgen(getter, js_name = nextLen)]
    pub fn next_len(&self) -> f64 {
        // At most a chunk or a header (1 MiB by default).
        self.inner.as_ref().map_or(0, ac::ReleasePass::next_len) as f64
    }

    /// The plaintext's length in bytes (known since the first pass).
    #[wasm_bindgen(getter, js_name = plaintextLen)]
    pub fn plaintext_len(&self) -> f64 {
        // Below 2^53: a stream that long cannot be fed.
        self.plaintext_len as f64
    }

    /// The stream's version (0-3).
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> u8 {
        self.version
    }
}
