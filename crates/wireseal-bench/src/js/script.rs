//! `js/bench/bench.mjs` in its cache folder: finding `node`, installing the
//! pinned peers and the packed package, running it, reading its lines.

use crate::peers::{cache_dir, last_line, Skip};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BENCH: &str = include_str!("../../../../js/bench/bench.mjs");
const PACKAGE_JSON: &str = include_str!("../../../../js/bench/package.json");
const PACKAGE_LOCK: &str = include_str!("../../../../js/bench/package-lock.json");
/// BIP324's packet vectors, which the script checks its compositions with.
const BIP324_VECTORS: &str =
    include_str!("../../../../vectors/bip324/packet_encoding_test_vectors.csv");

/// The peers a workload's object names, in row order.
const PEERS: [&str; 2] = ["noble", "node"];

/// A folder ready to run the script in.
pub struct Bench {
    dir: PathBuf,
}

/// One peer's figure (or why there is none) and its note.
pub struct Peer {
    pub name: String,
    pub value: Result<f64, Skip>,
    pub note: Option<String>,
}

/// One line of the script's output.
pub struct Workload {
    /// The script's id for the workload (`package_size`, ...).
    pub id: String,
    pub workload: String,
    pub unit: String,
    pub better_higher: bool,
    pub ours: f64,
    pub peers: Vec<Peer>,
    pub note: Option<String>,
    pub failed: Option<String>,
    /// Why the workload did not run (the package lacks its module).
    pub left_out: Option<String>,
}

/// FNV-1a, naming the cache folder after the lock file and stamping the
/// installed package (not a security boundary).
fn fnv(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Runs `cmd` to completion in `dir`, its failure in words.
fn ok(mut cmd: Command, dir: &Path, what: &str) -> Result<Vec<u8>, String> {
    let o = cmd
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{what}: cannot run: {e}"))?;
    if o.status.success() {
        Ok(o.stdout)
    } else {
        Err(format!("{what} failed: {}", last_line(&o.stderr)))
    }
}

/// Writes `text` to `path` unless it already holds it.
fn write_if_changed(path: &Path, text: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Checks `node` (20 or later), installs the peers (`npm ci`, once per lock
/// file) and the package at `tgz` (when it changed), writes the script.
///
/// # Errors
///
/// Why the section cannot run: no `node`, no packed package (build it with
/// `scripts/js-build`), `npm` failing.
pub fn prepare(tgz: &Path) -> Result<Bench, String> {
    let version = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| format!("node not found ({e}); install Node 20 or later"))?;
    let version = String::from_utf8_lossy(&version.stdout);
    let major: u32 = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < 20 {
        return Err(format!(
            "node {} is too old; the package needs Node 20 or later",
            version.trim()
        ));
    }
    let package = std::fs::read(tgz).map_err(|e| {
        format!(
            "the npm package is not built: cannot read {} ({e}); run scripts/js-build \
             (or set WIRESEAL_JS_PACKAGE to a packed wireseal tgz)",
            tgz.display()
        )
    })?;
    let dir = cache_dir()
        .map_err(|s| s.to_string())?
        .join(format!("js-bench-{}", fnv(PACKAGE_LOCK.as_bytes())));
    let modules = dir.join("node_modules");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write_if_changed(&dir.join("package.json"), PACKAGE_JSON.as_bytes())?;
    write_if_changed(&dir.join("package-lock.json"), PACKAGE_LOCK.as_bytes())?;
    let peers_stamp = modules.join(".wireseal-peers");
    if !peers_stamp.is_file() {
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund", "--silent"]);
        ok(npm, &dir, "npm ci (the bench's pinned peers)")?;
        write_if_changed(&peers_stamp, b"npm ci done\n")?;
    }
    let package_stamp = modules.join(".wireseal-package");
    let key = fnv(&package);
    if std::fs::read_to_string(&package_stamp).ok().as_deref() != Some(key.as_str()) {
        let mut npm = Command::new("npm");
        npm.args([
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--silent",
        ])
        .arg(tgz);
        ok(npm, &dir, "npm install of the packed package")?;
        write_if_changed(&package_stamp, key.as_bytes())?;
    }
    write_if_changed(&dir.join("bench.mjs"), BENCH.as_bytes())?;
    write_if_changed(
        &dir.join("bip324_packet_vectors.csv"),
        BIP324_VECTORS.as_bytes(),
    )?;
    Ok(Bench { dir })
}

impl Bench {
    /// Runs the script (`--full` when asked) and reads its workloads.
    ///
    /// # Errors
    ///
    /// The script failing, or a line that is not a workload.
    pub fn run(&self, full: bool) -> Result<Vec<Workload>, String> {
        let mut node = Command::new("node");
        node.arg("bench.mjs").env(
            "WIRESEAL_BIP324_VECTORS",
            self.dir.join("bip324_packet_vectors.csv"),
        );
        if full {
            node.arg("--full");
        }
        let out = ok(node, &self.dir, "node bench.mjs")?;
        String::from_utf8_lossy(&out)
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(parse_line)
            .collect()
    }
}

/// One workload from a line of the script's output.
///
/// # Errors
///
/// A line that is not JSON, or a workload or peer missing a field (a peer
/// needs `value` or `skipped`).
pub fn parse_line(line: &str) -> Result<Workload, String> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| format!("bench.mjs printed {line:?}: {e}"))?;
    let text = |v: &Value, k: &str| v[k].as_str().map(str::to_owned);
    let need = |k: &str| text(&v, k).ok_or_else(|| format!("a workload without {k:?}: {line}"));
    let mut peers = Vec::new();
    for key in PEERS {
        let p = &v["peers"][key];
        if p.is_null() {
            continue;
        }
        let value = match (p["value"].as_f64(), text(p, "skipped")) {
            (Some(x), _) => Ok(x),
            (None, Some(why)) => Err(Skip::new(why)),
            (None, None) => {
                return Err(format!("peer {key} has neither value nor skipped: {line}"))
            }
        };
        peers.push(Peer {
            name: text(p, "name").unwrap_or_else(|| key.to_owned()),
            value,
            note: text(p, "note"),
        });
    }
    Ok(Workload {
        id: need("id")?,
        workload: need("workload")?,
        unit: need("unit")?,
        better_higher: v["better"] == "higher",
        ours: v["ours"]
            .as_f64()
            .ok_or_else(|| format!("a workload without ours: {line}"))?,
        peers,
        note: text(&v, "note"),
        failed: text(&v, "failed"),
        left_out: text(&v, "left_out"),
    })
}
