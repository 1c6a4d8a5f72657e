//! The Python worker (`interop/python/aescrypt_worker.py`): one process
//! that times one call of the `wireseal` package, of pyAesCrypt or of
//! OpenSSL's AES-256-CBC per request, so its samples alternate with the
//! library's in the same run.

use crate::peers::{cache_dir, Skip};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const SCRIPT: &str = include_str!("../../../../interop/python/aescrypt_worker.py");

/// A running worker.
pub(super) struct Worker {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    /// Why the `wireseal` package cannot be measured, when it cannot.
    pub(super) wireseal: Result<(), Skip>,
    /// Why pyAesCrypt cannot be measured, when it cannot.
    pub(super) pyaes: Result<(), Skip>,
}

impl Worker {
    /// Starts the worker with the package's interpreter (see
    /// `crate::python`).
    pub(super) fn start() -> Result<Self, Skip> {
        let py = crate::python::interpreter();
        let script = cache_dir()?.join("aescrypt_worker.py");
        std::fs::write(&script, SCRIPT)
            .map_err(|e| Skip::new(format!("cannot write {}: {e}", script.display())))?;
        let mut child = Command::new(&py)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Skip::new(format!("{} not runnable ({e})", py.display())))?;
        let input = child.stdin.take().ok_or_else(|| Skip::new("no stdin"))?;
        let output = BufReader::new(child.stdout.take().ok_or_else(|| Skip::new("no stdout"))?);
        let mut w = Worker {
            child,
            input,
            output,
            wireseal: Ok(()),
            pyaes: Ok(()),
        };
        let ready = w.line().map_err(|_| {
            let mut err = String::new();
            if let Some(mut e) = w.child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Skip::new(format!(
                "{} cannot run the AES Crypt worker ({})",
                py.display(),
                last.trim()
            ))
        })?;
        if let Some(why) = ready.get("wireseal").and_then(Value::as_str) {
            w.wireseal = Err(Skip::new(format!(
                "{} {why}; scripts/bench builds it (scripts/python-env.sh)",
                py.display()
            )));
        }
        if let Some(why) = ready.get("pyaescrypt").and_then(Value::as_str) {
            w.pyaes = Err(Skip::new(why));
        }
        Ok(w)
    }

    fn line(&mut self) -> Result<Value, Skip> {
        let mut l = String::new();
        let n = self
            .output
            .read_line(&mut l)
            .map_err(|e| Skip::new(format!("python worker: {e}")))?;
        if n == 0 {
            return Err(Skip::new("python worker exited"));
        }
        serde_json::from_str(&l).map_err(|e| Skip::new(format!("python worker said {l:?}: {e}")))
    }

    /// Runs one request; the seconds it reports.
    pub(super) fn time(&mut self, req: Value) -> Result<f64, Skip> {
        writeln!(self.input, "{req}")
            .and_then(|()| self.input.flush())
            .map_err(|e| Skip::new(format!("python worker: {e}")))?;
        let v = self.line()?;
        if let Some(e) = v.get("error").and_then(Value::as_str) {
            return Err(Skip::new(format!("python: {e}")));
        }
        v.get("s")
            .and_then(Value::as_f64)
            .ok_or_else(|| Skip::new(format!("python worker said {v}")))
    }

    /// Prepares `size` random bytes and their stream in the worker.
    pub(super) fn data(&mut self, size: usize) -> Result<(), Skip> {
        self.time(json!({"op": "data", "size": size})).map(drop)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "{}", json!({"op": "quit"}));
        let _ = self.input.flush();
        let _ = self.child.wait();
    }
}

/// Median of `v` (sorted in place).
pub(super) fn median(v: &mut [f64]) -> f64 {
    crate::timing::median(v)
}

/// A scratch folder under the system's temporary folder, removed when
/// dropped.
pub(super) struct ScratchDir(std::path::PathBuf);

impl ScratchDir {
    /// A new, empty folder named for `what` and this process.
    pub(super) fn new(what: &str) -> Result<Self, Skip> {
        let r: [u8; 4] = wireseal::entropy::random_array();
        let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
        let p = std::env::temp_dir().join(format!(
            "wireseal-bench-{what}-{}-{hex}",
            std::process::id()
        ));
        std::fs::create_dir_all(&p)
            .map_err(|e| Skip::new(format!("cannot create {}: {e}", p.display())))?;
        Ok(Self(p))
    }

    /// The folder.
    pub(super) fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
