//! `wireseal/aescrypt`: AES Crypt streams (`.aes` files), versions 0-3
//! read, 2 and 3 written: one-call `encrypt` / `decrypt` of whole buffers,
//! the streaming `Encryptor` / `Decryptor` classes, and the two-pass
//! `VerifyPass` / `ReleasePass` for a stream that can be read twice (the
//! Web Streams `encryptStream` / `decryptStream` and `decryptBlob` are in
//! `js/src/aescrypt.js`, on top of the classes).
//!
//! Every call reads its input from the caller's `Uint8Array` one
//! [`CHUNK`] at a time and writes its output straight into JavaScript
//! arrays, so the module's own memory (which WebAssembly never gives back)
//! stays at a few MiB whatever the size of the data. Plaintext is released
//! only once the stream's HMAC matched: a `Decryptor` keeps what it
//! decrypted in JavaScript arrays until `finish()`, and wipes them on any
//! failure.

mod decryptor;
mod encryptor;
mod stretch;
mod two_pass;

pub use decryptor::Decryptor;
pub use encryptor::Encryptor;
pub use stretch::stretch_request;
pub use two_pass::{ReleasePass, VerifyPass};

use crate::args;
use crate::errors::{self, invalid_input, JsResult};
use decryptor::Opening;
use js_sys::{JsString, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wireseal::aescrypt::{self as ac, EncryptOptions, Extension, Limits, CHUNK};
use wireseal::batch::Batch;
use wireseal::error::ErrorKind;
use zeroize::Zeroizing;

/// The batch every call runs on: WebAssembly has no threads here.
fn batch() -> Batch {
    Batch::calling_thread()
}

/// A password: a string (encoded as AES Crypt does: UTF-16LE for versions
/// 0-2, UTF-8 for version 3) or the UTF-8 bytes of one.
///
/// # Errors
///
/// `invalid_input` for anything else, for a string with a lone surrogate
/// (it has no UTF-8 form, so no version 3 key) and for bytes that are not
/// UTF-8.
pub(crate) fn password(v: &JsValue) -> JsResult<Zeroizing<String>> {
    if let Some(s) = v.dyn_ref::<JsString>() {
        if !s.is_valid_utf16() {
            return Err(invalid_input(
                "password must be well-formed text (it has a lone surrogate)",
            ));
        }
        return Ok(Zeroizing::new(String::from(s)));
    }
    if v.dyn_ref::<Uint8Array>().is_some() {
        let b = args::secret_bytes(v, "password")?;
        return match core::str::from_utf8(&b) {
            Ok(s) => Ok(Zeroizing::new(s.to_owned())),
            Err(_) => Err(invalid_input("password bytes must be UTF-8")),
        };
    }
    Err(invalid_input("password must be a string or a Uint8Array"))
}

/// What an encryptor writes: `version` (2, the default, or 3),
/// `iterations` (version 3's PBKDF2 rounds, 300,000 by default; version 2
/// ignores it, as Python's does) and `extensions` (replacing the default
/// `CREATED_BY` and 128-byte container; an empty array writes none).
///
/// # Errors
///
/// `unsupported` for a version other than 2 and 3; `invalid_input` for
/// options of the wrong type, 0 iterations or an unusable extension.
pub(crate) fn encrypt_options(options: &JsValue) -> JsResult<EncryptOptions> {
    let version = args::int_option(options, "version", u64::from(u32::MAX))?.unwrap_or(2);
    let iterations = args::int_option(options, "iterations", u64::from(u32::MAX))?;
    let mut opts = match version {
        2 => EncryptOptions::v2(),
        3 => {
            // At most u32::MAX: checked by `int_option`.
            let n = iterations.map_or(ac::DEFAULT_V3_ITERATIONS, |n| n as u32);
            EncryptOptions::v3(n).map_err(errors::aescrypt)?
        }
        v => {
            return Err(errors::error(
                ErrorKind::Unsupported,
                format!("AES Crypt version {v} cannot be written (write 2 or 3)"),
            ))
        }
    };
    if let Some(list) = args::option(options, "extensions")? {
        let items = args::array_items(&list, "options.extensions")?;
        let mut ext = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            ext.push(extension(item, i)?);
        }
        opts = opts.with_extensions(ext);
    }
    Ok(opts)
}

/// One item of `options.extensions`: `{ identifier, value }` (value bytes
/// or text) or `{ container: length }`.
fn extension(item: &JsValue, i: usize) -> JsResult<Extension> {
    let what = format!("options.extensions[{i}]");
    if !item.is_object() {
        return Err(invalid_input(format!("{what} must be an object")));
    }
    if let Some(len) = args::int_option(item, "container", u64::from(u32::MAX))? {
        if args::option(item, "identifier")?.is_some() {
            return Err(invalid_input(format!(
                "{what} has both a container and an identifier"
            )));
        }
        // At most u32::MAX: checked by `int_option`.
        return Extension::container(len as usize).map_err(errors::aescrypt);
    }
    let id = args::string_option(item, "identifier")?
        .ok_or_else(|| invalid_input(format!("{what} needs an identifier or a container")))?;
    let value = match args::option(item, "value")? {
        None => Vec::new(),
        Some(v) => match v.as_string() {
            Some(s) => s.into_bytes(),
            None => args::bytes(&v, &format!("{what}.value")).map_err(|_| {
                invalid_input(format!("{what}.value must be a Uint8Array or a string"))
            })?,
        },
    };
    Extension::new(&id, &value).map_err(errors::aescrypt)
}

/// The limits a stream is read under: the library's defaults, with option
/// `maxIterations` (version 3's PBKDF2 rounds, 10,000,000 by default).
///
/// # Errors
///
/// `invalid_input` for options of the wrong type.
pub(crate) fn limits(options: &JsValue) -> JsResult<Limits> {
    let mut l = Limits::default();
    if let Some(m) = args::int_option(options, "maxIterations", u64::from(u32::MAX))? {
        // At most u32::MAX: checked by `int_option`.
        l.max_iterations = m as u32;
    }
    Ok(l)
}

/// A `Uint8Array` argument, not copied: calls read it a [`CHUNK`] at a
/// time.
pub(crate) struct Input {
    array: Uint8Array,
    len: usize,
}

impl Input {
    /// Checks that `v` is a `Uint8Array`.
    ///
    /// # Errors
    ///
    /// `invalid_input` when it is not (or is longer than this module can
    /// address).
    pub(crate) fn new(v: &JsValue, what: &str) -> JsResult<Self> {
        let array = args::uint8_array(v, what)?.clone();
        Ok(Self {
            // Below 4 GiB: checked by `uint8_array`.
            len: array.length() as usize,
            array,
        })
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Hands every piece (at most [`CHUNK`] bytes, copied into `scratch`)
    /// to `f`, in order.
    pub(crate) fn pieces(
        &self,
        scratch: &mut Vec<u8>,
        mut f: impl FnMut(&[u8]) -> JsResult<()>,
    ) -> JsResult<()> {
        let mut at = 0;
        while at < self.len {
            let n = CHUNK.min(self.len - at);
            scratch.clear();
            scratch.resize(n, 0);
            // Both ends fit in u32: `len` does.
            self.array
                .subarray(at as u32, (at + n) as u32)
                .copy_to(scratch);
            f(scratch)?;
            at += n;
        }
        Ok(())
    }
}

/// Writes pieces into a JavaScript array allocated up front.
pub(crate) struct Output {
    array: Uint8Array,
    len: usize,
    at: usize,
}

impl Output {
    /// A fresh array of `len` bytes.
    ///
    /// # Errors
    ///
    /// `too_long` when `len` does not fit a `Uint8Array` this module can
    /// address.
    pub(crate) fn new(len: usize) -> JsResult<Self> {
        let n = u32::try_from(len)
            .map_err(|_| errors::error(ErrorKind::TooLong, "output of 4 GiB or more"))?;
        Ok(Self {
            array: Uint8Array::new_with_length(n),
            len,
            at: 0,
        })
    }

    /// Appends `b`.
    ///
    /// # Errors
    ///
    /// An internal error (never in practice) when `b` does not fit.
    pub(crate) fn push(&mut self, b: &[u8]) -> JsResult<()> {
        let end = self
            .at
            .checked_add(b.len())
            .filter(|e| *e <= self.len)
            .ok_or_else(|| {
                errors::error(ErrorKind::BufferTooSmall, "internal: output size mismatch")
            })?;
        // Both ends fit in u32: `len` does.
        self.array.subarray(self.at as u32, end as u32).copy_from(b);
        self.at = end;
        Ok(())
    }

    /// The bytes written so far (the whole array when it is full).
    pub(crate) fn written(self) -> Uint8Array {
        if self.at == self.len {
            self.array
        } else {
            // Both fit in u32: `len` does.
            self.array.subarray(0, self.at as u32)
        }
    }

    /// Wipes what was written (unverified plaintext after a failure).
    pub(crate) fn wipe(&self) {
        // `len` fits in u32.
        self.array.fill(0, 0, self.len as u32);
    }

    /// Whether every byte was written.
    pub(crate) fn is_full(&self) -> bool {
        self.at == self.len
    }
}

/// An error for a call on an object whose `finish()` ran (or that failed).
pub(crate) fn finished(what: &str) -> JsValue {
    errors::error(
        ErrorKind::State,
        format!("{what}: finish() was already called or a call failed"),
    )
}

/// Encrypts `data` in one call into a new AES Crypt stream. Version 2 (AES
/// Crypt 3.x, pyAesCrypt, SharpAESCrypt) by default; `version: 3` (AES
/// Crypt 4.x) stretches the password with `iterations` rounds of
/// PBKDF2-HMAC-SHA512 (300,000 by default).
///
/// # Errors
///
/// `invalid_input` for arguments or options of the wrong type;
/// `unsupported` for a version other than 2 or 3.
#[wasm_bindgen(js_name = aescrypt_encrypt)]
pub fn encrypt(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] password: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ version?: 2 | 3; iterations?: number; extensions?: Array<{ identifier: string; value?: Uint8Array | string } | { container: number }> }"
    )]
    options: JsValue,
) -> JsResult<Uint8Array> {
    let data = Input::new(&data, "data")?;
    let password = self::password(&password)?;
    let opts = encrypt_options(&options)?;
    let e = ac::Encryptor::new(&password, &opts).map_err(errors::aescrypt)?;
    encryptor::whole(e, &opts, &data)
}

/// Decrypts a whole AES Crypt stream (any version 0-3). Nothing is returned
/// unless every HMAC matched; option `maxIterations` caps a version 3
/// stream's PBKDF2 rounds (10,000,000 by default). The plaintext is
/// decrypted straight into an array sized for the longest plaintext the
/// stream's length allows, and returned as a view of its first bytes (its
/// `buffer` may be up to a header and a block longer).
///
/// # Errors
///
/// `auth` for a wrong password or a failed HMAC; `truncated`, `malformed`,
/// `unsupported`, `limit` for streams that are cut short, broken, of an
/// unknown version or beyond the limits; `invalid_input` for arguments of
/// the wrong type.
#[wasm_bindgen(js_name = aescrypt_decrypt)]
pub fn decrypt(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] password: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ maxIterations?: number }")] options: JsValue,
) -> JsResult<Uint8Array> {
    let data = Input::new(&data, "data")?;
    let password = self::password(&password)?;
    let limits = limits(&options)?;
    // The body bounds the plaintext: the stream less its shortest header
    // and trailer.
    let mut out = Output::new(data.len().saturating_sub(53))?;
    let mut open = Opening::new(&password, &limits);
    let r = open
        .update(&data, &mut |p| out.push(p))
        .and_then(|()| open.finish(&mut |p| out.push(p)));
    match r {
        Ok(()) => Ok(out.written()),
        Err(e) => {
            out.wipe();
            Err(e)
        }
    }
}

/// Encrypts `data` into a stream with caller-chosen per-file values
/// (`publicIv`, `sessionIv`: 16 bytes, `sessionKey`: 32 bytes), to
/// reproduce official streams byte for byte. Test builds only: reusing
/// these values breaks the format's security.
///
/// # Errors
///
/// As [`encrypt`]; `invalid_key` for values of the wrong length.
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(js_name = aescrypt_encryptWithMaterial)]
pub fn encrypt_with_material(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] password: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] data: JsValue,
    #[wasm_bindgen(js_name = publicIv, unchecked_param_type = "Uint8Array")] public_iv: JsValue,
    #[wasm_bindgen(js_name = sessionIv, unchecked_param_type = "Uint8Array")] session_iv: JsValue,
    #[wasm_bindgen(js_name = sessionKey, unchecked_param_type = "Uint8Array")] session_key: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ version?: 2 | 3; iterations?: number; extensions?: Array<{ identifier: string; value?: Uint8Array | string } | { container: number }> }"
    )]
    options: JsValue,
) -> JsResult<Uint8Array> {
    use wireseal::aescrypt::SessionMaterial;
    use wireseal::secret::Secret;
    let data = Input::new(&data, "data")?;
    let password = self::password(&password)?;
    let opts = encrypt_options(&options)?;
    let m = SessionMaterial::from_parts(
        args::array::<16>(&public_iv, "publicIv")?,
        args::array::<16>(&session_iv, "sessionIv")?,
        Secret::new(args::array::<32>(&session_key, "sessionKey")?),
    );
    let e = ac::Encryptor::from_material(&password, &opts, m).map_err(errors::aescrypt)?;
    encryptor::whole(e, &opts, &data)
}
