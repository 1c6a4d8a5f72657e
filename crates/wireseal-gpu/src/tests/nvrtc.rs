//! The kernels' source through the real NVRTC (no device needed): it
//! compiles for the architectures the engine meets (Turing to Blackwell,
//! the H100's sm_90 among them), and every kernel the engine loads is in
//! the PTX. NVRTC comes from PyPI (`nvidia-cuda-nvrtc`, CUDA 13), installed
//! and put on the loader's path by scripts/setup-peers.sh; without it this
//! test fails unless `WIRESEAL_ALLOW_MISSING_PEERS=1`.

use crate::cuda::{compile, compile_source, nvrtc_present, nvrtc_version};
use crate::layout::Kernel;
use crate::Unavailable;

#[test]
fn nvrtc_compiles_the_kernels() {
    if !nvrtc_present() {
        let why = "NVRTC (libnvrtc.so.13) is not on the loader's path: scripts/setup-peers.sh \
                   installs it from PyPI (nvidia-cuda-nvrtc) and sets LD_LIBRARY_PATH";
        if std::env::var_os("WIRESEAL_ALLOW_MISSING_PEERS").is_some_and(|v| v == "1") {
            println!("skipped: {why}");
            return;
        }
        panic!("{why} (WIRESEAL_ALLOW_MISSING_PEERS=1 skips this test)");
    }
    let (major, _) = nvrtc_version().expect("NVRTC answers its version");
    assert!(major >= 12, "NVRTC {major}");
    for cc in [(7, 5), (8, 0), (8, 9), (9, 0), (10, 0), (12, 0)] {
        let ptx = compile(cc).unwrap_or_else(|e| panic!("sm_{}{}: {e}", cc.0, cc.1));
        let text = ptx.to_src();
        assert!(
            text.contains(&format!(".target sm_{}{}", cc.0, cc.1)),
            "{cc:?}"
        );
        for k in Kernel::ALL {
            assert!(
                text.contains(&format!(".entry {}(", k.name())),
                "{cc:?}: {}",
                k.name()
            );
        }
    }
}

/// Source NVRTC refuses gives its log, with the library and its version,
/// as a typed error (never a panic or an abort).
#[test]
fn a_compile_error_names_the_library_and_carries_the_log() {
    if !nvrtc_present() {
        println!(
            "skipped: NVRTC is not on the loader's path (nvrtc_compiles_the_kernels says why)"
        );
        return;
    }
    let bad = "extern \"C\" __global__ void k() { this is not C++; }";
    match compile_source(bad, (9, 0)) {
        Err(Unavailable::Compile {
            library,
            version_major,
            log,
            ..
        }) => {
            assert!(library.contains("libnvrtc"), "{library}");
            assert!(version_major >= 12);
            assert!(log.contains("error"), "{log}");
        }
        other => panic!("{other:?}"),
    }
    let e = compile_source("a\0b", (9, 0)).unwrap_err();
    assert!(matches!(e, Unavailable::Compile { .. }), "{e:?}");
}
