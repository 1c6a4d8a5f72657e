//! What `gateway` and `decode` share: the channels, our node and its key,
//! and the signature policy, turned into a library
//! [`Decoder`](wireseal::meshtastic::Decoder).

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use wireseal::keys::StaticSecret;
use wireseal::meshtastic::{ChannelKey, Decoder, SignaturePolicy};
use zeroize::Zeroizing;

/// The decoder's configuration on the command line.
#[derive(Debug, clap::Args)]
pub struct DecoderArgs {
    /// A channel as NAME=PSK (repeatable; default LongFast=AQ==). PSK: base64 as the apps show it, hex:HEX, none, default or simpleN.
    #[arg(long = "channel", value_name = "NAME=PSK")]
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
    /// Judge signatures as a node with this packet_signature_policy would: compatible (the firmware's default), balanced or strict.
    #[arg(long, value_name = "POLICY", default_value = "compatible", value_parser = parse_policy)]
    signature_policy: SignaturePolicy,
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

fn parse_policy(s: &str) -> std::result::Result<SignaturePolicy, String> {
    s.parse()
        .map_err(|e: wireseal::meshtastic::Error| e.to_string())
}

impl DecoderArgs {
    /// The decoder these arguments describe.
    ///
    /// # Errors
    /// A channel that is not NAME=PSK or whose PSK the library refuses, a
    /// key that cannot be read or used, or a key without `--node`.
    pub fn decoder(&self) -> Result<Decoder> {
        let mut d = Decoder::new().with_signature_policy(self.signature_policy);
        let defaults = ["LongFast=AQ==".to_owned()];
        let list = if self.channels.is_empty() {
            &defaults[..]
        } else {
            &self.channels[..]
        };
        for c in list {
            let (name, psk) = c.split_once('=').with_context(|| {
                format!(
                    "--channel: expected NAME=PSK, got {name:?}",
                    name = c.split('=').next().unwrap_or("")
                )
            })?;
            let key: ChannelKey = psk.parse().with_context(|| format!("--channel {name}"))?;
            if let Some(n) = key.padded_from() {
                eprintln!(
                    "wireseal: note: --channel {name}: the PSK is {n} bytes; it is zero-padded \
                     to {} bytes, as the firmware does",
                    key.expanded().len()
                );
            }
            d.add_channel_key(name, key);
        }
        match (self.node_key()?, self.node) {
            (Some(own), Some(node)) => d = d.with_node(node, own).context("node key")?,
            (Some(_), None) => bail!(
                "--key-file/--key-env needs --node (our node number) to tell which PKC packets \
                 are ours"
            ),
            (None, _) => {}
        }
        Ok(d)
    }

    /// Our node's key, when one is given.
    fn node_key(&self) -> Result<Option<StaticSecret>> {
        let flags = ["--key", "--key-file", "--key-env"];
        let text = match (&self.key_file, &self.key_env) {
            (Some(f), _) => crate::util::secret::read_secret_text(None, Some(f), None, flags)?,
            (None, Some(v)) => crate::util::secret::read_secret_text(None, None, Some(v), flags)?,
            (None, None) => return Ok(None),
        };
        let bytes: Zeroizing<[u8; 32]> = if text.len() == 64 {
            crate::util::secret_hex::<32>(&text, "node key")?
        } else {
            let v = Zeroizing::new(
                base64::engine::general_purpose::STANDARD
                    .decode(text.as_bytes())
                    .ok()
                    .context("node key: neither 64 hex digits nor base64 (not shown)")?,
            );
            Zeroizing::new(
                v.as_slice()
                    .try_into()
                    .map_err(|_| anyhow::anyhow!("node key: {} bytes, expected 32", v.len()))?,
            )
        };
        Ok(Some(
            StaticSecret::from_bytes(&bytes).context("node key: invalid X25519 private key")?,
        ))
    }
}
