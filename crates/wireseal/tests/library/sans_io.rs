//! The library is sans-IO, as its manual says: no source file of it names
//! the file system, processes or sockets (its doc examples may, as a
//! caller's code). What drivers share of that kind lives in `wireseal-io`.

use std::path::Path;

const FORBIDDEN: [&str; 8] = [
    "std::fs",
    "std::process",
    "std::net",
    "std::os::unix::net",
    "tokio::fs",
    "tokio::net",
    "tokio::process",
    "rustix",
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_file_system_process_or_socket_in_the_sources() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("source file");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for word in FORBIDDEN {
                if code.contains(word) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "I/O in the library's sources:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_use_of_the_file_system() {
    // The same scan over a line that names the file system finds it.
    let line = "    let f = std::fs::File::open(path)?;";
    assert!(FORBIDDEN.iter().any(|w| line.trim_start().contains(w)));
}
