//! The `embedded` section: the test firmware of `crates/wireseal-mcu` on an
//! emulated Cortex-M4F (QEMU `mps2-an386`), the core of the nRF52840 that
//! Meshtastic and peat devices use.
//!
//! It runs `cargo test --release` in the firmware crate (vectors, then one
//! `measure` line per operation) and `scripts/sizes.sh` (flash per part at
//! opt-level `"s"`), and turns every line into a row, whatever the
//! operations are called. Instructions are a lower bound on cycles: a
//! Cortex-M4 needs at least one cycle per instruction, and flash wait
//! states and multi-cycle loads add more, so the milliseconds at 64 MHz
//! derived from them (instructions / 64 000) are lower bounds too.
//!
//! Like is compared with like. Instructions against instructions: the
//! library's rows beside the old backend's (the crates the portable
//! backend replaced, measured in the same run), and beside the Meshtastic
//! firmware's own path on the same emulated Cortex-M4 and the same meter
//! (figures measured outside this project, see [`FIRMWARE`]). The firmware
//! cache pull request's wall-clock figures (~96 ms / ~3 ms on a RAK4631,
//! 32x, ~2.4 kB of cache) are shown beside our speed-up and RAM only, never
//! divided into instruction counts.
//!
//! Without `qemu-system-arm`, the `thumbv7em-none-eabihf` target or the
//! firmware crate the section is one `skipped:` row; a firmware run that
//! fails (a test, the build, the exit status) is a failed row.

mod parse;
#[cfg(test)]
mod tests;

use super::{Better, Ctx, Row};
use crate::peers::{last_line, Skip};
use parse::{Budget, FirmwareRun, Measure, Ratio, Size};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;
use wireseal::cache::DEFAULT_CAPACITY;

const S: &str = "embedded";
/// The tests' row: how many passed, failed when the run did not pass.
const TESTS: &str = "firmware tests under QEMU (cargo test --release)";
const TARGET: &str = "thumbv7em-none-eabihf";
const INSTALL: &str =
    "apt-get install qemu-system-arm gcc-arm-none-eabi; rustup target add thumbv7em-none-eabihf";
/// Instructions per millisecond at the nRF52840's 64 MHz, one per cycle.
const INSTR_PER_MS: f64 = 64_000.0;
/// The wall-clock figures' source (the cache pull request, on a RAK4631).
const FIRMWARE: &str = "Meshtastic firmware, RAK4631";
/// The firmware's own path in instructions: `CryptoEngine::decryptCurve25519`
/// with rweather's Crypto library, built with the nRF52 environment's flags
/// (`-Os -flto`, hard float, GCC 12) and run on the same emulated Cortex-M4
/// (QEMU `mps2-an386`, `-icount`), measured outside this project.
const FIRMWARE_PATH: &str = "Meshtastic firmware decryptCurve25519 (rweather Crypto, -Os -flto, GCC 12; measured outside this project, same meter)";
/// The firmware's uncached 200-byte PKC decrypt, instructions.
const FIRMWARE_UNCACHED_INSTR: f64 = 3_144_862.0;
/// The firmware's 200-byte PKC decrypt with the key known, instructions.
const FIRMWARE_CACHED_INSTR: f64 = 173_987.0;
/// The firmware's X25519 (`dh2`), instructions.
const FIRMWARE_X25519_INSTR: f64 = 2_965_844.0;
/// The firmware's AES-256-CCM of 200 bytes, instructions.
const FIRMWARE_CCM_INSTR: f64 = 173_935.0;
/// The old backend's rows (the crates the portable backend replaced).
const OLD: &str = "old backend";
/// The report plot of instructions per operation.
pub(crate) const PLOT: &str = "embedded-ops";
/// The firmware cache PR's speed-up.
const FIRMWARE_SPEEDUP: f64 = 32.0;
/// The firmware cache PR's RAM for its whole cache, bytes.
const FIRMWARE_CACHE_BYTES: f64 = 2400.0;

/// Runs the section.
pub fn run(_ctx: &Ctx) -> Vec<Row> {
    let dir = match ready() {
        Ok(d) => d,
        Err(why) => {
            return vec![Row::with_peer(
                S,
                "Cortex-M4 firmware under QEMU",
                "-",
                Better::Lower,
                0.0,
                "-",
                Err(&why),
            )]
        }
    };
    eprintln!(
        "embedded: instruction counts are a lower bound on Cortex-M4 cycles, and so are \
         the ms at 64 MHz"
    );
    let mut rows = firmware(&dir);
    rows.extend(sizes(&dir));
    rows
}

/// The firmware crate, once QEMU and the Rust target are there.
fn ready() -> Result<PathBuf, Skip> {
    let qemu = std::env::var_os("QEMU_SYSTEM_ARM")
        .filter(|q| !q.is_empty())
        .unwrap_or_else(|| "qemu-system-arm".into());
    let runs = Command::new(&qemu)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        return Err(Skip::new(format!(
            "{} not found ({INSTALL})",
            qemu.to_string_lossy()
        )));
    }
    let dir = mcu_dir()?;
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir(&dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .ok_or_else(|| Skip::new("`rustc --print sysroot` failed"))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim());
    if !sysroot.join("lib/rustlib").join(TARGET).is_dir() {
        return Err(Skip::new(format!(
            "the {TARGET} Rust target is not installed ({INSTALL})"
        )));
    }
    Ok(dir)
}

/// The firmware crate: `$WIRESEAL_MCU_DIR`, else `crates/wireseal-mcu` of
/// the checkout this binary was built from (also after `cargo install
/// --path`), else of the current directory or one above it.
fn mcu_dir() -> Result<PathBuf, Skip> {
    let is_crate =
        |d: &Path| d.join("Cargo.toml").is_file() && d.join("scripts/sizes.sh").is_file();
    if let Some(d) = std::env::var_os("WIRESEAL_MCU_DIR").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        return if is_crate(&d) {
            Ok(d)
        } else {
            Err(Skip::new(format!(
                "WIRESEAL_MCU_DIR={} holds no Cargo.toml and scripts/sizes.sh",
                d.display()
            )))
        };
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wireseal-mcu");
    let cwd = std::env::current_dir().unwrap_or_default();
    std::iter::once(built.clone())
        .chain(cwd.ancestors().map(|a| a.join("crates/wireseal-mcu")))
        .find(|d| is_crate(d))
        .map(|d| d.canonicalize().unwrap_or(d))
        .ok_or_else(|| {
            Skip::new(format!(
                "crates/wireseal-mcu not found (not at {}, nor under {} or a directory above it; \
                 WIRESEAL_MCU_DIR names it)",
                built.display(),
                cwd.display()
            ))
        })
}

/// Runs `program args` in `dir`, saying so first.
fn run_in(dir: &Path, program: &Path, args: &[&str]) -> std::io::Result<(Output, f64)> {
    let command = std::iter::once(program.display().to_string())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!(
        "embedded: {command} in {} (builds the firmware first when needed)",
        dir.display()
    );
    let started = Instant::now();
    let out = Command::new(program).args(args).current_dir(dir).output()?;
    Ok((out, started.elapsed().as_secs_f64()))
}

/// The firmware run's rows; a failed row when it did not pass.
fn firmware(dir: &Path) -> Vec<Row> {
    match run_in(dir, Path::new("cargo"), &["test", "--release"]) {
        Ok((out, secs)) => {
            let stdout = String::from_utf8_lossy(&out.stdout);
            // QEMU's runner says why a run ended (a hang, a fault's exit
            // status) above cargo's own last line.
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail = stderr
                .lines()
                .rev()
                .find(|l| l.starts_with("qemu-run:"))
                .map_or_else(|| last_line(&out.stderr), |l| l.trim().to_owned());
            let rows = firmware_report(
                &stdout,
                out.status.success().then_some(()).ok_or(out.status),
                &tail,
            );
            eprintln!(
                "embedded: {} ({secs:.0} s)",
                rows[0].seed_figure.as_deref().unwrap_or("")
            );
            rows
        }
        Err(e) => vec![Row::new(S, TESTS, "-", Better::Higher, 0.0, "-", None)
            .failed(format!("cannot run cargo in {}: {e}", dir.display()))],
    }
}

/// The rows of a firmware run's output: first the tests' row, failed when
/// a test failed, the closing line is missing or `cargo test` exited with
/// an error (`exit`; `stderr_tail` is its last line of errors), then
/// [`firmware_rows`].
fn firmware_report(
    stdout: &str,
    exit: Result<(), std::process::ExitStatus>,
    stderr_tail: &str,
) -> Vec<Row> {
    let run = parse::firmware(stdout);
    let (passed, failed) = run.totals.unwrap_or_default();
    let mut head =
        Row::new(S, TESTS, "tests", Better::Higher, passed.into(), "-", None).seed(format!(
            "{passed} passed, {failed} failed, {} measurements",
            run.measures.len()
        ));
    let why = match (run.failure(), exit) {
        (None, Ok(())) => None,
        (None, Err(status)) => Some(format!("cargo test exited with {status}")),
        (Some(why), _) => Some(why),
    };
    if let Some(why) = why {
        head = match stderr_tail {
            "" => head.failed(why),
            tail => head.failed(format!("{why} (last error line: {tail})")),
        };
    }
    let mut rows = vec![head];
    rows.extend(firmware_rows(&run));
    rows
}

/// Milliseconds at 64 MHz, one cycle per instruction (a lower bound).
fn ms(instructions: u64) -> f64 {
    instructions as f64 / INSTR_PER_MS
}

/// The rows of a firmware run: every measure, the PKC opens beside the
/// firmware's figures, RAM, ratios and budgets.
fn firmware_rows(run: &FirmwareRun) -> Vec<Row> {
    let mut rows: Vec<Row> = run.measures.iter().map(measure_row).collect();
    rows.extend(against_old_backend(&run.measures));
    rows.extend(run.measures.iter().filter_map(against_firmware));
    rows.extend(run.ram.iter().map(|r| {
        let row = Row::new(
            S,
            format!("RAM of a {} {}", r.what, r.variant),
            "B",
            Better::Lower,
            r.bytes as f64,
            "-",
            None,
        );
        if !r.what.contains("cache slot") {
            return row;
        }
        let slots = DEFAULT_CAPACITY as u64;
        beside(row, FIRMWARE_CACHE_BYTES).seed(format!(
            "firmware cache PR: ~2.4 kB for its whole cache; {slots} slots here: {} B",
            slots * r.bytes
        ))
    }));
    rows.extend(run.ratios.iter().map(ratio_row));
    rows.extend(run.budgets.iter().map(budget_row));
    rows
}

/// A figure shown beside ours in the baseline column, with no ratio (they
/// do not measure the same thing).
fn beside(mut row: Row, figure: f64) -> Row {
    row.baseline_name = FIRMWARE.into();
    row.baseline = Some(figure);
    row.ratio = None;
    row
}

fn measure_row(m: &Measure) -> Row {
    let stack = m
        .stack
        .map(|b| format!(", stack {b} B"))
        .unwrap_or_default();
    let row = Row::new(
        S,
        m.name.clone(),
        "instr",
        Better::Lower,
        m.instructions as f64,
        "-",
        None,
    )
    .seed(format!(">= {:.3} ms at 64 MHz{stack}", ms(m.instructions)));
    match operation(&m.name) {
        Some((x, _)) => row.at(PLOT, series(&m.name), x),
        None => row,
    }
}

/// The plot's series of a measure: ours, the old backend, or a candidate.
fn series(name: &str) -> &'static str {
    let name = name.to_lowercase();
    if name.contains(OLD) {
        "old backend (same run)"
    } else if name.contains("candidate") {
        "candidate (not used)"
    } else {
        "wireseal"
    }
}

/// Which operation of the plot a measure is (its x), and the firmware's
/// own instructions for it: 1 X25519, 2 AES-256-CCM open of 200 B, 3 PKC
/// open uncached, 4 PKC open with the key known (32-byte key), 5 XEdDSA
/// verify with the converted key kept.
fn operation(name: &str) -> Option<(f64, Option<f64>)> {
    let n = name.to_lowercase();
    if n.starts_with("x25519") {
        Some((1.0, Some(FIRMWARE_X25519_INSTR)))
    } else if n.starts_with("aes-256-ccm") {
        Some((2.0, Some(FIRMWARE_CCM_INSTR)))
    } else if n.contains("pkc open") && n.contains("uncached") {
        Some((3.0, Some(FIRMWARE_UNCACHED_INSTR)))
    } else if n.contains("pkc open") && (n.contains("32-byte key") || n.contains("known")) {
        Some((4.0, Some(FIRMWARE_CACHED_INSTR)))
    } else if n.contains("xeddsa verify, converted key kept") {
        Some((5.0, None))
    } else {
        None
    }
}

/// Whether a measure is a seal (the word, not a name such as `wireseal`).
fn is_seal(lower_name: &str) -> bool {
    lower_name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word == "seal")
}

/// Our measure beside the firmware's own path in instructions (both on
/// the same emulated core and meter), for the library's PKC opens, X25519
/// and CCM (not the old backend's, not a candidate's, not the seals).
fn against_firmware(m: &Measure) -> Option<Row> {
    let lower = m.name.to_lowercase();
    if lower.contains(OLD) || lower.contains("candidate") || is_seal(&lower) {
        return None;
    }
    let (_, Some(theirs)) = operation(&m.name)? else {
        return None;
    };
    Some(
        Row::new(
            S,
            format!("{} vs the firmware", m.name),
            "instr",
            Better::Lower,
            m.instructions as f64,
            FIRMWARE_PATH,
            Some(theirs),
        )
        .seed("instructions against instructions on the same emulated Cortex-M4"),
    )
}

/// Each library measure beside the old backend's measure of the same
/// operation in the same run (ratio = old / new).
fn against_old_backend(measures: &[Measure]) -> Vec<Row> {
    let mut rows = Vec::new();
    for new in measures {
        let lower = new.name.to_lowercase();
        if lower.contains(OLD) || lower.contains("candidate") || is_seal(&lower) {
            continue;
        }
        let Some((x, _)) = operation(&new.name) else {
            continue;
        };
        let old = measures.iter().find(|m| {
            m.name.to_lowercase().contains(OLD) && operation(&m.name).map(|o| o.0) == Some(x)
        });
        if let Some(old) = old {
            rows.push(
                Row::new(
                    S,
                    format!("{} vs the old backend", new.name),
                    "instr",
                    Better::Lower,
                    new.instructions as f64,
                    old.name.clone(),
                    Some(old.instructions as f64),
                )
                .seed("same run, same meter"),
            );
        }
    }
    rows
}

fn ratio_row(r: &Ratio) -> Row {
    let row = Row::new(S, r.name.clone(), "x", Better::Higher, r.value, "-", None);
    let name = r.name.to_lowercase();
    if name.contains("pkc open") && name.matches("cached").count() >= 2 {
        beside(row, FIRMWARE_SPEEDUP).seed(
            "firmware cache PR: 32x (~96 ms / ~3 ms wall clock on a RAK4631), a quotient of its \
             own paths; its instruction counts are in the rows `vs the firmware`",
        )
    } else {
        row
    }
}

fn budget_row(b: &Budget) -> Row {
    let better = if b.at_least {
        Better::Higher
    } else {
        Better::Lower
    };
    let unit = if b.unit.is_empty() { "-" } else { &b.unit };
    Row::new(
        S,
        format!("budget: {}", b.name),
        unit,
        better,
        b.value,
        "target",
        Some(b.limit),
    )
    .seed(if b.met { "met" } else { "MISSED" })
}

/// The `scripts/sizes.sh` rows: flash of each part over the empty binary.
fn sizes(dir: &Path) -> Vec<Row> {
    const WORKLOAD: &str = "flash per part (scripts/sizes.sh)";
    let failed =
        |why: String| vec![Row::new(S, WORKLOAD, "B", Better::Lower, 0.0, "-", None).failed(why)];
    let (out, secs) = match run_in(dir, &dir.join("scripts/sizes.sh"), &[]) {
        Ok(o) => o,
        Err(e) => return failed(format!("cannot run scripts/sizes.sh: {e}")),
    };
    eprintln!("embedded: sizes ({secs:.0} s)");
    let why = last_line(&out.stderr);
    if !out.status.success() && why.starts_with("no llvm-size") {
        let skip = Skip::new(why);
        return vec![Row::with_peer(
            S,
            WORKLOAD,
            "B",
            Better::Lower,
            0.0,
            "-",
            Err(&skip),
        )];
    }
    if !out.status.success() {
        return failed(format!(
            "scripts/sizes.sh exited with {}: {why}",
            out.status
        ));
    }
    let parts = parse::sizes(&String::from_utf8_lossy(&out.stdout));
    if parts.is_empty() {
        return failed("scripts/sizes.sh printed no table".into());
    }
    parts.iter().map(size_row).collect()
}

fn size_row(s: &Size) -> Row {
    if s.part == "empty" {
        return Row::new(
            S,
            "flash, empty binary (start-up, handlers), opt \"s\"",
            "B",
            Better::Lower,
            s.flash as f64,
            "-",
            None,
        )
        .seed(format!("static RAM {} B", s.static_ram));
    }
    Row::new(
        S,
        format!("flash, {} over empty, opt \"s\"", s.part),
        "B",
        Better::Lower,
        s.over_empty as f64,
        "-",
        None,
    )
    .seed(format!(
        "{} B in all, static RAM {} B",
        s.flash, s.static_ram
    ))
}
