//! Builds the kernels' CUDA C source for the host (kernel/host_entry.c with
//! kernel/host_shim.h) into a static library that only the crate's tests
//! call: the tests hold the kernels to RFC 8439's vectors and to the library
//! without a GPU. Nothing outside the tests refers to it, so the linker
//! leaves it out of every other binary.

fn main() {
    for f in [
        "kernel/bip324.cu",
        "kernel/primitives.cuh",
        "kernel/host_shim.h",
        "kernel/host_entry.c",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    cc::Build::new()
        .file("kernel/host_entry.c")
        .include("kernel")
        .define("WS_HOST", None)
        .std("c11")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .compile("wireseal_gpu_host_kernels");
}
