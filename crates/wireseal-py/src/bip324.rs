//! `wireseal.bip324`: placeholder until the module's API settles.

use pyo3::prelude::*;

pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
