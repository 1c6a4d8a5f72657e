//! `wireseal v2` command-line arguments and their parsing.

use anyhow::{anyhow, Result};
use std::time::Duration;
use wireseal::bip324::Network;

/// `wireseal v2` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub(super) cmd: Cmd,
}

#[derive(clap::Subcommand)]
pub(super) enum Cmd {
    /// Accept v2 connections (responder); prints `listening on ADDR` first.
    Listen {
        /// Address to bind, e.g. 127.0.0.1:8333 (port 0 picks a free one).
        addr: String,
        /// Network: mainnet, testnet, testnet4, signet, regtest, or the magic as 8 hex digits.
        #[arg(long, default_value = "f9beb4d9")]
        magic: String,
        /// Echo every non-decoy packet's contents back.
        #[arg(long)]
        echo: bool,
        /// Most connections served at once; further ones are closed (a FIN,
        /// nothing sent) as soon as they are accepted, and the log says the
        /// listener is full (Bitcoin Core's default is 125).
        #[arg(long, default_value_t = 125, value_parser = clap::value_parser!(u32).range(1..))]
        max_connections: u32,
        /// Most connections served at once from one IP address; further ones
        /// from it are closed at once like those over --max-connections.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
        max_per_ip: u32,
        /// Seconds a peer gets to complete the handshake; a client that stays
        /// silent frees its slot after this.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        handshake_timeout: u64,
        /// Seconds one write to a peer may take; a peer that does not read its
        /// echoes is dropped after this.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        write_timeout: u64,
        /// Seconds per log interval: at most 20 connection lines are printed
        /// per interval, then one summary line counts what was left out.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        log_interval: u64,
    },
    /// Connect as initiator, send N packets from the mixed profile, check echoes.
    Connect {
        /// Address of a `v2 listen --echo` peer.
        addr: String,
        /// Network: mainnet, testnet, testnet4, signet, regtest, or the magic as 8 hex digits.
        #[arg(long, default_value = "f9beb4d9")]
        magic: String,
        /// Packets to send.
        #[arg(long, default_value_t = 1000)]
        count: usize,
        /// Seed of the packet-size generator.
        #[arg(long, default_value_t = 324)]
        seed: u64,
        /// Seconds the peer gets to complete the handshake.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        handshake_timeout: u64,
    },
}

/// Limits the listener puts on its peers, and how often it summarizes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Connections served at once.
    pub(super) max_connections: usize,
    /// Connections served at once from one IP address.
    pub(super) max_per_ip: usize,
    /// Time to complete the handshake.
    pub(super) handshake: Duration,
    /// Time one write may take.
    pub(super) write: Duration,
    /// Length of one log interval.
    pub(super) log_interval: Duration,
}

/// Parses a network magic: a network name (mainnet, testnet, testnet4,
/// signet, regtest) or 4 bytes of hex.
pub fn parse_magic(s: &str) -> Result<Network> {
    match s.trim().to_ascii_lowercase().as_str() {
        "mainnet" => return Ok(Network::MAINNET),
        "testnet" => return Ok(Network::TESTNET),
        "testnet4" => return Ok(Network::TESTNET4),
        "signet" => return Ok(Network::SIGNET),
        "regtest" => return Ok(Network::REGTEST),
        _ => {}
    }
    let t = s.trim();
    let t = t.strip_prefix("0x").unwrap_or(t);
    let b = hex::decode(t).map_err(|_| {
        anyhow!(
            "--magic: a network name (mainnet, testnet, testnet4, signet, regtest) or 8 hex digits"
        )
    })?;
    let m: [u8; 4] = b
        .try_into()
        .map_err(|_| anyhow!("--magic: need exactly 4 bytes (8 hex digits)"))?;
    Ok(Network::custom(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_parsing() {
        assert_eq!(parse_magic("0b110907").unwrap(), Network::TESTNET);
        assert_eq!(parse_magic("Signet").unwrap(), Network::SIGNET);
        assert!(parse_magic("0b1109").is_err());
        assert!(parse_magic("xyz").is_err());
    }
}
