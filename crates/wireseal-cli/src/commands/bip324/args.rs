//! `wireseal bip324` command-line arguments.

use std::time::Duration;
use wireseal::bip324::Network;

/// `wireseal bip324` arguments.
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
        /// Network: mainnet, testnet, testnet4, signet, regtest, or the magic as 8 hex digits
        /// (both sides need the same).
        #[arg(long, default_value = "mainnet", value_parser = parse_network)]
        magic: Network,
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
        /// Address of a `bip324 listen --echo` peer.
        addr: String,
        /// Network: mainnet, testnet, testnet4, signet, regtest, or the magic as 8 hex digits
        /// (both sides need the same).
        #[arg(long, default_value = "mainnet", value_parser = parse_network)]
        magic: Network,
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

/// `--magic`: the library's network names and hex magic.
fn parse_network(s: &str) -> Result<Network, String> {
    s.parse::<Network>().map_err(|e| e.to_string())
}
