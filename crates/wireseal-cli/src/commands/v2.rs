//! `wireseal v2`: BIP324 v2 transport over TCP (a tokio driver around the
//! sans-IO `wireseal::bip324` module).
//!
//! `listen ADDR --echo` accepts connections as responder and echoes every
//! non-decoy packet; `connect ADDR --count N` sends N packets with sizes from
//! the mixed traffic profile and checks every echo.

use anyhow::{anyhow, bail, Context, Result};
use rand::{Rng, SeedableRng};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wireseal::bip324::{
    classify_first_bytes, GarbageRead, Handshake, KeyPool, KeyRead, Network, Next, PeerKind, Role,
    Session, VersionRead,
};

/// Time a peer gets to finish the handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Time a peer gets to send the next expected bytes after the handshake.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

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
    },
}

/// Parses a 4-byte network magic from hex.
pub fn parse_magic(s: &str) -> Result<Network> {
    let b = hex::decode(s.trim()).map_err(|e| anyhow!("--magic: not hex: {e}"))?;
    let m: [u8; 4] = b
        .try_into()
        .map_err(|_| anyhow!("--magic: need exactly 4 bytes (8 hex digits)"))?;
    Ok(Network::custom(m))
}

/// Packet sizes of the mixed traffic profile from a seeded generator: 40%
/// 1–32 bytes, 30% 33–128, 20% 129–512, 10% 513–4096 (about 323 bytes on
/// average).
pub fn mixed_sizes(seed: u64, n: usize) -> Vec<u32> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let (lo, hi) = match rng.gen_range(0..10u32) {
                0..=3 => (1, 32),
                4..=6 => (33, 128),
                7..=8 => (129, 512),
                _ => (513, 4096),
            };
            rng.gen_range(lo..=hi)
        })
        .collect()
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
        Cmd::Listen { addr, magic, echo } => {
            let net = parse_magic(&magic)?;
            rt.block_on(listen(&addr, net, echo, pool))
        }
        Cmd::Connect {
            addr,
            magic,
            count,
            seed,
        } => {
            let net = parse_magic(&magic)?;
            rt.block_on(connect(&addr, net, count, seed, pool))
        }
    }
}

async fn read_more<R: AsyncRead + Unpin>(r: &mut R, buf: &mut Vec<u8>, what: &str) -> Result<()> {
    let start = buf.len();
    buf.resize(start + 64 * 1024, 0);
    let n = r.read(&mut buf[start..]).await;
    buf.truncate(start + *n.as_ref().unwrap_or(&0));
    match n {
        Ok(0) => bail!("peer disconnected {what}"),
        Ok(_) => Ok(()),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::UnexpectedEof
            ) =>
        {
            Err(anyhow!("peer disconnected {what} ({e})"))
        }
        Err(e) => Err(anyhow!("reading {what}: {e}")),
    }
}

/// Runs the v2 handshake on `stream`; returns the session and any bytes
/// already read past it.
pub async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    role: Role,
    net: Network,
    pool: &KeyPool,
) -> Result<(Session, Vec<u8>)> {
    let mut inbuf = Vec::new();
    if role == Role::Responder {
        loop {
            match classify_first_bytes(net, &inbuf) {
                PeerKind::NeedMore => read_more(stream, &mut inbuf, "during the handshake").await?,
                PeerKind::V1 => bail!("peer is not v2: it sent a v1 version message"),
                PeerKind::V2 => break,
            }
        }
    }
    let garbage_len = rand::thread_rng().gen_range(0..=64usize);
    let mut garbage = vec![0u8; garbage_len];
    wireseal::entropy::fill_random(&mut garbage);
    let mut out = Vec::new();
    let mut hs = Handshake::new(role, net, pool.take(), &garbage)?.write_key(&mut out);
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

async fn listen(addr: &str, net: Network, echo: bool, pool: Arc<KeyPool>) -> Result<()> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    println!("listening on {}", listener.local_addr()?);
    use std::io::Write;
    std::io::stdout().flush().ok();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                eprintln!("wireseal: accept failed: {e}");
                continue;
            }
        };
        let pool = Arc::clone(&pool);
        tokio::spawn(async move {
            match serve(stream, net, echo, &pool).await {
                Ok(n) => eprintln!("wireseal: {peer}: closed after {n} packets"),
                Err(e) => eprintln!("wireseal: {peer}: error: {e:#}"),
            }
        });
    }
}

async fn serve(mut stream: TcpStream, net: Network, echo: bool, pool: &KeyPool) -> Result<u64> {
    stream.set_nodelay(true).ok();
    let (mut session, mut inbuf) = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        handshake(&mut stream, Role::Responder, net, pool),
    )
    .await
    .map_err(|_| anyhow!("handshake timed out"))??;
    let mut out = Vec::new();
    let mut packets = 0u64;
    let mut start = 0usize;
    loop {
        // Open every whole packet in the buffer, queue echoes, then flush.
        loop {
            match session.open_next(&mut inbuf[start..])? {
                Next::NeedMore(_) => break,
                Next::Packet { packet, consumed } => {
                    if !packet.decoy {
                        packets += 1;
                        if echo {
                            let n = Session::seal_len(packet.contents.len());
                            let at = out.len();
                            out.resize(at + n, 0);
                            let c = packet.contents.to_vec();
                            session.seal_into(&c, false, &mut out[at..])?;
                        }
                    }
                    start += consumed;
                }
            }
        }
        if !out.is_empty() {
            stream.write_all(&out).await?;
            out.clear();
        }
        inbuf.drain(..start);
        start = 0;
        let mut tmp = vec![0u8; 64 * 1024];
        let n = match tokio::time::timeout(IDLE_TIMEOUT, stream.read(&mut tmp)).await {
            Err(_) => bail!("peer idle for {}s", IDLE_TIMEOUT.as_secs()),
            Ok(r) => r?,
        };
        if n == 0 {
            if inbuf.is_empty() {
                return Ok(packets);
            }
            bail!("peer disconnected in the middle of a packet");
        }
        inbuf.extend_from_slice(&tmp[..n]);
    }
}

async fn connect(
    addr: &str,
    net: Network,
    count: usize,
    seed: u64,
    pool: Arc<KeyPool>,
) -> Result<()> {
    let t0 = Instant::now();
    let mut stream = TcpStream::connect(addr)
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    stream.set_nodelay(true).ok();
    let (session, mut inbuf) = tokio::time::timeout(
        HANDSHAKE_TIMEOUT,
        handshake(&mut stream, Role::Initiator, net, &pool),
    )
    .await
    .map_err(|_| anyhow!("handshake timed out (is the peer a v2 listener?)"))?
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
                sender.seal_into(b"decoy!!", true, b"", &mut out[at..])?;
            }
            contents(i, s as usize, &mut c);
            let at = out.len();
            out.resize(at + Session::seal_len(c.len()), 0);
            sender.seal_into(&c, false, b"", &mut out[at..])?;
            if out.len() > 32 * 1024 {
                wr.write_all(&out).await?;
                out.clear();
            }
        }
        wr.write_all(&out).await?;
        wr.shutdown().await.ok();
        anyhow::Ok(())
    });
    let mut expect = Vec::new();
    let mut got = 0usize;
    let mut bytes = 0u64;
    let mut start = 0usize;
    while got < count {
        match receiver.open_next(b"", &mut inbuf[start..])? {
            Next::NeedMore(_) => {
                inbuf.drain(..start);
                start = 0;
                match tokio::time::timeout(
                    IDLE_TIMEOUT,
                    read_more(&mut rd, &mut inbuf, "before echoing every packet"),
                )
                .await
                {
                    Err(_) => bail!("peer stopped echoing ({got} of {count} echoes)"),
                    Ok(r) => r?,
                }
            }
            Next::Packet { packet, consumed } => {
                start += consumed;
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
    fn mixed_profile_shares_and_bounds() {
        let s = mixed_sizes(7, 100_000);
        assert_eq!(s, mixed_sizes(7, 100_000), "seeded");
        assert!(s.iter().all(|&x| (1..=4096).contains(&x)));
        let share = |lo: u32, hi: u32| {
            s.iter().filter(|&&x| (lo..=hi).contains(&x)).count() as f64 / s.len() as f64
        };
        for (lo, hi, want) in [
            (1, 32, 0.4),
            (33, 128, 0.3),
            (129, 512, 0.2),
            (513, 4096, 0.1),
        ] {
            assert!((share(lo, hi) - want).abs() < 0.01, "{lo}-{hi}");
        }
        let mean = s.iter().map(|&x| x as f64).sum::<f64>() / s.len() as f64;
        assert!((310.0..340.0).contains(&mean), "{mean}");
    }

    #[test]
    fn magic_parsing() {
        assert_eq!(parse_magic("0b110907").unwrap(), Network::TESTNET);
        assert!(parse_magic("0b1109").is_err());
        assert!(parse_magic("xyz").is_err());
    }
}
