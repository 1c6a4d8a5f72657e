//! Python peers: a `python3` that can import a module, and the pyAesCrypt
//! peer script (`interop/aescrypt/pyaescrypt_peer.py`, embedded).

use super::{cache_dir, last_line, source_key, write_atomic, Skip};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const PYAESCRYPT_PEER: &str = include_str!("../../../../interop/aescrypt/pyaescrypt_peer.py");

/// A `python3` known to import a given module.
#[derive(Debug, Clone)]
pub struct Python {
    exe: PathBuf,
}

impl Python {
    /// A command running this interpreter.
    pub fn command(&self) -> Command {
        Command::new(&self.exe)
    }
}

/// `python3` when it can import `module`.
///
/// # Errors
///
/// [`Skip`] when `python3` is not runnable or the import fails (with the
/// `pip install` line to fix it).
pub fn python_with(module: &str) -> Result<Python, Skip> {
    let py = Python {
        exe: PathBuf::from("python3"),
    };
    match py
        .command()
        .args(["-c", &format!("import {module}")])
        .output()
    {
        Ok(o) if o.status.success() => Ok(py),
        Ok(o) => Err(Skip::new(format!(
            "python3 cannot import {module} ({}); `python3 -m pip install {module}`",
            last_line(&o.stderr)
        ))),
        Err(e) => Err(Skip::new(format!("python3 not found ({e})"))),
    }
}

/// A peer script embedded in this binary, written to the cache directory,
/// and the interpreter that runs it.
#[derive(Debug, Clone)]
pub struct PythonScript {
    python: Python,
    script: PathBuf,
}

impl PythonScript {
    /// `source` written once to the cache directory as `STEM-KEY.py` (KEY
    /// names the source, so an edited script gets a new file), run by
    /// `python`.
    ///
    /// # Errors
    ///
    /// [`Skip`] when the cache directory or the file cannot be written.
    pub fn cached(python: Python, stem: &str, source: &str) -> Result<Self, Skip> {
        let script = cache_dir()?.join(format!("{stem}-{}.py", source_key(&[source])));
        if !script.is_file() {
            write_atomic(&script, source)?;
        }
        Ok(PythonScript { python, script })
    }

    /// A command running the script with `args` (each peer's arguments are
    /// in its script's docstring).
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut c = self.python.command();
        c.arg(&self.script).args(args);
        c
    }
}

/// The pyAesCrypt peer: an interpreter that imports `pyAesCrypt` and the
/// peer script. Its arguments: `check`, `encrypt DIR`, `decrypt DIR`,
/// `bench SIZE SMALL_FILES`; the password comes from the `WIRESEAL_PW`
/// environment variable.
pub type PyAesCrypt = PythonScript;

/// The pyAesCrypt peer, found once per process.
///
/// # Errors
///
/// [`Skip`] when python3 or pyAesCrypt is missing, or the script cannot be
/// written to the cache directory.
pub fn pyaescrypt() -> Result<PyAesCrypt, Skip> {
    static PEER: OnceLock<Result<PyAesCrypt, Skip>> = OnceLock::new();
    PEER.get_or_init(|| {
        let python = python_with("pyAesCrypt")
            .map_err(|s| Skip::new(format!("{s} (tests pin pyAesCrypt==6.1.1)")))?;
        PythonScript::cached(python, "pyaescrypt_peer", PYAESCRYPT_PEER)
    })
    .clone()
}
