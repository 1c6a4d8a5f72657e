//! `wireseal bench --section peat`: the shape of peat-btle's own tables
//! (docs/encryption-performance.md): latency plain vs encrypted per document
//! size, size overhead, and documents per second on one core and all cores.
//!
//! The baseline measured in the same run is the unencrypted path (copying
//! the document, as peat-btle's "plain" columns do), sampled alternately with
//! the encrypted path so that load on a shared machine hits both alike. The
//! peat-btle crate itself is not on the package registry this project builds
//! from, so its figures appear as seed figures. The report's curve of
//! documents per second by size is [`sizes`].

mod sizes;

use crate::{Better, Ctx, Row};
use std::hint::black_box;
use wireseal::batch::Batch;
use wireseal::entropy::NonceSource;
use wireseal::keys::StaticSecret;
use wireseal::peat::{
    policy, seal_batch_len, sealed_len, KeyExchangeOutcome, MeshId, MeshSealer, PeerSessions,
    MESH_OVERHEAD, PEER_OVERHEAD,
};

const S: &str = "peat";

/// Document sizes of peat-btle's table: 0, 1, 5, 10 and 20 chats.
/// (size, label, peat-btle debug build column, sync column).
const SIZES: [(usize, &str, &str, &str); 5] = [
    (
        51,
        "0 chats",
        "peat-btle debug: 64 µs (plain 1)",
        "debug: 105 µs (plain 1)",
    ),
    (
        129,
        "1 chat",
        "peat-btle debug: 77 µs (plain <1)",
        "debug: 146 µs (plain 2)",
    ),
    (
        417,
        "5 chats",
        "peat-btle debug: 131 µs (plain 1)",
        "debug: 255 µs (plain 4)",
    ),
    (
        633,
        "10 chats",
        "peat-btle debug: 147 µs (plain 4)",
        "debug: 290 µs (plain 8)",
    ),
    (
        641,
        "20 chats",
        "peat-btle debug: 145 µs (plain 4)",
        "debug: 288 µs (plain 8)",
    ),
];

/// A document of `n` bytes.
fn doc(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + 1) as u8).collect()
}

/// The unencrypted path: the document is copied out and copied back in.
fn plain_round_trip(d: &[u8], out: &mut [u8], back: &mut [u8]) -> u8 {
    out[..d.len()].copy_from_slice(black_box(d));
    back[..d.len()].copy_from_slice(black_box(&out[..d.len()]));
    back[0]
}

/// Runs the section.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let bench_mesh: MeshId = "BENCH".parse().expect("a valid mesh id");
    let mut sealer = MeshSealer::new(&bench_mesh, &[0x42; 32]);
    let (mut rows, at633) = doc_rows(ctx, &mut sealer);
    rows.extend(overhead_rows(&at633));
    rows.extend(frame_overhead_rows());
    rows.push(one_core_row(&at633));
    rows.push(batch_row(ctx, &bench_mesh));
    rows.push(nonce_row(ctx));
    rows.extend(e2ee_row(ctx, &mut sealer));
    rows.push(policy_row(ctx));
    rows.extend(sizes::rows(ctx, &mut sealer));
    rows
}

/// The 633-byte document's figures (seconds per document), which later
/// rows read.
#[derive(Default)]
struct At633 {
    /// Seal and open.
    enc: f64,
    /// Copied out and back in.
    plain: f64,
    /// Seal alone, less a copy.
    enc_only: f64,
}

/// Encrypt, and encrypt + decrypt, of each document size of peat-btle's
/// table against copying it; the 633-byte document's figures.
fn doc_rows(ctx: &Ctx, sealer: &mut MeshSealer) -> (Vec<Row>, At633) {
    let mut rows = Vec::new();
    let mut frame = vec![0u8; sealed_len(1024)];
    let mut plain_out = vec![0u8; 1024];
    let mut back = vec![0u8; 1024];
    let mut at633 = At633::default();
    for (n, label, build, sync) in SIZES {
        let d = doc(n);
        let (seal, copy) = ctx.time_pair_per_op(
            || sealer.seal_into(&d, &mut frame).map(|l| frame[l - 1]),
            || {
                plain_out[..n].copy_from_slice(black_box(&d));
                plain_out[0]
            },
        );
        let (enc, plain) = ctx.time_pair_per_op(
            || {
                let len = sealer
                    .seal_into(&d, &mut frame)
                    .expect("buffer is large enough");
                let pt = sealer
                    .open_in_place(&mut frame[..len])
                    .expect("own frame opens");
                pt[0]
            },
            || plain_round_trip(&d, &mut plain_out, &mut back),
        );
        if n == 633 {
            at633 = At633 {
                enc,
                plain,
                enc_only: seal - copy,
            };
        }
        rows.push(
            Row::new(
                S,
                format!("encrypt {n} B doc ({label})"),
                "µs",
                Better::Lower,
                seal * 1e6,
                "plain (copy)",
                Some(copy * 1e6),
            )
            .seed(build),
        );
        rows.push(
            Row::new(
                S,
                format!("encrypt+decrypt {n} B doc ({label})"),
                "µs",
                Better::Lower,
                enc * 1e6,
                "plain (copy out + in)",
                Some(plain * 1e6),
            )
            .seed(sync),
        );
    }
    (rows, at633)
}

/// What encryption adds to a 633-byte document: encrypt alone, and
/// encrypt + decrypt.
fn overhead_rows(at633: &At633) -> Vec<Row> {
    vec![
        Row::new(
            S,
            "encryption overhead per 633 B doc (encrypt)",
            "µs",
            Better::Lower,
            at633.enc_only.max(0.0) * 1e6,
            "target",
            Some(0.6),
        )
        .seed("peat-btle debug: +143 µs"),
        Row::new(
            S,
            "overhead per 633 B doc (encrypt+decrypt)",
            "µs",
            Better::Lower,
            (at633.enc - at633.plain).max(0.0) * 1e6,
            "-",
            None,
        )
        .seed("peat-btle debug: +282 µs"),
    ]
}

/// The bytes each frame adds, against peat-btle's (the same wire format).
fn frame_overhead_rows() -> Vec<Row> {
    vec![
        Row::new(
            S,
            "size overhead, mesh-wide frame (0xAE)",
            "bytes",
            Better::Lower,
            MESH_OVERHEAD as f64,
            "peat-btle (same wire format)",
            Some(30.0),
        )
        .seed("30 bytes: marker 2 + nonce 12 + tag 16"),
        Row::new(
            S,
            "size overhead, per-peer frame (0xAF)",
            "bytes",
            Better::Lower,
            PEER_OVERHEAD as f64,
            "peat-btle (same wire format)",
            Some(46.0),
        ),
    ]
}

/// 633-byte documents per second on one core, against plain.
fn one_core_row(at633: &At633) -> Row {
    Row::new(
        S,
        "633 B docs/s encrypt+decrypt, 1 core",
        "docs/s",
        Better::Higher,
        1.0 / at633.enc,
        "plain (unencrypted), 1 core",
        Some(1.0 / at633.plain),
    )
    .seed(
        "peat-btle: 7,148/s debug vs 247,743/s unencrypted (97% loss); \
         ~205,000/s 0.2.4 release here; target 1,000,000/s",
    )
}

/// Batch: seal_batch_into + open_batch_ranges_in_place over one buffer per
/// side, allocated and touched once, reused by every pass; one thread and
/// all cores sampled alternately.
fn batch_row(ctx: &Ctx, mesh: &MeshId) -> Row {
    let count = if ctx.full { 65_536 } else { 16_384 };
    let d633 = doc(633);
    let docs: Vec<&[u8]> = (0..count).map(|_| d633.as_slice()).collect();
    let batch_sealer = MeshSealer::new(mesh, &[0x42; 32]);
    let key = batch_sealer.key();
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let mut buf_one = vec![0u8; seal_batch_len(&docs)];
    let mut buf_all = buf_one.clone();
    let pass = |b: &Batch, buf: &mut [u8]| {
        let ranges = batch_sealer
            .seal_batch_into(b, &docs, buf)
            .expect("buffer sized by seal_batch_len");
        let opened = key.open_batch_ranges_in_place(b, buf, &ranges);
        assert!(
            opened.iter().all(|r| r.is_ok()),
            "a batch frame failed to open"
        );
        opened.len()
    };
    // Warm-up: fault the buffers in and start the pools outside the timing.
    pass(&one, &mut buf_one);
    pass(&all, &mut buf_all);
    let (t_one, t_all) = ctx.time_pair_job(
        ctx.samples(),
        || pass(&one, &mut buf_one),
        || pass(&all, &mut buf_all),
    );
    Row::new(
        S,
        format!("633 B docs/s batch, {} cores vs 1", all.threads()),
        "docs/s",
        Better::Higher,
        count as f64 / t_all,
        "same batch API, 1 core",
        Some(count as f64 / t_one),
    )
    .seed(
        "peat-btle: no batch path, one core (7,148/s debug; 247,743/s unencrypted); \
         target: all cores >= 1.8x one core",
    )
}

/// Nonce source: amortised getrandom vs one getrandom per frame.
fn nonce_row(ctx: &Ctx) -> Row {
    let mut ns = NonceSource::new();
    let (buffered, syscall) =
        ctx.time_pair_per_op(|| ns.take::<12>(), wireseal::entropy::random_array::<12>);
    Row::new(
        S,
        "12-byte nonce from OS CSPRNG",
        "ns",
        Better::Lower,
        buffered * 1e9,
        "one getrandom per frame",
        Some(syscall * 1e9),
    )
}

/// Per-peer E2EE, 633 B, established session, against the mesh-wide frame
/// in the same run; none when the session does not come up.
fn e2ee_row(ctx: &Ctx, sealer: &mut MeshSealer) -> Option<Row> {
    let d633 = doc(633);
    let mut frame = vec![0u8; sealed_len(1024)];
    let mut a = PeerSessions::new(1, StaticSecret::generate());
    let mut b = PeerSessions::new(2, StaticSecret::generate());
    let kx = a.initiate(0, 2).expect("distinct node ids");
    let Ok(KeyExchangeOutcome::Established { response, .. }) = b.handle_key_exchange(0, &kx) else {
        return None;
    };
    a.handle_key_exchange(0, &response).ok()?;
    let mut pframe = vec![0u8; d633.len() + PEER_OVERHEAD];
    let (e2ee, mesh) = ctx.time_pair_per_op(
        || {
            let n = a
                .seal_into(0, 2, &d633, &mut pframe)
                .expect("session is up");
            b.open_in_place(0, &mut pframe[..n])
                .expect("own per-peer frame opens")
                .len()
        },
        || {
            let len = sealer
                .seal_into(&d633, &mut frame)
                .expect("buffer is large enough");
            sealer
                .open_in_place(&mut frame[..len])
                .expect("own frame opens")
                .len()
        },
    );
    Some(Row::new(
        S,
        "per-peer E2EE encrypt+decrypt 633 B",
        "µs",
        Better::Lower,
        e2ee * 1e6,
        "mesh-wide, same run",
        Some(mesh * 1e6),
    ))
}

/// The policy decision itself.
fn policy_row(ctx: &Ctx) -> Row {
    let p = policy::Policy::new(policy::Level::Selective).with_adaptive(20, 10.0);
    let c = policy::Conditions {
        battery_percent: 50,
        update_rate_hz: 2.0,
    };
    let t = ctx.time_per_op(|| {
        black_box(&p).decide(
            black_box(policy::DataType::Location),
            policy::Link::KnownPeer,
            c,
        )
    });
    Row::new(
        S,
        "policy decision (Selective + adaptive)",
        "ns",
        Better::Lower,
        t * 1e9,
        "-",
        None,
    )
}
