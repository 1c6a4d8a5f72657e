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

/// The MeshCore side the settings describe: the feeds' topic filters, the
/// library's decoder with our channels and identities, each channel's name,
/// and the peer limit.
pub struct MeshcoreSetup {
    /// The topic filters, as given (not shared): a message whose topic
    /// matches one is MeshCore's.
    pub filters: Vec<String>,
    /// The decoder, with our channels and identities.
    pub decoder: wireseal::meshcore::Decoder,
    /// Each channel's name, in the decoder's order: `#name` for a hashtag,
    /// `public`, or the `NAME` of `NAME=BASE64` (none for a bare key).
    pub channel_names: Vec<Option<String>>,
}

impl std::fmt::Debug for MeshcoreSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeshcoreSetup")
            .field("filters", &self.filters)
            .field("decoder", &self.decoder)
            .field("channel_names", &self.channel_names)
            .finish()
    }
}

/// A channel's name from the settings: 1 to 64 bytes without control
/// characters.
fn channel_name(setting: &'static str, name: &str) -> Result<String, ConfigError> {
    if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
        return Err(ConfigError::new(
            setting,
            "a channel name of 1 to 64 bytes without control characters",
        ));
    }
    Ok(name.to_owned())
}

/// `[NAME=]BASE64`: a name before the first `=` unless what follows it is
/// only base64 padding (`key==` is a bare key).
fn named_key(spec: &str) -> (Option<&str>, &str) {
    match spec.split_once('=') {
        Some((name, key)) if !key.is_empty() && !key.bytes().all(|b| b == b'=') => {
            (Some(name), key)
        }
        _ => (None, spec),
    }
}

/// The MeshCore side `config` describes; `None` without a MeshCore topic.
///
/// # Errors
/// MeshCore keys or channels without a topic, a channel key that is not
/// base64 of 16 or 32 bytes, a hashtag the library refuses, a channel name
/// that cannot be one, or an identity that cannot be read or used.
pub fn meshcore(config: &Config) -> Result<Option<MeshcoreSetup>, ConfigError> {
    use wireseal::meshcore::{ChannelKey, Decoder, DEFAULT_CACHE_CAPACITY, DEFAULT_PEER_LIMIT};
    let c = config;
    let asked = !c.meshcore_channel_key.is_empty()
        || !c.meshcore_hashtag.is_empty()
        || c.meshcore_public_channel
        || !c.meshcore_key_file.is_empty()
        || c.meshcore_peer_limit.is_some();
    if c.meshcore_topic.is_empty() {
        return match asked {
            true => Err(ConfigError::new(
                "meshcore-topic",
                "MeshCore channels, keys and limits need a MeshCore feed (--meshcore-topic FILTER)",
            )),
            false => Ok(None),
        };
    }
    let limit = c.meshcore_peer_limit.unwrap_or(DEFAULT_PEER_LIMIT);
    let mut decoder = Decoder::with_limits(DEFAULT_CACHE_CAPACITY, limit);
    let mut names = Vec::new();
    if c.meshcore_public_channel {
        decoder.add_channel(ChannelKey::public());
        names.push(Some("public".to_owned()));
    }
    for tag in &c.meshcore_hashtag {
        let key = ChannelKey::hashtag(tag)
            .map_err(|e| ConfigError::new("meshcore-hashtag", e.to_string()))?;
        let bare = tag.strip_prefix('#').unwrap_or(tag);
        names.push(Some(channel_name("meshcore-hashtag", &format!("#{bare}"))?));
        decoder.add_channel(key);
    }
    for spec in &c.meshcore_channel_key {
        let (name, key) = named_key(spec);
        let name = name
            .map(|n| channel_name("meshcore-channel-key", n))
            .transpose()?;
        let key = ChannelKey::from_base64(key).map_err(|e| {
            let which = name.as_deref().unwrap_or("a channel key");
            ConfigError::new("meshcore-channel-key", format!("{which}: {e}"))
        })?;
        names.push(name);
        decoder.add_channel(key);
    }
    for k in keys::load_meshcore(&c.meshcore_key_file, c.keys_dir.as_deref())? {
        decoder.add_identity(k.identity);
    }
    Ok(Some(MeshcoreSetup {
        filters: c.meshcore_topic.clone(),
        decoder,
        channel_names: names,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshcore_channels_keys_and_names() {
        let none = Config::default();
        assert!(meshcore(&none).unwrap().is_none());
        let orphan = Config {
            meshcore_public_channel: true,
            ..Config::default()
        };
        assert_eq!(meshcore(&orphan).unwrap_err().setting, "meshcore-topic");
        let c = Config {
            meshcore_topic: vec!["meshcore/#".into()],
            meshcore_public_channel: true,
            meshcore_hashtag: vec!["#test".into(), "ops".into()],
            meshcore_channel_key: vec![
                "izOH6cXN6mrJ5e26oRXNcg==".into(),
                "Team=izOH6cXN6mrJ5e26oRXNcg==".into(),
            ],
            ..Config::default()
        };
        let s = meshcore(&c).unwrap().unwrap();
        assert_eq!(s.decoder.channels().len(), 5);
        let names: Vec<Option<&str>> = s.channel_names.iter().map(|n| n.as_deref()).collect();
        assert_eq!(
            names,
            [
                Some("public"),
                Some("#test"),
                Some("#ops"),
                None,
                Some("Team")
            ]
        );
        assert_eq!(s.decoder.channels()[0].hash(), 0x11);
        for (setting, bad) in [
            ("meshcore-channel-key", "Team=not base64!"),
            ("meshcore-channel-key", "AQ=="),
            ("meshcore-channel-key", "\u{1b}x=izOH6cXN6mrJ5e26oRXNcg=="),
        ] {
            let c = Config {
                meshcore_topic: vec!["meshcore/#".into()],
                meshcore_channel_key: vec![bad.into()],
                ..Config::default()
            };
            let e = meshcore(&c).unwrap_err();
            assert_eq!(e.setting, setting, "{bad}: {e}");
        }
        let c = Config {
            meshcore_topic: vec!["meshcore/#".into()],
            meshcore_hashtag: vec!["two words".into()],
            ..Config::default()
        };
        assert_eq!(meshcore(&c).unwrap_err().setting, "meshcore-hashtag");
    }
}
