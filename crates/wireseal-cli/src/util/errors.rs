//! The `kind` of a failed command, as `--json` prints it: the library's
//! [`ErrorKind`] name when a library error caused the failure, `io` for a
//! failed read or write, `failed` otherwise; and the finer `reason` where
//! the library names one (MeshCore). Python raises the exception
//! class of the same kind for the same input.

use wireseal::error::ErrorKind;

/// The kind name of the first cause in `e`'s chain that has one.
pub fn kind_of(e: &anyhow::Error) -> &'static str {
    e.chain()
        .find_map(library_kind)
        .map(ErrorKind::as_str)
        .unwrap_or("failed")
}

/// The kind of a command line that does not parse: the library's kind when
/// the library refused an argument's value (its `FromStr`: a network, mesh
/// id, policy or area name), else `usage`.
pub fn usage_kind(e: &clap::Error) -> &'static str {
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        if let Some(k) = library_kind(c) {
            return k.as_str();
        }
        cause = c.source();
    }
    "usage"
}

/// The library's finer reason for the first cause in `e`'s chain that has
/// one (a MeshCore packet the firmware drops: `path_too_long`, `version`,
/// ...), printed as `reason` beside `kind` under `--json`.
pub fn reason_of(e: &anyhow::Error) -> Option<&'static str> {
    e.chain()
        .find_map(|c| c.downcast_ref::<wireseal::meshcore::Error>())
        .map(wireseal::meshcore::Error::reason)
}

fn library_kind(cause: &(dyn std::error::Error + 'static)) -> Option<ErrorKind> {
    use wireseal::{aescrypt, bip324, meshcore, meshtastic, peat, sphinx};
    if let Some(e) = cause.downcast_ref::<meshtastic::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<meshcore::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<peat::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<bip324::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<sphinx::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<aescrypt::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<aescrypt::io::Error>() {
        return Some(e.kind());
    }
    if let Some(e) = cause.downcast_ref::<bip324::io::Error>() {
        return Some(e.kind());
    }
    cause
        .downcast_ref::<std::io::Error>()
        .map(|_| ErrorKind::Io)
}
