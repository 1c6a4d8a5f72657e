//! Reads the two outputs the `embedded` section runs: the test firmware's
//! lines (`cargo test --release` in `crates/wireseal-mcu`) and the table of
//! `scripts/sizes.sh`. Lines are read by their leading keyword and their
//! shape, never by operation names, which change with the firmware.

/// One `measure` line: an operation's instructions and peak stack.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// The operation, as the firmware names it.
    pub name: String,
    /// Instructions executed (a lower bound on Cortex-M4 cycles).
    pub instructions: u64,
    /// Peak stack in bytes, when the line gives it.
    pub stack: Option<u64>,
}

/// One part of a `ram` line: `72 B with the 32-byte key`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ram {
    /// What the line measures (`cache slot`).
    pub what: String,
    /// Bytes.
    pub bytes: u64,
    /// The variant (`with the 32-byte key`).
    pub variant: String,
}

/// One `ratio` line: `pkc open uncached / cached (32-byte key slot): 12.7x`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ratio {
    /// What is divided by what.
    pub name: String,
    /// The quotient.
    pub value: f64,
}

/// One `budget` line: a figure against its limit.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// What the budget is for.
    pub name: String,
    /// The measured figure.
    pub value: f64,
    /// Its unit (`instr`, `B`), empty when the line gives none.
    pub unit: String,
    /// The limit.
    pub limit: f64,
    /// `limit >= L` (a floor) rather than `limit L` (a ceiling).
    pub at_least: bool,
    /// The firmware's verdict (`met`, else `MISSED`).
    pub met: bool,
}

/// Everything read from one firmware run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FirmwareRun {
    /// The `measure` lines, in order.
    pub measures: Vec<Measure>,
    /// The parts of the `ram` lines.
    pub ram: Vec<Ram>,
    /// The `ratio` lines.
    pub ratios: Vec<Ratio>,
    /// The `budget` lines.
    pub budgets: Vec<Budget>,
    /// The tests that reported `FAILED`, as printed.
    pub failed_tests: Vec<String>,
    /// The closing `N passed, M failed` line, if the run reached it.
    pub totals: Option<(u32, u32)>,
}

impl FirmwareRun {
    /// Why the run counts as failed: no closing line, or a failed test.
    pub fn failure(&self) -> Option<String> {
        match self.totals {
            None => Some("the firmware printed no closing `N passed, M failed` line".into()),
            Some((_, 0)) => None,
            Some((passed, failed)) => {
                let mut why = format!("{failed} firmware test(s) failed ({passed} passed)");
                if !self.failed_tests.is_empty() {
                    why.push_str(": ");
                    why.push_str(&self.failed_tests.join("; "));
                }
                Some(why)
            }
        }
    }
}

/// One row of the `scripts/sizes.sh` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Size {
    /// The part (`pkc`, `channel`, `empty`).
    pub part: String,
    /// Flash bytes of the binary (text + data).
    pub flash: u64,
    /// Flash bytes over the empty binary.
    pub over_empty: u64,
    /// Static RAM bytes (data + bss).
    pub static_ram: u64,
}

/// Words of `s` with their byte offsets.
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push((b, &s[b..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(b) = start {
        out.push((b, &s[b..]));
    }
    out
}

fn measure(rest: &str) -> Option<Measure> {
    let w = words(rest);
    let k = (1..w.len()).find(|&k| w[k].1 == "instr" && w[k - 1].1.parse::<u64>().is_ok())?;
    let (at, count) = w[k - 1];
    let stack = (k + 3..w.len())
        .find(|&j| w[j].1 == "stack" && w[j - 1].1 == "B")
        .and_then(|j| w[j - 2].1.parse().ok());
    Some(Measure {
        name: rest[..at].trim().to_owned(),
        instructions: count.parse().ok()?,
        stack,
    })
}

fn ram(rest: &str) -> Vec<Ram> {
    let Some((what, parts)) = rest.split_once(':') else {
        return Vec::new();
    };
    parts
        .split(',')
        .filter_map(|part| {
            let w = words(part);
            let bytes = w.first()?.1.parse().ok()?;
            let (at, unit) = *w.get(1)?;
            (unit == "B").then(|| Ram {
                what: what.trim().to_owned(),
                bytes,
                variant: part[at + unit.len()..].trim().to_owned(),
            })
        })
        .collect()
}

fn ratio(rest: &str) -> Option<Ratio> {
    let (name, value) = rest.rsplit_once(':')?;
    Some(Ratio {
        name: name.trim().to_owned(),
        value: value.trim().trim_end_matches('x').parse().ok()?,
    })
}

fn budget(rest: &str) -> Option<Budget> {
    let (figure, limit) = rest.rsplit_once("(limit ")?;
    let (limit, verdict) = limit.split_once(')')?;
    let met = match verdict.trim_start_matches(':').trim() {
        "met" => true,
        "MISSED" => false,
        _ => return None,
    };
    let (at_least, limit) = match limit.trim().strip_prefix(">=") {
        Some(l) => (true, l),
        None => (false, limit.trim().strip_prefix("<=").unwrap_or(limit)),
    };
    let w = words(figure);
    let number = |i: usize| {
        w.get(i)
            .and_then(|(at, v)| Some((*at, v.parse::<f64>().ok()?)))
    };
    let last = w.len().checked_sub(1)?;
    let (unit, (value_at, value)) = match number(last) {
        Some(v) => ("", v),
        None => (w[last].1, number(last.checked_sub(1)?)?),
    };
    Some(Budget {
        name: figure[..value_at].trim().to_owned(),
        value,
        unit: unit.to_owned(),
        limit: limit.trim().parse().ok()?,
        at_least,
        met,
    })
}

/// `N passed, M failed`.
fn totals(line: &str) -> Option<(u32, u32)> {
    let (passed, failed) = line.trim().split_once(" passed, ")?;
    Some((
        passed.trim().parse().ok()?,
        failed.strip_suffix(" failed")?.trim().parse().ok()?,
    ))
}

/// Reads a firmware run's output. Lines it does not know (test results,
/// cargo's own lines) are left out; the last closing line counts.
pub fn firmware(text: &str) -> FirmwareRun {
    let mut run = FirmwareRun::default();
    for line in text.lines() {
        let Some((keyword, rest)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        match keyword {
            "measure" => run.measures.extend(measure(rest)),
            "ram" => run.ram.extend(ram(rest)),
            "ratio" => run.ratios.extend(ratio(rest)),
            "budget" => run.budgets.extend(budget(rest)),
            "test" if line.contains(" ... FAILED") => {
                run.failed_tests.push(rest.trim().to_owned());
            }
            _ => {
                if let Some(t) = totals(line) {
                    run.totals = Some(t);
                }
            }
        }
    }
    run
}

/// Reads the `scripts/sizes.sh` table: every line of a part name and three
/// numbers (flash, over empty, static RAM).
pub fn sizes(text: &str) -> Vec<Size> {
    text.lines()
        .filter_map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            let [part, flash, over, ram] = w.as_slice() else {
                return None;
            };
            Some(Size {
                part: (*part).to_owned(),
                flash: flash.parse().ok()?,
                over_empty: over.parse().ok()?,
                static_ram: ram.parse().ok()?,
            })
        })
        .collect()
}
