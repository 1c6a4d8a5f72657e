//! The Python package against the library path and pyAesCrypt, samples
//! alternated in the same run: the stream functions on `BytesIO`, the
//! streaming classes, the file functions (and what their fsync costs), and
//! two Python threads decrypting at once.

use super::worker::{median, ScratchDir, Worker};
use super::{mbps, PW, S};
use crate::peers::Skip;
use crate::{Better, Ctx, Row};
use serde_json::json;
use std::time::Instant;
use wireseal::aescrypt::{self, EncryptOptions, Limits};
use wireseal::batch::Batch;

/// Seconds of one library call and one worker request, `n` times
/// alternately; the medians.
fn alternate(
    n: usize,
    mut lib: impl FnMut(),
    w: &mut Worker,
    req: serde_json::Value,
) -> Result<(f64, f64), Skip> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..n.max(3) {
        let t = Instant::now();
        lib();
        a.push(t.elapsed().as_secs_f64());
        b.push(w.time(req.clone())?);
    }
    Ok((median(&mut a), median(&mut b)))
}

/// Medians of two worker requests sampled alternately.
fn alternate_py(
    n: usize,
    w: &mut Worker,
    a: serde_json::Value,
    b: serde_json::Value,
) -> Result<(f64, f64), Skip> {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n.max(3) {
        x.push(w.time(a.clone())?);
        y.push(w.time(b.clone())?);
    }
    Ok((median(&mut x), median(&mut y)))
}

/// The rows; one skipped row when the package cannot be run.
pub(super) fn rows(ctx: &Ctx, rows: &mut Vec<Row>) {
    if let Err(why) = measure(ctx, rows) {
        rows.push(Row::with_peer(
            S,
            "Python package (wireseal.aescrypt)",
            "-",
            Better::Higher,
            0.0,
            "library path (same run)",
            Err(&why),
        ));
    }
}

fn measure(ctx: &Ctx, rows: &mut Vec<Row>) -> Result<(), Skip> {
    let mib = if ctx.full { 256 } else { 64 };
    let size = mib << 20;
    let n = if ctx.full { 7 } else { 5 };
    let mut w = Worker::start()?;
    w.wireseal.clone()?;
    w.data(size)?;
    let batch = Batch::all_cores();
    let mut data = vec![0u8; size];
    wireseal::entropy::fill_random(&mut data);
    let ct = aescrypt::encrypt_to_vec(&batch, PW, &data, &EncryptOptions::v2()).expect("encrypt");
    let pyaes = w.pyaes.clone();
    stream_rows(n, &mut w, &data, &ct, &pyaes, rows)?;
    class_rows(n, &mut w, &data, &ct, rows)?;
    files(ctx, &mut w, &data, &pyaes, rows)?;
    drop((data, ct));
    threads(ctx, &mut w, rows)
}

/// The library's job next to the Python calls.
const LIB_NAME: &str = "library, same job (same run)";

/// encryptStream / decryptStream on `BytesIO` against the library doing
/// the same job (from an in-memory reader into a new, growing buffer, as a
/// `BytesIO` grows), and against pyAesCrypt's.
fn stream_rows(
    n: usize,
    w: &mut Worker,
    data: &[u8],
    ct: &[u8],
    pyaes: &Result<(), Skip>,
    rows: &mut Vec<Row>,
) -> Result<(), Skip> {
    let (size, mib) = (data.len(), data.len() >> 20);
    let batch = Batch::all_cores();
    let opts = EncryptOptions::v2();
    let lim = Limits::default();
    let mut lib_enc = || {
        let enc = aescrypt::Encryptor::new(PW, &opts).expect("encryptor");
        let out = aescrypt::io::encrypt_stream(&batch, enc, data, Vec::new()).expect("encrypt");
        std::hint::black_box(out);
    };
    let mut lib_dec = || {
        let mut plain = Vec::new();
        aescrypt::io::decrypt_into_sink(&batch, PW, ct, &mut plain, &lim).expect("decrypt");
        std::hint::black_box(plain);
    };
    let peer = "pyAesCrypt 6.1.1 (same run)";
    for (what, op, pyop, lib) in [
        (
            "encryptStream",
            "enc_stream",
            "pyaes_enc_stream",
            &mut lib_enc as &mut dyn FnMut(),
        ),
        (
            "decryptStream",
            "dec_stream",
            "pyaes_dec_stream",
            &mut lib_dec,
        ),
    ] {
        let (l, p) = alternate(n, lib, w, json!({"op": op, "size": size}))?;
        rows.push(
            Row::new(
                S,
                format!("Python {what} {mib} MiB (BytesIO) vs library"),
                "MB/s",
                Better::Higher,
                mbps(size, p),
                LIB_NAME,
                Some(mbps(size, l)),
            )
            .seed("target >= 0.85x the library path"),
        );
        let pair = match pyaes {
            Ok(()) => alternate_py(
                n,
                w,
                json!({"op": op, "size": size}),
                json!({"op": pyop, "size": size}),
            )
            .map(|(o, t)| (mbps(size, o), mbps(size, t))),
            Err(why) => Err(why.clone()),
        };
        rows.push(
            Row::with_peer(
                S,
                format!("Python {what} {mib} MiB (BytesIO)"),
                "MB/s",
                Better::Higher,
                pair.as_ref().map_or(mbps(size, p), |(o, _)| *o),
                peer,
                pair.as_ref().map(|(_, t)| *t),
            )
            .seed("target >= 2x pyAesCrypt"),
        );
    }
    Ok(())
}

/// The streaming classes fed 1 MiB pieces against the library doing the
/// same, each result a new buffer.
fn class_rows(
    n: usize,
    w: &mut Worker,
    data: &[u8],
    ct: &[u8],
    rows: &mut Vec<Row>,
) -> Result<(), Skip> {
    let (size, mib) = (data.len(), data.len() >> 20);
    let batch = Batch::all_cores();
    let opts = EncryptOptions::v2();
    let lim = Limits::default();
    let mut lib_encryptor = || {
        let mut e = aescrypt::Encryptor::new(PW, &opts).expect("encryptor");
        for piece in data.chunks(1 << 20) {
            let mut out = Vec::new();
            e.update(&batch, piece, &mut out);
            std::hint::black_box(out);
        }
        let mut out = Vec::new();
        e.finish(&mut out);
    };
    let mut lib_decryptor = || {
        let mut d = aescrypt::Decryptor::new(PW, &lim);
        let mut plain = Vec::new();
        for piece in ct.chunks(1 << 20) {
            d.update(&batch, piece, &mut plain).expect("decrypt");
        }
        d.finish(&mut plain).expect("decrypt");
        std::hint::black_box(plain);
    };
    for (what, op, lib) in [
        (
            "Encryptor.update, 1 MiB pieces",
            "encryptor",
            &mut lib_encryptor as &mut dyn FnMut(),
        ),
        (
            "Decryptor.update + finish, 1 MiB pieces",
            "decryptor",
            &mut lib_decryptor,
        ),
    ] {
        let (l, p) = alternate(n, lib, w, json!({"op": op, "size": size}))?;
        rows.push(Row::new(
            S,
            format!("Python {what}, {mib} MiB vs library"),
            "MB/s",
            Better::Higher,
            mbps(size, p),
            LIB_NAME,
            Some(mbps(size, l)),
        ));
    }
    Ok(())
}

/// encryptFile / decryptFile against pyAesCrypt's, and the fsync share.
fn files(
    ctx: &Ctx,
    w: &mut Worker,
    data: &[u8],
    pyaes: &Result<(), Skip>,
    rows: &mut Vec<Row>,
) -> Result<(), Skip> {
    let size = data.len();
    let mib = size >> 20;
    let n = if ctx.full { 5 } else { 3 };
    let dir = ScratchDir::new("files")?;
    let p = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(p("plain"), data).map_err(|e| Skip::new(e.to_string()))?;
    w.time(json!({"op": "enc_file", "src": p("plain"), "dst": p("ct.aes")}))?;
    let peer = "pyAesCrypt 6.1.1 (same run; no fsync)";
    let mut dec_s = 0.0;
    for (what, ours, theirs, src) in [
        ("encryptFile", "enc_file", "pyaes_enc_file", p("plain")),
        ("decryptFile", "dec_file", "pyaes_dec_file", p("ct.aes")),
    ] {
        let a = json!({"op": ours, "src": src, "dst": p("ours.out")});
        let r = match pyaes {
            Ok(()) => alternate_py(
                n,
                w,
                a,
                json!({"op": theirs, "src": src, "dst": p("theirs.out")}),
            )
            .map(|(x, y)| (x, Ok(mbps(size, y)))),
            Err(why) => {
                let mut v: Vec<f64> = (0..n)
                    .map(|_| w.time(a.clone()))
                    .collect::<Result<_, _>>()?;
                Ok((median(&mut v), Err(why.clone())))
            }
        }?;
        if ours == "dec_file" {
            dec_s = r.0;
        }
        rows.push(Row::with_peer(
            S,
            format!("Python {what} {mib} MiB (fsync)"),
            "MB/s",
            Better::Higher,
            mbps(size, r.0),
            peer,
            r.1.as_ref().map(|t| *t),
        ));
    }
    let mut f: Vec<f64> = (0..n)
        .map(|_| w.time(json!({"op": "fsync", "path": p("sync"), "size": size})))
        .collect::<Result<_, _>>()?;
    let fsync = median(&mut f);
    rows.push(
        Row::new(
            S,
            format!("Python decryptFile {mib} MiB: its fsync"),
            "ms",
            Better::Lower,
            fsync * 1e3,
            "decryptFile (whole call)",
            Some(dec_s * 1e3),
        )
        .seed(format!(
            "fsync of {mib} MiB is {:.0}% of the call",
            100.0 * fsync / dec_s.max(1e-9)
        )),
    );
    Ok(())
}

/// Two Python threads each decrypting a stream against one thread
/// decrypting both in turn. Many alternated samples (each about 0.05 s):
/// on a shared two-vCPU machine single pairs of the same code read from
/// 0.8x to 2.3x, the median of five moved by half a unit, and the median
/// of 15 by a third of one between runs a minute apart.
fn threads(ctx: &Ctx, w: &mut Worker, rows: &mut Vec<Row>) -> Result<(), Skip> {
    let mib = if ctx.full { 32 } else { 16 };
    let size = mib << 20;
    let n = if ctx.full { 61 } else { 41 };
    w.data(size)?;
    for (batch, what) in [
        ("one", "Batch(1) each"),
        ("default", "the default all-core batch"),
    ] {
        let (two, one) = alternate_py(
            n,
            w,
            json!({"op": "threads", "size": size, "n": 2, "batch": batch}),
            json!({"op": "threads", "size": size, "n": 1, "batch": batch}),
        )?;
        let work = 2 * size;
        let row = Row::new(
            S,
            format!("Python decryptStream 2x{mib} MiB, 2 threads, {what}"),
            "MB/s",
            Better::Higher,
            mbps(work, two),
            "1 thread, one stream after the other",
            Some(mbps(work, one)),
        );
        rows.push(if batch == "one" {
            row.seed("target >= 1.6x on 2 cores")
        } else {
            row
        });
    }
    Ok(())
}
