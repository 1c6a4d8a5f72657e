//! The gateway's settings: one set of names for the command line (`--name`)
//! and the configuration file (`name = …` in TOML), checked once when the
//! gateway is built ([`Gateway::new`](crate::Gateway::new)), so that a
//! mistake stops it at start with the setting's name and the reason.

use crate::endpoint::Endpoint;
use crate::page::TileUrl;
use crate::store::StoreUrl;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use wireseal::meshtastic::{NodeId, SignaturePolicy};

/// Why a setting cannot be used. Its `Display` is `--NAME: REASON`, the
/// setting's name as the command line and the file spell it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--{setting}: {reason}")]
pub struct ConfigError {
    /// The setting (`broker`, `store`, `key-file`, ...).
    pub setting: &'static str,
    /// What is wrong with it (never a secret's value).
    pub reason: String,
}

impl ConfigError {
    /// An error of `setting`.
    pub fn new(setting: &'static str, reason: impl Into<String>) -> Self {
        Self {
            setting,
            reason: reason.into(),
        }
    }
}

/// MQTT protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MqttVersion {
    /// MQTT 3.1.1.
    #[default]
    V311,
    /// MQTT 5.
    V5,
}

impl<'de> Deserialize<'de> for MqttVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            N(u8),
            S(String),
        }
        match Either::deserialize(d)? {
            Either::N(3) => Ok(MqttVersion::V311),
            Either::N(5) => Ok(MqttVersion::V5),
            Either::S(s) if s == "3" || s == "3.1.1" => Ok(MqttVersion::V311),
            Either::S(s) if s == "5" => Ok(MqttVersion::V5),
            _ => Err(serde::de::Error::custom("mqtt-version: 3 or 5")),
        }
    }
}

/// Where the firmware's JSON goes (`firmware-json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FirmwareRoot {
    /// Under the root of the topic each envelope came on, as the firmware
    /// published its JSON beside its envelope (`msh/US/2/e/…` gives
    /// `msh/US/2/json/…`); an envelope on a topic of another shape is not
    /// published. `--firmware-json` without a value, `firmware-json = true`.
    Envelope,
    /// Under this root (`msh`, `msh/US`, ...), whatever the envelope's topic.
    Fixed(String),
}

impl From<&str> for FirmwareRoot {
    fn from(root: &str) -> Self {
        FirmwareRoot::Fixed(root.to_owned())
    }
}

impl From<String> for FirmwareRoot {
    fn from(root: String) -> Self {
        FirmwareRoot::Fixed(root)
    }
}

/// `firmware-json = true` (each envelope's root), `= false` (off) or
/// `= "ROOT"`.
fn firmware_root<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<FirmwareRoot>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        B(bool),
        S(String),
    }
    Ok(match Either::deserialize(d)? {
        Either::B(true) => Some(FirmwareRoot::Envelope),
        Either::B(false) => None,
        Either::S(s) => Some(FirmwareRoot::Fixed(s)),
    })
}

/// Every setting of the gateway as text, as the configuration file and the
/// command line give it. Field `foo_bar` is `--foo-bar` on the command line
/// and `foo-bar` in the file; `None`, empty and `false` mean "not given" (the
/// default applies). See docs/gateway.md for each. [`ConfigText::parse`]
/// makes the typed [`Config`] of it, once.
#[derive(Clone, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields, default)]
pub struct ConfigText {
    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`.
    pub broker: String,
    /// PEM CA certificates to trust for `mqtts://`.
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate chain.
    pub client_cert: Option<PathBuf>,
    /// PEM private key of the client certificate.
    pub client_key: Option<PathBuf>,
    /// MQTT 3.1.1 (default) or 5.
    pub mqtt_version: Option<MqttVersion>,
    /// The topic filter (default `msh/#`).
    pub topic: Option<String>,
    /// Subscribe as `$share/GROUP/<topic>`.
    pub shared: Option<String>,
    /// Republish each record under `PREFIX/<channel>/<!from>`.
    pub publish: Option<String>,
    /// Publish the firmware's JSON on `ROOT/2/json/<channel>/<!gateway>`:
    /// under each envelope's own root, or under one root.
    #[serde(deserialize_with = "firmware_root")]
    pub firmware_json: Option<FirmwareRoot>,
    /// Channels as `NAME=PSK` (default `LongFast=AQ==`).
    pub channel: Vec<String>,
    /// Node keys as `FILE` or `NODE=FILE`.
    pub key_file: Vec<String>,
    /// A node key in this environment variable.
    pub key_env: Option<String>,
    /// A directory of node keys.
    pub keys_dir: Option<PathBuf>,
    /// The node number of the one key given (default: derived from it).
    pub node: Option<String>,
    /// `compatible` (default), `balanced` or `strict`.
    pub signature_policy: Option<String>,
    /// MQTT user name.
    pub username: Option<String>,
    /// MQTT user name from this environment variable.
    pub username_env: Option<String>,
    /// MQTT password from this file.
    pub password_file: Option<PathBuf>,
    /// MQTT password from this environment variable.
    pub password_env: Option<String>,
    /// Counts to the log every this many seconds.
    pub stats: Option<u64>,
    /// Refuse (sender, id) pairs already seen.
    pub replay_window: bool,
    /// Stop after this many messages.
    pub max_packets: Option<u64>,
    /// Give up after this many failed attempts to reach the broker.
    pub max_retries: Option<u64>,
    /// `sqlite:PATH`, a bare path, `postgres://…` or `postgresql://…`.
    pub store: Option<String>,
    /// Messages held unacknowledged at most (default 40,000).
    pub store_buffer: Option<usize>,
    /// Each record as a JSON line on standard output (default: when there
    /// is no store).
    pub print_records: Option<bool>,
    /// The MQTT client id (needed with a store).
    pub client_id: Option<String>,
    /// Keep packets this long (`30d`, `12h`, `90m`, `45s`); default: forever.
    pub retain: Option<String>,
    /// Copies of a packet without an id within this window are one packet
    /// (default `10m`).
    pub dedup_window: Option<String>,
    /// Messages per second one node may send, on average (default 10; 0:
    /// no limit).
    pub flood_rate: Option<f64>,
    /// Messages one node may send at once above its rate (default 100).
    pub flood_burst: Option<u32>,
    /// Serve `/metrics`, `/healthz`, `/readyz`, the API and the status page
    /// on `ADDR` (`PORT` alone: loopback). Off by default.
    pub http: Option<String>,
    /// With `http`: draw the status page's positions over map tiles from
    /// this URL (`https://HOST/{z}/{x}/{y}.png`); the page's policy then
    /// allows images from that origin. Off by default: the page loads
    /// nothing from elsewhere.
    pub map_tiles: Option<String>,
    /// MeshCore observer feeds: topic filters (`meshcore/+/+/packets`)
    /// whose messages are MeshCore packets, as observer JSON or raw bytes.
    pub meshcore_topic: Vec<String>,
    /// MeshCore channel keys as `[NAME=]BASE64` (16 or 32 bytes).
    pub meshcore_channel_key: Vec<String>,
    /// MeshCore hashtag channels (`#name`: key SHA-256("#name")[0..16]).
    pub meshcore_hashtag: Vec<String>,
    /// The MeshCore public channel (`izOH6cXN6mrJ5e26oRXNcg==`).
    pub meshcore_public_channel: bool,
    /// Our MeshCore identities: files of 64 (a seed) or 128 (the
    /// firmware's `prv.key`) hex digits.
    pub meshcore_key_file: Vec<String>,
    /// MeshCore peers kept at most (default 65,536).
    pub meshcore_peer_limit: Option<usize>,
}

impl ConfigText {
    /// Reads a TOML file of settings.
    ///
    /// # Errors
    /// The file cannot be read or is not a valid settings file (an unknown
    /// name included).
    pub fn from_file(path: &std::path::Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::new("config", format!("{}: {e}", path.display())))?;
        Self::from_toml(&text)
            .map_err(|e| ConfigError::new("config", format!("{}: {}", path.display(), e.reason)))
    }

    /// Parses TOML settings.
    ///
    /// # Errors
    /// Not valid TOML, an unknown setting or a value of the wrong type.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::new("config", e.message().to_owned()))
    }

    /// These settings with every one given in `over` taking its place
    /// (command-line flags over a file).
    pub fn merged(self, over: ConfigText) -> ConfigText {
        let pick_vec = |a: Vec<String>, b: Vec<String>| if b.is_empty() { a } else { b };
        ConfigText {
            broker: if over.broker.is_empty() {
                self.broker
            } else {
                over.broker
            },
            ca_file: over.ca_file.or(self.ca_file),
            client_cert: over.client_cert.or(self.client_cert),
            client_key: over.client_key.or(self.client_key),
            mqtt_version: over.mqtt_version.or(self.mqtt_version),
            topic: over.topic.or(self.topic),
            shared: over.shared.or(self.shared),
            publish: over.publish.or(self.publish),
            firmware_json: over.firmware_json.or(self.firmware_json),
            channel: pick_vec(self.channel, over.channel),
            key_file: pick_vec(self.key_file, over.key_file),
            key_env: over.key_env.or(self.key_env),
            keys_dir: over.keys_dir.or(self.keys_dir),
            node: over.node.or(self.node),
            signature_policy: over.signature_policy.or(self.signature_policy),
            username: over.username.or(self.username),
            username_env: over.username_env.or(self.username_env),
            password_file: over.password_file.or(self.password_file),
            password_env: over.password_env.or(self.password_env),
            stats: over.stats.or(self.stats),
            replay_window: over.replay_window || self.replay_window,
            max_packets: over.max_packets.or(self.max_packets),
            max_retries: over.max_retries.or(self.max_retries),
            store: over.store.or(self.store),
            store_buffer: over.store_buffer.or(self.store_buffer),
            print_records: over.print_records.or(self.print_records),
            client_id: over.client_id.or(self.client_id),
            retain: over.retain.or(self.retain),
            dedup_window: over.dedup_window.or(self.dedup_window),
            flood_rate: over.flood_rate.or(self.flood_rate),
            flood_burst: over.flood_burst.or(self.flood_burst),
            http: over.http.or(self.http),
            map_tiles: over.map_tiles.or(self.map_tiles),
            meshcore_topic: pick_vec(self.meshcore_topic, over.meshcore_topic),
            meshcore_channel_key: pick_vec(self.meshcore_channel_key, over.meshcore_channel_key),
            meshcore_hashtag: pick_vec(self.meshcore_hashtag, over.meshcore_hashtag),
            meshcore_public_channel: over.meshcore_public_channel || self.meshcore_public_channel,
            meshcore_key_file: pick_vec(self.meshcore_key_file, over.meshcore_key_file),
            meshcore_peer_limit: over.meshcore_peer_limit.or(self.meshcore_peer_limit),
        }
    }
}

/// Every setting of the gateway, typed: what [`ConfigText::parse`] makes of
/// the text the file and the command line give (fields as there; see
/// [`ConfigText`] for each). What can be checked of one value alone is
/// checked there; what depends on several, on files or on the machine is
/// checked by [`Gateway::new`](crate::Gateway::new).
#[derive(Clone, Default)]
pub struct Config {
    /// The broker (`mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`);
    /// [`Gateway::new`](crate::Gateway::new) requires it.
    pub broker: Option<Endpoint>,
    /// PEM CA certificates to trust for `mqtts://`.
    pub ca_file: Option<PathBuf>,
    /// PEM client certificate chain.
    pub client_cert: Option<PathBuf>,
    /// PEM private key of the client certificate.
    pub client_key: Option<PathBuf>,
    /// MQTT 3.1.1 (default) or 5.
    pub mqtt_version: Option<MqttVersion>,
    /// The topic filter (default `msh/#`).
    pub topic: Option<String>,
    /// Subscribe as `$share/GROUP/<topic>`.
    pub shared: Option<String>,
    /// Republish each record under `PREFIX/<channel>/<!from>`.
    pub publish: Option<String>,
    /// Publish the firmware's JSON on `ROOT/2/json/<channel>/<!gateway>`.
    pub firmware_json: Option<FirmwareRoot>,
    /// Channels as `NAME=PSK` (default `LongFast=AQ==`).
    pub channel: Vec<String>,
    /// Node keys as `FILE` or `NODE=FILE`.
    pub key_file: Vec<String>,
    /// A node key in this environment variable.
    pub key_env: Option<String>,
    /// A directory of node keys.
    pub keys_dir: Option<PathBuf>,
    /// The node number of the one key given (default: derived from it).
    pub node: Option<NodeId>,
    /// The signature policy (default: the firmware's, compatible).
    pub signature_policy: Option<SignaturePolicy>,
    /// MQTT user name.
    pub username: Option<String>,
    /// MQTT user name from this environment variable.
    pub username_env: Option<String>,
    /// MQTT password from this file.
    pub password_file: Option<PathBuf>,
    /// MQTT password from this environment variable.
    pub password_env: Option<String>,
    /// Counts to the log every this many seconds.
    pub stats: Option<u64>,
    /// Refuse (sender, id) pairs already seen.
    pub replay_window: bool,
    /// Stop after this many messages.
    pub max_packets: Option<u64>,
    /// Give up after this many failed attempts to reach the broker.
    pub max_retries: Option<u64>,
    /// The store.
    pub store: Option<StoreUrl>,
    /// Messages held unacknowledged at most (default 40,000).
    pub store_buffer: Option<usize>,
    /// Each record as a JSON line on standard output (default: when there
    /// is no store).
    pub print_records: Option<bool>,
    /// The MQTT client id (needed with a store).
    pub client_id: Option<String>,
    /// Keep packets this long; default: forever.
    pub retain: Option<Duration>,
    /// Copies of a packet without an id within this window are one packet
    /// (default 10 minutes).
    pub dedup_window: Option<Duration>,
    /// Messages per second one node may send, on average (default 10; 0:
    /// no limit).
    pub flood_rate: Option<f64>,
    /// Messages one node may send at once above its rate (default 100).
    pub flood_burst: Option<u32>,
    /// Serve the read side on this address.
    pub http: Option<SocketAddr>,
    /// With `http`: the status page's map tiles
    /// (`https://HOST/{z}/{x}/{y}.png`); [`Gateway::new`](crate::Gateway::new)
    /// refuses them without `http`.
    pub map_tiles: Option<TileUrl>,
    /// MeshCore observer feeds' topic filters, each checked as an MQTT
    /// filter.
    pub meshcore_topic: Vec<String>,
    /// MeshCore channel keys as `[NAME=]BASE64`.
    pub meshcore_channel_key: Vec<String>,
    /// MeshCore hashtag channels.
    pub meshcore_hashtag: Vec<String>,
    /// The MeshCore public channel.
    pub meshcore_public_channel: bool,
    /// Files of our MeshCore identities.
    pub meshcore_key_file: Vec<String>,
    /// MeshCore peers kept at most (default 65,536).
    pub meshcore_peer_limit: Option<usize>,
}

impl Config {
    /// Reads and parses a TOML file of settings.
    ///
    /// # Errors
    /// As [`ConfigText::from_file`], then [`ConfigText::parse`].
    pub fn from_file(path: &std::path::Path) -> Result<Self, ConfigError> {
        ConfigText::from_file(path)?.parse()
    }

    /// Parses TOML settings.
    ///
    /// # Errors
    /// As [`ConfigText::from_toml`], then [`ConfigText::parse`].
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        ConfigText::from_toml(text)?.parse()
    }
}

/// How a setting that may hold a secret (a channel's PSK, a MeshCore
/// channel key, a password in a broker or store URL) shows in `Debug`: how
/// many values were given, never their text.
struct Withheld(usize);

impl std::fmt::Debug for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            0 => f.write_str("None"),
            n => write!(f, "<{n} withheld>"),
        }
    }
}

/// How many values a setting holds (an empty text: none).
trait Given {
    fn given(&self) -> usize;
}

impl Given for String {
    fn given(&self) -> usize {
        usize::from(!self.is_empty())
    }
}

impl Given for Option<String> {
    fn given(&self) -> usize {
        self.as_ref().map_or(0, Given::given)
    }
}

impl Given for Vec<String> {
    fn given(&self) -> usize {
        self.len()
    }
}

/// `Debug` for a settings struct: each field by name, the `withheld` ones
/// as [`Withheld`]. The pattern names every field, so a field added to the
/// struct must be sorted into one list here before it compiles.
macro_rules! settings_debug {
    ($ty:ident; shown: $($shown:ident),+; withheld: $($secret:ident),+) => {
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let Self { $($shown,)+ $($secret,)+ } = self;
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($shown), $shown))+
                    $(.field(stringify!($secret), &Withheld($secret.given())))+
                    .finish()
            }
        }
    };
}

settings_debug!(ConfigText;
    shown: ca_file, client_cert, client_key, mqtt_version, topic, shared, publish,
        firmware_json, key_file, key_env, keys_dir, node, signature_policy, username,
        username_env, password_file, password_env, stats, replay_window, max_packets,
        max_retries, store_buffer, print_records, client_id, retain, dedup_window, flood_rate,
        flood_burst, http, map_tiles, meshcore_topic, meshcore_hashtag, meshcore_public_channel,
        meshcore_key_file, meshcore_peer_limit;
    withheld: broker, store, channel, meshcore_channel_key);

settings_debug!(Config;
    shown: broker, ca_file, client_cert, client_key, mqtt_version, topic, shared, publish,
        firmware_json, key_file, key_env, keys_dir, node, signature_policy, username,
        username_env, password_file, password_env, stats, replay_window, max_packets,
        max_retries, store, store_buffer, print_records, client_id, retain, dedup_window,
        flood_rate, flood_burst, http, map_tiles, meshcore_topic, meshcore_hashtag,
        meshcore_public_channel, meshcore_key_file, meshcore_peer_limit;
    withheld: channel, meshcore_channel_key);

/// `text` parsed for `setting`, the error in words.
fn parsed<T>(
    setting: &'static str,
    text: Option<&str>,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<Option<T>, ConfigError> {
    text.map(parse)
        .transpose()
        .map_err(|reason| ConfigError::new(setting, reason))
}

impl ConfigText {
    /// The typed settings: each value parsed by itself, the first that
    /// cannot be named with its reason.
    ///
    /// # Errors
    /// A node number, signature policy, store URL, duration, HTTP address,
    /// broker URL, tile URL or MeshCore topic filter that does not parse.
    pub fn parse(self) -> Result<Config, ConfigError> {
        let c = self;
        Ok(Config {
            node: parsed("node", c.node.as_deref(), |t| {
                t.parse::<NodeId>().map_err(|e| e.to_string())
            })?,
            signature_policy: parsed("signature-policy", c.signature_policy.as_deref(), |t| {
                t.parse::<SignaturePolicy>().map_err(|e| e.to_string())
            })?,
            store: parsed("store", c.store.as_deref(), |t| {
                t.parse::<StoreUrl>()
                    .map_err(|e| e.to_string().trim_start_matches("--store: ").to_owned())
            })?,
            retain: parsed("retain", c.retain.as_deref(), parse_duration)?,
            dedup_window: parsed("dedup-window", c.dedup_window.as_deref(), parse_duration)?,
            http: parsed("http", c.http.as_deref(), crate::http::parse_addr)?,
            broker: parsed(
                "broker",
                Some(c.broker.as_str()).filter(|b| !b.is_empty()),
                |t| t.parse::<Endpoint>().map_err(|e| e.to_string()),
            )?,
            ca_file: c.ca_file,
            client_cert: c.client_cert,
            client_key: c.client_key,
            mqtt_version: c.mqtt_version,
            topic: c.topic,
            shared: c.shared,
            publish: c.publish,
            firmware_json: c.firmware_json,
            channel: c.channel,
            key_file: c.key_file,
            key_env: c.key_env,
            keys_dir: c.keys_dir,
            username: c.username,
            username_env: c.username_env,
            password_file: c.password_file,
            password_env: c.password_env,
            stats: c.stats,
            replay_window: c.replay_window,
            max_packets: c.max_packets,
            max_retries: c.max_retries,
            store_buffer: c.store_buffer,
            print_records: c.print_records,
            client_id: c.client_id,
            flood_rate: c.flood_rate,
            flood_burst: c.flood_burst,
            map_tiles: parsed("map-tiles", c.map_tiles.as_deref(), |t| {
                t.parse::<TileUrl>().map_err(|e| e.to_string())
            })?,
            meshcore_topic: c
                .meshcore_topic
                .into_iter()
                .map(|t| crate::meshcore::topics::check_filter(&t).map(|()| t))
                .collect::<Result<_, _>>()
                .map_err(|reason| ConfigError::new("meshcore-topic", reason))?,
            meshcore_channel_key: c.meshcore_channel_key,
            meshcore_hashtag: c.meshcore_hashtag,
            meshcore_public_channel: c.meshcore_public_channel,
            meshcore_key_file: c.meshcore_key_file,
            meshcore_peer_limit: c.meshcore_peer_limit,
        })
    }
}

/// Parses a span of time: a number and a unit (`ms`, `s`, `m`, `h`, `d`),
/// or a bare number of seconds.
///
/// # Errors
/// Anything else, or a span over 100 years.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{text:?}: expected a number and a unit, e.g. 30d, 12h, 10m, 45s"))?;
    let ms = match unit.trim() {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        u => return Err(format!("{text:?}: unknown unit {u:?} (ms, s, m, h or d)")),
    };
    let total = n
        .checked_mul(ms)
        .filter(|&v| v <= 100 * 365 * 86_400_000)
        .ok_or_else(|| format!("{text:?}: too long"))?;
    Ok(Duration::from_millis(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_duration("12h"), Ok(Duration::from_secs(12 * 3_600)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        for bad in ["", "d", "-1d", "3w", "1.5h", "99999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn debug_output_withholds_keys_and_passwords() {
        let text = ConfigText {
            broker: "mqtt://broker-host".into(),
            store: Some("postgres://gw:hunter2@db/mesh".into()),
            channel: vec!["Ops=c2VjcmV0LXBzaw==".into(), "LongFast=AQ==".into()],
            meshcore_channel_key: vec!["team=bWVzaGNvcmUta2V5LTE2Yg==".into()],
            client_id: Some("gw-7".into()),
            ..ConfigText::default()
        };
        let shown = format!("{text:?}");
        for secret in ["broker-host", "hunter2", "c2VjcmV0", "AQ==", "bWVzaGNvcmU"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(shown.contains("channel: <2 withheld>"), "{shown}");
        assert!(shown.contains("store: <1 withheld>"), "{shown}");
        assert!(shown.contains("gw-7"), "{shown}");
        let config = text.parse().unwrap();
        let shown = format!("{config:?}");
        for secret in ["hunter2", "c2VjcmV0", "AQ==", "bWVzaGNvcmU"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert!(
            shown.contains("meshcore_channel_key: <1 withheld>"),
            "{shown}"
        );
        assert!(
            shown.contains("broker-host"),
            "the broker has no secret: {shown}"
        );
        assert!(format!("{:?}", Config::default()).contains("channel: None"));
    }

    #[test]
    fn file_names_are_the_flags_names() {
        let c = ConfigText::from_toml(
            r#"
            broker = "mqtt://127.0.0.1:1883"
            mqtt-version = 5
            channel = ["LongFast=AQ=="]
            key-file = ["!0a0b0c0d=/etc/wireseal/node.key"]
            store = "sqlite:/var/lib/wireseal/mesh.db"
            client-id = "gw-1"
            retain = "30d"
            flood-rate = 2.5
            firmware-json = "msh/US"
            "#,
        )
        .unwrap();
        assert_eq!(c.mqtt_version, Some(MqttVersion::V5));
        assert_eq!(c.retain.as_deref(), Some("30d"));
        let typed = c.clone().parse().unwrap();
        assert_eq!(typed.retain, Some(Duration::from_secs(30 * 86_400)));
        assert_eq!(
            typed.firmware_json,
            Some(FirmwareRoot::Fixed("msh/US".into()))
        );
        let on = ConfigText::from_toml("firmware-json = true").unwrap();
        assert_eq!(on.firmware_json, Some(FirmwareRoot::Envelope));
        let off = ConfigText::from_toml("firmware-json = false").unwrap();
        assert_eq!(off.firmware_json, None);
        assert_eq!(c.flood_rate, Some(2.5));
        let e = ConfigText::from_toml("brokr = \"x\"").unwrap_err();
        assert!(e.reason.contains("brokr"), "{e}");
        let over = ConfigText {
            client_id: Some("gw-2".into()),
            ..ConfigText::default()
        };
        let m = c.merged(over);
        assert_eq!(m.client_id.as_deref(), Some("gw-2"));
        assert_eq!(m.store.as_deref(), Some("sqlite:/var/lib/wireseal/mesh.db"));
    }
}
