//! The settings Python passes: the version and iterations to write, and
//! the limits a stream is read under.

use super::failures::error;
use crate::errors;
use pyo3::prelude::*;
use wireseal::aescrypt::{self as ac, EncryptOptions, Limits};

pub(crate) fn options(version: u8, iterations: Option<u32>) -> PyResult<EncryptOptions> {
    match version {
        2 => Ok(EncryptOptions::v2()),
        3 => EncryptOptions::v3(iterations.unwrap_or(ac::DEFAULT_V3_ITERATIONS)).map_err(error),
        v => Err(errors::UnsupportedVersionError::new_err(format!(
            "AES Crypt version {v} cannot be written (write 2 or 3)"
        ))),
    }
}

pub(crate) fn limits(max_iterations: Option<u32>) -> Limits {
    let mut l = Limits::default();
    if let Some(m) = max_iterations {
        l.max_iterations = m;
    }
    l
}
