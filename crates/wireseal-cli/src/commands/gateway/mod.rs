//! `wireseal meshtastic gateway`: decode a live Meshtastic MQTT feed
//! (channel packets, PKC direct messages to our node, XEdDSA signatures) and
//! write one JSON object per packet. The decoding is the library's sans-IO
//! [`wireseal::meshtastic::Decoder`]; this module owns the broker connection,
//! time, signals and output. See docs/gateway.md.

mod mqtt;
mod report;
pub mod store;
mod tls;

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{Decoder, ReplayWindow};
use zeroize::Zeroizing;

/// Arguments of `wireseal meshtastic gateway`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The broker: mqtt://HOST[:PORT] (1883) or mqtts://HOST[:PORT] (8883, TLS).
    #[arg(long, value_name = "URL")]
    broker: String,
    /// PEM file of the CA certificates that sign the broker's certificate (mqtts://; default: the system's roots).
    #[arg(long, value_name = "FILE")]
    ca_file: Option<std::path::PathBuf>,
    /// PEM client certificate chain, for brokers that require one (mqtts://; needs --client-key).
    #[arg(long, value_name = "FILE", requires = "client_key")]
    client_cert: Option<std::path::PathBuf>,
    /// PEM private key of --client-cert (read capped at 64 KiB; neither its path nor contents are shown).
    #[arg(long, value_name = "FILE", requires = "client_cert")]
    client_key: Option<std::path::PathBuf>,
    /// MQTT protocol version.
    #[arg(long, value_enum, default_value = "3")]
    mqtt_version: mqtt::Version,
    /// Topic filter to subscribe to.
    #[arg(long, default_value = "msh/#")]
    topic: String,
    /// Subscribe as $share/GROUP/<topic>, so gateways in one group split the feed.
    #[arg(long, value_name = "GROUP")]
    shared: Option<String>,
    /// Also publish each JSON object under PREFIX/<channel_id>/<!from>.
    #[arg(long, value_name = "PREFIX")]
    publish: Option<String>,
    /// A channel as NAME=BASE64PSK (repeatable; default LongFast=AQ==).
    #[arg(long = "channel", value_name = "NAME=BASE64PSK")]
    channels: Vec<String>,
    /// Our node's X25519 private key (hex or base64) in this file, for PKC direct messages.
    #[arg(long, value_name = "FILE", conflicts_with = "key_env")]
    key_file: Option<std::path::PathBuf>,
    /// Our node's private key (hex or base64) in this environment variable.
    #[arg(long, value_name = "VAR")]
    key_env: Option<String>,
    /// Our node number (!hex, 0x hex or decimal); PKC packets to other nodes cost no key agreement.
    #[arg(long, value_name = "NODE", value_parser = parse_node)]
    node: Option<u32>,
    /// MQTT username.
    #[arg(long, value_name = "NAME", conflicts_with = "username_env")]
    username: Option<String>,
    /// MQTT username from this environment variable.
    #[arg(long, value_name = "VAR")]
    username_env: Option<String>,
    /// MQTT password from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "password_env")]
    password_file: Option<std::path::PathBuf>,
    /// MQTT password from this environment variable.
    #[arg(long, value_name = "VAR")]
    password_env: Option<String>,
    /// Print counts per outcome to stderr every SECONDS.
    #[arg(long, value_name = "SECONDS")]
    stats: Option<u64>,
    /// Refuse (sender, id) pairs already seen (also drops copies of one packet from several gateways).
    #[arg(long)]
    replay_window: bool,
    /// Stop after this many packets (for scripts and tests).
    #[arg(long, value_name = "N")]
    max_packets: Option<u64>,
}

/// Parses a node number: `!hex`, `0x` hex or decimal.
pub fn parse_node(s: &str) -> std::result::Result<u32, String> {
    match s.strip_prefix('!') {
        Some(h) => {
            u32::from_str_radix(h, 16).map_err(|e| format!("{s:?}: not a !hex node id ({e})"))
        }
        None => crate::util::parse_u32(s),
    }
}

fn b64(s: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(s))
        .ok()
}

fn build_decoder(a: &Args) -> Result<Decoder> {
    let mut d = Decoder::new();
    let defaults = ["LongFast=AQ==".to_owned()];
    let list = if a.channels.is_empty() {
        &defaults[..]
    } else {
        &a.channels[..]
    };
    for c in list {
        let (name, psk) = c.split_once('=').with_context(|| {
            format!(
                "--channel: expected NAME=BASE64PSK, got {name:?}",
                name = c.split('=').next().unwrap_or("")
            )
        })?;
        let psk = Zeroizing::new(
            b64(psk).with_context(|| format!("--channel {name}: PSK is not base64 (not shown)"))?,
        );
        d.add_channel(name, &psk)
            .with_context(|| format!("--channel {name}"))?;
    }
    let key = match (&a.key_file, &a.key_env) {
        (Some(f), _) => Some(crate::util::secret::read_secret_text(
            None,
            Some(f),
            None,
            ["--key", "--key-file", "--key-env"],
        )?),
        (None, Some(v)) => Some(crate::util::secret::read_secret_text(
            None,
            None,
            Some(v),
            ["--key", "--key-file", "--key-env"],
        )?),
        (None, None) => None,
    };
    match (key, a.node) {
        (Some(text), Some(node)) => {
            let bytes: Zeroizing<[u8; 32]> = if text.len() == 64 {
                crate::util::secret_hex::<32>(&text, "node key")?
            } else {
                let v = Zeroizing::new(b64(&text).context("node key: neither 64 hex digits nor base64 (not shown)")?);
                Zeroizing::new(v.as_slice().try_into().map_err(|_| anyhow::anyhow!("node key: {} bytes, expected 32", v.len()))?)
            };
            let own = StaticSecret::from_bytes(&bytes).context("node key: invalid X25519 private key")?;
            d.set_node(node, own);
        }
        (Some(_), None) => bail!("--key-file/--key-env needs --node (our node number) to tell which PKC packets are ours"),
        (None, _) => {}
    }
    if a.replay_window {
        d.set_replay_window(ReplayWindow::default());
    }
    Ok(d)
}

fn credentials(a: &Args) -> Result<Option<(String, String)>> {
    let user = match (&a.username, &a.username_env) {
        (Some(u), _) => Some(u.clone()),
        (None, Some(v)) => {
            Some(std::env::var(v).with_context(|| format!("environment variable {v} is not set"))?)
        }
        (None, None) => None,
    };
    let pass = match (&a.password_file, &a.password_env) {
        (None, None) => None,
        (f, v) => Some(crate::util::secret::read_secret_text(
            None,
            f.as_deref(),
            v.as_deref(),
            ["--password", "--password-file", "--password-env"],
        )?),
    };
    Ok(match (user, pass) {
        (None, None) => None,
        (Some(u), p) => Some((u, p.map(|p| p.to_string()).unwrap_or_default())),
        (None, Some(_)) => bail!("an MQTT password needs --username or --username-env"),
    })
}

/// Runs the gateway until SIGINT (exit 0 with a summary) or `--max-packets`.
pub fn run(a: Args) -> Result<()> {
    let decoder = build_decoder(&a)?;
    let endpoint = mqtt::Endpoint::parse(&a.broker)?;
    let files = tls::Files {
        ca: a.ca_file.as_deref(),
        client_cert: a.client_cert.as_deref(),
        client_key: a.client_key.as_deref(),
    };
    let tls = match (endpoint.tls, files.any()) {
        (true, _) => Some(tls::client_config(files)?),
        (false, true) => bail!("--ca-file, --client-cert and --client-key need an mqtts:// broker"),
        (false, false) => None,
    };
    let filter = match &a.shared {
        Some(g) if g.is_empty() || g.contains(['/', '+', '#']) => {
            bail!("--shared: a group name without '/', '+' or '#'")
        }
        Some(g) => format!("$share/{g}/{}", a.topic),
        None => a.topic.clone(),
    };
    let settings = mqtt::Settings {
        endpoint,
        version: a.mqtt_version,
        client_id: format!(
            "wireseal-gw-{}-{:08x}",
            std::process::id(),
            u32::from_le_bytes(wireseal::entropy::random_array())
        ),
        credentials: credentials(&a)?,
        max_packet: 1 << 20,
        tls,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || s.store(true, Ordering::SeqCst))
        .context("installing the SIGINT handler")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(drive(a, decoder, settings, filter, stop))
}

async fn drive(
    a: Args,
    mut decoder: Decoder,
    settings: mqtt::Settings,
    filter: String,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let mut client = mqtt::Client::new(&settings);
    let mut stats = report::Stats::default();
    let mut log = report::Log::default();
    let start = Instant::now();
    let mut backoff = Duration::from_millis(100);
    let mut next_stats = a
        .stats
        .map(|s| Instant::now() + Duration::from_secs(s.max(1)));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut ticker = tokio::time::interval(Duration::from_millis(200));
    loop {
        if stop.load(Ordering::SeqCst)
            || a.max_packets.is_some_and(|m| {
                stats.get("packets") + stats.get("malformed") + stats.get("oversized") >= m
            })
        {
            break;
        }
        if let Some(t) = next_stats {
            if Instant::now() >= t {
                out.flush()?;
                eprintln!("{}", serde_json::json!({ "stats": stats.to_json() }));
                next_stats = Some(t + Duration::from_secs(a.stats.unwrap_or(1).max(1)));
            }
        }
        let ev = tokio::select! {
            ev = client.poll() => ev,
            _ = ticker.tick() => { out.flush()?; continue; }
        };
        match ev {
            Ok(mqtt::Incoming::Connected) => {
                backoff = Duration::from_millis(100);
                client.subscribe(&filter)?;
                eprintln!(
                    "wireseal gateway: connected to {}:{}, subscribed to {filter}",
                    settings.endpoint.host, settings.endpoint.port
                );
            }
            Ok(mqtt::Incoming::Publish { topic, payload }) => {
                let now = start.elapsed().as_millis() as u64;
                match decoder.decode(now, &payload) {
                    Ok(d) => {
                        stats.record(&d);
                        if let Some(wireseal::meshtastic::decoder::KeyEvent::Conflict {
                            node,
                            ..
                        }) = d.key_event
                        {
                            log.line("key-conflict", &format!("node !{node:08x} announced a key other than its pinned one (kept the pinned key)"));
                        }
                        if let Some(e) = d.error {
                            if !matches!(e.reason(), "pkc-not-for-us" | "replay") {
                                log.line(
                                    e.reason(),
                                    &format!(
                                        "packet {:#010x} from !{:08x} on {topic}",
                                        d.id, d.from
                                    ),
                                );
                            }
                        }
                        let v = wireseal_bench::gateway_json::packet_json(&decoder, &d);
                        let line = v.to_string();
                        writeln!(out, "{line}")?;
                        if let Some(p) = &a.publish {
                            if !client.publish(
                                &format!("{p}/{}/!{:08x}", d.channel_id, d.from),
                                line.into_bytes(),
                            ) {
                                stats.bump("publish_dropped");
                            }
                        }
                    }
                    Err(e) => {
                        let kind = if matches!(e, wireseal::meshtastic::Error::TooLong { .. }) {
                            "oversized"
                        } else {
                            "malformed"
                        };
                        stats.bump(kind);
                        log.line(kind, &format!("{} bytes on {topic}: {e}", payload.len()));
                    }
                }
            }
            Ok(mqtt::Incoming::Other) => {}
            Err(e) => {
                stats.bump("connection_errors");
                log.line(
                    "connection",
                    &format!("{e}; retrying in {} ms", backoff.as_millis()),
                );
                out.flush()?;
                let sleep = tokio::time::sleep(backoff);
                tokio::pin!(sleep);
                loop {
                    tokio::select! {
                        _ = &mut sleep => break,
                        _ = tokio::time::sleep(Duration::from_millis(50)) => if stop.load(Ordering::SeqCst) { break },
                    }
                }
                backoff = (backoff * 2).min(Duration::from_secs(10));
            }
        }
    }
    out.flush()?;
    eprintln!("{}", serde_json::json!({ "summary": stats.to_json() }));
    Ok(())
}
