//! The host's native primitives under the library's bulk crypto
//! ([`wireseal::host`]): in Node, `init-node.js` registers functions built
//! on `node:crypto` (OpenSSL) with [`set_host_crypto`] right after the
//! module is compiled, and the library hands them AES-256-CBC, HMAC-SHA256,
//! ChaCha20-Poly1305, PBKDF2-HMAC-SHA512 and the AES blocks of channel
//! packets' CTR keystream on inputs large enough for the native code to win
//! (the thresholds are the library's), and every X25519 agreement. The browser entry registers nothing:
//! WebCrypto is asynchronous and these calls are synchronous, so there
//! everything runs in WebAssembly.
//!
//! The functions receive views of the module's memory (wasm-bindgen passes
//! a slice argument as a `Uint8Array` over it, valid for the call: the
//! functions never call back into the module, so its memory cannot grow
//! under them) and write their results into the output views. Every call
//! catches what the function throws: the library then runs its own code
//! (see [`wireseal::host::HostCrypto`] for what a failure means for each
//! operation).
//!
//! HMAC streams, AES keys and X25519 keys live in JavaScript as numbered
//! handles (`Map`s in `init-node.js`); the library frees a handle when its
//! stream is finished or dropped, or its key dropped.

use crate::errors::{invalid_input, JsResult};
use js_sys::{Function, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wireseal::host::{AeadKey, CbcKey, HostCrypto, HostError, HostResult};

// The functions the host registers, one line per operation so that the
// declarations read as a table (rustfmt would spread each over lines).
#[rustfmt::skip]
#[wasm_bindgen]
extern "C" {
    /// The object `init-node.js` registers: one function per operation.
    #[wasm_bindgen(typescript_type = "object")]
    pub type HostFunctions;

    #[wasm_bindgen(method, catch, js_name = cbcEncrypt)]
    fn cbc_encrypt(this: &HostFunctions, key: &[u8], iv: &[u8], buf: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = cbcDecrypt)]
    fn cbc_decrypt(this: &HostFunctions, key: &[u8], iv: &[u8], input: &[u8], output: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = hmacNew)]
    fn hmac_new(this: &HostFunctions, key: &[u8]) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = hmacUpdate)]
    fn hmac_update(this: &HostFunctions, handle: u32, data: &[u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = hmacClone)]
    fn hmac_clone(this: &HostFunctions, handle: u32) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = hmacFinish)]
    fn hmac_finish(this: &HostFunctions, handle: u32, tag: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = hmacFree)]
    fn hmac_free(this: &HostFunctions, handle: u32) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = aeadSeal)]
    fn aead_seal(this: &HostFunctions, key: &[u8], nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = aeadOpen)]
    fn aead_open(this: &HostFunctions, key: &[u8], nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn pbkdf2(this: &HostFunctions, password: &[u8], salt: &[u8], iterations: u32, out: &mut [u8]) -> Result<(), JsValue>;
}

thread_local! {
    /// The registered functions (WebAssembly here has one thread).
    static FUNCTIONS_SET: RefCell<Option<HostFunctions>> = const { RefCell::new(None) };
}

/// Runs `f` on the registered functions; [`HostError`] when there are none
/// or `f`'s function threw.
fn with<T>(f: impl FnOnce(&HostFunctions) -> Result<T, JsValue>) -> Result<T, HostError> {
    FUNCTIONS_SET.with(|set| {
        let set = set.try_borrow().map_err(|_| HostError)?;
        let fns = set.as_ref().ok_or(HostError)?;
        f(fns).map_err(|_| HostError)
    })
}

/// A handle a function returned: an integer from 1 to `u32::MAX`.
fn handle(v: JsValue) -> Result<u32, JsValue> {
    v.as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n <= f64::from(u32::MAX))
        // Checked above: an integer in the range of u32.
        .map(|n| n as u32)
        .ok_or_else(|| JsValue::from_str("not a handle"))
}

// The keys the host holds across calls (AES for CTR keystreams, X25519),
// each named by a handle; one line per operation, as above.
#[rustfmt::skip]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(method, catch, js_name = aesNew)]
    fn aes_new(this: &HostFunctions, key: &[u8]) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = aesEncryptBlocks)]
    fn aes_encrypt_blocks(this: &HostFunctions, handle: u32, buf: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = aesClone)]
    fn aes_clone(this: &HostFunctions, handle: u32) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch, js_name = aesFree)]
    fn aes_free(this: &HostFunctions, handle: u32) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = x25519New)]
    fn x25519_new(this: &HostFunctions, scalar: &[u8]) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn x25519(this: &HostFunctions, handle: u32, peer: &[u8], shared: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(method, catch, js_name = x25519Free)]
    fn x25519_free(this: &HostFunctions, handle: u32) -> Result<(), JsValue>;
}

/// Calls made to the host, per operation (the tests' build reads them).
#[cfg(feature = "test-vectors")]
mod counters {
    use std::cell::Cell;

    thread_local! {
        pub(super) static CALLS: [Cell<u32>; 8] = const { [const { Cell::new(0) }; 8] };
    }

    /// Counts one call to operation `i` (the order of [`NAMES`]).
    pub(super) fn count(i: usize) {
        CALLS.with(|c| {
            if let Some(c) = c.get(i) {
                c.set(c.get().wrapping_add(1));
            }
        });
    }

    /// The operations' names in the object [`super::host_crypto_calls`] returns.
    pub(super) const NAMES: [&str; 8] = [
        "cbcEncrypt",
        "cbcDecrypt",
        "hmac",
        "aeadSeal",
        "aeadOpen",
        "pbkdf2",
        "aesBlocks",
        "x25519",
    ];
}

/// Counts one call to operation `_i` in the tests' build.
#[inline]
fn count(_i: usize) {
    #[cfg(feature = "test-vectors")]
    counters::count(_i);
}

/// The [`HostCrypto`] over the registered functions.
struct JsHost;

/// The one instance the library holds.
static JS_HOST: JsHost = JsHost;

impl HostCrypto for JsHost {
    fn aes256_cbc_encrypt(&self, cbc: CbcKey<'_>, buf: &mut [u8]) -> HostResult {
        count(0);
        with(|f| f.cbc_encrypt(cbc.key, cbc.iv, buf))
    }

    fn aes256_cbc_decrypt(&self, cbc: CbcKey<'_>, input: &[u8], output: &mut [u8]) -> HostResult {
        count(1);
        with(|f| f.cbc_decrypt(cbc.key, cbc.iv, input, output))
    }

    fn hmac_sha256_new(&self, key: &[u8]) -> Result<u32, HostError> {
        count(2);
        with(|f| f.hmac_new(key).and_then(handle))
    }

    fn hmac_sha256_update(&self, h: u32, data: &[u8]) -> Result<(), HostError> {
        with(|f| f.hmac_update(h, data))
    }

    fn hmac_sha256_clone(&self, h: u32) -> Result<u32, HostError> {
        with(|f| f.hmac_clone(h).and_then(handle))
    }

    fn hmac_sha256_finish(&self, h: u32, tag: &mut [u8; 32]) -> Result<(), HostError> {
        with(|f| f.hmac_finish(h, tag))
    }

    fn hmac_sha256_free(&self, h: u32) {
        let _ = with(|f| f.hmac_free(h));
    }

    fn chacha20poly1305_seal(
        &self,
        aead: AeadKey<'_>,
        buf: &mut [u8],
        tag: &mut [u8; 16],
    ) -> HostResult {
        count(3);
        with(|f| f.aead_seal(aead.key, aead.nonce, aead.aad, buf, tag))
    }

    fn chacha20poly1305_open(
        &self,
        aead: AeadKey<'_>,
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> HostResult<bool> {
        count(4);
        // `true` only: anything else is a tag that did not verify.
        with(|f| f.aead_open(aead.key, aead.nonce, aead.aad, buf, tag))
            .map(|v| v.as_bool() == Some(true))
    }

    fn pbkdf2_hmac_sha512(
        &self,
        password: &[u8],
        salt: &[u8],
        rounds: u32,
        out: &mut [u8],
    ) -> HostResult {
        count(5);
        with(|f| f.pbkdf2(password, salt, rounds, out))
    }

    fn aes_new(&self, key: &[u8]) -> Result<u32, HostError> {
        with(|f| f.aes_new(key).and_then(handle))
    }

    fn aes_encrypt_blocks(&self, h: u32, buf: &mut [u8]) -> HostResult {
        count(6);
        with(|f| f.aes_encrypt_blocks(h, buf))
    }

    fn aes_clone(&self, h: u32) -> Result<u32, HostError> {
        with(|f| f.aes_clone(h).and_then(handle))
    }

    fn aes_free(&self, h: u32) {
        let _ = with(|f| f.aes_free(h));
    }

    fn x25519_new(&self, scalar: &[u8; 32]) -> Result<u32, HostError> {
        with(|f| f.x25519_new(scalar).and_then(handle))
    }

    fn x25519(&self, h: u32, peer: &[u8; 32], shared: &mut [u8; 32]) -> HostResult {
        count(7);
        with(|f| f.x25519(h, peer, shared))
    }

    fn x25519_free(&self, h: u32) {
        let _ = with(|f| f.x25519_free(h));
    }
}

/// The functions the object must have.
const FUNCTIONS: [&str; 17] = [
    "cbcEncrypt",
    "cbcDecrypt",
    "hmacNew",
    "hmacUpdate",
    "hmacClone",
    "hmacFinish",
    "hmacFree",
    "aeadSeal",
    "aeadOpen",
    "pbkdf2",
    "aesNew",
    "aesEncryptBlocks",
    "aesClone",
    "aesFree",
    "x25519New",
    "x25519",
    "x25519Free",
];

/// Registers the host's primitives (`init-node.js` calls it once, right
/// after the module is compiled): an object with the functions `cbcEncrypt`,
/// `cbcDecrypt`, `hmacNew`, `hmacUpdate`, `hmacClone`, `hmacFinish`,
/// `hmacFree`, `aeadSeal`, `aeadOpen`, `pbkdf2`, `aesNew`,
/// `aesEncryptBlocks`, `aesClone`, `aesFree`, `x25519New`, `x25519` and
/// `x25519Free` (see `js/src/init-node.js`).
/// `null` or `undefined` stops handing new operations to it (HMAC streams
/// it holds already stay with it); the same object again resumes. Not part
/// of the package's API.
///
/// # Errors
///
/// `invalid_input` when `functions` is not an object with those functions,
/// or another object was registered before (handles of streams it holds
/// would reach the wrong one).
#[wasm_bindgen(js_name = setHostCrypto)]
pub fn set_host_crypto(
    #[wasm_bindgen(unchecked_param_type = "object | null | undefined")] functions: JsValue,
) -> JsResult<()> {
    if functions.is_null() || functions.is_undefined() {
        wireseal::host::clear_host_crypto();
        return Ok(());
    }
    if !functions.is_object() {
        return Err(invalid_input("the host's functions must be an object"));
    }
    for name in FUNCTIONS {
        let f = Reflect::get(&functions, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED);
        if !f.is_instance_of::<Function>() {
            return Err(invalid_input(format!(
                "the host's functions lack the function {name}"
            )));
        }
    }
    FUNCTIONS_SET.with(|set| {
        let mut set = set
            .try_borrow_mut()
            .map_err(|_| invalid_input("the host's functions are in use"))?;
        match set.as_ref() {
            Some(old) if !js_sys::Object::is(old, &functions) => {
                Err(invalid_input("other host functions are registered already"))
            }
            Some(_) => Ok(()),
            None => {
                *set = Some(functions.unchecked_into());
                Ok(())
            }
        }
    })?;
    wireseal::host::set_host_crypto(&JS_HOST);
    Ok(())
}

/// Whether the library hands bulk operations to the host now (the tests'
/// build only).
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(js_name = hostCryptoActive)]
pub fn host_crypto_active() -> bool {
    wireseal::host::host_crypto().is_some()
}

/// Stops (`true`) or resumes (`false`) handing operations to the registered
/// host, to compare both paths in one process (the tests' build only).
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(js_name = hostCryptoPause)]
pub fn host_crypto_pause(paused: bool) {
    let registered = FUNCTIONS_SET.with(|set| set.borrow().is_some());
    if paused || !registered {
        wireseal::host::clear_host_crypto();
    } else {
        wireseal::host::set_host_crypto(&JS_HOST);
    }
}

/// The calls made to the host so far, per operation: `{ cbcEncrypt,
/// cbcDecrypt, hmac (streams moved to the host), aeadSeal, aeadOpen,
/// pbkdf2, aesBlocks (CTR keystreams made by the host), x25519 }` (the
/// tests' build only).
///
/// # Errors
///
/// Never in practice (building a plain object).
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(js_name = hostCryptoCalls, unchecked_return_type = "Record<string, number>")]
pub fn host_crypto_calls() -> JsResult<JsValue> {
    let values: Vec<u32> = counters::CALLS.with(|c| c.iter().map(std::cell::Cell::get).collect());
    let fields: Vec<(&str, JsValue)> = counters::NAMES
        .iter()
        .zip(values)
        .map(|(name, v)| (*name, JsValue::from(v)))
        .collect();
    crate::args::object(&fields)
}
