//! `wireseal/peat`: peat-btle mesh keys from genesis, mesh-wide frames,
//! per-peer E2EE sessions and the encryption policy. Mesh ids, names and
//! their rules come from `wireseal::peat`; this module converts and calls.

mod mesh;
mod policy;
mod sessions;

pub use mesh::{Genesis, MeshSealer};
pub use policy::decide;
pub use sessions::PeerSessions;

use crate::args;
use crate::errors::{self, JsResult};
use wasm_bindgen::prelude::*;
use wireseal::peat as pt;

/// A mesh id argument, by the library's rule (any case in, upper case
/// kept).
fn parse_id(v: &JsValue, what: &str) -> JsResult<pt::MeshId> {
    args::string(v, what)?.parse().map_err(errors::peat)
}

/// The mesh id (8 upper-case hex digits) of mesh `name` with `seed` (32
/// bytes).
///
/// # Errors
///
/// `invalid_input` for an empty name; `too_long` for a name over 65535
/// bytes; `invalid_key` for a seed that is not 32 bytes.
#[wasm_bindgen(js_name = peat_meshId)]
pub fn mesh_id(
    #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] seed: JsValue,
) -> JsResult<String> {
    let name = args::string(&name, "name")?;
    let seed = zeroize::Zeroizing::new(args::array::<32>(&seed, "seed")?);
    Ok(pt::mesh_id(&name, &seed).map_err(errors::peat)?.to_string())
}

/// A mesh id as every driver uses it (upper case).
///
/// # Errors
///
/// `invalid_input` or `too_long` when it is not one.
#[wasm_bindgen(js_name = peat_parseMeshId)]
pub fn parse_mesh_id(
    #[wasm_bindgen(js_name = meshId, unchecked_param_type = "string")] mesh_id: JsValue,
) -> JsResult<String> {
    Ok(parse_id(&mesh_id, "meshId")?.to_string())
}

/// Size of a mesh-wide frame for a document of `plaintextLen` bytes.
///
/// # Errors
///
/// `invalid_input` for a length that is not a non-negative integer, or
/// one no frame can have.
#[wasm_bindgen(js_name = peat_sealedLen)]
pub fn sealed_len(#[wasm_bindgen(js_name = plaintextLen)] plaintext_len: f64) -> JsResult<usize> {
    let n = args::usize_arg(plaintext_len, "plaintextLen")?;
    n.checked_add(pt::MESH_OVERHEAD)
        .map(|_| pt::sealed_len(n))
        .ok_or_else(|| errors::invalid_input("plaintextLen is too large"))
}
