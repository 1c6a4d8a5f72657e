//! `wireseal._wireseal`: the native half of the Python package `wireseal`.
//!
//! Each library module has a submodule here (`meshtastic`, `meshcore`,
//! `peat`, `bip324`, `sphinx`, `aescrypt`); the Python package `wireseal`
//! re-exports them with docstrings, type stubs and the pyAesCrypt-compatible
//! layer. Every call that does real work (key agreement, bulk encryption,
//! batches) releases the GIL; no Rust panic reaches Python (PyO3 turns one into `PanicException`,
//! and none of these paths panics on any input).

use pyo3::prelude::*;

mod aescrypt;
mod bip324;
mod bip324_pool;
mod buffers;
mod errors;
mod meshcore;
mod meshtastic;
mod peat;
mod sphinx;

/// Adds `name` as a submodule of `parent`, filled by `fill`.
fn submodule(
    parent: &Bound<'_, PyModule>,
    name: &str,
    fill: fn(&Bound<'_, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let m = PyModule::new(parent.py(), name)?;
    fill(&m)?;
    parent.add_submodule(&m)
}

/// Makes every nonce source in this process refill before its next nonce:
/// registered with `os.register_at_fork(after_in_child=...)` by the package,
/// so a forked child never reuses randomness its parent buffered.
#[pyfunction]
fn _after_fork() {
    wireseal::entropy::after_fork();
}

#[pymodule]
fn _wireseal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(_after_fork, m)?)?;
    errors::register(m)?;
    m.add_class::<buffers::Batch>()?;
    submodule(m, "meshtastic", meshtastic::register)?;
    submodule(m, "meshcore", meshcore::register)?;
    submodule(m, "sphinx", sphinx::register)?;
    submodule(m, "peat", peat::register)?;
    submodule(m, "bip324", bip324::register)?;
    submodule(m, "aescrypt", aescrypt::register)?;
    Ok(())
}
