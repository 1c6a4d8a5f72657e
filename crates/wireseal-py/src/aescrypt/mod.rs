//! `wireseal._wireseal.aescrypt`: AES Crypt streams v0-v3 (read) and v2/v3
//! (write). The pyAesCrypt-compatible functions are in the Python module
//! `wireseal.aescrypt`, on top of these. Errors carry pyAesCrypt's messages
//! where pyAesCrypt has a counterpart.

mod failures;
mod files;
mod keys;
mod memory;
mod options;
mod streams;

use pyo3::prelude::*;
use wireseal::aescrypt as ac;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<memory::Encryptor>()?;
    m.add_class::<memory::Decryptor>()?;
    m.add_class::<keys::StretchedKeys>()?;
    files::register(m)?;
    streams::register(m)?;
    m.add_function(wrap_pyfunction!(memory::encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(memory::decrypt, m)?)?;
    m.add("CHUNK", ac::CHUNK)?;
    m.add("DEFAULT_V3_ITERATIONS", ac::DEFAULT_V3_ITERATIONS)?;
    m.add("PARTIAL_PREFIX", wireseal_io::PARTIAL_PREFIX)?;
    Ok(())
}
