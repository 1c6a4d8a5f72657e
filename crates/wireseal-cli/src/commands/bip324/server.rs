//! `wireseal bip324 listen`: accept within the connection and per-IP limits,
//! run the responder handshake, echo.

use super::args::Limits;
use super::listener_log::{Event, ListenerLog};
use super::per_ip::PerIp;
use super::{handshake_config, handshake_error, is_disconnect, receive_error, IDLE_TIMEOUT};
use anyhow::{anyhow, bail, Context, Result};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use wireseal::bip324::tokio::{handshake, Error, Established, Writer};
use wireseal::bip324::{KeyPool, Network, PacketType, Role};

/// The listener writes its pending echoes once they reach this many bytes.
pub const FLUSH_AT: usize = 64 * 1024;

/// Refused connections being closed at once, at most; past this a refused
/// socket is dropped without waiting for the peer's side.
const CLOSERS: usize = 256;

/// How long a refused connection is drained after our FIN, so that closing
/// it does not reset the peer's unread bytes.
const REFUSED_DRAIN: Duration = Duration::from_secs(1);

pub(super) async fn listen(
    addr: &str,
    net: Network,
    echo: bool,
    limits: Limits,
    pool: Arc<KeyPool>,
) -> Result<()> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    if crate::util::output::json() {
        println!("{}", serde_json::json!({ "listening": local.to_string() }));
    } else {
        println!("listening on {local}");
    }
    use std::io::Write;
    std::io::stdout().flush().ok();
    let log = Arc::new(ListenerLog::new(limits.log_interval));
    {
        let log = Arc::clone(&log);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(limits.log_interval);
            tick.tick().await;
            loop {
                tick.tick().await;
                log.roll();
            }
        });
    }
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let per_ip = Arc::new(PerIp::default());
    let closers = Arc::new(Semaphore::new(CLOSERS));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: back off a little
                // rather than spin.
                log.event(Event::AcceptFailed, || format!("accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(ip_slot) = PerIp::try_take(&per_ip, peer.ip(), limits.max_per_ip) else {
            log.event(Event::RefusedPerIp, || {
                format!(
                    "{peer}: refused: {} connections already open from {} (--max-per-ip)",
                    limits.max_per_ip,
                    peer.ip()
                )
            });
            close_refused(stream, &closers);
            continue;
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            drop(ip_slot);
            log.event(Event::RefusedFull, || {
                format!(
                    "{peer}: refused: {} connections already open (listener full, \
                     --max-connections)",
                    limits.max_connections
                )
            });
            close_refused(stream, &closers);
            continue;
        };
        let pool = Arc::clone(&pool);
        let log = Arc::clone(&log);
        tokio::spawn(async move {
            let r = serve(stream, peer, net, echo, limits, &pool, &log).await;
            // Free the slot before saying so.
            drop((permit, ip_slot));
            match r {
                Ok((n, id)) => log.event(Event::Closed, || {
                    format!("{peer}: closed after {n} packets (session id {id})")
                }),
                Err(e) => log.event(Event::Failed, || format!("{peer}: error: {e:#}")),
            }
        });
    }
}

/// Closes a refused connection cleanly: our FIN first (nothing is sent),
/// then whatever the peer had sent is read and dropped for a moment, so the
/// close is not turned into a reset by unread bytes.
fn close_refused(mut stream: TcpStream, closers: &Arc<Semaphore>) {
    let Ok(permit) = Arc::clone(closers).try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let _permit = permit;
        if stream.shutdown().await.is_err() {
            return;
        }
        let mut buf = [0u8; 4096];
        let drain = async {
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(REFUSED_DRAIN, drain).await;
    });
}

/// Writes the queued echoes to the peer within `limit`.
async fn write_within(w: &mut Writer, stream: &mut TcpStream, limit: Duration) -> Result<()> {
    match tokio::time::timeout(limit, w.flush(stream)).await {
        Err(_) => bail!(
            "write timed out after {}s: peer is not reading its echoes",
            limit.as_secs()
        ),
        Ok(Err(Error::Io(e))) if is_disconnect(&e) => bail!("peer disconnected ({e})"),
        Ok(r) => r.context("writing to the peer"),
    }
}

/// Serves one peer; the packet count and the session id (hex) when it
/// leaves cleanly. The echo loop's state (the session's ciphers and its
/// futures, a few KiB) is boxed once the handshake succeeds, so a task that
/// waits for a silent or slow peer's handshake holds only the handshake's.
async fn serve(
    mut stream: TcpStream,
    peer: SocketAddr,
    net: Network,
    echo: bool,
    limits: Limits,
    pool: &KeyPool,
    log: &ListenerLog,
) -> Result<(u64, String)> {
    stream.set_nodelay(true).ok();
    let config = handshake_config(net);
    let conn = tokio::time::timeout(
        limits.handshake,
        handshake(&mut stream, Role::Responder, pool.take(), &config),
    )
    .await
    .map_err(|_| {
        anyhow!(
            "handshake timed out after {}s (--handshake-timeout; a peer with another --magic \
             than {net} never completes it)",
            limits.handshake.as_secs()
        )
    })?
    .map_err(|e| handshake_error(e, net))?;
    let id = hex::encode(conn.session_id);
    log.event(Event::Session, || format!("{peer}: v2 session id {id}"));
    let packets = Box::pin(echo_loop(stream, conn, echo, limits)).await?;
    Ok((packets, id))
}

/// Runs an established session until the peer leaves; the packet count
/// when it leaves cleanly.
async fn echo_loop(
    mut stream: TcpStream,
    conn: Established,
    echo: bool,
    limits: Limits,
) -> Result<u64> {
    let (mut reader, mut writer) = (conn.reader, conn.writer);
    loop {
        // Open every whole packet in the buffer and echo it; pending echoes
        // are written whenever they reach FLUSH_AT, so they never hold more
        // than that plus one packet, and a peer that does not read stalls
        // this task on a write with a deadline, not on memory.
        loop {
            let contents = match reader.receive_buffered() {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(Error::Protocol(e)) => return Err(receive_error(e, reader.packets())),
                Err(e) => return Err(e.into()),
            };
            if echo {
                writer.queue(contents, PacketType::Genuine)?;
            }
            if writer.queued_len() >= FLUSH_AT {
                write_within(&mut writer, &mut stream, limits.write).await?;
            }
        }
        if writer.queued_len() > 0 {
            write_within(&mut writer, &mut stream, limits.write).await?;
        }
        let packets = reader.packets();
        let n = match tokio::time::timeout(IDLE_TIMEOUT, reader.fill(&mut stream)).await {
            Err(_) => bail!("peer idle for {}s", IDLE_TIMEOUT.as_secs()),
            Ok(Err(e)) if is_disconnect(&e) => {
                bail!("peer disconnected after {packets} packets ({e})")
            }
            Ok(r) => r?,
        };
        if n == 0 {
            if reader.buffered_len() == 0 {
                return Ok(packets);
            }
            bail!("peer disconnected in the middle of a packet (after {packets} packets)");
        }
    }
}
