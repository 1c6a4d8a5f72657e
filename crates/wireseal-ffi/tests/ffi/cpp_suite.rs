//! Compiles `tests/cpp/engine_test.cpp` (the C++ `CryptoEngine`'s suite) with
//! the host C++ compiler against this crate's static library (the `std`
//! build) and runs it: the same program the Cortex-M4 runs under QEMU
//! against the `no_std` build.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn cpp_suite_passes_on_the_host() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The test runs from target/<profile>/deps/, beside the library cargo
    // built for it.
    let exe = std::env::current_exe().expect("test path");
    let lib = exe.parent().expect("deps dir").join("libwireseal_ffi.a");
    assert!(lib.exists(), "{} missing", lib.display());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ws-cpp-suite");
    let platform = dir.join("../wireseal-mcu/c");
    let platform_obj = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ws-cpp-platform.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-c"])
        .arg("-I")
        .arg(&platform)
        .arg(platform.join("platform_host.c"))
        .arg("-o")
        .arg(&platform_obj)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(status.success(), "compiling the host platform failed");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let status = Command::new(&cxx)
        .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-O1"])
        .args(["-fno-exceptions", "-fno-rtti"])
        .arg("-I")
        .arg(dir.join("include"))
        .arg("-I")
        .arg(dir.join("cpp"))
        .arg("-I")
        .arg(&platform)
        .arg(dir.join("tests/cpp/engine_test.cpp"))
        .arg(&platform_obj)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .status()
        .unwrap_or_else(|e| panic!("{cxx}: {e}"));
    assert!(status.success(), "compiling the C++ suite failed");
    let run = Command::new(&out).output().expect("run the C++ suite");
    let stdout = String::from_utf8_lossy(&run.stdout);
    print!("{stdout}");
    assert!(run.status.success(), "the C++ suite failed:\n{stdout}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.ends_with(" passed, 0 failed") && !last.starts_with("0 "),
        "{last}"
    );
}
