//! `include/wireseal.h` is what cbindgen generates from this crate now.
//! `WIRESEAL_BLESS=1 cargo test -p wireseal-ffi --test ffi header` rewrites it.

#[test]
fn header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let path = format!("{dir}/include/wireseal.h");
    if std::env::var_os("WIRESEAL_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let current = std::fs::read(&path).unwrap_or_default();
    assert!(
        current == generated,
        "include/wireseal.h is stale: run WIRESEAL_BLESS=1 cargo test -p wireseal-ffi --test ffi header"
    );
}
