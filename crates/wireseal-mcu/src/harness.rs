//! Named test groups and the run's end: one `test NAME ... ok` line per
//! group, failures with their details, then `N passed, M failed` and the
//! semihosting exit (status 0 only when nothing failed).

use core::sync::atomic::{AtomicU32, Ordering};
use cortex_m_semihosting::{debug, hprintln};

static PASSED: AtomicU32 = AtomicU32::new(0);
static FAILED: AtomicU32 = AtomicU32::new(0);

/// One named test: any number of cases, failed as a whole when any case
/// fails. Ends with [`Group::end`].
pub struct Group {
    name: &'static str,
    cases: u32,
    failures: u32,
}

/// Starts the test `name`.
pub fn group(name: &'static str) -> Group {
    Group {
        name,
        cases: 0,
        failures: 0,
    }
}

impl Group {
    /// One case: fails with `detail` printed when `ok` is false.
    pub fn check(&mut self, ok: bool, detail: core::fmt::Arguments<'_>) {
        self.cases += 1;
        if !ok {
            self.failures += 1;
            if self.failures <= 10 {
                hprintln!("  FAIL {}: {}", self.name, detail);
            }
        }
    }

    /// One case comparing bytes: prints both in hex when they differ.
    pub fn check_bytes(&mut self, case: core::fmt::Arguments<'_>, got: &[u8], want: &[u8]) {
        let ok = got == want;
        self.check(
            ok,
            format_args!("{case}: got {:02x?}, want {:02x?}", Hex(got), Hex(want)),
        );
    }

    /// Ends the test and counts it; returns whether it passed.
    pub fn end(self) -> bool {
        if self.cases == 0 {
            hprintln!("test {} ... FAILED (no case ran)", self.name);
            FAILED.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        if self.failures == 0 {
            hprintln!("test {} ... ok ({} cases)", self.name, self.cases);
            PASSED.fetch_add(1, Ordering::Relaxed);
            true
        } else {
            hprintln!(
                "test {} ... FAILED ({} of {} cases)",
                self.name,
                self.failures,
                self.cases
            );
            FAILED.fetch_add(1, Ordering::Relaxed);
            false
        }
    }
}

/// Bytes printed as one hex string.
pub struct Hex<'a>(pub &'a [u8]);

impl core::fmt::Debug for Hex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Prints the closing line and exits QEMU: status 0 when nothing failed.
pub fn finish() -> ! {
    let passed = PASSED.load(Ordering::Relaxed);
    let failed = FAILED.load(Ordering::Relaxed);
    hprintln!("{} passed, {} failed", passed, failed);
    exit(failed == 0)
}

/// Counts one more failure (a panic or fault ended the run), prints the
/// closing line and exits with a failure status.
pub fn abort() -> ! {
    FAILED.fetch_add(1, Ordering::Relaxed);
    let passed = PASSED.load(Ordering::Relaxed);
    let failed = FAILED.load(Ordering::Relaxed);
    hprintln!("{} passed, {} failed", passed, failed);
    exit(false)
}

fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Not under a debugger or QEMU: nothing to return to.
    loop {
        cortex_m::asm::bkpt();
    }
}
