//! Headless Chromium (Debian's `chromium`, installed by
//! `scripts/setup-peers.sh`), which the gateway's page test and the bench's
//! first-render row both start.

use super::Error;
use std::path::PathBuf;

/// The flags every headless run here starts with: no sandbox (tests may run
/// as root), no GPU, nothing fetched in the background, no first-run UI.
pub const HEADLESS: [&str; 6] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-extensions",
    "--disable-background-networking",
];

/// The installed Chromium, or what to install.
///
/// # Errors
/// When neither `/usr/bin/chromium` nor `/usr/bin/chromium-browser` exists.
pub fn program() -> Result<PathBuf, Error> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .ok_or_else(|| "chromium is not installed (scripts/setup-peers.sh installs it)".into())
}
