//! `wireseal meshtastic gateway`: the flags of the gateway's library
//! ([`wireseal_gateway`]), which owns the service (Meshtastic, and MeshCore
//! observer feeds with `--meshcore-topic`); this module only parses them
//! (or `--config FILE`) and runs it. See docs/gateway.md.

pub mod decode;

use anyhow::{Context, Result};
use std::path::PathBuf;
use wireseal_gateway::config::{ConfigText, FirmwareRoot};
use wireseal_gateway::{Event, Gateway, MqttVersion};

/// MQTT protocol version on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Version {
    /// MQTT 3.1.1.
    #[value(name = "3")]
    V311,
    /// MQTT 5.
    #[value(name = "5")]
    V5,
}

/// The decoder's settings, shared by `gateway` and `decode`.
#[derive(Debug, Clone, clap::Args)]
pub struct DecoderArgs {
    /// A channel as NAME=PSK (repeatable; default LongFast=AQ==). PSK: base64 as the apps show it, hex:HEX, none, default or simpleN.
    #[arg(long = "channel", value_name = "NAME=PSK")]
    channels: Vec<String>,
    /// A node key of ours (64 hex digits or base64) in FILE, for PKC direct messages to that node; NODE=FILE names its node, else it is the key's crc32 (firmware 2.8's number). Repeatable.
    #[arg(long, value_name = "[NODE=]FILE")]
    key_file: Vec<String>,
    /// A node key of ours in this environment variable.
    #[arg(long, value_name = "VAR")]
    key_env: Option<String>,
    /// A directory of node keys: a file named !0a0b0c0d (or !0a0b0c0d.key) is that node's, another's node is its key's crc32.
    #[arg(long, value_name = "DIR")]
    keys_dir: Option<PathBuf>,
    /// The node number of the one key given (!hex, 0x hex or decimal; default: the key's crc32).
    #[arg(long, value_name = "NODE")]
    node: Option<String>,
    /// Judge signatures as a node with this packet_signature_policy would: compatible (the firmware's default), balanced or strict.
    #[arg(long, value_name = "POLICY")]
    signature_policy: Option<String>,
}

impl DecoderArgs {
    /// These settings into `c`.
    pub fn apply(&self, c: &mut ConfigText) {
        c.channel = self.channels.clone();
        c.key_file = self.key_file.clone();
        c.key_env = self.key_env.clone();
        c.keys_dir = self.keys_dir.clone();
        c.node = self.node.clone();
        c.signature_policy = self.signature_policy.clone();
    }
}

/// Arguments of `wireseal meshtastic gateway`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Read the settings from this TOML file (names as the flags', without "--"); flags given as well take precedence.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The broker: mqtt://HOST[:PORT] (1883) or mqtts://HOST[:PORT] (8883, TLS).
    #[arg(long, value_name = "URL")]
    broker: Option<String>,
    /// PEM file of the CA certificates that sign the broker's certificate (mqtts://; default: the system's roots).
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
    /// PEM client certificate chain, for brokers that require one (mqtts://; needs --client-key).
    #[arg(long, value_name = "FILE")]
    client_cert: Option<PathBuf>,
    /// PEM private key of --client-cert (read capped at 64 KiB; neither its path nor contents are shown).
    #[arg(long, value_name = "FILE")]
    client_key: Option<PathBuf>,
    /// MQTT protocol version (default 3).
    #[arg(long, value_enum)]
    mqtt_version: Option<Version>,
    /// Topic filter to subscribe to (default msh/#, which includes the PKI topics of direct messages).
    #[arg(long)]
    topic: Option<String>,
    /// Subscribe as $share/GROUP/<topic>, so gateways in one group split the feed.
    #[arg(long, value_name = "GROUP")]
    shared: Option<String>,
    /// Also publish each JSON object under PREFIX/<channel_id>/<!from>.
    #[arg(long, value_name = "PREFIX")]
    publish: Option<String>,
    /// Publish the 2.7 firmware's JSON for every decoded packet on ROOT/2/json/<channel>/<!gateway>; without ROOT, under the root of the topic each envelope came on (msh/US/2/e/… gives msh/US/2/json/…), as the firmware published it.
    #[arg(long, value_name = "ROOT", num_args = 0..=1)]
    #[allow(clippy::option_option)]
    firmware_json: Option<Option<String>>,
    /// Channels, our nodes and keys, signature policy.
    #[command(flatten)]
    decoder: DecoderArgs,
    /// MQTT username.
    #[arg(long, value_name = "NAME", conflicts_with = "username_env")]
    username: Option<String>,
    /// MQTT username from this environment variable.
    #[arg(long, value_name = "VAR")]
    username_env: Option<String>,
    /// MQTT password from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "password_env")]
    password_file: Option<PathBuf>,
    /// MQTT password from this environment variable.
    #[arg(long, value_name = "VAR")]
    password_env: Option<String>,
    /// Print counts to stderr every SECONDS.
    #[arg(long, value_name = "SECONDS")]
    stats: Option<u64>,
    /// Refuse (sender, id) pairs already seen (also drops copies of one packet from several gateways).
    #[arg(long)]
    replay_window: bool,
    /// Stop after this many messages (for scripts and tests).
    #[arg(long, value_name = "N")]
    max_packets: Option<u64>,
    /// Give up (exit 1) after N failed attempts in a row to reach the broker (default: retry without limit, said in the log every minute).
    #[arg(long, value_name = "N")]
    max_retries: Option<u64>,
    /// Store every packet and reception in a database: sqlite:PATH (or a bare path), postgres://… or postgresql://… (needs --client-id). Messages are taken at QoS 1 and acknowledged once stored.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// With --store: messages received and not yet committed held at most (default 40000); when full the gateway stops reading from the broker.
    #[arg(long, value_name = "N")]
    store_buffer: Option<usize>,
    /// With --store: remove packets older than this (30d, 12h, 90m), in small batches while the gateway runs; nodes stay.
    #[arg(long, value_name = "AGE")]
    retain: Option<String>,
    /// Copies of a packet without an id (map reports) within this window are one packet (default 10m).
    #[arg(long, value_name = "AGE")]
    dedup_window: Option<String>,
    /// Messages per second one node may send on average; more are refused and counted (default 10; 0: no limit).
    #[arg(long, value_name = "N")]
    flood_rate: Option<f64>,
    /// Messages one node may send at once above its rate (default 100).
    #[arg(long, value_name = "N")]
    flood_burst: Option<u32>,
    /// Serve /metrics, /healthz, /readyz, the JSON API and the status page on ADDR (PORT alone: loopback only). Off by default.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// With --http: draw the status page's positions over map tiles from URL (https://HOST/{z}/{x}/{y}.png); the page's policy then allows images from that origin. Off by default (the page loads nothing from elsewhere).
    #[arg(long, value_name = "URL")]
    map_tiles: Option<String>,
    /// Subscribe to a MeshCore observer feed (repeatable): a topic filter such as meshcore/+/+/packets whose messages are observers' JSON objects or raw packets.
    #[arg(long, value_name = "FILTER")]
    meshcore_topic: Vec<String>,
    /// A MeshCore channel key as [NAME=]BASE64 (16 or 32 bytes; repeatable).
    #[arg(long, value_name = "[NAME=]BASE64")]
    meshcore_channel_key: Vec<String>,
    /// A MeshCore hashtag channel (#name; repeatable).
    #[arg(long, value_name = "NAME")]
    meshcore_hashtag: Vec<String>,
    /// The MeshCore public channel (izOH6cXN6mrJ5e26oRXNcg==).
    #[arg(long)]
    meshcore_public_channel: bool,
    /// A MeshCore identity of ours in FILE: 64 hex digits (a seed) or 128 (the firmware's prv.key); repeatable. Files named *.meshcore in --keys-dir are read too.
    #[arg(long, value_name = "FILE")]
    meshcore_key_file: Vec<String>,
    /// MeshCore peers (keys of verified adverts) kept at most (default 65536).
    #[arg(long, value_name = "N")]
    meshcore_peer_limit: Option<usize>,
    /// With --store: also print each record as a JSON line on stdout (without a store they always are).
    #[arg(long)]
    print_records: bool,
    /// MQTT client id (default: a fresh one per run). With --store, the same id across restarts resumes the broker's session, so what was not stored is delivered again.
    #[arg(long, value_name = "ID")]
    client_id: Option<String>,
    /// Write "subscribed" to FILE once the broker accepted the subscription (for scripts and service managers).
    #[arg(long, value_name = "FILE")]
    ready_file: Option<PathBuf>,
}

impl Args {
    /// The settings the flags give, as text.
    fn config(&self) -> ConfigText {
        let mut c = ConfigText {
            broker: self.broker.clone().unwrap_or_default(),
            ca_file: self.ca_file.clone(),
            client_cert: self.client_cert.clone(),
            client_key: self.client_key.clone(),
            mqtt_version: self.mqtt_version.map(|v| match v {
                Version::V311 => MqttVersion::V311,
                Version::V5 => MqttVersion::V5,
            }),
            topic: self.topic.clone(),
            shared: self.shared.clone(),
            publish: self.publish.clone(),
            firmware_json: self.firmware_json.as_ref().map(|r| match r {
                Some(root) => FirmwareRoot::Fixed(root.clone()),
                None => FirmwareRoot::Envelope,
            }),
            username: self.username.clone(),
            username_env: self.username_env.clone(),
            password_file: self.password_file.clone(),
            password_env: self.password_env.clone(),
            stats: self.stats,
            replay_window: self.replay_window,
            max_packets: self.max_packets,
            max_retries: self.max_retries,
            store: self.store.clone(),
            store_buffer: self.store_buffer,
            print_records: self.print_records.then_some(true),
            client_id: self.client_id.clone(),
            retain: self.retain.clone(),
            dedup_window: self.dedup_window.clone(),
            flood_rate: self.flood_rate,
            flood_burst: self.flood_burst,
            http: self.http.clone(),
            map_tiles: self.map_tiles.clone(),
            meshcore_topic: self.meshcore_topic.clone(),
            meshcore_channel_key: self.meshcore_channel_key.clone(),
            meshcore_hashtag: self.meshcore_hashtag.clone(),
            meshcore_public_channel: self.meshcore_public_channel,
            meshcore_key_file: self.meshcore_key_file.clone(),
            meshcore_peer_limit: self.meshcore_peer_limit,
            ..ConfigText::default()
        };
        self.decoder.apply(&mut c);
        c
    }
}

/// Runs the gateway until SIGINT (exit 0 with a summary), `--max-packets`,
/// a closed output, or an error (exit 1 with the reason).
pub fn run(a: Args) -> Result<()> {
    let file = match &a.config {
        Some(p) => ConfigText::from_file(p)?,
        None => ConfigText::default(),
    };
    let mut gw = Gateway::new(file.merged(a.config()).parse()?)?;
    let stop = gw.stop_handle();
    ctrlc::set_handler(move || stop.stop()).context("installing the SIGINT handler")?;
    if let Some(path) = a.ready_file {
        gw.on_event(move |e| {
            if matches!(e, Event::Subscribed { .. }) {
                let _ = std::fs::write(&path, "subscribed\n");
            }
        });
    }
    gw.run()?;
    Ok(())
}
