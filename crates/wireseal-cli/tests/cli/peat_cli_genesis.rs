//! `wireseal peat genesis --out`: the mesh-key file (mode 0600, never
//! replaced unasked) that `--secret-file` reads, the first-hour sequence of
//! `docs/peat.md` (genesis, seal, open with the written file), and errors
//! that name the option the user gave.

use crate::support;

use support::peat::{fails, ok, ws};
use support::ws_env;

const SEED: &str = "4242424242424242424242424242424242424242424242424242424242424242";
const ALPHA_SECRET: &str = "882125bc581b8c73b79e35e839534fe50f1583adf331b21c6c937a042ade5b32";

#[test]
fn genesis_out_writes_a_private_mesh_key_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("alpha.meshkey");
    let f = file.to_str().unwrap();
    let out = ok(&[
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--seed",
        SEED,
        "--out",
        f,
    ]);
    // Only the mesh id on stdout: the secret is in the file.
    assert_eq!(out, "CBE6FC55\n");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("mesh_id: CBE6FC55\n"), "{text}");
    assert!(
        text.contains(&format!("secret: {ALPHA_SECRET}\n")),
        "{text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // Never replaced unasked; replaced with --force.
    fails(
        &["peat", "genesis", "--name", "OTHER", "--out", f],
        "exists; add --force to replace it",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    let other = ok(&["peat", "genesis", "--name", "OTHER", "--out", f, "--force"]);
    assert_ne!(std::fs::read_to_string(&file).unwrap(), text);
    assert_eq!(other.trim().len(), 8);
    fails(&["peat", "genesis", "--name", "X", "--force"], "--out");
    // --json names the file too.
    let json_file = dir.path().join("j.meshkey");
    let j: serde_json::Value = serde_json::from_str(&ok(&[
        "--json",
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--seed",
        SEED,
        "--out",
        json_file.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(j["mesh_id"], "CBE6FC55");
    assert_eq!(j["out"], json_file.to_str().unwrap());
    assert!(j.get("secret").is_none());
}

#[test]
fn first_hour_sequence() {
    // As docs/peat.md shows it: a new mesh, then seal and open with the file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("alpha.meshkey");
    let f = file.to_str().unwrap();
    let mesh_id = ok(&["peat", "genesis", "--name", "ALPHA-TEAM", "--out", f]);
    let mesh_id = mesh_id.trim();
    assert_eq!(mesh_id.len(), 8);
    assert!(mesh_id
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_lowercase()));
    let frame = ok(&[
        "peat",
        "seal",
        "--mesh-id",
        mesh_id,
        "--secret-file",
        f,
        "68656c6c6f",
    ]);
    let opened = ok(&[
        "peat",
        "open",
        "--mesh-id",
        &mesh_id.to_ascii_lowercase(),
        "--secret-file",
        f,
        frame.trim(),
    ]);
    assert_eq!(opened.trim(), "68656c6c6f");
    // A fresh seed each time: another mesh cannot open it.
    let other = dir.path().join("other.meshkey");
    let other_id = ok(&[
        "peat",
        "genesis",
        "--name",
        "ALPHA-TEAM",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_ne!(
        std::fs::read_to_string(&file).unwrap(),
        std::fs::read_to_string(&other).unwrap()
    );
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            other_id.trim(),
            "--secret-file",
            other.to_str().unwrap(),
            frame.trim(),
        ],
        "authentication failed",
    );
}

#[test]
fn empty_names_are_refused() {
    fails(
        &["peat", "genesis", "--name", "", "--seed", SEED],
        "--name: the mesh name is empty",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("never.meshkey");
    fails(
        &[
            "peat",
            "genesis",
            "--name",
            "",
            "--out",
            file.to_str().unwrap(),
        ],
        "the mesh name is empty",
    );
    assert!(!file.exists(), "nothing written");
}

#[test]
fn errors_name_the_option_given() {
    let dir = tempfile::tempdir().unwrap();
    let short = dir.path().join("short");
    std::fs::write(&short, "4242\n").unwrap();
    let short = short.to_str().unwrap();
    let frame = "ae00000102030405060708090a0b38d9697c592c680c3c759655df471eba";
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret-file",
            short,
            frame,
        ],
        "--secret-file: expected 32 bytes",
    );
    let o = ws_env(
        &[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret-env",
            "PEAT_SHORT",
            frame,
        ],
        &[("PEAT_SHORT", "4242")],
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("--secret-env: expected 32 bytes"),
        "{e}"
    );
    fails(
        &[
            "peat",
            "open",
            "--mesh-id",
            "DEMO",
            "--secret",
            "4242",
            frame,
        ],
        "--secret: expected 32 bytes",
    );
    fails(
        &["peat", "genesis", "--name", "X", "--seed-file", short],
        "--seed-file: expected 32 bytes",
    );
    fails(
        &["peat", "keyx", "--node", "1", "--key-file", short],
        "--key-file: expected 32 bytes",
    );
    // A mesh-key file is not read as a seed or a private key.
    let mesh = dir.path().join("m.meshkey");
    let m = mesh.to_str().unwrap();
    ok(&["peat", "genesis", "--name", "A", "--seed", SEED, "--out", m]);
    fails(
        &["peat", "genesis", "--name", "X", "--seed-file", m],
        "--seed-file: expected 32 bytes",
    );
    fails(
        &["peat", "keyx", "--node", "1", "--key-file", m],
        "--key-file: expected 32 bytes",
    );
    // No error quotes the file's contents.
    let o = ws(&["peat", "keyx", "--node", "1", "--key-file", m]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!e.contains("secret:") && !e.contains("4242"), "{e}");
}

#[test]
fn docs_first_hour_runs_as_written() {
    // The ```sh block under "## First hour" in docs/peat.md, run by sh with
    // the binary under test first on PATH, in an empty directory.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/peat.md"))
        .unwrap();
    let section = &doc[doc.find("## First hour").expect("a First hour section")..];
    let start = section.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let script = &section[start..start + section[start..].find("```").unwrap()];
    assert_eq!(script.lines().count(), 3, "{script}");
    let bin_dir = std::path::Path::new(support::BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new("sh")
        .args(["-e", "-c", script])
        .current_dir(dir.path())
        .env("PATH", path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // The doc says the last command prints "hello" in hex.
    assert_eq!(String::from_utf8_lossy(&o.stdout), "68656c6c6f\n", "{err}");
    assert!(dir.path().join("alpha.meshkey").exists());
}
