//! The `wireseal` command: encrypt and decrypt real wire formats, run the
//! network drivers, and `wireseal bench`.
//!
//! Results go to stdout; errors go to stderr (one JSON object under
//! `--json`, with a `reason` where the library names one) with the exit
//! status [`EXIT_FAILED`] or, for arguments that do not parse,
//! [`EXIT_USAGE`].

mod cli;
mod commands;
mod util;

use clap::Parser;
use cli::{Cli, Cmd};
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// Exit status of a command that ran and failed (the error says why).
const EXIT_FAILED: u8 = 1;
/// Exit status of a command line that does not parse.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e, json_requested(&argv)),
    };
    let json = |out: cli::JsonFlag| util::output::set_json(out.json || cli.json);
    util::output::set_json(cli.json);
    let result = match cli.cmd {
        Cmd::Keygen { args, out } => {
            json(out);
            commands::keygen::run(args)
        }
        Cmd::Pubkey { args, out } => {
            json(out);
            commands::pubkey::run(args)
        }
        Cmd::Meshtastic { cmd, out } => {
            json(out);
            commands::meshtastic::run(cmd)
        }
        Cmd::Meshcore { cmd, out } => {
            json(out);
            commands::meshcore::run(cmd)
        }
        Cmd::Peat { cmd, out } => {
            json(out);
            commands::peat::run(cmd)
        }
        Cmd::Bip324 { args, out } => {
            json(out);
            commands::bip324::run(args)
        }
        Cmd::Sphinx { args, out } => {
            json(out);
            commands::sphinx::run(args)
        }
        Cmd::Aescrypt { args, out } => {
            json(out);
            commands::aescrypt::run(args)
        }
        Cmd::Completions(a) => {
            commands::completions::run(a, <Cli as clap::CommandFactory>::command())
        }
        Cmd::Bench(args) => commands::bench::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let kind = util::errors::kind_of(&e);
            let line = if util::output::json() {
                let mut v = serde_json::json!({ "error": format!("{e:#}"), "kind": kind });
                if let Some(reason) = util::errors::reason_of(&e) {
                    v["reason"] = reason.into();
                }
                v.to_string()
            } else {
                format!("wireseal: error: {e:#}")
            };
            let _ = writeln!(std::io::stderr(), "{line}");
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// Whether `--json` was asked for on a command line that did not parse:
/// anywhere before a `--`, except after `bench`, whose arguments are the
/// bench's own.
fn json_requested(argv: &[OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|a| *a != "--" && *a != "bench")
        .any(|a| a == "--json")
}

/// Reports a command line that does not parse: clap's message (or, with
/// `--json`, `{"error": ..., "kind": KIND}`, `usage` unless the library
/// refused a value) and [`EXIT_USAGE`]. `--help`
/// and `--version` print to stdout and succeed.
fn usage_error(e: &clap::Error, json: bool) -> ExitCode {
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    if json {
        let msg = e.render().to_string();
        // The message without clap's closing hint ("For more information,
        // try '--help'.").
        let msg = msg
            .split("\n\nFor more information")
            .next()
            .unwrap_or_default()
            .trim()
            .trim_start_matches("error: ");
        let line = serde_json::json!({ "error": msg, "kind": util::errors::usage_kind(e) });
        let _ = writeln!(std::io::stderr(), "{line}");
    } else {
        let _ = e.print();
    }
    ExitCode::from(EXIT_USAGE)
}
