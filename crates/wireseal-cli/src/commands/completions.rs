//! `wireseal completions bash|zsh|fish`.

use anyhow::Result;
use clap_complete::Shell;

/// Shells `completions` writes scripts for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ShellArg {
    /// bash: `source <(wireseal completions bash)`.
    Bash,
    /// zsh: write to a file named `_wireseal` in a folder on `$fpath`.
    Zsh,
    /// fish: write to `~/.config/fish/completions/wireseal.fish`.
    Fish,
}

/// `wireseal completions SHELL`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    shell: ShellArg,
}

/// Prints the completion script of `cmd` (the whole command line's
/// definition) to stdout.
///
/// # Errors
///
/// None in practice; the signature matches the other subcommands.
pub fn run(a: Args, mut cmd: clap::Command) -> Result<()> {
    let shell = match a.shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
    };
    // Into a buffer first: clap_complete panics when its writer fails (a
    // closed pipe), and the script is small.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "wireseal", &mut script);
    crate::util::output::stdout_bytes(&script);
    Ok(())
}
