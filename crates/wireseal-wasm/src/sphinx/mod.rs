//! `wireseal/sphinx`: Lightning BOLT #4 onions (build, peel, batch peel),
//! failure packets with attribution data ([`failure`]), fulfills
//! ([`fulfill`]), onion messages and blinded paths. Areas, padding, hop
//! numbers (from 1) and field names are the library's, as in the Python
//! package and on the command line.
//!
//! The published package draws every session key (an onion's, a blinded
//! path's) from the platform's CSPRNG; the tests' build (`test-vectors`)
//! adds `buildWithSessionKey` and `blindPathWithSessionKey` for BOLT #4's
//! vectors.
//!
//! Results are plain objects (`Peeled`, `FailurePacket`, `Unwrapped`, ...,
//! declared below for TypeScript); absent fields (Python's `None`) are
//! `undefined`.

mod failure;
mod fulfill;

pub use failure::{
    failure_create, failure_unwrap, failure_unwrap_batch, failure_wrap, hop_shared_secret,
    malformed,
};
pub use fulfill::{
    fulfill_create, fulfill_relay, fulfill_unwrap, fulfill_wrap, fulfillment_padded,
};

use crate::args::{self, to_js};
use crate::errors::{self, invalid_input, invalid_key, JsResult};
use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::secret::Secret;
use wireseal::sphinx::{self as sx, Area, Hop, Onion, Padding, Peeled as RPeeled, Route};
use zeroize::Zeroizing;

#[wasm_bindgen(typescript_custom_section)]
const SPHINX_TYPES: &'static str = r#"
import type { WiresealError as sphinx_WiresealError } from '../errors.js';
/** A payload area: `'payment'` (1300 bytes), `'message-large'` (32768), or its size in bytes. */
export type sphinx_Area = 'payment' | 'message-large' | number;
/** Whether attribution data was absent, vouched for every hop that can vouch, or broke. */
export type sphinx_Attribution = 'valid' | 'absent' | 'broken';
/** An onion and the shared secret of each hop, in path order (keep them to read a failure). */
export interface sphinx_Built {
  readonly onion: Uint8Array;
  readonly sharedSecrets: Uint8Array[];
}
/** One peeled layer. */
export interface sphinx_Peeled {
  /** This hop's TLV payload (without its length prefix). */
  readonly payload: Uint8Array;
  /** The onion for the next hop; `undefined` when this hop is the recipient. */
  readonly nextOnion: Uint8Array | undefined;
  /** This hop's shared secret (to create or wrap a failure or a fulfill). */
  readonly sharedSecret: Uint8Array;
  /** True when this hop is the final recipient. */
  readonly isFinal: boolean;
}
/** A peeled layer, or the error peeling that onion alone throws. */
export type sphinx_PeelResult = sphinx_Peeled | sphinx_WiresealError;
/** A blinded path as its creator computes it. */
export interface sphinx_BlindedPath {
  /** The first hop's path key (33 bytes), given to the sender. */
  readonly firstPathKey: Uint8Array;
  /** The blinded node id of each hop (33 bytes each). */
  readonly blindedNodeIds: Uint8Array[];
  /** The sealed `encrypted_recipient_data` of each hop. */
  readonly encryptedData: Uint8Array[];
}
/** A failure packet and its attribution data (`undefined` without attribution). */
export interface sphinx_FailurePacket {
  readonly packet: Uint8Array;
  readonly attributionData: Uint8Array | undefined;
}
/** What the origin learns from a failure (hops counted from 1). */
export interface sphinx_Unwrapped {
  /** The failing hop; `undefined` when no hop's HMAC verifies. */
  readonly hop: number | undefined;
  /** Its failure message; `undefined` when there is no such hop or it is malformed. */
  readonly message: Uint8Array | undefined;
  /** Hold times in milliseconds, one per hop that vouched, in path order. */
  readonly holdTimesMs: number[];
  readonly attribution: sphinx_Attribution;
  /** The hop to blame, or `undefined`. */
  readonly blamedHop: number | undefined;
}
/** An unwrapped failure, or the error unwrapping that item alone throws. */
export type sphinx_UnwrapResult = sphinx_Unwrapped | sphinx_WiresealError;
/** The hold times of a fulfilled HTLC and its payload (hops counted from 1). */
export interface sphinx_HoldTimes {
  readonly holdTimesMs: number[];
  readonly attribution: sphinx_Attribution;
  readonly blamedHop: number | undefined;
  readonly payloadStatus: 'absent' | 'valid' | 'ignored';
  /** The payload's records without padding, when valid. */
  readonly payload: Uint8Array | undefined;
  /** Why the payload is ignored. */
  readonly payloadError: string | undefined;
}
/** What a hop sends back with `update_fulfill_htlc` (`undefined` where absent). */
export interface sphinx_Fulfilled {
  readonly payload: Uint8Array | undefined;
  readonly attributionData: Uint8Array | undefined;
}
/** The `update_fail_malformed_htlc` reply to an onion that does not peel. */
export interface sphinx_Malformed {
  readonly failureCode: number;
  readonly failure: 'invalid_onion_version' | 'invalid_onion_hmac' | 'invalid_onion_key';
  readonly sha256OfOnion: Uint8Array;
  /** The failure code and the hash: the message the hop before passes to `failureCreate`. */
  readonly message: Uint8Array;
}
"#;

/// A secp256k1 private key argument (32 bytes, non-zero, below the order).
pub(crate) fn private_key(v: &JsValue, what: &str) -> JsResult<PrivateKey> {
    let a = Zeroizing::new(args::array::<32>(v, what)?);
    PrivateKey::from_bytes(&a)
        .map_err(|_| invalid_key(format!("{what}: invalid secp256k1 private key")))
}

/// A secp256k1 public key argument (33 bytes compressed, or 65).
pub(crate) fn public_key(v: &JsValue, what: &str) -> JsResult<PublicKey> {
    PublicKey::from_slice(&args::bytes(v, what)?).map_err(|_| {
        invalid_key(format!(
            "{what}: invalid secp256k1 public key (33 bytes, compressed)"
        ))
    })
}

/// A hop's shared secret argument (32 bytes).
pub(crate) fn shared_secret(v: &JsValue, what: &str) -> JsResult<sx::SharedSecret> {
    let a = Zeroizing::new(args::array::<32>(v, what)?);
    Ok(Secret::new(*a))
}

/// An optional bytes argument: `undefined` and `null` are `None`.
pub(crate) fn optional_bytes(v: &JsValue, what: &str) -> JsResult<Option<Vec<u8>>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    args::bytes(v, what).map(Some)
}

/// An optional bytes field of an options object.
pub(crate) fn bytes_option(options: &JsValue, name: &str) -> JsResult<Option<Vec<u8>>> {
    match args::option(options, name)? {
        None => Ok(None),
        Some(v) => optional_bytes(&v, &format!("options.{name}")),
    }
}

/// An optional bytes result: `undefined` for `None`.
pub(crate) fn optional_js(b: Option<&[u8]>) -> JsValue {
    b.map_or(JsValue::UNDEFINED, |b| to_js(b).into())
}

/// An optional count result (a hop number): `undefined` for `None`.
pub(crate) fn optional_number(n: Option<usize>) -> JsValue {
    n.map_or(JsValue::UNDEFINED, |n| JsValue::from_f64(n as f64))
}

/// A JavaScript array of byte strings.
pub(crate) fn byte_list<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> Array {
    items.into_iter().map(|b| JsValue::from(to_js(b))).collect()
}

/// The items of a fixed-size tuple argument (`[a, b]`).
pub(crate) fn tuple<const N: usize>(
    v: &JsValue,
    what: &str,
    shape: &str,
) -> JsResult<[JsValue; N]> {
    args::array_items(v, what)?
        .try_into()
        .map_err(|_| invalid_input(format!("{what} must be {shape}")))
}

/// A route's hops: `[[publicKey, payload], ...]`.
fn hop_list(v: &JsValue, what: &str) -> JsResult<Vec<(PublicKey, Vec<u8>)>> {
    args::array_items(v, what)?
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let at = format!("{what}[{i}]");
            let [k, p] = tuple::<2>(h, &at, "[publicKey, payload]")?;
            Ok((
                public_key(&k, &format!("{at}[0]"))?,
                args::bytes(&p, &format!("{at}[1]"))?,
            ))
        })
        .collect()
}

/// An area as JavaScript gives it: its name (`"payment"`,
/// `"message-large"`, or a decimal size) or its size in bytes.
fn area(v: &JsValue, what: &str) -> JsResult<Area> {
    if let Some(name) = v.as_string() {
        return name.parse().map_err(errors::sphinx);
    }
    let n = v
        .as_f64()
        .ok_or_else(|| invalid_input(format!("{what} must be a string or a number")))?;
    Area::try_from(args::usize_arg(n, what)?).map_err(errors::sphinx)
}

fn build_with(
    session_key: &PrivateKey,
    hops: &JsValue,
    associated_data: &JsValue,
    options: &JsValue,
) -> JsResult<JsValue> {
    let hops = hop_list(hops, "hops")?;
    let associated_data = args::bytes(associated_data, "associatedData")?;
    let area = match args::option(options, "area")? {
        None => Area::default(),
        Some(v) => area(&v, "options.area")?,
    };
    let padding = match args::string_option(options, "padding")? {
        None => Padding::default(),
        Some(n) => n.parse().map_err(errors::sphinx)?,
    };
    let route_hops: Vec<Hop<'_>> = hops
        .iter()
        .map(|(k, p)| Hop {
            pubkey: *k,
            payload: p,
        })
        .collect();
    let route = Route::new(&route_hops, &associated_data)
        .with_area(area)
        .with_padding(padding);
    let (onion, secrets) = sx::build_to_vec(session_key, &route).map_err(errors::sphinx)?;
    let secrets = byte_list(secrets.as_slice().iter().map(|s| &s.expose()[..]));
    args::object(&[
        ("onion", to_js(&onion).into()),
        ("sharedSecrets", secrets.into()),
    ])
}

/// Builds an onion over `hops` (`[[publicKey, payload], ...]`, first to
/// last; each payload a TLV stream without its length prefix) whose HMACs
/// commit to `associatedData` (the payment hash; empty for onion
/// messages), with a fresh session key from the platform's CSPRNG. Returns
/// `{ onion, sharedSecrets }`: the packet and one 32-byte shared secret per
/// hop (keep them to read a failure or a fulfill). Options: `area`
/// (`"payment"`, 1300 bytes, the default; `"message-large"`, 32768; or
/// the size in bytes) and `padding` (`"deterministic"`, BOLT #4's
/// `pad`-key stream, the default, or `"random"`).
///
/// # Errors
///
/// `invalid_key` for a hop key that is not a curve point; `too_long` when
/// the hop frames do not fit in the area; `invalid_input` for no hops, an
/// empty payload, an unknown area or padding, or arguments of the wrong
/// type.
#[wasm_bindgen(js_name = sphinx_build, unchecked_return_type = "sphinx_Built")]
pub fn build(
    #[wasm_bindgen(unchecked_param_type = "ReadonlyArray<readonly [Uint8Array, Uint8Array]>")]
    hops: JsValue,
    #[wasm_bindgen(js_name = associatedData, unchecked_param_type = "Uint8Array")]
    associated_data: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ area?: sphinx_Area, padding?: 'deterministic' | 'random' }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    build_with(&PrivateKey::random(), &hops, &associated_data, &options)
}

/// [`build`] with a caller-chosen session key (the tests' build only: a
/// reused session key links onions, so the package draws it).
///
/// # Errors
///
/// `invalid_key` for an unusable session key, otherwise as [`build`].
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(
    js_name = sphinx_buildWithSessionKey,
    unchecked_return_type = "sphinx_Built"
)]
pub fn build_with_session_key(
    #[wasm_bindgen(js_name = sessionKey, unchecked_param_type = "Uint8Array")] session_key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ReadonlyArray<readonly [Uint8Array, Uint8Array]>")]
    hops: JsValue,
    #[wasm_bindgen(js_name = associatedData, unchecked_param_type = "Uint8Array")]
    associated_data: JsValue,
    #[wasm_bindgen(
        unchecked_optional_param_type = "{ area?: sphinx_Area, padding?: 'deterministic' | 'random' }"
    )]
    options: Option<JsValue>,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let key = private_key(&session_key, "sessionKey")?;
    build_with(&key, &hops, &associated_data, &options)
}

fn peeled(p: &RPeeled) -> JsResult<JsValue> {
    let next = match p {
        RPeeled::Forward { next, .. } => Some(next.to_vec()),
        RPeeled::Final { .. } => None,
    };
    args::object(&[
        ("payload", to_js(p.payload()).into()),
        ("nextOnion", optional_js(next.as_deref())),
        ("sharedSecret", to_js(p.shared_secret().expose()).into()),
        ("isFinal", JsValue::from_bool(next.is_none())),
    ])
}

/// Peels one layer of a payment onion (1366 bytes) with `nodeKey` or, with
/// option `message: true`, of an onion message (1366 or 32834 bytes).
///
/// # Errors
///
/// `auth` when the HMAC does not verify (wrong key or associated data, or
/// tampered); `truncated` / `too_long` / `unsupported` for a packet of the
/// wrong size or version; `invalid_key` for an ephemeral key that is not a
/// curve point or an unusable node key; `malformed` for a hop frame that
/// does not parse; `invalid_input` for arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_peel, unchecked_return_type = "sphinx_Peeled")]
pub fn peel(
    #[wasm_bindgen(js_name = nodeKey, unchecked_param_type = "Uint8Array")] node_key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] onion: JsValue,
    #[wasm_bindgen(js_name = associatedData, unchecked_param_type = "Uint8Array")]
    associated_data: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "{ message?: boolean }")] options: Option<
        JsValue,
    >,
) -> JsResult<JsValue> {
    let options = options.unwrap_or(JsValue::UNDEFINED);
    let key = private_key(&node_key, "nodeKey")?;
    let onion = args::bytes(&onion, "onion")?;
    let associated_data = args::bytes(&associated_data, "associatedData")?;
    let message = args::bool_option(&options, "message")?.unwrap_or(false);
    let o = if message {
        Onion::parse_message(&onion)
    } else {
        Onion::parse(&onion)
    }
    .map_err(errors::sphinx)?;
    peeled(&o.peel(&key, &associated_data).map_err(errors::sphinx)?)
}

/// Peels many payment onions `[[onion, associatedData], ...]` with
/// `nodeKey`. Returns, in input order, a `Peeled` or the `WiresealError`
/// that peeling that onion alone would throw.
///
/// # Errors
///
/// `invalid_key` for an unusable node key; `invalid_input` for arguments
/// of the wrong type.
#[wasm_bindgen(js_name = sphinx_peelBatch, unchecked_return_type = "sphinx_PeelResult[]")]
pub fn peel_batch(
    #[wasm_bindgen(js_name = nodeKey, unchecked_param_type = "Uint8Array")] node_key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ReadonlyArray<readonly [Uint8Array, Uint8Array]>")]
    items: JsValue,
) -> JsResult<Array> {
    let key = private_key(&node_key, "nodeKey")?;
    let items = args::array_items(&items, "items")?
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let at = format!("items[{i}]");
            let [o, a] = tuple::<2>(it, &at, "[onion, associatedData]")?;
            Ok((
                args::bytes(&o, &format!("{at}[0]"))?,
                args::bytes(&a, &format!("{at}[1]"))?,
            ))
        })
        .collect::<JsResult<Vec<_>>>()?;
    items
        .iter()
        .map(
            |(o, a)| match Onion::parse(o).and_then(|o| o.peel(&key, a)) {
                Ok(p) => peeled(&p),
                Err(e) => Ok(errors::sphinx(e)),
            },
        )
        .collect()
}

fn blind_with(session_key: &PrivateKey, hops: &JsValue) -> JsResult<JsValue> {
    let hops = hop_list(hops, "hops")?;
    let pairs: Vec<(PublicKey, &[u8])> = hops.iter().map(|(k, d)| (*k, d.as_slice())).collect();
    let p = sx::blinding::blind_path(session_key, &pairs).map_err(errors::sphinx)?;
    let ids: Vec<_> = p
        .hops
        .iter()
        .map(|h| h.blinded_node_id.serialize())
        .collect();
    args::object(&[
        ("firstPathKey", to_js(&p.first_path_key.serialize()).into()),
        (
            "blindedNodeIds",
            byte_list(ids.iter().map(|i| &i[..])).into(),
        ),
        (
            "encryptedData",
            byte_list(p.hops.iter().map(|h| h.encrypted_data.as_slice())).into(),
        ),
    ])
}

/// Builds a blinded path over `hops` = `[[nodeId, recipientData], ...]`
/// with a fresh session key from the platform's CSPRNG.
///
/// # Errors
///
/// `invalid_key` for a node id that is not a curve point; `invalid_input`
/// for no hops or arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_blindPath, unchecked_return_type = "sphinx_BlindedPath")]
pub fn blind_path(
    #[wasm_bindgen(unchecked_param_type = "ReadonlyArray<readonly [Uint8Array, Uint8Array]>")]
    hops: JsValue,
) -> JsResult<JsValue> {
    blind_with(&PrivateKey::random(), &hops)
}

/// [`blind_path`] with a caller-chosen session key (the tests' build only).
///
/// # Errors
///
/// `invalid_key` for an unusable session key, otherwise as [`blind_path`].
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(
    js_name = sphinx_blindPathWithSessionKey,
    unchecked_return_type = "sphinx_BlindedPath"
)]
pub fn blind_path_with_session_key(
    #[wasm_bindgen(js_name = sessionKey, unchecked_param_type = "Uint8Array")] session_key: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ReadonlyArray<readonly [Uint8Array, Uint8Array]>")]
    hops: JsValue,
) -> JsResult<JsValue> {
    let key = private_key(&session_key, "sessionKey")?;
    blind_with(&key, &hops)
}

/// What a hop of a blinded path learns from its path key ([`unblind`]).
#[wasm_bindgen(js_name = sphinx_Unblinded)]
pub struct Unblinded {
    inner: sx::blinding::Unblinded,
}

#[wasm_bindgen(js_class = sphinx_Unblinded)]
impl Unblinded {
    /// The blinded private key (32 bytes) that peels this hop's onion
    /// layer.
    #[wasm_bindgen(getter, js_name = blindedPrivateKey)]
    pub fn blinded_private_key(&self) -> Uint8Array {
        to_js(self.inner.blinded_privkey().to_secret().expose())
    }

    /// Decrypts this hop's `encrypted_recipient_data`.
    ///
    /// # Errors
    ///
    /// `auth` when it does not authenticate; `truncated` when shorter than
    /// its tag; `invalid_input` for an argument of the wrong type.
    pub fn decrypt(
        &self,
        #[wasm_bindgen(js_name = encryptedData, unchecked_param_type = "Uint8Array")]
        encrypted_data: JsValue,
    ) -> JsResult<Uint8Array> {
        let data = args::bytes(&encrypted_data, "encryptedData")?;
        let v = Zeroizing::new(self.inner.open_to_vec(&data).map_err(errors::sphinx)?);
        Ok(to_js(&v))
    }

    /// The next hop's path key (33 bytes); `data` (the decrypted recipient
    /// data) may carry a `next_path_key_override`.
    ///
    /// # Errors
    ///
    /// `malformed` for data that is not a TLV stream; `invalid_key` for an
    /// override that is not a curve point; `invalid_input` for an argument
    /// of the wrong type.
    #[wasm_bindgen(js_name = nextPathKey)]
    pub fn next_path_key(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Uint8Array")] data: Option<JsValue>,
    ) -> JsResult<Uint8Array> {
        let k = match optional_bytes(&data.unwrap_or(JsValue::UNDEFINED), "data")? {
            Some(d) => self.inner.next_path_key_for(&d),
            None => self.inner.next_path_key(),
        }
        .map_err(errors::sphinx)?;
        Ok(to_js(&k.serialize()))
    }
}

/// At a hop of a blinded path: what `nodeKey` derives from `pathKey`.
///
/// # Errors
///
/// `invalid_key` for an unusable node key or a path key that is not a
/// curve point; `invalid_input` for arguments of the wrong type.
#[wasm_bindgen(js_name = sphinx_unblind)]
pub fn unblind(
    #[wasm_bindgen(js_name = nodeKey, unchecked_param_type = "Uint8Array")] node_key: JsValue,
    #[wasm_bindgen(js_name = pathKey, unchecked_param_type = "Uint8Array")] path_key: JsValue,
) -> JsResult<Unblinded> {
    let key = private_key(&node_key, "nodeKey")?;
    let pk = public_key(&path_key, "pathKey")?;
    let inner = sx::blinding::unblind(&key, &pk).map_err(errors::sphinx)?;
    Ok(Unblinded { inner })
}

/// The compressed public key (33 bytes) of a secp256k1 private key.
///
/// # Errors
///
/// `invalid_key` for a key that is not 32 bytes, zero or not below the
/// group order; `invalid_input` for an argument of the wrong type.
#[wasm_bindgen(js_name = sphinx_publicKeyOf)]
pub fn public_key_of(
    #[wasm_bindgen(js_name = privateKey, unchecked_param_type = "Uint8Array")] private_key: JsValue,
) -> JsResult<Uint8Array> {
    let k = self::private_key(&private_key, "privateKey")?;
    Ok(to_js(&k.public_key().serialize()))
}

/// Size of an onion with payload area `area` (a name or a size in bytes).
///
/// # Errors
///
/// `invalid_input` for an area other than the two BOLT #4 defines.
#[wasm_bindgen(js_name = sphinx_onionLen)]
pub fn onion_len(
    #[wasm_bindgen(unchecked_param_type = "sphinx_Area")] area: JsValue,
) -> JsResult<usize> {
    Ok(self::area(&area, "area")?.onion_len())
}
