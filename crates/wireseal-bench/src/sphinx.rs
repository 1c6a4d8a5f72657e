//! `sphinx` bench section: BOLT #4 onion build and peel next to lightning-onion
//! (Go, via `interop/sphinx`) and LDK measured in the same run, the
//! elliptic-curve floors of build and peel, the quadratic shared-secret
//! derivation for contrast, and batch peel on one core against all cores.
//!
//! Every ours-vs-other figure is a pair sampled alternately, so load on a
//! shared machine hits both alike. The peers get their keys parsed and routes
//! built outside the timed code, as wireseal does. lightning-onion times
//! itself in its own process (a Go bench server): each round runs one sample
//! of ours here, then asks Go for one sample of the same workload.

use super::sphinx_baselines::session_secrets_quadratic;
use super::sphinx_ldk::Ldk;
use super::timing::{calls_per_sample, median};
use super::{Better, Ctx, Row};
use serde_json::{json, Value};
use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;
use wireseal::batch::Batch;
use wireseal::keys::{PrivateKey, PublicKey};
use wireseal::sphinx::{self, keys, Hop, Onion, Padding, PeelItem, Route, PAYMENT_AREA};

const S: &str = "sphinx";
const GO: &str = "lightning-onion v1.3.0 (Go)";
const LDK: &str = "LDK lightning 0.2.7";

fn node(i: usize) -> PrivateKey {
    PrivateKey::from_bytes(&[0x50 + i as u8; 32]).expect("valid key")
}

/// Builds the Go helper in this run; a failure says which step failed (a
/// binary left from an earlier run is never used).
fn build_go_helper() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let src = root.join("interop/sphinx");
    if !src.is_dir() {
        return Err(format!("{} is missing", src.display()));
    }
    match Command::new("go").arg("version").output() {
        Err(_) => return Err("`go` is not installed".into()),
        Ok(o) if !o.status.success() => return Err("`go version` failed".into()),
        Ok(_) => {}
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let bin = target.join("interop").join("sphinx-peer");
    let out = Command::new("go")
        .args(["build", "-o"])
        .arg(&bin)
        .arg(".")
        .current_dir(&src)
        .output()
        .map_err(|e| format!("cannot run `go build`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`go build` of interop/sphinx failed: {}",
            last_line(&out.stderr)
        ));
    }
    Ok(bin)
}

fn last_line(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no output)")
        .trim()
        .to_string()
}

/// lightning-onion's bench server (`interop/sphinx`, op `bench_serve`): the
/// route and keys are set up once; each sample is timed inside Go.
struct GoBench {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
}

impl GoBench {
    /// Builds and starts the helper with the same route, session key,
    /// associated data and peeling key as our side.
    fn start(setup: Value) -> Result<Self, String> {
        let bin = build_go_helper()?;
        let mut child = Command::new(&bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the helper: {e}"))?;
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut go = Self { child, stdin, out };
        go.ask(&setup)?;
        Ok(go)
    }

    /// Sends one command line and reads one reply line.
    fn ask(&mut self, cmd: &Value) -> Result<Value, String> {
        let sent = self
            .stdin
            .as_mut()
            .map(|w| writeln!(w, "{cmd}").and_then(|_| w.flush()));
        let mut line = String::new();
        let got = self.out.read_line(&mut line);
        match (sent, got) {
            (Some(Ok(())), Ok(n)) if n > 0 => {
                serde_json::from_str(&line).map_err(|e| format!("bad reply from the helper: {e}"))
            }
            _ => Err(format!("the helper failed: {}", self.stderr_tail())),
        }
    }

    fn stderr_tail(&mut self) -> String {
        drop(self.stdin.take());
        let _ = self.child.wait();
        let mut e = Vec::new();
        if let Some(mut s) = self.child.stderr.take() {
            let _ = s.read_to_end(&mut e);
        }
        last_line(&e)
    }

    /// Calls of `workload` per sample of `per_sample` seconds.
    fn calibrate(&mut self, workload: &str, per_sample: f64) -> Result<u64, String> {
        let r = self.ask(&json!({"op": "calibrate", "workload": workload,
            "per_sample_ns": (per_sample * 1e9) as u64}))?;
        r["n"]
            .as_u64()
            .ok_or_else(|| "calibrate: no n in the reply".into())
    }

    /// One sample of `n` calls, timed in Go: seconds per call.
    fn sample(&mut self, workload: &str, n: u64) -> Result<f64, String> {
        let r = self.ask(&json!({"op": "sample", "workload": workload, "n": n}))?;
        r["ns_per_op"]
            .as_f64()
            .map(|ns| ns / 1e9)
            .ok_or_else(|| "sample: no ns_per_op in the reply".into())
    }
}

impl Drop for GoBench {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Ours against lightning-onion on `workload`, sampled alternately: each
/// round one sample of ours (timed here), then one sample of Go's (timed in
/// Go, so the pipe is not counted). Medians, seconds per call.
fn pair_with_go<R>(
    ctx: &Ctx,
    go: &mut GoBench,
    workload: &str,
    mut ours: impl FnMut() -> R,
) -> Result<(f64, f64), String> {
    let per = ctx.budget().as_secs_f64() / ctx.samples() as f64;
    let n_ours = calls_per_sample(per, &mut ours);
    let n_go = go.calibrate(workload, per)?;
    let (mut theirs, mut err) = (Vec::new(), None);
    let (t_ours, _) = ctx.time_pair_job(
        ctx.samples(),
        || {
            for _ in 0..n_ours {
                black_box(ours());
            }
        },
        || match go.sample(workload, n_go) {
            Ok(s) => theirs.push(s),
            Err(e) => err = Some(e),
        },
    );
    match err {
        Some(e) => Err(e),
        None => Ok((t_ours / n_ours as f64, median(&mut theirs))),
    }
}

/// The `sphinx` rows.
pub fn run(ctx: &Ctx) -> Vec<Row> {
    let us = 1e6;
    let session = PrivateKey::from_bytes(&[0x41; 32]).expect("valid key");
    let ad = [0x42u8; 32];
    let payload = [0x07u8; 20];
    let keys20: Vec<PrivateKey> = (0..20).map(node).collect();
    let pubs: Vec<PublicKey> = keys20.iter().map(|k| k.public_key()).collect();
    let hops20: Vec<Hop> = pubs
        .iter()
        .map(|p| Hop {
            pubkey: *p,
            payload: &payload,
        })
        .collect();

    // lightning-onion: started (and built) before any timing, same workload.
    let setup = json!({
        "op": "bench_serve",
        "session_key": hex::encode(session.to_secret().expose()),
        "associated_data": hex::encode(ad),
        "hops": pubs.iter().map(|p| json!({
            "pubkey": hex::encode(p.serialize()),
            "payload": hex::encode(payload),
        })).collect::<Vec<_>>(),
        "node_key": hex::encode(keys20[0].to_secret().expose()),
    });
    let mut go = match GoBench::start(setup) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("sphinx: lightning-onion skipped: {e}");
            None
        }
    };

    let mut buf = vec![0u8; sphinx::PAYMENT_ONION_LEN];
    let build = |hops: &[Hop], buf: &mut [u8]| {
        let route = Route {
            hops,
            associated_data: &ad,
            area: PAYMENT_AREA,
            padding: Padding::Deterministic,
        };
        sphinx::build_into(&session, &route, buf).expect("builds")
    };
    // Warm up (lazy context set-up, caches, clock) before the first figure.
    let t = Instant::now();
    while t.elapsed() < std::time::Duration::from_millis(50) {
        build(&hops20, &mut buf);
    }

    // LDK: same route shape (its first hop is its own node, so it can peel),
    // keys parsed and the path built once; payloads of its own making.
    let ldk = Ldk::new([0x33; 32]);
    let mut ldk_hops: Vec<[u8; 33]> = pubs.iter().map(|p| p.serialize()).collect();
    ldk_hops[0] = ldk.node_id();
    let ldk_path20 = Ldk::path(&ldk_hops);
    let ldk_path1 = Ldk::path(&ldk_hops[..1]);
    let ldk_session = Ldk::session_key(&[0x41; 32]);
    let ph = [0x42u8; 32];

    // The Go pairs; None (and a note) when the helper fails part way.
    let mut go_pair = |what: &str, ours: &mut dyn FnMut()| -> Option<(f64, f64)> {
        let g = go.as_mut()?;
        match pair_with_go(ctx, g, what, ours) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("sphinx: lightning-onion skipped from `{what}` on: {e}");
                go = None;
                None
            }
        }
    };

    // Build, 20 hops: against the floor, LDK and lightning-onion.
    let floor_build = || {
        for p in &pubs {
            black_box(session.ecdh_sha256(p));
            black_box(session.public_key());
        }
    };
    let (b20_f, floor) = ctx.time_pair_per_op(|| build(&hops20, &mut buf), floor_build);
    let (b20_l, l20) = ctx.time_pair_per_op(
        || build(&hops20, &mut buf),
        || ldk.create(&ldk_session, &ldk_path20, ph, [0; 32]),
    );
    let g20 = go_pair("build20", &mut || {
        build(&hops20, &mut buf);
    });

    // Shared-secret derivation only (no packet): linear against quadratic.
    let (linear, quadratic) = ctx.time_pair_per_op(
        || keys::session_secrets(&session, pubs.iter().copied()),
        || session_secrets_quadratic(&session, &pubs),
    );

    // Build, 1 hop.
    let (b1_l, l1) = ctx.time_pair_per_op(
        || build(&hops20[..1], &mut buf),
        || ldk.create(&ldk_session, &ldk_path1, ph, [0; 32]),
    );
    let g1 = go_pair("build1", &mut || {
        build(&hops20[..1], &mut buf);
    });

    // Peel one layer (of 20), from the wire bytes: against its floor, LDK and
    // lightning-onion.
    let route20 = Route {
        hops: &hops20,
        associated_data: &ad,
        area: PAYMENT_AREA,
        padding: Padding::Deterministic,
    };
    let onion20 = sphinx::build_to_vec(&session, &route20).expect("builds").0;
    let peel = || {
        Onion::parse(&onion20)
            .and_then(|o| o.peel(&keys20[0], &ad))
            .expect("peels")
    };
    // The EC work a forwarding peel cannot avoid: one ECDH with the onion's
    // ephemeral key and one variable-base multiplication for the next one.
    let eph = *Onion::parse(&onion20).expect("parses").ephemeral_key();
    let tweak = [0x5au8; 32];
    let floor_peel = || {
        black_box(keys20[0].ecdh_sha256(&eph));
        black_box(eph.mul_tweak_vartime(&tweak).expect("valid tweak"))
    };
    let (peel_f, pfloor) = ctx.time_pair_per_op(peel, floor_peel);
    let (lonion, amt, cltv) = ldk.build(&[0x41; 32], &ldk_hops, ph, [0; 32]);
    let (peel_l, lpeel) = ctx.time_pair_per_op(peel, || {
        ldk.peel(&lonion, ph, amt, cltv).expect("LDK peels")
    });
    let gpeel = go_pair("peel", &mut || {
        peel();
    });
    drop(go); // the Go process exits; nothing of it runs during batch peel

    // Batch peel: distinct onions, one thread against every core.
    let n = if ctx.full { 4096 } else { 512 };
    let onions: Vec<Vec<u8>> = (0..64)
        .map(|_| {
            sphinx::build_to_vec(&PrivateKey::random(), &Route::payment(&hops20, &ad))
                .expect("builds")
                .0
        })
        .collect();
    let items: Vec<PeelItem> = (0..n)
        .map(|i| PeelItem {
            onion: &onions[i % onions.len()],
            associated_data: &ad,
        })
        .collect();
    let one = Batch::with_threads(1);
    let all = Batch::all_cores();
    let (t1, tn) = ctx.time_pair_job(
        ctx.samples(),
        || sphinx::peel_batch(&one, &keys20[0], &items),
        || sphinx::peel_batch(&all, &keys20[0], &items),
    );

    let go_row = |g: Option<(f64, f64)>, fallback: f64| match g {
        Some((ours, theirs)) => (ours, GO, Some(theirs)),
        None => (fallback, "lightning-onion (skipped)", None),
    };
    let (b20_g, go20_name, go20) = go_row(g20, b20_l);
    let (b1_g, go1_name, go1) = go_row(g1, b1_l);
    let (peel_g, gop_name, gop) = go_row(gpeel, peel_l);
    let cores = all.threads();
    vec![
        Row::new(
            S,
            "build 20 hops",
            "µs",
            Better::Lower,
            b20_g * us,
            go20_name,
            go20.map(|t| t * us),
        )
        .seed("lightning-onion 2.70 ms, 1,212 allocs (issue)"),
        Row::new(
            S,
            "build 20 hops",
            "µs",
            Better::Lower,
            b20_l * us,
            LDK,
            Some(l20 * us),
        )
        .seed("LDK ~1.0 ms (issue)"),
        Row::new(
            S,
            "build 20 hops vs floor (20 ECDH + 20 k·G)",
            "µs",
            Better::Lower,
            b20_f * us,
            "EC floor, same run",
            Some(floor * us),
        )
        .seed("target: within 15% (ratio >= 0.87)"),
        Row::new(
            S,
            "20-hop shared secrets (no packet), linear",
            "µs",
            Better::Lower,
            linear * us,
            "quadratic (Core Lightning)",
            Some(quadratic * us),
        )
        .seed("derivation only; CLN ~229 var-base mults"),
        Row::new(
            S,
            "build 1 hop",
            "µs",
            Better::Lower,
            b1_g * us,
            go1_name,
            go1.map(|t| t * us),
        ),
        Row::new(
            S,
            "build 1 hop",
            "µs",
            Better::Lower,
            b1_l * us,
            LDK,
            Some(l1 * us),
        ),
        Row::new(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel_g * us,
            gop_name,
            gop.map(|t| t * us),
        )
        .seed("lightning-onion 0.40 ms (issue); target >= 6x"),
        Row::new(
            S,
            "peel 1 hop (of 20)",
            "µs",
            Better::Lower,
            peel_l * us,
            LDK,
            Some(lpeel * us),
        ),
        Row::new(
            S,
            "peel 1 hop vs floor (ECDH + var-base mult)",
            "µs",
            Better::Lower,
            peel_f * us,
            "EC floor, same run",
            Some(pfloor * us),
        ),
        Row::new(
            S,
            format!("batch peel, {cores} cores vs 1"),
            "onions/s",
            Better::Higher,
            n as f64 / tn,
            "wireseal on 1 core",
            Some(n as f64 / t1),
        )
        .seed("target >= 1.8x"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_keys_are_valid() {
        assert_eq!(node(19).public_key().serialize().len(), 33);
    }

    #[test]
    fn last_line_skips_blank_lines() {
        assert_eq!(last_line(b"a\nb: failed\n\n"), "b: failed");
        assert_eq!(last_line(b""), "(no output)");
    }
}
