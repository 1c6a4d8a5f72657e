//! Arguments as JavaScript hands them in, checked: wasm-bindgen's own
//! conversions coerce silently (a string where a `u32` is expected becomes
//! 0, an array where bytes are expected is copied as garbage), so every
//! export takes bytes and numbers as [`JsValue`] or `f64` and reads them
//! here, with an `invalid_input` `WiresealError` naming the argument when
//! the value has the wrong type or range.

use crate::errors::{invalid_input, invalid_key, JsResult};
use crate::wipe::WipedBytes;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wireseal::keys::StaticSecret;
use zeroize::Zeroizing;

#[wasm_bindgen]
extern "C" {
    /// A typed array seen only for its `length`.
    type HasLength;
    /// `length` as JavaScript holds it, a double (js-sys reads it as a
    /// `u32`, which wraps at 4 GiB): one property read, no name to build.
    #[wasm_bindgen(method, getter, js_name = length)]
    fn length(this: &HasLength) -> f64;
}

/// The bytes of a `Uint8Array` argument, copied into the module.
///
/// # Errors
///
/// `invalid_input` when `v` is not a `Uint8Array`.
pub fn bytes(v: &JsValue, what: &str) -> JsResult<Vec<u8>> {
    uint8_array(v, what).map(Uint8Array::to_vec)
}

/// A `Uint8Array` argument, not copied (for a caller that copies it
/// straight where it goes), shorter than 4 GiB, so that its `length()`
/// (which js-sys reads as a `u32`) is its whole length.
///
/// # Errors
///
/// `invalid_input` when `v` is not a `Uint8Array`, or is 4 GiB or longer.
pub fn uint8_array<'v>(v: &'v JsValue, what: &str) -> JsResult<&'v Uint8Array> {
    let array: &Uint8Array = v
        .dyn_ref()
        .ok_or_else(|| invalid_input(format!("{what} must be a Uint8Array")))?;
    if array.unchecked_ref::<HasLength>().length() > f64::from(u32::MAX) {
        return Err(invalid_input(format!("{what} is too long (4 GiB or more)")));
    }
    Ok(array)
}

/// A secret's or a plaintext's bytes, wiped when dropped.
///
/// # Errors
///
/// `invalid_input` when `v` is not a `Uint8Array`.
pub fn secret_bytes(v: &JsValue, what: &str) -> JsResult<WipedBytes> {
    bytes(v, what).map(WipedBytes::new)
}

/// A fixed-size byte argument (a key, a hash).
///
/// # Errors
///
/// `invalid_input` when `v` is not a `Uint8Array`, `invalid_key` when it
/// does not hold exactly `N` bytes.
pub fn array<const N: usize>(v: &JsValue, what: &str) -> JsResult<[u8; N]> {
    let b = secret_bytes(v, what)?;
    b.as_slice()
        .try_into()
        .map_err(|_| invalid_key(format!("{what} must be {N} bytes, got {}", b.len())))
}

/// An X25519 private key (32 bytes, clamped).
///
/// # Errors
///
/// `invalid_input` / `invalid_key` as [`array`]; `invalid_key` for an
/// unclamped key.
pub fn static_secret(v: &JsValue, what: &str) -> JsResult<StaticSecret> {
    let a = Zeroizing::new(array::<32>(v, what)?);
    StaticSecret::from_bytes(&a)
        .map_err(|_| invalid_key(format!("{what}: invalid X25519 private key")))
}

/// A JavaScript number that must be an integer in `0..=max`.
///
/// # Errors
///
/// `invalid_input` when `n` is not an integer or is out of range.
pub fn int(n: f64, max: u64, what: &str) -> JsResult<u64> {
    // 2^53: every integer up to it is exact in an f64.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if !(n.fract() == 0.0 && (0.0..=EXACT).contains(&n) && n <= max as f64) {
        return Err(invalid_input(format!(
            "{what} must be an integer from 0 to {max}"
        )));
    }
    // Checked above: a non-negative integer no larger than 2^53.
    Ok(n as u64)
}

/// A `u32` argument.
///
/// # Errors
///
/// As [`int`].
pub fn u32_arg(n: f64, what: &str) -> JsResult<u32> {
    int(n, u64::from(u32::MAX), what).map(|v| v as u32)
}

/// A `u8` argument.
///
/// # Errors
///
/// As [`int`].
pub fn u8_arg(n: f64, what: &str) -> JsResult<u8> {
    int(n, u64::from(u8::MAX), what).map(|v| v as u8)
}

/// A `usize` argument (at most 2^32 - 1 on wasm32).
///
/// # Errors
///
/// As [`int`].
pub fn usize_arg(n: f64, what: &str) -> JsResult<usize> {
    int(n, usize::MAX as u64, what).map(|v| v as usize)
}

/// A time in milliseconds (`now`): a non-negative integer up to 2^53.
///
/// # Errors
///
/// As [`int`].
pub fn millis(n: f64) -> JsResult<u64> {
    int(n, 1 << 53, "now")
}

/// A string argument.
///
/// # Errors
///
/// `invalid_input` when `v` is not a string.
pub fn string(v: &JsValue, what: &str) -> JsResult<String> {
    v.as_string()
        .ok_or_else(|| invalid_input(format!("{what} must be a string")))
}

/// Field `name` of an options object; `None` when `options` is
/// `undefined`/`null` or the field is missing or `undefined`.
///
/// # Errors
///
/// `invalid_input` when `options` is neither an object nor
/// `undefined`/`null`.
pub fn option(options: &JsValue, name: &str) -> JsResult<Option<JsValue>> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(invalid_input("options must be an object"));
    }
    let v = Reflect::get(options, &JsValue::from_str(name))
        .map_err(|_| invalid_input(format!("options.{name} cannot be read")))?;
    Ok((!v.is_undefined()).then_some(v))
}

/// A numeric option: an integer in `0..=max`, or `None` when absent.
///
/// # Errors
///
/// As [`option`]; `invalid_input` for a value that is not such an integer.
pub fn int_option(options: &JsValue, name: &str, max: u64) -> JsResult<Option<u64>> {
    match option(options, name)? {
        None => Ok(None),
        Some(v) => {
            let n = v
                .as_f64()
                .ok_or_else(|| invalid_input(format!("options.{name} must be a number")))?;
            int(n, max, &format!("options.{name}")).map(Some)
        }
    }
}

/// A string option, or `None` when absent.
///
/// # Errors
///
/// As [`option`]; `invalid_input` for a value that is not a string.
pub fn string_option(options: &JsValue, name: &str) -> JsResult<Option<String>> {
    match option(options, name)? {
        None => Ok(None),
        Some(v) => string(&v, &format!("options.{name}")).map(Some),
    }
}

/// A boolean option, or `None` when absent.
///
/// # Errors
///
/// As [`option`]; `invalid_input` for a value that is not a boolean.
pub fn bool_option(options: &JsValue, name: &str) -> JsResult<Option<bool>> {
    match option(options, name)? {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| invalid_input(format!("options.{name} must be a boolean"))),
    }
}

/// The items of a JavaScript array argument.
///
/// # Errors
///
/// `invalid_input` when `v` is not an array.
pub fn array_items(v: &JsValue, what: &str) -> JsResult<Vec<JsValue>> {
    if !js_sys::Array::is_array(v) {
        return Err(invalid_input(format!("{what} must be an array")));
    }
    Ok(js_sys::Array::from(v).iter().collect())
}

/// The bytes of every `Uint8Array` of an array argument, copied into the
/// module (an item's error names its index).
///
/// # Errors
///
/// `invalid_input` when `v` is not an array or an item is not a
/// `Uint8Array`.
pub fn byte_arrays(v: &JsValue, what: &str) -> JsResult<Vec<Vec<u8>>> {
    array_items(v, what)?
        .iter()
        .enumerate()
        .map(|(i, item)| match item.dyn_ref::<Uint8Array>() {
            Some(_) => bytes(item, what),
            None => Err(invalid_input(format!("{what}[{i}] must be a Uint8Array"))),
        })
        .collect()
}

/// A plain object `{ key: value, ... }` built from pairs.
///
/// # Errors
///
/// Never in practice (setting a field on a fresh object does not fail).
pub fn object(fields: &[(&str, JsValue)]) -> JsResult<JsValue> {
    let o = js_sys::Object::new();
    for (k, v) in fields {
        Reflect::set(&o, &JsValue::from_str(k), v)?;
    }
    Ok(o.into())
}

/// Bytes out, as a fresh `Uint8Array`.
pub fn to_js(b: &[u8]) -> Uint8Array {
    Uint8Array::from(b)
}
