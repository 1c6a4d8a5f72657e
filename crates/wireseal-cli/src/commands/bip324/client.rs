//! `wireseal bip324 connect`: run the initiator handshake, send the mixed
//! test-traffic profile with decoys from one task, check every echo in
//! another.

use super::{handshake_config, handshake_error, is_disconnect, receive_error, IDLE_TIMEOUT};
use anyhow::{anyhow, bail, Context, Result};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use wireseal::bip324::tokio::{handshake, Error, Reader, Writer};
use wireseal::bip324::{Error as P, KeyPool, Network, PacketType, Role, Stage};
use wireseal_io::traffic::{contents, mixed_sizes};

/// The sender writes its queued packets once they pass this many bytes.
const SEND_AT: usize = 32 * 1024;

pub(super) async fn connect(
    addr: &str,
    net: Network,
    count: usize,
    seed: u64,
    handshake_timeout: Duration,
    pool: Arc<KeyPool>,
) -> Result<()> {
    let t0 = Instant::now();
    let mut stream = TcpStream::connect(addr)
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_nodelay(true).ok();
    let config = handshake_config(net);
    let conn = tokio::time::timeout(
        handshake_timeout,
        handshake(&mut stream, Role::Initiator, pool.take(), &config),
    )
    .await
    .map_err(|_| {
        anyhow!(
            "v2 handshake with {addr} timed out after {}s: the peer is not a v2 listener, \
             or uses another --magic than {net} (both sides need the same)",
            handshake_timeout.as_secs()
        )
    })?
    .map_err(|e| handshake_failed(e, addr, net))?;
    let id = hex::encode(conn.session_id);
    let (mut reader, writer) = (conn.reader, conn.writer);
    let (mut rd, wr) = stream.into_split();
    let sizes = mixed_sizes(seed, count);
    let sender = tokio::spawn(send_all(writer, wr, sizes.clone()));
    let bytes = check_echoes(&mut reader, &mut rd, &sizes).await?;
    sender.await.map_err(|e| anyhow!("writer task: {e}"))??;
    print_result(count, bytes, t0.elapsed().as_secs_f64(), id);
    Ok(())
}

/// The error of a failed handshake, saying what a peer that closed at once
/// most likely is.
fn handshake_failed(e: Error, addr: &str, net: Network) -> anyhow::Error {
    // Closed before the listener sent a byte: what a full listener
    // does (its cap or its per-IP limit), and what a v1-only peer does.
    let closed_at_once = matches!(
        e,
        Error::Protocol(P::Disconnected {
            stage: Stage::Key | Stage::Handshake
        })
    );
    let e = handshake_error(e, net);
    if closed_at_once {
        e.context(format!(
            "v2 handshake with {addr} failed: the peer closed the connection without \
             sending anything (a listener at --max-connections or --max-per-ip does \
             this, and so does a v1-only peer)"
        ))
    } else {
        e.context(format!("v2 handshake with {addr} failed"))
    }
}

/// Seals and sends every packet of the profile, a decoy every 16th.
async fn send_all(mut writer: Writer, mut wr: OwnedWriteHalf, sizes: Vec<u32>) -> Result<()> {
    let mut c = Vec::new();
    for (i, &s) in sizes.iter().enumerate() {
        if i % 16 == 0 {
            // A decoy now and then: the echo side must ignore it.
            writer
                .queue(b"decoy!!", PacketType::Decoy)
                .with_context(|| format!("sealing a decoy before packet {i}"))?;
        }
        contents(i, s as usize, &mut c);
        writer
            .queue(&c, PacketType::Genuine)
            .with_context(|| format!("sealing packet {i}"))?;
        if writer.queued_len() > SEND_AT {
            writer.flush(&mut wr).await.context("sending packets")?;
        }
    }
    writer.flush(&mut wr).await.context("sending packets")?;
    wr.shutdown().await.ok();
    Ok(())
}

/// Receives and checks one echo per packet sent; returns the bytes echoed.
async fn check_echoes(reader: &mut Reader, rd: &mut OwnedReadHalf, sizes: &[u32]) -> Result<u64> {
    let count = sizes.len();
    let mut expect = Vec::new();
    let mut bytes = 0u64;
    for (got, &size) in sizes.iter().enumerate() {
        let r = tokio::time::timeout(IDLE_TIMEOUT, reader.receive(rd)).await;
        let echo = match r {
            Err(_) => bail!("peer stopped echoing ({got} of {count} echoes)"),
            Ok(Ok(echo)) => echo,
            Ok(Err(Error::Protocol(P::Disconnected {
                stage: Stage::MidPacket,
            }))) => bail!("peer disconnected in the middle of a packet ({got} of {count} echoes)"),
            Ok(Err(Error::Protocol(P::Disconnected { .. }))) => {
                bail!("peer disconnected before echoing every packet ({got} of {count})")
            }
            Ok(Err(Error::Io(e))) if is_disconnect(&e) => {
                bail!("peer disconnected before echoing every packet ({got} of {count}): {e}")
            }
            Ok(Err(Error::Io(e))) => bail!("reading echoes: {e}"),
            Ok(Err(Error::Protocol(e))) => return Err(receive_error(e, reader.packets())),
            Ok(Err(e)) => return Err(e.into()),
        };
        contents(got, size as usize, &mut expect);
        if echo != &expect[..] {
            bail!("echo {got} differs from what was sent");
        }
        bytes += expect.len() as u64;
    }
    Ok(bytes)
}

/// Prints what was echoed, as text or JSON.
fn print_result(count: usize, bytes: u64, seconds: f64, id: String) {
    if crate::util::output::json() {
        use serde_json::Value;
        crate::util::output::fields(&[
            ("packets", Value::from(count)),
            ("bytes", Value::from(bytes)),
            ("seconds", Value::from(seconds)),
            ("session_id", Value::from(id)),
        ]);
    } else {
        println!(
            "ok: {count} packets ({bytes} bytes) echoed and verified in {seconds:.3}s; session id {id}"
        );
    }
}
