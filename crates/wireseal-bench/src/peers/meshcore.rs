//! The MeshCore decoders people use today: `meshcoredecoder` (PyPI 0.3.2,
//! through `interop/meshcore/py_peer.py`) and `@michaelhart/meshcore-decoder`
//! (npm 0.3.0, through `interop/meshcore/js_peer.mjs`), both embedded and
//! written to the cache directory. Their arguments are in the scripts'
//! headers.

use super::{cache_dir, last_line, python_with, source_key, write_atomic, PythonScript, Skip};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const PY_PEER: &str = include_str!("../../../../interop/meshcore/py_peer.py");
const JS_PEER: &str = include_str!("../../../../interop/meshcore/js_peer.mjs");

/// The meshcoredecoder (and pymc-core) peer script and its interpreter.
pub type MeshcoreDecoderPy = PythonScript;

/// The Python peer, found once per process.
///
/// # Errors
/// [`Skip`] when python3 cannot import `meshcoredecoder` or the script cannot
/// be written.
pub fn meshcoredecoder() -> Result<MeshcoreDecoderPy, Skip> {
    static PEER: OnceLock<Result<MeshcoreDecoderPy, Skip>> = OnceLock::new();
    PEER.get_or_init(|| {
        let pin = "`python3 -m pip install meshcoredecoder==0.3.2 pymc-core==1.0.12` (scripts/python-env.sh)";
        let python = python_with("meshcoredecoder")
            .map_err(|_| Skip::new(format!("python3 cannot import meshcoredecoder; {pin}")))?;
        PythonScript::cached(python, "meshcore_py_peer", PY_PEER)
    })
    .clone()
}

/// The npm decoder's peer: `node`, the script, and the `node_modules`
/// folder holding the package.
#[derive(Debug, Clone)]
pub struct MeshcoreDecoderJs {
    script: PathBuf,
    modules: PathBuf,
}

impl MeshcoreDecoderJs {
    /// A command running the script with `args`.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut c = Command::new("node");
        c.arg(&self.script)
            .args(args)
            .env("MESHCORE_NODE_MODULES", &self.modules);
        c
    }
}

/// The npm peer, found once per process: `node` on the path and the package
/// in `$MESHCORE_NODE_MODULES`, else in this checkout's
/// `target/js-peers/node_modules` (where `scripts/setup-peers.sh` installs it).
///
/// # Errors
/// [`Skip`] when node or the package is missing.
pub fn meshcore_decoder_js() -> Result<MeshcoreDecoderJs, Skip> {
    static PEER: OnceLock<Result<MeshcoreDecoderJs, Skip>> = OnceLock::new();
    PEER.get_or_init(|| {
        let pin = "`npm install --prefix target/js-peers @michaelhart/meshcore-decoder@0.3.0` (scripts/setup-peers.sh)";
        let modules = std::env::var_os("MESHCORE_NODE_MODULES")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/js-peers/node_modules"))
            });
        if !modules.join("@michaelhart/meshcore-decoder/package.json").is_file() {
            return Err(Skip::new(format!(
                "@michaelhart/meshcore-decoder is not in {}; {pin}",
                modules.display()
            )));
        }
        let script = cache_dir()?.join(format!("meshcore_js_peer-{}.mjs", source_key(&[JS_PEER])));
        if !script.is_file() {
            write_atomic(&script, JS_PEER)?;
        }
        let peer = MeshcoreDecoderJs { script, modules };
        match Command::new("node").arg("--version").output() {
            Ok(o) if o.status.success() => Ok(peer),
            Ok(o) => Err(Skip::new(format!("node fails: {}", last_line(&o.stderr)))),
            Err(e) => Err(Skip::new(format!("node not found ({e}); install Node 20"))),
        }
    })
    .clone()
}
