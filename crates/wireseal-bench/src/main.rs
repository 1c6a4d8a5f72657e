//! `wireseal-bench`: the binary behind `wireseal bench`. The `wireseal`
//! command runs it with the arguments after `bench` and `WIRESEAL_BIN` set
//! to itself, so the rows that drive the command line find it.

use clap::Parser;
use std::process::ExitCode;

/// `wireseal bench`: every wire format against its baseline, measured in
/// the same run (quick by default).
#[derive(Parser)]
#[command(name = "wireseal bench", bin_name = "wireseal bench", version)]
struct Args {
    /// Longer samples and larger workloads (the default is a short run, a
    /// few minutes at most).
    #[arg(long)]
    full: bool,
    /// Write the rows as a JSON array to FILE.
    #[arg(long, value_name = "FILE")]
    rows: Option<std::path::PathBuf>,
    /// Write a report to DIR: index.html (self-contained), one SVG per
    /// plot, rows.json.
    #[arg(long, value_name = "DIR")]
    report: Option<std::path::PathBuf>,
    /// Run only these sections (repeatable).
    #[arg(long = "section", value_name = "NAME")]
    sections: Vec<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut command = vec!["wireseal bench".to_owned()];
    command.extend(std::env::args().skip(1));
    let outputs = wireseal_bench::Outputs {
        rows: args.rows,
        report: args.report,
        command: command.join(" "),
    };
    match wireseal_bench::run(
        &wireseal_bench::Ctx { full: args.full },
        &args.sections,
        &outputs,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("wireseal bench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
