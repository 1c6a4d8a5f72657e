//! The meshtastic-mqtt-json peer (PyPI 3.0.0): an interpreter that imports
//! `meshtastic_mqtt_json` and the peer script
//! (`interop/meshtastic/mqtt_json_peer.py`, embedded) written to the cache
//! directory.

use super::{last_line, python_with, PythonScript, Skip};
use std::sync::OnceLock;

const PEER: &str = include_str!("../../../../interop/meshtastic/mqtt_json_peer.py");

/// The meshtastic-mqtt-json peer script and its interpreter. Its arguments:
/// `check`, `serve` (the protocol is in the script's docstring).
pub type MeshtasticMqttJson = PythonScript;

/// The meshtastic-mqtt-json peer, found once per process.
///
/// # Errors
///
/// [`Skip`] when python3 or meshtastic-mqtt-json (with the `meshtastic`
/// protobufs it imports) is missing, or the script cannot be written to the
/// cache directory.
pub fn meshtastic_mqtt_json() -> Result<MeshtasticMqttJson, Skip> {
    static PEER_FOUND: OnceLock<Result<MeshtasticMqttJson, Skip>> = OnceLock::new();
    PEER_FOUND
        .get_or_init(|| {
            let pin = "`python3 -m pip install meshtastic-mqtt-json==3.0.0`";
            let python = python_with("meshtastic_mqtt_json").map_err(|_| {
                Skip::new(format!("python3 cannot import meshtastic_mqtt_json; {pin}"))
            })?;
            let peer = PythonScript::cached(python, "mqtt_json_peer", PEER)?;
            let o = peer
                .command(["check"])
                .output()
                .map_err(|e| Skip::new(format!("python3 not runnable: {e}")))?;
            if !o.status.success() {
                return Err(Skip::new(format!(
                    "meshtastic-mqtt-json does not load ({}); {pin}",
                    last_line(&o.stderr)
                )));
            }
            Ok(peer)
        })
        .clone()
}
