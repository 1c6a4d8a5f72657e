//! The section's reading of the firmware's output and of `scripts/sizes.sh`,
//! on recorded outputs (`tests/data/`). Expected figures are the numbers
//! printed in those files.

use super::parse::{self, Budget, Measure, Ram, Size};
use super::*;

const OUTPUT: &str = include_str!("../../tests/data/mcu-output.txt");
const SIZES: &str = include_str!("../../tests/data/mcu-sizes.txt");

fn row<'a>(rows: &'a [Row], workload: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.workload == workload)
        .unwrap_or_else(|| panic!("no row {workload:?}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-3
}

#[test]
fn every_measure_line_is_read_with_its_instructions_and_stack() {
    let run = parse::firmware(OUTPUT);
    assert_eq!(run.measures.len(), 17);
    assert_eq!(
        run.measures[0],
        Measure {
            name: "x25519 (x25519-dalek, u32 backend)".into(),
            instructions: 1_313_803,
            stack: Some(2200),
        }
    );
    let uncached = &run.measures[6];
    assert_eq!(
        uncached.name,
        "pkc open 200 B uncached (miss, 16-slot cache)"
    );
    assert_eq!(
        (uncached.instructions, uncached.stack),
        (1_426_584, Some(4344))
    );
    let lookup = &run.measures[11];
    assert_eq!(lookup.name, "cache lookup, 16 slots, constant time");
    assert_eq!((lookup.instructions, lookup.stack), (1604, Some(92)));
    let last = run.measures.last().unwrap();
    assert_eq!(last.name, "xeddsa verify, converted key kept");
    assert_eq!((last.instructions, last.stack), (1_496_696, Some(6592)));
    assert_eq!(run.totals, Some((17, 0)));
    assert!(run.failed_tests.is_empty());
    assert_eq!(run.failure(), None);
}

#[test]
fn ram_ratio_and_budget_lines_are_read() {
    let run = parse::firmware(OUTPUT);
    assert_eq!(
        run.ram,
        vec![
            Ram {
                what: "cache slot".into(),
                bytes: 72,
                variant: "with the 32-byte key".into()
            },
            Ram {
                what: "cache slot".into(),
                bytes: 520,
                variant: "with the expanded key".into()
            },
        ]
    );
    let ratios: Vec<(&str, f64)> = run
        .ratios
        .iter()
        .map(|r| (r.name.as_str(), r.value))
        .collect();
    assert_eq!(
        ratios,
        vec![
            ("pkc open uncached / cached (32-byte key slot)", 12.7),
            ("pkc open uncached / cached (expanded-key slot)", 13.7),
        ]
    );
    assert_eq!(run.budgets.len(), 8);
    assert_eq!(
        run.budgets[1],
        Budget {
            name: "pkc open 200 B cached (32-byte key slot)".into(),
            value: 111_552.0,
            unit: "instr".into(),
            limit: 110_000.0,
            at_least: false,
            met: false,
        }
    );
    assert_eq!(
        run.budgets[4],
        Budget {
            name: "uncached/cached ratio x10 (expanded-key slot)".into(),
            value: 137.0,
            unit: String::new(),
            limit: 130.0,
            at_least: true,
            met: true,
        }
    );
    let ram = run.budgets.last().unwrap();
    assert_eq!(ram.name, "cache slot RAM (32-byte key)");
    assert_eq!((ram.value, ram.unit.as_str(), ram.limit), (72.0, "B", 80.0));
}

#[test]
fn rows_give_instructions_beside_the_firmware_instructions() {
    let rows = firmware_report(OUTPUT, Ok(()), "");
    assert!(crate::no_failures(&rows).is_ok());
    assert!(rows.iter().all(|r| r.section == "embedded"));
    let tests = row(&rows, TESTS);
    assert_eq!(tests.ours, 17.0);
    assert_eq!(
        tests.seed_figure.as_deref(),
        Some("17 passed, 0 failed, 17 measurements")
    );

    let m = row(&rows, "pkc open 200 B uncached (miss, 16-slot cache)");
    assert_eq!(
        (m.ours, m.unit.as_str(), m.baseline),
        (1_426_584.0, "instr", None)
    );
    assert_eq!(
        m.seed_figure.as_deref(),
        Some(">= 22.290 ms at 64 MHz, stack 4344 B")
    );

    // Instructions against the firmware's instructions, never milliseconds.
    assert!(rows.iter().all(|r| r.unit != "ms"));
    let u = row(
        &rows,
        "pkc open 200 B uncached (miss, 16-slot cache) vs the firmware",
    );
    assert_eq!((u.unit.as_str(), u.ours), ("instr", 1_426_584.0));
    assert_eq!(u.baseline, Some(3_144_862.0));
    assert!(
        close(u.ratio.unwrap(), 3_144_862.0 / 1_426_584.0),
        "{:?}",
        u.ratio
    );
    assert!(u.baseline_name.contains("measured outside this project"));
    let c = row(
        &rows,
        "pkc open 200 B cached (32-byte key slot) vs the firmware",
    );
    assert_eq!(c.baseline, Some(173_987.0));
    let x = row(&rows, "x25519 (x25519-dalek, u32 backend) vs the firmware");
    assert_eq!(x.baseline, Some(2_965_844.0));
    let ccm = row(
        &rows,
        "aes-256-ccm open 200 B (expanded key) vs the firmware",
    );
    assert_eq!(ccm.baseline, Some(173_935.0));
    let compared = rows
        .iter()
        .filter(|r| r.workload.ends_with("vs the firmware"))
        .count();
    assert_eq!(
        compared, 4,
        "the seals and the expanded-key slot are not compared"
    );
    let on_plot: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.point.as_ref().filter(|p| p.plot == PLOT).map(|p| p.x))
        .collect();
    assert_eq!(on_plot, [1.0, 2.0, 3.0, 4.0, 5.0]);

    let q = row(&rows, "pkc open uncached / cached (32-byte key slot)");
    assert_eq!((q.ours, q.baseline, q.ratio), (12.7, Some(32.0), None));
    let ram = row(&rows, "RAM of a cache slot with the 32-byte key");
    assert_eq!(
        (ram.ours, ram.baseline, ram.ratio),
        (72.0, Some(2400.0), None)
    );
    assert!(ram
        .seed_figure
        .as_deref()
        .unwrap()
        .ends_with("16 slots here: 1152 B"));

    let b = row(&rows, "budget: pkc open 200 B cached (32-byte key slot)");
    assert_eq!((b.ours, b.baseline), (111_552.0, Some(110_000.0)));
    assert_eq!(b.seed_figure.as_deref(), Some("MISSED"));
    let floor = row(
        &rows,
        "budget: uncached/cached ratio x10 (expanded-key slot)",
    );
    assert!(close(floor.ratio.unwrap(), 137.0 / 130.0));
    assert_eq!(floor.seed_figure.as_deref(), Some("met"));
}

#[test]
fn renamed_operations_are_matched_and_missing_ones_left_out() {
    let renamed = OUTPUT
        .replace(
            "pkc open 200 B uncached (miss, 16-slot cache)",
            "PKC open 200 B, uncached (library engine)",
        )
        .lines()
        .filter(|l| !(l.starts_with("measure pkc open") && l.contains(" cached")))
        .collect::<Vec<_>>()
        .join("\n");
    let rows = firmware_report(&renamed, Ok(()), "");
    let pkc: Vec<&str> = rows
        .iter()
        .filter(|r| r.workload.contains("PKC open") && r.workload.ends_with("vs the firmware"))
        .map(|r| r.workload.as_str())
        .collect();
    assert_eq!(
        pkc,
        ["PKC open 200 B, uncached (library engine) vs the firmware"]
    );
    let none = firmware_report(&OUTPUT.replace("measure pkc", "measure pk"), Ok(()), "");
    assert!(none
        .iter()
        .all(|r| !r.workload.contains("pk open") || !r.workload.ends_with("vs the firmware")));
    assert!(crate::no_failures(&none).is_ok());
}

/// The library's rows beside the old backend's of the same run.
#[test]
fn new_rows_are_set_beside_the_old_backend() {
    let out = "\
measure aes-256-ccm decrypt + tag check 200 B (library, paired blocks, expanded key)      69149 instr    1080 us@64MHz    492 B stack
measure aes-256-ccm decrypt + tag check 200 B (ccm crate, expanded key; old backend)     102314 instr    1599 us@64MHz    860 B stack
measure pkc open 200 B uncached (x25519-dalek, sha2, ccm crate; old backend)    1426246 instr   22285 us@64MHz   2792 B stack
measure pkc open 200 B uncached (library, miss, 16-slot cache)     735440 instr   11491 us@64MHz   2388 B stack
measure x25519 (salty 0.3, cortex-m4 assembly; candidate, wrong on wycheproof)     653382 instr   10209 us@64MHz   1316 B stack
1 passed, 0 failed
";
    let rows = firmware_report(out, Ok(()), "");
    let ccm = row(
        &rows,
        "aes-256-ccm decrypt + tag check 200 B (library, paired blocks, expanded key) vs the old backend",
    );
    assert_eq!((ccm.ours, ccm.baseline), (69_149.0, Some(102_314.0)));
    let pkc = row(
        &rows,
        "pkc open 200 B uncached (library, miss, 16-slot cache) vs the old backend",
    );
    assert!(close(pkc.ratio.unwrap(), 1_426_246.0 / 735_440.0));
    assert!(rows
        .iter()
        .all(|r| !r.workload.contains("candidate") || r.baseline.is_none()));
    let series: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.point.as_ref().map(|p| p.series.as_str()))
        .collect();
    assert_eq!(
        series,
        [
            "wireseal",
            "old backend (same run)",
            "old backend (same run)",
            "wireseal",
            "candidate (not used)"
        ]
    );
}

#[test]
fn a_failed_test_fails_the_section() {
    let failing = OUTPUT
        .replace(
            "test meshtastic sha256 vectors ... ok (3 cases)",
            "  FAIL meshtastic sha256 vectors: case 2 differs\n\
             test meshtastic sha256 vectors ... FAILED (1 of 3 cases)",
        )
        .replace("17 passed, 0 failed", "16 passed, 1 failed");
    let run = parse::firmware(&failing);
    assert_eq!(run.totals, Some((16, 1)));
    assert_eq!(
        run.failed_tests,
        ["meshtastic sha256 vectors ... FAILED (1 of 3 cases)"]
    );
    let rows = firmware_report(&failing, Ok(()), "qemu-run: firmware exited with status 1");
    let e = crate::no_failures(&rows).unwrap_err().to_string();
    assert!(e.contains("1 firmware test(s) failed (16 passed)"), "{e}");
    assert!(e.contains("meshtastic sha256 vectors ... FAILED"), "{e}");
    assert!(e.contains("qemu-run: firmware exited with status 1"), "{e}");
    assert_eq!(row(&rows, TESTS).ours, 16.0);
    // The measurements are still shown.
    let measured = rows
        .iter()
        .filter(|r| {
            r.seed_figure
                .as_deref()
                .is_some_and(|s| s.starts_with(">= "))
        })
        .count();
    assert_eq!(measured, 17);
}

#[test]
fn a_run_without_its_closing_line_or_with_an_error_status_fails() {
    let built_nothing = firmware_report("", Ok(()), "");
    let e = crate::no_failures(&built_nothing).unwrap_err().to_string();
    assert!(e.contains("no closing `N passed, M failed` line"), "{e}");
    let status = std::process::Command::new("false").status().unwrap();
    let rows = firmware_report(OUTPUT, Err(status), "error: could not compile");
    let e = crate::no_failures(&rows).unwrap_err().to_string();
    assert!(e.contains("cargo test exited with"), "{e}");
    assert!(e.contains("error: could not compile"), "{e}");
}

#[test]
fn sizes_table_gives_one_row_per_part() {
    let parts = parse::sizes(SIZES);
    assert_eq!(parts.len(), 6);
    assert_eq!(
        parts[1],
        Size {
            part: "pkc".into(),
            flash: 19_676,
            over_empty: 16_056,
            static_ram: 12,
        }
    );
    assert_eq!(parts[5].part, "xeddsa-verify");
    assert_eq!(parts[5].over_empty, 45_048);
    let rows: Vec<Row> = parts.iter().map(size_row).collect();
    let empty = row(&rows, "flash, empty binary (start-up, handlers), opt \"s\"");
    assert_eq!(empty.ours, 3620.0);
    let both = row(&rows, "flash, pkc-channel over empty, opt \"s\"");
    assert_eq!(both.ours, 17_952.0);
    assert_eq!(
        both.seed_figure.as_deref(),
        Some("21572 B in all, static RAM 12 B")
    );
}

#[test]
fn the_firmware_crate_is_found_in_this_checkout() {
    let dir = mcu_dir().unwrap();
    assert!(dir.join("scripts/sizes.sh").is_file(), "{}", dir.display());
}

#[test]
fn a_name_holding_seal_inside_a_word_is_not_a_seal() {
    let m = |name: &str| Measure {
        name: name.into(),
        instructions: 546_911,
        stack: Some(1452),
    };
    let fe = m("x25519 (library: wireseal-fe25519, cortex-m4 assembly)");
    let x = against_firmware(&fe).expect("x25519 on wireseal-fe25519 beside the firmware");
    assert_eq!(x.baseline, Some(2_965_844.0));
    assert!(against_firmware(&m("pkc seal 200 B uncached (library, miss)")).is_none());
    let old = m("x25519 (x25519-dalek, u32 backend; old backend)");
    let rows = against_old_backend(&[fe, old]);
    assert_eq!(rows.len(), 1, "{rows:?}");
}
