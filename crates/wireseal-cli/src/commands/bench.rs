//! `wireseal bench`: runs the `wireseal-bench` binary (crate
//! `wireseal-bench`), which holds the workloads and the peers they are
//! measured against. Keeping them out of this binary keeps the command line
//! free of the bench's dependencies (LDK, the `bip324` crate, `hazmat`).

use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// `wireseal bench` arguments: everything after `bench`, passed on as given
/// (`wireseal bench --help` lists them).
#[derive(clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
pub struct Args {
    /// Arguments of `wireseal-bench` (`--full`, `--section NAME`, `--rows FILE`, ...).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "ARGS"
    )]
    pub args: Vec<OsString>,
}

/// The bench binary: `wireseal-bench` beside this executable, else on `PATH`.
fn bench_binary() -> Option<PathBuf> {
    let name = format!("wireseal-bench{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe().ok()?.with_file_name(&name);
    if beside.is_file() {
        return Some(beside);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(&name))
        .find(|p| p.is_file())
}

/// Runs `wireseal-bench` with `args` and this binary as `WIRESEAL_BIN`.
///
/// # Errors
///
/// When `wireseal-bench` is not installed, cannot be started, or fails.
pub fn run(args: Args) -> Result<()> {
    let Some(bench) = bench_binary() else {
        bail!(
            "`wireseal bench` runs the `wireseal-bench` binary, which is not installed: \
             `cargo install --locked --path crates/wireseal-bench` (or run scripts/bench)"
        );
    };
    let me = std::env::current_exe().context("cannot find this executable")?;
    let status = Command::new(&bench)
        .args(&args.args)
        .env("WIRESEAL_BIN", me)
        .status()
        .with_context(|| format!("cannot run {}", bench.display()))?;
    if !status.success() {
        // wireseal-bench has printed its error; pass its status on.
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}
