//! `wireseal v2 listen`: accept, run the responder handshake, echo.

use super::args::Limits;
use super::{handshake_config, handshake_error, is_disconnect, receive_error, IDLE_TIMEOUT};
use anyhow::{anyhow, bail, Context, Result};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use wireseal::bip324::tokio::{handshake, Error, Writer};
use wireseal::bip324::{KeyPool, Network, PacketType, Role};

/// The listener writes its pending echoes once they reach this many bytes.
pub const FLUSH_AT: usize = 64 * 1024;

pub(super) async fn listen(
    addr: &str,
    net: Network,
    echo: bool,
    max_connections: usize,
    limits: Limits,
    pool: Arc<KeyPool>,
) -> Result<()> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    println!("listening on {}", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush().ok();
    let slots = Arc::new(Semaphore::new(max_connections));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: back off a little
                // rather than spin.
                eprintln!("wireseal: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            eprintln!("wireseal: {peer}: refused: {max_connections} connections already open");
            drop(stream);
            continue;
        };
        let pool = Arc::clone(&pool);
        tokio::spawn(async move {
            let r = serve(stream, net, echo, limits, &pool).await;
            // Free the slot before saying so.
            drop(permit);
            match r {
                Ok(n) => eprintln!("wireseal: {peer}: closed after {n} packets"),
                Err(e) => eprintln!("wireseal: {peer}: error: {e:#}"),
            }
        });
    }
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

async fn serve(
    mut stream: TcpStream,
    net: Network,
    echo: bool,
    limits: Limits,
    pool: &KeyPool,
) -> Result<u64> {
    stream.set_nodelay(true).ok();
    let config = handshake_config(net);
    let conn = tokio::time::timeout(
        limits.handshake,
        handshake(&mut stream, Role::Responder, pool.take(), &config),
    )
    .await
    .map_err(|_| anyhow!("handshake timed out"))?
    .map_err(handshake_error)?;
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
