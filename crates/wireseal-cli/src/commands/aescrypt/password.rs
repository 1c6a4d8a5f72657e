//! Where `wireseal aescrypt` gets the password: a file, an environment
//! variable, or the terminal (never the command line).

use crate::util::secret::read_capped;
use anyhow::{anyhow, bail, Context, Result};
use std::path::PathBuf;
use zeroize::Zeroizing;

/// Where the password comes from (never the command line).
#[derive(Debug, Clone, Default, clap::Args)]
pub(super) struct PasswordSource {
    /// Read the password from the first line of this file (`-` for stdin;
    /// at most 64 KiB).
    #[arg(long = "password-file", value_name = "FILE")]
    file: Option<PathBuf>,
    /// Read the password from this environment variable.
    #[arg(long = "password-env", value_name = "VAR", conflicts_with = "file")]
    env: Option<String>,
}

/// The password from `src`; `confirm` (encryption) asks twice at a prompt
/// and refuses an empty password.
pub(super) fn load_password(src: &PasswordSource, confirm: bool) -> Result<Zeroizing<String>> {
    let pw = if let Some(f) = &src.file {
        // At most 64 KiB, so `/dev/zero` fails at once.
        let raw = read_capped(f, "--password-file")?;
        let text = std::str::from_utf8(&raw)
            .map_err(|_| anyhow!("the file given to --password-file is not UTF-8"))?;
        let line = text.split('\n').next().unwrap_or("");
        Zeroizing::new(line.strip_suffix('\r').unwrap_or(line).to_owned())
    } else if let Some(v) = &src.env {
        Zeroizing::new(
            std::env::var(v)
                .map_err(|_| anyhow!("environment variable {v} is not set (or not UTF-8)"))?,
        )
    } else {
        let first = Zeroizing::new(rpassword::prompt_password("Password: ").context(
            "cannot read the password from the terminal (use --password-file or --password-env)",
        )?);
        if confirm {
            let again = Zeroizing::new(
                rpassword::prompt_password("Repeat password: ")
                    .context("cannot read the password from the terminal")?,
            );
            if *first != *again {
                bail!("the passwords do not match");
            }
        }
        first
    };
    if confirm && pw.is_empty() {
        bail!("refusing to encrypt with an empty password");
    }
    Ok(pw)
}
