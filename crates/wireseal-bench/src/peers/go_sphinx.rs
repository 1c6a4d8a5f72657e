//! lightning-onion v1.3.0 (Go) as a peer: building the helper from the
//! embedded `interop/sphinx` sources, and its line protocol (one JSON command
//! per line, one JSON reply per line).

use super::{cache_dir, last_line, source_key, write_atomic, Skip};
use crate::timing::{calls_per_sample, median};
use crate::Ctx;
use serde_json::{json, Value};
use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

const MAIN_GO: &str = include_str!("../../../../interop/sphinx/main.go");
const GO_MOD: &str = include_str!("../../../../interop/sphinx/go.mod");
const GO_SUM: &str = include_str!("../../../../interop/sphinx/go.sum");

/// The lightning-onion helper, built once per process: written to the cache
/// directory and built there with `go build` (modules from the Go module
/// proxy), or reused when a build of the same sources is already there.
///
/// # Errors
///
/// [`Skip`] saying which step failed: no cache directory, `go` missing,
/// `go build` failing (its last line of output).
pub fn go_sphinx() -> Result<PathBuf, Skip> {
    static BIN: OnceLock<Result<PathBuf, Skip>> = OnceLock::new();
    BIN.get_or_init(|| build(&cache_dir()?)).clone()
}

fn build(cache: &Path) -> Result<PathBuf, Skip> {
    let dir = cache.join(format!(
        "sphinx-peer-{}",
        source_key(&[MAIN_GO, GO_MOD, GO_SUM])
    ));
    let bin = dir.join("sphinx-peer");
    if bin.is_file() {
        return Ok(bin);
    }
    match Command::new("go").arg("version").output() {
        Err(_) => return Err(Skip::new("`go` is not installed")),
        Ok(o) if !o.status.success() => return Err(Skip::new("`go version` failed")),
        Ok(_) => {}
    }
    let pid = std::process::id();
    let src = dir.join(format!("src-{pid}"));
    std::fs::create_dir_all(&src)
        .map_err(|e| Skip::new(format!("cannot create {}: {e}", src.display())))?;
    for (name, text) in [("main.go", MAIN_GO), ("go.mod", GO_MOD), ("go.sum", GO_SUM)] {
        write_atomic(&src.join(name), text)?;
    }
    let tmp = dir.join(format!("sphinx-peer.tmp{pid}"));
    let out = Command::new("go")
        .args(["build", "-o"])
        .arg(&tmp)
        .arg(".")
        .current_dir(&src)
        .env("GOFLAGS", "-mod=mod")
        .output();
    let _ = std::fs::remove_dir_all(&src);
    let out = out.map_err(|e| Skip::new(format!("cannot run `go build`: {e}")))?;
    if !out.status.success() {
        return Err(Skip::new(format!(
            "`go build` of the lightning-onion helper failed: {}",
            last_line(&out.stderr)
        )));
    }
    std::fs::rename(&tmp, &bin)
        .map_err(|e| Skip::new(format!("cannot move the helper into place: {e}")))?;
    Ok(bin)
}

/// The helper's bench server (op `bench_serve`): the route and keys are set
/// up once; each sample is timed inside Go, so the pipe is not counted.
pub struct GoBench {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
}

impl GoBench {
    /// Builds (or finds) and starts the helper, sending `setup` (the route,
    /// session key, associated data and peeling key of our side).
    ///
    /// # Errors
    ///
    /// [`Skip`] when the helper cannot be built or started, or rejects `setup`.
    pub fn start(setup: &Value) -> Result<Self, Skip> {
        let bin = go_sphinx()?;
        let mut child = Command::new(&bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Skip::new(format!("cannot start the helper: {e}")))?;
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut go = Self { child, stdin, out };
        go.ask(setup)?;
        Ok(go)
    }

    /// Sends one command line and reads one reply line.
    fn ask(&mut self, cmd: &Value) -> Result<Value, Skip> {
        let sent = self
            .stdin
            .as_mut()
            .map(|w| writeln!(w, "{cmd}").and_then(|_| w.flush()));
        let mut line = String::new();
        let got = self.out.read_line(&mut line);
        match (sent, got) {
            (Some(Ok(())), Ok(n)) if n > 0 => serde_json::from_str(&line)
                .map_err(|e| Skip::new(format!("bad reply from the helper: {e}"))),
            _ => Err(Skip::new(format!(
                "the helper failed: {}",
                self.stderr_tail()
            ))),
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
    fn calibrate(&mut self, workload: &str, per_sample: f64) -> Result<u64, Skip> {
        let r = self.ask(&json!({"op": "calibrate", "workload": workload,
            "per_sample_ns": (per_sample * 1e9) as u64}))?;
        r["n"]
            .as_u64()
            .ok_or_else(|| Skip::new("calibrate: no n in the reply"))
    }

    /// One sample of `n` calls, timed in Go: seconds per call.
    fn sample(&mut self, workload: &str, n: u64) -> Result<f64, Skip> {
        let r = self.ask(&json!({"op": "sample", "workload": workload, "n": n}))?;
        r["ns_per_op"]
            .as_f64()
            .map(|ns| ns / 1e9)
            .ok_or_else(|| Skip::new("sample: no ns_per_op in the reply"))
    }

    /// Ours against lightning-onion on `workload`, sampled alternately: each
    /// round one sample of ours (timed here), then one sample of Go's (timed
    /// in Go). Medians, seconds per call: (ours, Go's).
    ///
    /// # Errors
    ///
    /// [`Skip`] when the helper fails part way.
    pub fn pair<R>(
        &mut self,
        ctx: &Ctx,
        workload: &str,
        mut ours: impl FnMut() -> R,
    ) -> Result<(f64, f64), Skip> {
        let per = ctx.budget().as_secs_f64() / ctx.samples() as f64;
        let n_ours = calls_per_sample(per, &mut ours);
        let n_go = self.calibrate(workload, per)?;
        let (mut theirs, mut err) = (Vec::new(), None);
        let (t_ours, _) = ctx.time_pair_job(
            ctx.samples(),
            || {
                for _ in 0..n_ours {
                    black_box(ours());
                }
            },
            || match self.sample(workload, n_go) {
                Ok(s) => theirs.push(s),
                Err(e) => err = Some(e),
            },
        );
        match err {
            Some(e) => Err(e),
            None => Ok((t_ours / n_ours as f64, median(&mut theirs))),
        }
    }
}

impl Drop for GoBench {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
