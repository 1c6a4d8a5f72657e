//! The library [`Decoder`] the settings describe: channels, our nodes and
//! their keys, the signature policy, the replay window.

use crate::config::{Config, ConfigError};
use crate::keys;
use wireseal::meshtastic::{
    ChannelKey, Decoder, ReplayWindow, SignaturePolicy, DEFAULT_CHANNEL_NAME,
};

/// Notes about settings that are used, but maybe not as the operator meant
/// (a PSK the firmware zero-pads).
pub type Notes = Vec<String>;

/// The decoder `config` describes, and notes for the log.
///
/// # Errors
/// A channel that is not `NAME=PSK` or whose PSK the library refuses, a key
/// that cannot be read or used, or a signature policy that does not exist.
pub fn decoder(config: &Config) -> Result<(Decoder, Notes), ConfigError> {
    let policy = config
        .signature_policy
        .unwrap_or(SignaturePolicy::Compatible);
    let mut d = Decoder::new().with_signature_policy(policy);
    let mut notes = Vec::new();
    let default = [format!("{DEFAULT_CHANNEL_NAME}=AQ==")];
    let list = if config.channel.is_empty() {
        &default[..]
    } else {
        &config.channel[..]
    };
    for c in list {
        let Some((name, psk)) = c.split_once('=') else {
            let name = c.split(':').next().unwrap_or("");
            return Err(ConfigError::new(
                "channel",
                format!("expected NAME=PSK, got {name:?}… (the PSK is not shown)"),
            ));
        };
        if name.is_empty() {
            return Err(ConfigError::new(
                "channel",
                "a channel needs a name (NAME=PSK)",
            ));
        }
        let key: ChannelKey = psk.parse().map_err(|e: wireseal::meshtastic::Error| {
            ConfigError::new("channel", format!("{name}: {e}"))
        })?;
        if let Some(n) = key.padded_from() {
            notes.push(format!(
                "--channel {name}: the PSK is {n} bytes; it is zero-padded to {} bytes, as the firmware does",
                key.expanded().len()
            ));
        }
        d.add_channel_key(name, key);
    }
    let node_keys = keys::load(
        &config.key_file,
        config.key_env.as_deref(),
        config.keys_dir.as_deref(),
        config.node,
    )?;
    for k in node_keys {
        d.add_node(k.node, k.secret)
            .map_err(|e| ConfigError::new("key-file", format!("{}: {e}", k.source)))?;
    }
    if config.node.is_some() && d.our_nodes().is_empty() {
        return Err(ConfigError::new(
            "node",
            "names the node of a key: give --key-file or --key-env too",
        ));
    }
    if config.replay_window {
        d = d.with_replay_window(ReplayWindow::default());
    }
    Ok((d, notes))
}
