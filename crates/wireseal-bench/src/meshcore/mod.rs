//! MeshCore: decoding and decrypting a mixed observer feed, and verifying
//! adverts, against the decoders people use today (`meshcoredecoder` from
//! PyPI, `@michaelhart/meshcore-decoder` from npm) on the same packets, in
//! the same run. The peers time themselves over the same hex lines (their
//! start-up excluded); rounds alternate ours and theirs. Beside the decode
//! rows, the ceiling on one core: the feed's advert signature checks alone,
//! which bound every decoder that checks them.

mod feed;

use crate::peers::{meshcore_decoder_js, meshcoredecoder, Skip};
use crate::{Better, Ctx, Row};
use feed::Feed;
use std::process::Command;
use wireseal::batch::Batch;
use wireseal::meshcore::{verify_advert, AdvertPayload, Body, Decoder, Packet};

const SECTION: &str = "meshcore";
/// The peers, as the rows name them.
const PY_PEER: &str = "meshcoredecoder 0.3.2 (Python)";
const JS_PEER: &str = "@michaelhart/meshcore-decoder 0.3.0 (Node)";

/// The section's rows.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let feed = Feed::build();
    let dir = std::env::temp_dir().join(format!("wireseal-bench-meshcore-{}", std::process::id()));
    let mixed = dir.join("mixed.hex");
    let adverts = dir.join("adverts.hex");
    if let Err(e) = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&mixed, feed.hex_lines(&feed.mixed)))
        .and_then(|()| std::fs::write(&adverts, feed.hex_lines(&feed.adverts)))
    {
        return vec![
            Row::new(SECTION, "feed", "packets/s", Better::Higher, 0.0, "-", None)
                .failed(format!("cannot write the feed: {e}")),
        ];
    }
    let rounds = if ctx.full { 5 } else { 3 };
    let rows = [
        decode_rows(ctx, &feed, &mixed, rounds),
        advert_rows(ctx, &feed, &adverts, rounds),
    ]
    .concat();
    let _ = std::fs::remove_dir_all(&dir);
    rows
}

/// Seconds per packet for our decoder over `packets` (hex decoded too, as
/// the peers read hex), one at a time or through `decode_batch` on
/// `batch`, and the packets it opened.
fn ours_per_packet(
    ctx: &Ctx,
    feed: &Feed,
    packets: &[Vec<u8>],
    batch: Option<&Batch>,
) -> (f64, usize) {
    let hex: Vec<String> = packets.iter().map(hex::encode).collect();
    let mut dec = feed.decoder();
    let mut pass = || -> usize {
        let raw: Vec<Vec<u8>> = hex.iter().map(|h| hex::decode(h).expect("hex")).collect();
        match batch {
            None => raw.iter().filter(|r| opened(&decode(&mut dec, r))).count(),
            Some(b) => {
                let refs: Vec<&[u8]> = raw.iter().map(Vec::as_slice).collect();
                dec.decode_batch(b, 0, &refs)
                    .iter()
                    .filter(|d| opened(d.as_ref().expect("the feed parses")))
                    .count()
            }
        }
    };
    let count = pass();
    let per_pass = ctx.time_job(ctx.samples(), pass);
    (per_pass / packets.len() as f64, count)
}

fn decode(dec: &mut Decoder, raw: &[u8]) -> wireseal::meshcore::Decoded {
    dec.decode(0, raw).expect("the feed parses")
}

fn opened(d: &wireseal::meshcore::Decoded) -> bool {
    match &d.body {
        Body::Group(g) => g.opened.is_some(),
        Body::Peer(p) => p.opened.is_some(),
        Body::AnonReq(a) => a.opened.is_some(),
        _ => false,
    }
}

/// A peer run's packets per second and how many it says it decrypted, or
/// why it did not run.
type PeerRun = Result<(f64, u64), Skip>;

/// One peer run.
fn peer_rate(mut cmd: Command) -> PeerRun {
    let o = cmd
        .output()
        .map_err(|e| Skip::new(format!("peer not runnable: {e}")))?;
    if !o.status.success() {
        return Err(Skip::new(format!(
            "peer failed: {}",
            crate::peers::last_line(&o.stderr)
        )));
    }
    let line = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(line.lines().last().unwrap_or(""))
        .map_err(|e| Skip::new(format!("peer printed no JSON: {e}")))?;
    let rate = v["packets_per_s"]
        .as_f64()
        .ok_or(Skip::new("no packets_per_s"))?;
    Ok((rate, v["decrypted"].as_u64().unwrap_or(0)))
}

/// Medians of `rounds` alternated runs: ours, then each peer.
fn alternate(
    rounds: usize,
    mut ours: impl FnMut() -> f64,
    peers: &mut [&mut dyn FnMut() -> PeerRun],
) -> (f64, Vec<PeerRun>) {
    let mut mine = Vec::new();
    let mut theirs: Vec<Vec<PeerRun>> = peers.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        mine.push(ours());
        for (p, out) in peers.iter_mut().zip(theirs.iter_mut()) {
            out.push(p());
        }
    }
    let medians = theirs
        .into_iter()
        .map(|runs| {
            let mut ok = Vec::new();
            for r in runs {
                ok.push(r?);
            }
            let decrypted = ok[0].1;
            let mut rates: Vec<f64> = ok.iter().map(|r| r.0).collect();
            Ok((crate::timing::median(&mut rates), decrypted))
        })
        .collect();
    (crate::timing::median(&mut mine), medians)
}

fn decode_rows(ctx: &Ctx, feed: &Feed, file: &std::path::Path, rounds: usize) -> Vec<Row> {
    let py = meshcoredecoder();
    let js = meshcore_decoder_js();
    let mut py_run = || {
        let mut c = py.clone()?.command(["bench".as_ref(), file.as_os_str()]);
        c.args(feed.py_key_args()).args(["--min-seconds", "1"]);
        peer_rate(c)
    };
    let mut js_run = || {
        let mut c = js.clone()?.command(["bench".as_ref(), file.as_os_str()]);
        c.args(feed.js_key_args()).args(["--min-seconds", "1"]);
        peer_rate(c)
    };
    let all = Batch::all_cores();
    let (mut one_opened, mut all_opened, mut all_rate) = (0, 0, Vec::new());
    let mut ceiling = Vec::new();
    let (one, peers) = alternate(
        rounds,
        || {
            let (s, n) = ours_per_packet(ctx, feed, &feed.mixed, None);
            let (a, m) = ours_per_packet(ctx, feed, &feed.mixed, Some(&all));
            (one_opened, all_opened) = (n, m);
            all_rate.push(1.0 / a);
            ceiling.push(feed.mixed.len() as f64 / ctx.time_job(ctx.samples(), || verify(feed)));
            1.0 / s
        },
        &mut [&mut py_run, &mut js_run],
    );
    let all_cores = crate::timing::median(&mut all_rate);
    let ceiling = crate::timing::median(&mut ceiling);
    let workload = format!(
        "decode + decrypt, mixed observer feed ({} packets: {})",
        feed.mixed.len(),
        feed.mix_summary()
    );
    let mut rows = vec![ceiling_row(&workload, feed, ceiling, &peers[0])];
    for ((name, note), res) in [
        (PY_PEER, "group texts and DMs"),
        (JS_PEER, "group texts only"),
    ]
    .into_iter()
    .zip(peers)
    {
        for (how, ours, opened) in [
            ("one core", one, one_opened),
            (
                &*format!("decode_batch, {} threads", all.threads()),
                all_cores,
                all_opened,
            ),
        ] {
            let row = Row::with_peer(
                SECTION,
                format!("{workload}, {how}; the peer decrypts {note}"),
                "packets/s",
                Better::Higher,
                ours,
                name,
                res.as_ref().map(|r| r.0),
            );
            rows.push(if opened != feed.expected_opened {
                row.failed(format!(
                    "opened {opened} packets, the feed holds {} we can open",
                    feed.expected_opened
                ))
            } else {
                row
            });
        }
    }
    rows
}

/// Verifies every advert of the feed; how many verified.
fn verify(feed: &Feed) -> usize {
    feed.adverts
        .iter()
        .filter(|raw| {
            let p = Packet::parse(raw).expect("advert parses");
            verify_advert(&AdvertPayload::of(&p).expect("advert"))
        })
        .count()
}

/// The bound on one core: the mixed feed's adverts parsed and their
/// signatures checked alone (one Ed25519 verification each, which no
/// decoder may skip), as packets
/// per second of the whole feed, against the Python peer's whole decode.
/// Its ratio is the most any one-core decode of this feed can reach.
fn ceiling_row(workload: &str, feed: &Feed, ceiling: f64, py: &PeerRun) -> Row {
    Row::with_peer(
        SECTION,
        format!(
            "ceiling of the {workload}, one core: its {} adverts parsed and verified (Ed25519) \
             alone, nothing else decoded",
            feed.adverts.len()
        ),
        "packets/s",
        Better::Higher,
        ceiling,
        PY_PEER,
        py.as_ref().map(|r| r.0),
    )
}

fn advert_rows(ctx: &Ctx, feed: &Feed, file: &std::path::Path, rounds: usize) -> Vec<Row> {
    let py = meshcoredecoder();
    let js = meshcore_decoder_js();
    let mut py_run = || {
        let mut c = py.clone()?.command(["bench".as_ref(), file.as_os_str()]);
        c.args(["--min-seconds", "1"]);
        peer_rate(c)
    };
    let mut js_run = || {
        let mut c = js.clone()?.command(["bench".as_ref(), file.as_os_str()]);
        c.args(["--min-seconds", "1"]);
        peer_rate(c)
    };
    let valid = verify(feed);
    let (ours, peers) = alternate(
        rounds,
        || feed.adverts.len() as f64 / ctx.time_job(ctx.samples(), || verify(feed)),
        &mut [&mut py_run, &mut js_run],
    );
    let mut rows = Vec::new();
    for (name, res) in [PY_PEER, JS_PEER].into_iter().zip(peers) {
        let row = Row::with_peer(
            SECTION,
            format!(
                "advert parse + signature verify ({} adverts)",
                feed.adverts.len()
            ),
            "adverts/s",
            Better::Higher,
            ours,
            name,
            res.as_ref().map(|r| r.0),
        );
        rows.push(if valid == feed.adverts.len() {
            row
        } else {
            row.failed(format!(
                "{valid} of {} adverts verified",
                feed.adverts.len()
            ))
        });
    }
    rows
}
