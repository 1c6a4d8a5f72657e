//! `wireseal bip324`: BIP324 v2 transport over TCP, on the
//! library's tokio driver (`wireseal::bip324::tokio`).
//!
//! `listen ADDR --echo` accepts connections as responder and echoes every
//! non-decoy packet; `connect ADDR --count N` sends N packets of the
//! library's mixed test-traffic profile (`wireseal_io::traffic`) and
//! checks every echo. Both sides need the same `--magic`; a peer on another
//! known network is named as such by the handshake on both sides.
//!
//! The listener bounds what one peer can hold: the handshake, every read
//! and every write have a deadline (a silent client frees its slot at the
//! handshake deadline); at most `--max-connections` peers are served at once
//! and at most `--max-per-ip` from one address (others are closed with a FIN
//! as soon as they are accepted, and the log says why); its log prints at
//! most [`listener_log::LINES_PER_INTERVAL`] lines per `--log-interval`, then
//! one summary line of counts, and names each connection's session id; and per
//! connection it buffers at most one whole inbound packet plus one 64 KiB
//! read, and at most [`server::FLUSH_AT`] bytes of pending echoes plus one
//! echo packet, so a peer that sends but never reads stalls its own task on
//! a write that times out (about 8 MB at Bitcoin Core's 4,000,013-byte
//! packet limit, a few hundred KiB for ordinary traffic).

mod args;
mod client;
mod listener_log;
mod per_ip;
mod server;

use anyhow::{anyhow, Context, Result};
use std::sync::Arc;
use std::time::Duration;
use wireseal::bip324::tokio::Error;
use wireseal::bip324::{Config, KeyPool, Network, Stage};

pub use args::Args;
use args::{Cmd, Limits};

/// Time a peer gets to send the next expected bytes after the handshake.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `wireseal bip324`.
pub fn run(a: Args) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let pool = Arc::new(KeyPool::new(32));
    {
        // Background refill: handshakes only do the ECDH and HKDF.
        let pool = Arc::clone(&pool);
        std::thread::spawn(move || loop {
            pool.fill();
            std::thread::sleep(Duration::from_millis(20));
        });
    }
    match a.cmd {
        Cmd::Listen {
            addr,
            magic,
            echo,
            max_connections,
            max_per_ip,
            handshake_timeout,
            write_timeout,
            log_interval,
        } => {
            let limits = Limits {
                max_connections: max_connections as usize,
                max_per_ip: max_per_ip as usize,
                handshake: Duration::from_secs(handshake_timeout),
                write: Duration::from_secs(write_timeout),
                log_interval: Duration::from_secs(log_interval),
            };
            rt.block_on(server::listen(&addr, magic, echo, limits, pool))
        }
        Cmd::Connect {
            addr,
            magic,
            count,
            seed,
            handshake_timeout,
        } => {
            let timeout = Duration::from_secs(handshake_timeout);
            rt.block_on(client::connect(&addr, magic, count, seed, timeout, pool))
        }
    }
}

/// The handshake settings: 0 to 64 random bytes of garbage, no decoys.
fn handshake_config(net: Network) -> Config {
    Config::new(net).with_random_garbage(64)
}

/// True for the errors a peer causes by going away.
fn is_disconnect(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::BrokenPipe
    )
}

/// What a failed handshake means, for a person; `net` is this side's
/// network.
fn handshake_error(e: Error, net: Network) -> anyhow::Error {
    use wireseal::bip324::Error as P;
    match e {
        Error::Protocol(P::WrongNetwork { ours, theirs }) => anyhow!(
            "{}; both sides need the same --magic (this side: --magic {ours}, the peer: \
             --magic {theirs})",
            P::WrongNetwork { ours, theirs }
        ),
        Error::Protocol(P::NoGarbageTerminator) => anyhow!(
            "no garbage terminator within 4095 bytes of garbage: the peer is not v2, or uses \
             another --magic than {net}"
        ),
        Error::Protocol(P::V1Peer) => anyhow!("{}", P::V1Peer),
        Error::Protocol(P::Disconnected {
            stage: Stage::GarbageTerminator,
        }) => anyhow!(
            "the peer closed the connection before its garbage terminator: a peer with another \
             --magic than {net} does this when it cannot use our keys"
        ),
        Error::Protocol(p @ P::Disconnected { .. }) => anyhow!("{p}"),
        Error::Protocol(p) => anyhow!("the peer's handshake failed: {p}"),
        Error::Io(io) if is_disconnect(&io) => {
            anyhow!("the peer disconnected during the handshake ({io})")
        }
        Error::Io(io) => anyhow!("handshake I/O: {io}"),
        other => anyhow!("{other}"),
    }
}

/// What a receive-side protocol error after the handshake means, for a
/// person.
fn receive_error(e: wireseal::bip324::Error, packets: u64) -> anyhow::Error {
    use wireseal::bip324::Error as P;
    match e {
        P::Auth => anyhow!(
            "the peer's packet failed authentication (after {packets} packets): \
             modified or corrupted data, or not the peer that did the handshake"
        ),
        P::TooLong { len, max } => anyhow!(
            "the peer announced a packet of {len} bytes, over the {max}-byte limit \
             (after {packets} packets)"
        ),
        other => anyhow!("the peer's packet was rejected (after {packets} packets): {other}"),
    }
}
