//! `wireseal v2`: BIP324 v2 transport over TCP (a tokio driver around the
//! sans-IO `wireseal::bip324` module).
//!
//! `listen ADDR --echo` accepts connections as responder and echoes every
//! non-decoy packet; `connect ADDR --count N` sends N packets with sizes from
//! the mixed traffic profile and checks every echo.
//!
//! The listener bounds what one peer can hold: the handshake, every read
//! and every write have a deadline; at most `--max-connections` peers are
//! served at once (others are closed as soon as they are accepted); and per
//! connection it buffers at most one whole inbound packet plus one 64 KiB
//! read, and at most [`FLUSH_AT`] bytes of pending echoes plus one echo
//! packet, so a peer that sends but never reads stalls its own task on a
//! write that times out (about 8 MB at Bitcoin Core's 4,000,013-byte packet
//! limit, a few hundred KiB for ordinary traffic).

use anyhow::{anyhow, bail, Context, Result};
use rand::Rng;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use wireseal::bip324::{
    Bip324Error, Classified, GarbageRead, Handshake, KeyPool, KeyRead, Network, Next, Role,
    Session, VersionRead,
};
use wireseal_bench::traffic::mixed_sizes;

/// Time a peer gets to send the next expected bytes after the handshake.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Bytes read from the socket at a time.
const READ_CHUNK: usize = 64 * 1024;
/// The listener writes its pending echoes once they reach this many bytes.
pub const FLUSH_AT: usize = 64 * 1024;

/// `wireseal v2` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Subcommand)]
enum Cmd {
    /// Accept v2 connections (responder); prints `listening on ADDR` first.
    Listen {
        /// Address to bind, e.g. 127.0.0.1:8333 (port 0 picks a free one).
        addr: String,
        /// Network magic in hex (default mainnet f9beb4d9).
        #[arg(long, default_value = "f9beb4d9")]
        magic: String,
        /// Echo every non-decoy packet's contents back.
        #[arg(long)]
        echo: bool,
        /// Most connections served at once; further ones are closed as soon
        /// as they are accepted (Bitcoin Core's default is 125).
        #[arg(long, default_value_t = 125, value_parser = clap::value_parser!(u32).range(1..))]
        max_connections: u32,
        /// Seconds a peer gets to complete the handshake.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        handshake_timeout: u64,
        /// Seconds one write to a peer may take; a peer that does not read its
        /// echoes is dropped after this.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        write_timeout: u64,
    },
    /// Connect as initiator, send N packets from the mixed profile, check echoes.
    Connect {
        /// Address of a `v2 listen --echo` peer.
        addr: String,
        /// Network magic in hex (default mainnet f9beb4d9).
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

/// Limits the listener puts on each peer.
#[derive(Debug, Clone, Copy)]
struct Limits {
    handshake: Duration,
    write: Duration,
}

/// Parses a 4-byte network magic from hex.
pub fn parse_magic(s: &str) -> Result<Network> {
    let b = hex::decode(s.trim()).map_err(|e| anyhow!("--magic: not hex: {e}"))?;
    let m: [u8; 4] = b
        .try_into()
        .map_err(|_| anyhow!("--magic: need exactly 4 bytes (8 hex digits)"))?;
    Ok(Network::custom(m))
}

/// Deterministic contents of packet `i` (so the checker can regenerate them).
fn contents(i: usize, len: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend((0..len).map(|j| (i.wrapping_mul(31).wrapping_add(j)) as u8));
}

/// Runs `wireseal v2`.
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
            handshake_timeout,
            write_timeout,
        } => {
            let net = parse_magic(&magic)?;
            let limits = Limits {
                handshake: Duration::from_secs(handshake_timeout),
                write: Duration::from_secs(write_timeout),
            };
            rt.block_on(listen(
                &addr,
                net,
                echo,
                max_connections as usize,
                limits,
                pool,
            ))
        }
        Cmd::Connect {
            addr,
            magic,
            count,
            seed,
            handshake_timeout,
        } => {
            let net = parse_magic(&magic)?;
            let timeout = Duration::from_secs(handshake_timeout);
            rt.block_on(connect(&addr, net, count, seed, timeout, pool))
        }
    }
}

/// Reads once, appending to `buf`; returns the number of bytes read (0 at
/// end of stream). Reserves at most [`READ_CHUNK`] bytes.
async fn read_some<R: AsyncRead + Unpin>(r: &mut R, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    let start = buf.len();
    buf.resize(start + READ_CHUNK, 0);
    let n = r.read(&mut buf[start..]).await;
    buf.truncate(start + *n.as_ref().unwrap_or(&0));
    n
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

async fn read_more<R: AsyncRead + Unpin>(r: &mut R, buf: &mut Vec<u8>, what: &str) -> Result<()> {
    match read_some(r, buf).await {
        Ok(0) => bail!("peer disconnected {what}"),
        Ok(_) => Ok(()),
        Err(e) if is_disconnect(&e) => Err(anyhow!("peer disconnected {what} ({e})")),
        Err(e) => Err(anyhow!("reading {what}: {e}")),
    }
}

/// What a receive-side error after the handshake means, for a person.
fn receive_error(e: Bip324Error, packets: u64) -> anyhow::Error {
    match e {
        Bip324Error::Decrypt => anyhow!(
            "peer's packet failed authentication (after {packets} packets): \
             modified or corrupted data, or not the peer that did the handshake"
        ),
        Bip324Error::OversizedPacket { len, max } => anyhow!(
            "peer announced a packet of {len} bytes, over the {max}-byte limit \
             (after {packets} packets)"
        ),
        other => anyhow!("peer's packet rejected (after {packets} packets): {other}"),
    }
}

/// Runs the v2 handshake on `stream`; returns the session and any bytes
/// already read past it. A responder classifies the initiator's first bytes
/// before it writes anything, so a v1 peer is refused with nothing sent.
pub async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    role: Role,
    net: Network,
    pool: &KeyPool,
) -> Result<(Session, Vec<u8>)> {
    let mut inbuf = Vec::new();
    let garbage_len = rand::thread_rng().gen_range(0..=64usize);
    let mut garbage = vec![0u8; garbage_len];
    wireseal::entropy::fill_random(&mut garbage);
    let start = match role {
        Role::Initiator => Handshake::initiator(net, pool.take(), &garbage)?,
        Role::Responder => {
            let mut waiting = Handshake::accept(net, pool.take(), &garbage)?;
            loop {
                match waiting.classify(&inbuf) {
                    Classified::NeedMore(h) => {
                        waiting = h;
                        read_more(stream, &mut inbuf, "during the handshake").await?;
                    }
                    Classified::V1 => bail!("peer is not v2: it sent a v1 version message"),
                    Classified::V2(h) => break h,
                }
            }
        }
    };
    let mut out = Vec::new();
    let mut hs = start.write_key(&mut out);
    stream.write_all(&out).await.context("sending our key")?;
    let hs = loop {
        match hs.read_key(&inbuf) {
            KeyRead::NeedMore(h) => {
                hs = h;
                read_more(stream, &mut inbuf, "before sending its key").await?;
            }
            KeyRead::V1Peer => bail!("peer is not v2: it sent a v1 version message"),
            KeyRead::Derived {
                handshake,
                consumed,
            } => {
                inbuf.drain(..consumed);
                break handshake;
            }
        }
    };
    out.clear();
    let mut hs = hs.write_version(&[], &mut out)?;
    stream
        .write_all(&out)
        .await
        .context("sending our version")?;
    let mut hs = loop {
        match hs
            .read_garbage(&inbuf)
            .map_err(|e| anyhow!("peer is not v2 or sent bad garbage: {e}"))?
        {
            GarbageRead::NeedMore(h) => {
                hs = h;
                read_more(stream, &mut inbuf, "before its garbage terminator").await?;
            }
            GarbageRead::Found {
                handshake,
                consumed,
            } => {
                inbuf.drain(..consumed);
                break handshake;
            }
        }
    };
    loop {
        match hs
            .read_version(&mut inbuf)
            .map_err(|e| anyhow!("peer's version packet: {e}"))?
        {
            VersionRead::NeedMore(h, _) => {
                hs = h;
                read_more(stream, &mut inbuf, "before its version packet").await?;
            }
            VersionRead::Decoy(h, consumed) => {
                inbuf.drain(..consumed);
                hs = h;
            }
            VersionRead::Done { session, consumed } => {
                inbuf.drain(..consumed);
                return Ok((session, inbuf));
            }
        }
    }
}

async fn listen(
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

/// Writes `out` to the peer within `limit`.
async fn write_within(stream: &mut TcpStream, out: &[u8], limit: Duration) -> Result<()> {
    match tokio::time::timeout(limit, stream.write_all(out)).await {
        Err(_) => bail!(
            "write timed out after {}s: peer is not reading its echoes",
            limit.as_secs()
        ),
        Ok(Err(e)) if is_disconnect(&e) => bail!("peer disconnected ({e})"),
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
    let (mut session, mut inbuf) = tokio::time::timeout(
        limits.handshake,
        handshake(&mut stream, Role::Responder, net, pool),
    )
    .await
    .map_err(|_| anyhow!("handshake timed out"))??;
    let mut out = Vec::new();
    let mut packets = 0u64;
    let mut start = 0usize;
    loop {
        // Open every whole packet in the buffer and echo it; pending echoes
        // are written whenever they reach FLUSH_AT, so they never hold more
        // than that plus one packet, and a peer that does not read stalls
        // this task on a write with a deadline, not on memory.
        loop {
            match session
                .open_next(&mut inbuf[start..])
                .map_err(|e| receive_error(e, packets))?
            {
                Next::NeedMore(_) => break,
                Next::Packet { packet, consumed } => {
                    packets += 1;
                    if echo && !packet.decoy {
                        let n = Session::seal_len(packet.contents.len());
                        let at = out.len();
                        out.resize(at + n, 0);
                        session.seal_into(packet.contents, false, &mut out[at..])?;
                    }
                    start += consumed;
                    if out.len() >= FLUSH_AT {
                        write_within(&mut stream, &out, limits.write).await?;
                        out.clear();
                    }
                }
            }
        }
        if !out.is_empty() {
            write_within(&mut stream, &out, limits.write).await?;
            out.clear();
        }
        inbuf.drain(..start);
        start = 0;
        let n = match tokio::time::timeout(IDLE_TIMEOUT, read_some(&mut stream, &mut inbuf)).await {
            Err(_) => bail!("peer idle for {}s", IDLE_TIMEOUT.as_secs()),
            Ok(Err(e)) if is_disconnect(&e) => {
                bail!("peer disconnected after {packets} packets ({e})")
            }
            Ok(r) => r?,
        };
        if n == 0 {
            if inbuf.is_empty() {
                return Ok(packets);
            }
            bail!("peer disconnected in the middle of a packet (after {packets} packets)");
        }
    }
}

async fn connect(
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
    let (session, mut inbuf) = tokio::time::timeout(
        handshake_timeout,
        handshake(&mut stream, Role::Initiator, net, &pool),
    )
    .await
    .map_err(|_| {
        anyhow!(
            "v2 handshake with {addr} timed out after {}s (is the peer a v2 listener, \
             with the same --magic?)",
            handshake_timeout.as_secs()
        )
    })?
    .with_context(|| {
        format!("v2 handshake with {addr} failed (a v1-only peer disconnects or stays silent)")
    })?;
    let id = hex::encode(session.id());
    let (mut sender, mut receiver) = session.split();
    let (mut rd, mut wr) = stream.into_split();
    let sizes = mixed_sizes(seed, count);
    let send_sizes = sizes.clone();
    let writer = tokio::spawn(async move {
        let mut out = Vec::new();
        let mut c = Vec::new();
        for (i, &s) in send_sizes.iter().enumerate() {
            if i % 16 == 0 {
                // A decoy now and then: the echo side must ignore it.
                let at = out.len();
                out.resize(at + Session::seal_len(7), 0);
                sender
                    .seal_into(b"decoy!!", true, b"", &mut out[at..])
                    .with_context(|| format!("sealing a decoy before packet {i}"))?;
            }
            contents(i, s as usize, &mut c);
            let at = out.len();
            out.resize(at + Session::seal_len(c.len()), 0);
            sender
                .seal_into(&c, false, b"", &mut out[at..])
                .with_context(|| format!("sealing packet {i}"))?;
            if out.len() > 32 * 1024 {
                wr.write_all(&out).await.context("sending packets")?;
                out.clear();
            }
        }
        wr.write_all(&out).await.context("sending packets")?;
        wr.shutdown().await.ok();
        anyhow::Ok(())
    });
    let mut expect = Vec::new();
    let mut got = 0usize;
    let mut received = 0u64;
    let mut bytes = 0u64;
    let mut start = 0usize;
    while got < count {
        match receiver
            .open_next(b"", &mut inbuf[start..])
            .map_err(|e| receive_error(e, received))?
        {
            Next::NeedMore(_) => {
                inbuf.drain(..start);
                start = 0;
                let n = tokio::time::timeout(IDLE_TIMEOUT, read_some(&mut rd, &mut inbuf)).await;
                match n {
                    Err(_) => bail!("peer stopped echoing ({got} of {count} echoes)"),
                    Ok(Ok(0)) if !inbuf.is_empty() => bail!(
                        "peer disconnected in the middle of a packet ({got} of {count} echoes)"
                    ),
                    Ok(Ok(0)) => {
                        bail!("peer disconnected before echoing every packet ({got} of {count})")
                    }
                    Ok(Ok(_)) => {}
                    Ok(Err(e)) if is_disconnect(&e) => bail!(
                        "peer disconnected before echoing every packet ({got} of {count}): {e}"
                    ),
                    Ok(Err(e)) => bail!("reading echoes: {e}"),
                }
            }
            Next::Packet { packet, consumed } => {
                start += consumed;
                received += 1;
                if packet.decoy {
                    continue;
                }
                contents(got, sizes[got] as usize, &mut expect);
                if packet.contents != &expect[..] {
                    bail!("echo {got} differs from what was sent");
                }
                bytes += expect.len() as u64;
                got += 1;
            }
        }
    }
    writer.await.map_err(|e| anyhow!("writer task: {e}"))??;
    let el = t0.elapsed().as_secs_f64();
    println!(
        "ok: {count} packets ({bytes} bytes) echoed and verified in {el:.3}s; session id {id}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_parsing() {
        assert_eq!(parse_magic("0b110907").unwrap(), Network::TESTNET);
        assert!(parse_magic("0b1109").is_err());
        assert!(parse_magic("xyz").is_err());
    }
}
