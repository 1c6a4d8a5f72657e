//! `Decryptor`: the stream in pieces of any size, the plaintext held back
//! (in JavaScript arrays, outside the module's memory) until the HMAC
//! matched, then handed out whole or as its pieces.

use super::{batch, finished, limits, password, Input, CHUNK};
use crate::args::to_js;
use crate::errors::{self, JsResult};
use crate::wipe::WipedBytes;
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::aescrypt::{self as ac, Limits};

/// Plaintext gathered in the module before it moves out to JavaScript:
/// the pieces a `Decryptor` holds are at least this long (but the last).
const GATHER: usize = 64 * 1024;

/// A library decryptor fed from JavaScript arrays a chunk at a time, its
/// plaintext (unverified until `finish`) gathered in a wiped buffer and
/// moved out through a callback.
pub(super) struct Opening {
    inner: Option<ac::Decryptor>,
    /// Plaintext not yet moved out: the library's in-memory sink (wiped
    /// by the library on failure, here after each move).
    gathered: WipedBytes,
    /// The current piece of ciphertext.
    input: Vec<u8>,
}

impl Opening {
    pub(super) fn new(password: &str, limits: &Limits) -> Self {
        Self {
            inner: Some(ac::Decryptor::new(password, limits)),
            gathered: WipedBytes::default(),
            input: Vec::new(),
        }
    }

    /// Offers a key stretched ahead of reading (the library's
    /// `Decryptor::offer_key`).
    pub(super) fn offer_key(&mut self, key: ac::StretchedKey) -> JsResult<()> {
        let d = self.inner.as_mut().ok_or_else(|| finished("Decryptor"))?;
        d.offer_key(key);
        Ok(())
    }

    /// Feeds `data`; plaintext moves out through `emit` in pieces of at
    /// least [`GATHER`] bytes. After an error the opening is spent.
    pub(super) fn update(
        &mut self,
        data: &Input,
        emit: &mut dyn FnMut(&[u8]) -> JsResult<()>,
    ) -> JsResult<()> {
        let Some(d) = self.inner.as_mut() else {
            return Err(finished("Decryptor"));
        };
        let b = batch();
        let gathered = &mut self.gathered;
        // Room for the most a piece can add to what is held, so the buffer
        // never moves (which would leave plaintext behind, unwiped).
        let room = GATHER + CHUNK + 64;
        if gathered.capacity() < room {
            let held = gathered.len();
            gathered.reserve_exact(room - held);
        }
        let r = data.pieces(&mut self.input, |piece| {
            d.update(&b, piece, &mut **gathered)
                .map_err(errors::aescrypt)?;
            if gathered.len() >= GATHER {
                let r = emit(gathered);
                gathered.wipe();
                r?;
            }
            Ok(())
        });
        if r.is_err() {
            self.inner = None;
            self.gathered.wipe();
        }
        r
    }

    /// Ends the stream: checks its length and HMAC, then moves out the
    /// rest of the plaintext.
    pub(super) fn finish(&mut self, emit: &mut dyn FnMut(&[u8]) -> JsResult<()>) -> JsResult<()> {
        let d = self.inner.take().ok_or_else(|| finished("Decryptor"))?;
        let sink: &mut Vec<u8> = &mut self.gathered;
        let r = d.finish(sink).map_err(errors::aescrypt);
        let r = r.and_then(|_| {
            if self.gathered.is_empty() {
                Ok(())
            } else {
                emit(&self.gathered)
            }
        });
        self.gathered.wipe();
        r
    }
}

/// A streaming decryptor that never hands out unverified plaintext:
/// `update(data)` feeds the stream (any version 0-3) in pieces of any
/// size, `finish()` checks its HMAC and only then returns the plaintext.
/// The plaintext is held meanwhile in JavaScript arrays of 64 KiB to
/// 1 MiB (so the whole plaintext is in memory at `finish()`, as the
/// format's one HMAC at the end requires), and wiped if anything fails.
#[wasm_bindgen(js_name = aescrypt_Decryptor)]
pub struct Decryptor {
    open: Opening,
    held: Vec<Uint8Array>,
}

#[wasm_bindgen(js_class = aescrypt_Decryptor)]
impl Decryptor {
    /// A decryptor for one stream encrypted with `password`; option
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
    ) -> JsResult<Decryptor> {
        let password = self::password(&password)?;
        let limits = limits(&options)?;
        Ok(Self {
            open: Opening::new(&password, &limits),
            held: Vec::new(),
        })
    }

    /// Offers the version 3 key a platform's PBKDF2-HMAC-SHA512 stretched
    /// from the password (32 bytes, `publicIv` the salt, `iterations`
    /// rounds, as `aescrypt.stretchRequest` read them from the stream's
    /// header): used in place of stretching the password when this
    /// stream's header names that salt and those rounds, if offered before
    /// the header is in. A key that is not the password's fails as a wrong
    /// password does.
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
        self.open.offer_key(key)
    }

    /// Feeds the next bytes of the stream. The password key is derived as
    /// soon as the header and session block are in, and a wrong password
    /// is reported then.
    ///
    /// # Errors
    ///
    /// `auth` for a wrong password; `malformed`, `unsupported`, `limit`
    /// for a header that is not AES Crypt's, of an unknown version or
    /// beyond the limits; `invalid_input` when `data` is not a
    /// `Uint8Array`; `state` after `finish()` or an earlier failure. Any
    /// failure wipes what was decrypted and ends the stream.
    pub fn update(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    ) -> JsResult<()> {
        let data = Input::new(&data, "data")?;
        let held = &mut self.held;
        let r = self.open.update(&data, &mut |p| {
            held.push(to_js(p));
            Ok(())
        });
        if r.is_err() {
            self.wipe();
        }
        r
    }

    /// Ends the stream: checks its length and HMAC, then returns the whole
    /// plaintext.
    ///
    /// # Errors
    ///
    /// `auth` for a failed HMAC (the data was damaged or altered);
    /// `truncated` for a stream cut short; `malformed` for a broken one;
    /// `state` after `finish()` or an earlier failure. What was decrypted
    /// is wiped.
    pub fn finish(&mut self) -> JsResult<Uint8Array> {
        let pieces = self.verified()?;
        let total: usize = pieces.iter().map(|p| p.length() as usize).sum();
        let out = super::Output::new(total)?;
        let mut at = 0u32;
        for p in &pieces {
            out.array.set(p, at);
            at = at.saturating_add(p.length());
            p.fill(0, 0, p.length());
        }
        Ok(out.array)
    }

    /// As `finish()`, returning the plaintext as its pieces (64 KiB to
    /// 1 MiB each, the last one shorter; none for an empty plaintext), with
    /// no joined copy.
    ///
    /// # Errors
    ///
    /// As [`Decryptor::finish`].
    #[wasm_bindgen(js_name = finishChunks, unchecked_return_type = "Uint8Array[]")]
    pub fn finish_chunks(&mut self) -> JsResult<Array> {
        Ok(self.verified()?.into_iter().collect())
    }
}

impl Drop for Decryptor {
    /// Wipes the plaintext still held (a stream abandoned before
    /// `finish()`, freed or collected).
    fn drop(&mut self) {
        self.wipe();
    }
}

impl Decryptor {
    /// Finishes the stream and takes the verified pieces.
    fn verified(&mut self) -> JsResult<Vec<Uint8Array>> {
        let held = &mut self.held;
        let r = self.open.finish(&mut |p| {
            held.push(to_js(p));
            Ok(())
        });
        match r {
            Ok(()) => Ok(core::mem::take(&mut self.held)),
            Err(e) => {
                self.wipe();
                Err(e)
            }
        }
    }

    /// Wipes and drops the unverified plaintext held.
    fn wipe(&mut self) {
        for p in self.held.drain(..) {
            p.fill(0, 0, p.length());
        }
    }
}
