//! `wireseal aescrypt encrypt|decrypt` end to end, through the built binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::support;

use support::{output_fed, BIN};

const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/aescrypt");

fn ws(args: &[&str], pw: &str, stdin: Option<&[u8]>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).env("WS_PW", pw);
    output_fed(c, Some(stdin.unwrap_or_default()))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Writes `pt` to `dir/in.bin`, encrypts it to `dir/out` with password `pw`
/// and returns the ciphertext.
fn encrypt_in_bin(dir: &Path, pt: &[u8], out: &str, pw: &str) -> Vec<u8> {
    let p = |n: &str| dir.join(n).to_str().unwrap().to_owned();
    std::fs::write(p("in.bin"), pt).unwrap();
    let o = ws(
        &[
            "aescrypt",
            "encrypt",
            "--password-env",
            "WS_PW",
            &p("in.bin"),
            &p(out),
        ],
        pw,
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(p(out)).unwrap()
}

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 300) as u8).collect()
}

#[test]
fn file_round_trip_v2_and_v3_with_overwrite_rules() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_owned();
    let pt = data(3 * 1024 * 1024 + 5);
    std::fs::write(p("in.bin"), &pt).unwrap();
    for fmt in [
        &["--format", "v2"][..],
        &["--format", "v3", "--iterations", "1000"],
    ] {
        let mut args = vec!["aescrypt", "encrypt", "--password-env", "WS_PW", "--force"];
        args.extend_from_slice(fmt);
        let (i, x) = (p("in.bin"), p("x.aes"));
        args.extend_from_slice(&[&i, &x]);
        let o = ws(&args, "pässwort", None);
        assert!(o.status.success(), "{}", stderr(&o));
        let ct = std::fs::read(p("x.aes")).unwrap();
        assert_eq!(&ct[..3], b"AES");
        assert_eq!(ct[3], if fmt[1] == "v2" { 2 } else { 3 });
        let o = ws(
            &[
                "aescrypt",
                "decrypt",
                "--password-env",
                "WS_PW",
                "--force",
                &p("x.aes"),
                &p("out.bin"),
            ],
            "pässwort",
            None,
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(std::fs::read(p("out.bin")).unwrap() == pt);
    }
    // No --force: refused, existing file untouched.
    std::fs::write(p("keep.bin"), b"precious").unwrap();
    let o = ws(
        &[
            "aescrypt",
            "decrypt",
            "--password-env",
            "WS_PW",
            &p("x.aes"),
            &p("keep.bin"),
        ],
        "pässwort",
        None,
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(std::fs::read(p("keep.bin")).unwrap(), b"precious");
    // Output == input refused even with --force.
    let o = ws(
        &[
            "aescrypt",
            "encrypt",
            "--password-env",
            "WS_PW",
            "--force",
            &p("in.bin"),
            &p("in.bin"),
        ],
        "pw",
        None,
    );
    assert!(!o.status.success());
    assert!(std::fs::read(p("in.bin")).unwrap() == pt);
}

#[test]
fn failures_leave_no_output_and_say_why() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_owned();
    let dec = |input: &str, out: &str, pw: &str| {
        ws(
            &["aescrypt", "decrypt", "--password-env", "WS_PW", input, out],
            pw,
            None,
        )
    };
    encrypt_in_bin(d.path(), &data(3_000_000), "x.aes", "right");
    let before = entries(d.path());
    // Wrong password.
    let o = dec(&p("x.aes"), &p("out.bin"), "wrong");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("wrong password"), "{}", stderr(&o));
    assert_eq!(
        entries(d.path()),
        before,
        "no output, no temporary file left"
    );
    // Corrupted body near the end: distinct message and no output, although
    // megabytes were decrypted before the HMAC check.
    let mut ct = std::fs::read(p("x.aes")).unwrap();
    let i = ct.len() - 100;
    ct[i] ^= 1;
    std::fs::write(p("bad.aes"), &ct).unwrap();
    let before = entries(d.path());
    let o = dec(&p("bad.aes"), &p("out.bin"), "right");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("corrupted"), "{}", stderr(&o));
    assert_eq!(entries(d.path()), before);
    // To stdout: nothing unverified is printed, from a path or from stdin.
    let o = dec(&p("bad.aes"), "-", "right");
    assert!(!o.status.success());
    assert!(o.stdout.is_empty());
    let o = ws(
        &["aescrypt", "decrypt", "--password-env", "WS_PW", "-", "-"],
        "right",
        Some(&ct),
    );
    assert!(!o.status.success());
    assert!(o.stdout.is_empty());
    // Truncated.
    std::fs::write(p("short.aes"), &ct[..ct.len() - 7]).unwrap();
    let o = dec(&p("short.aes"), &p("out.bin"), "right");
    assert!(!o.status.success());
    assert!(!d.path().join("out.bin").exists());
}

#[test]
fn stdin_stdout_and_password_file() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_owned();
    std::fs::write(p("pw.txt"), "correct horse battery staple\n").unwrap();
    let pw = p("pw.txt");
    let pt = data(70_001);
    let o = ws(
        &["aescrypt", "encrypt", "--password-file", &pw, "-", "-"],
        "",
        Some(&pt),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ct = o.stdout;
    let o = ws(
        &["aescrypt", "decrypt", "--password-file", &pw, "-", "-"],
        "",
        Some(&ct),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == pt);
    // The pyAesCrypt sample, by path to stdout, with the same password file.
    let sample = format!("{VECTORS}/hello_txt.plain.aes");
    let o = ws(
        &["aescrypt", "decrypt", "--password-file", &pw, &sample, "-"],
        "",
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        o.stdout,
        std::fs::read(format!("{VECTORS}/hello_txt.plain")).unwrap()
    );
    // Unset environment variable: a clear error.
    let o = ws(
        &[
            "aescrypt",
            "decrypt",
            "--password-env",
            "WS_NOT_SET_ANYWHERE",
            "-",
            "-",
        ],
        "",
        Some(&ct),
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("WS_NOT_SET_ANYWHERE"));
}

/// OUT given as a symlink or a hard link to IN is refused (with --force
/// too) for both commands, and stdout redirected into IN (`>> IN`) is
/// refused: the input is never touched.
#[cfg(unix)]
#[test]
fn output_aliasing_the_input_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_owned();
    let pt = data(100_000);
    let ct = encrypt_in_bin(d.path(), &pt, "in.aes", "pw");
    std::os::unix::fs::symlink(p("in.bin"), p("sym.bin")).unwrap();
    std::fs::hard_link(p("in.bin"), p("hard.bin")).unwrap();
    std::os::unix::fs::symlink(p("in.aes"), p("sym.aes")).unwrap();
    std::fs::hard_link(p("in.aes"), p("hard.aes")).unwrap();
    for (cmd, input, alias) in [
        ("encrypt", "in.bin", "sym.bin"),
        ("encrypt", "in.bin", "hard.bin"),
        ("decrypt", "in.aes", "sym.aes"),
        ("decrypt", "in.aes", "hard.aes"),
    ] {
        let o = ws(
            &[
                "aescrypt",
                cmd,
                "--password-env",
                "WS_PW",
                "--force",
                &p(input),
                &p(alias),
            ],
            "pw",
            None,
        );
        assert!(!o.status.success(), "{cmd} {alias}");
        assert!(stderr(&o).contains("is the input"), "{}", stderr(&o));
    }
    // stdout appending to the input.
    for (cmd, input) in [("encrypt", "in.bin"), ("decrypt", "in.aes")] {
        let out = std::fs::OpenOptions::new()
            .append(true)
            .open(p(input))
            .unwrap();
        let o = Command::new(BIN)
            .args(["aescrypt", cmd, "--password-env", "WS_PW", &p(input), "-"])
            .env("WS_PW", "pw")
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(!o.status.success(), "{cmd} into its own input");
        assert!(stderr(&o).contains("stdout is the input"), "{}", stderr(&o));
    }
    assert!(std::fs::read(p("in.bin")).unwrap() == pt);
    assert!(std::fs::read(p("in.aes")).unwrap() == ct);
    // Writing to stdout redirected into another file is fine.
    let other = std::fs::File::create(p("other.bin")).unwrap();
    let o = Command::new(BIN)
        .args([
            "aescrypt",
            "decrypt",
            "--password-env",
            "WS_PW",
            &p("in.aes"),
            "-",
        ])
        .env("WS_PW", "pw")
        .stdin(Stdio::null())
        .stdout(Stdio::from(other))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(p("other.bin")).unwrap() == pt);
}

#[test]
fn iterations_with_format_v2_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in.bin");
    std::fs::write(&input, b"x").unwrap();
    let out = d.path().join("x.aes");
    let (i, x) = (input.to_str().unwrap(), out.to_str().unwrap());
    let o = ws(
        &[
            "aescrypt",
            "encrypt",
            "--password-env",
            "WS_PW",
            "--format",
            "v2",
            "--iterations",
            "5000",
            i,
            x,
        ],
        "pw",
        None,
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--format v3 only"), "{}", stderr(&o));
    assert!(!out.exists());
    // With v3 the count is used (it is in the header).
    let o = ws(
        &[
            "aescrypt",
            "encrypt",
            "--password-env",
            "WS_PW",
            "--format",
            "v3",
            "--iterations",
            "5000",
            i,
            x,
        ],
        "pw",
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ct = std::fs::read(&out).unwrap();
    assert_eq!(ct[3], 3);
    assert!(ct.windows(4).any(|w| w == 5000u32.to_be_bytes()));
}

/// An input that is not a regular file (here /dev/stdin, a pipe) decrypts
/// to stdout and to a file (no "Illegal seek"); damage
/// found at the end still releases nothing.
#[cfg(target_os = "linux")]
#[test]
fn non_seekable_input_paths_work() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_owned();
    let pt = data(2_500_000);
    let ct = encrypt_in_bin(d.path(), &pt, "x.aes", "pw");
    let dec = |out: &str, input: &[u8]| {
        ws(
            &[
                "aescrypt",
                "decrypt",
                "--password-env",
                "WS_PW",
                "/dev/stdin",
                out,
            ],
            "pw",
            Some(input),
        )
    };
    let o = dec("-", &ct);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout == pt);
    let o = dec(&p("out.bin"), &ct);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(p("out.bin")).unwrap() == pt);
    let mut bad = ct.clone();
    let i = bad.len() - 50;
    bad[i] ^= 2;
    let o = dec("-", &bad);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("corrupted"), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

/// Ctrl-C, SIGTERM or SIGHUP in the middle of a run leaves neither the
/// output nor a temporary file.
#[cfg(unix)]
#[test]
fn interrupted_run_leaves_nothing() {
    for sig in ["INT", "TERM", "HUP"] {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("x.aes");
        let mut child = Command::new(BIN)
            .args(["aescrypt", "encrypt", "--password-env", "WS_PW", "-"])
            .arg(&out)
            .env("WS_PW", "pw")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(&data(3 << 20)).unwrap();
        input.flush().unwrap();
        // Wait until the temporary file exists, then signal.
        for _ in 0..100 {
            if !entries(d.path()).is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            !entries(d.path()).is_empty(),
            "temporary file never appeared"
        );
        let st = Command::new("kill")
            .args([&format!("-{sig}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let o = child.wait_with_output().unwrap();
        drop(input);
        assert_eq!(o.status.code(), Some(130), "SIG{sig}: {}", stderr(&o));
        assert!(
            entries(d.path()).is_empty(),
            "SIG{sig}: {:?}",
            entries(d.path())
        );
    }
}
