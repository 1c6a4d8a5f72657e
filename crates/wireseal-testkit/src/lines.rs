//! JSON lines to a peer program's standard input, the way the Python peers
//! read their work.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with `lines` on its standard input, one JSON value a line,
/// and returns its output (standard output captured, standard error
/// passed through).
///
/// # Panics
/// When the program cannot be started or fed.
pub fn feed(cmd: &mut Command, lines: &[serde_json::Value]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {:?}: {e}", cmd.get_program()));
    let mut input = String::new();
    for l in lines {
        input.push_str(&l.to_string());
        input.push('\n');
    }
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input.as_bytes())
        .expect("feeding the peer");
    child.wait_with_output().expect("the peer's output")
}
