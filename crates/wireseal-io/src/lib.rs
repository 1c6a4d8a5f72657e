//! What wireseal's drivers (the command line, the Python package, the
//! gateway, the bench) share and the protocol library must not do itself:
//! the library is sans-IO (bytes and `now` in, bytes and events out), so the
//! file system and anything else a driver needs in common lives here.
//!
//! - [`partial`]: [`PartialFile`], an output file written beside its target
//!   and moved into place only when complete (AES Crypt's
//!   [`ProvisionalSink`](wireseal::aescrypt::ProvisionalSink) for plaintext
//!   that is not verified yet), and the clean-up of what killed runs left.
//! - [`traffic`]: reproducible test traffic for v2 sessions, which the
//!   command line sends and the bench measures.
//! - [`record`]: a decoded Meshtastic or MeshCore packet's record as one
//!   line of JSON, the same bytes from the gateway, the command line and
//!   Python.
//! - [`firmware_json`]: the JSON object the 2.7 firmware published on MQTT
//!   for a decoded Meshtastic packet, the same bytes from the gateway and
//!   the npm package.

pub mod firmware_json;
pub mod partial;
pub mod record;
pub mod traffic;

pub use partial::{clean_up_leftovers, Leftovers, PartialFile, Replace, PARTIAL_PREFIX};
