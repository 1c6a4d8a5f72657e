//! The `wireseal meshcore` commands, run as a user would: group texts and
//! adverts built byte for byte as the library builds them and decoded back,
//! direct messages opened with our key and the sender's, every packet the
//! firmware drops refused with the library's reason, keys and key files.

use std::process::{Command, Output};

use crate::support;

use serde_json::Value;
use support::{output_fed, success_stdout, ws_env};
use wireseal::meshcore::{
    encode_advert, encode_text_message, AdvertOut, ChannelKey, Decoder, LocalIdentity, NodeType,
    PublicIdentity,
};

/// The firmware's test client key (src/Identity.cpp) and its public key.
const TEST_CLIENT_PRV: &str = "7065e18fd9fabb70c1ed90dca19907de698c88b709ea146eafd93d9b830c7b60\
c4681193c79bbc39945ba8064104bb618f8fd7a84a0af6f57033d6e8ddcd6471";
const TEST_CLIENT_PUB: &str = "1ec77175b0918ed206f9ae04ec136d6d5d4315bb26305427f645b492e9350c10";
const PUBLIC_B64: &str = "izOH6cXN6mrJ5e26oRXNcg==";

fn wireseal(args: &[&str]) -> Output {
    ws_env(args, &[])
}

fn ok(args: &[&str]) -> String {
    success_stdout(wireseal(args), args).trim().to_string()
}

fn json(args: &[&str]) -> Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    serde_json::from_str(&ok(&a)).unwrap()
}

/// Runs `args` (with `--json`), which must fail with status 1, nothing on
/// stdout and an error of `kind` whose message holds `says`; returns the
/// error object.
fn fails_json(args: &[&str], kind: &str, says: &str) -> Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    let o = wireseal(&a);
    assert_eq!(o.status.code(), Some(1), "{args:?}");
    assert!(
        o.stdout.is_empty(),
        "{args:?}: nothing on stdout when failing"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    let e: Value = serde_json::from_str(err.lines().last().unwrap())
        .unwrap_or_else(|_| panic!("{args:?}: not JSON: {err}"));
    assert_eq!(e["kind"], kind, "{args:?}: {e}");
    assert!(e["error"].as_str().unwrap().contains(says), "{args:?}: {e}");
    e
}

fn key_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_owned()
}

fn library_group_text(key: &ChannelKey, ts: u32, text: &str) -> String {
    let mut out = [0u8; 255];
    let n = key.encode_group_text(ts, text, &mut out).unwrap();
    hex::encode(&out[..n])
}

#[test]
fn encrypt_group_is_the_librarys_packet_and_decodes_back() {
    let args = [
        "meshcore",
        "encrypt-group",
        "--channel-key",
        PUBLIC_B64,
        "--timestamp",
        "1700000000",
        "--text",
        "Alice: hello ☁️",
    ];
    let packet = ok(&args);
    let key = ChannelKey::from_base64(PUBLIC_B64).unwrap();
    assert_eq!(
        packet,
        library_group_text(&key, 1_700_000_000, "Alice: hello ☁️")
    );
    assert_eq!(packet, packet.to_lowercase());
    // The public channel by name, and a 0x timestamp, give the same bytes.
    let same = ok(&[
        "meshcore",
        "encrypt-group",
        "--public-channel",
        "--timestamp",
        "0x6553f100",
        "--text",
        "Alice: hello ☁️",
    ]);
    assert_eq!(same, packet);
    let r = json(&["meshcore", "decode", "--channel-key", PUBLIC_B64, &packet]);
    let g = &r["grp_txt"];
    assert_eq!(r["payload_type"], "grp_txt");
    assert_eq!(r["route_type"], "flood");
    assert_eq!(g["decrypted"], true);
    assert_eq!(g["channel"], 0);
    assert_eq!(g["channel_hash"], "11");
    assert_eq!(g["timestamp"], 1_700_000_000);
    assert_eq!(g["text"], "Alice: hello ☁️");
    // A hashtag channel, `#` or not.
    let tagged = ok(&[
        "meshcore",
        "encrypt-group",
        "--hashtag",
        "#test",
        "--timestamp",
        "1",
        "--text",
        "Bob: hi",
    ]);
    let key = ChannelKey::hashtag("#test").unwrap();
    assert_eq!(tagged, library_group_text(&key, 1, "Bob: hi"));
    let r = json(&["meshcore", "decode", "--hashtag", "test", &tagged]);
    assert_eq!(r["grp_txt"]["text"], "Bob: hi");
}

#[test]
fn only_the_keys_given_are_used() {
    let packet = library_group_text(&ChannelKey::public(), 5, "Eve: x");
    let r = json(&["meshcore", "decode", &packet]);
    assert_eq!(r["grp_txt"]["decrypted"], false);
    assert_eq!(r["grp_txt"]["text"], Value::Null);
    let r = json(&["meshcore", "decode", "--hashtag", "other", &packet]);
    assert_eq!(r["grp_txt"]["decrypted"], false);
    // Channels are numbered: each --channel-key, each --hashtag, then --public-channel.
    let r = json(&[
        "meshcore",
        "decode",
        "--public-channel",
        "--hashtag",
        "a",
        "--channel-key",
        "AAAAAAAAAAAAAAAAAAAAAA==",
        &packet,
    ]);
    assert_eq!(r["grp_txt"]["channel"], 2);
    assert_eq!(r["grp_txt"]["text"], "Eve: x");
    let help = ok(&["meshcore", "decode", "--help"]);
    assert!(help.contains("Only the keys given are used"), "{help}");
    assert!(help.contains("--public-channel"), "{help}");
}

#[test]
fn hex_with_whitespace_either_case_and_from_stdin() {
    let packet = library_group_text(&ChannelKey::public(), 7, "A: b");
    let spaced: String = packet
        .to_uppercase()
        .as_bytes()
        .chunks(6)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(" \n\t");
    let want = ok(&["--json", "meshcore", "decode", "--public-channel", &packet]);
    let got = ok(&["--json", "meshcore", "decode", "--public-channel", &spaced]);
    assert_eq!(got, want);
    let mut cmd = Command::new(support::BIN);
    cmd.args(["meshcore", "decode", "--json", "--public-channel", "-"]);
    let o = output_fed(cmd, Some(format!("{spaced}\n").as_bytes()));
    assert_eq!(success_stdout(o, &["stdin"]).trim(), want);
}

#[test]
fn stdout_is_the_librarys_record_byte_for_byte() {
    let them = LocalIdentity::from_hex(TEST_CLIENT_PRV).unwrap();
    let us = LocalIdentity::generate();
    let mut buf = [0u8; 255];
    let n =
        encode_text_message(&them, us.public(), 1_700_000_100, 0, "Hi there", &mut buf).unwrap();
    let dm = hex::encode(&buf[..n]);
    let dir = tempfile::tempdir().unwrap();
    let ours = key_file(
        &dir,
        "us.key",
        &format!("{}\n", hex::encode(us.private_key().expose())),
    );
    let args = [
        "--json",
        "meshcore",
        "decode",
        "--key-file",
        &ours,
        "--peer",
        TEST_CLIENT_PUB,
        &dm,
    ];
    let stdout = ok(&args);
    let mut d = Decoder::new();
    d.add_identity(LocalIdentity::from_private_key(us.private_key().expose()).unwrap());
    d.add_peer(PublicIdentity::from_slice(&hex::decode(TEST_CLIENT_PUB).unwrap()).unwrap());
    let want = serde_json::to_string(&d.decode(0, &buf[..n]).unwrap()).unwrap();
    assert_eq!(stdout, want);
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["txt_msg"]["decrypted"], true);
    assert_eq!(r["txt_msg"]["from"], TEST_CLIENT_PUB);
    assert_eq!(r["txt_msg"]["text"], "Hi there");
    // Without the sender's key nothing opens, and the exit status is 0.
    let r = json(&["meshcore", "decode", "--key-file", &ours, &dm]);
    assert_eq!(r["txt_msg"]["decrypted"], false);
    assert_eq!(r["txt_msg"]["src_hash"], "1e");
    // The key from stdin.
    let mut cmd = Command::new(support::BIN);
    cmd.args([
        "--json",
        "meshcore",
        "decode",
        "--key-file",
        "-",
        "--peer",
        TEST_CLIENT_PUB,
        &dm,
    ]);
    let key_text = hex::encode(us.private_key().expose());
    let o = output_fed(cmd, Some(key_text.as_bytes()));
    assert_eq!(success_stdout(o, &["key on stdin"]).trim(), want);
}

#[test]
fn human_output_names_the_same_fields() {
    // A line feed (the library admits tab, CR and LF), a C1 CSI and a
    // right-to-left override: text a packet may carry.
    let sent = "Alice: hi\nthere \u{9b}2J \u{202e}x";
    let packet = library_group_text(&ChannelKey::public(), 1_700_000_000, sent);
    let text = ok(&["meshcore", "decode", "--public-channel", &packet]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "payload-type: grp_txt");
    assert_eq!(lines[1], "route-type: flood");
    assert!(lines.contains(&"grp-txt:"), "{text}");
    assert!(lines.contains(&"  decrypted: yes"), "{text}");
    assert!(lines.contains(&"  channel-hash: 11"), "{text}");
    // Text from the packet cannot drive the terminal; --json keeps it exact.
    assert!(
        lines.contains(&"  text: Alice: hi\\u{a}there \\u{9b}2J \\u{202e}x"),
        "{text}"
    );
    assert!(!text.contains('\u{9b}') && !text.contains('\u{202e}'));
    let r = json(&["meshcore", "decode", "--public-channel", &packet]);
    assert_eq!(r["grp_txt"]["text"], sent);
    // Nulls are left out.
    let text = ok(&["meshcore", "decode", &packet]);
    assert!(text.contains("  decrypted: no"), "{text}");
    assert!(!text.contains("text:") && !text.contains("null"), "{text}");
}

#[test]
fn advert_round_trips_with_a_valid_signature() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(&dir, "tc.key", &format!("{TEST_CLIENT_PRV}\n"));
    let args = [
        "meshcore",
        "advert",
        "--key-file",
        &key,
        "--name",
        "Test Client",
        "--timestamp",
        "1700000000",
        "--lat",
        "52.370216",
        "--lon",
        "-4.895168",
    ];
    let packet = ok(&args);
    let id = LocalIdentity::from_hex(TEST_CLIENT_PRV).unwrap();
    let out = AdvertOut {
        node_type: NodeType::Chat,
        location: Some((52.370216, -4.895168)),
        name: "Test Client",
    };
    let mut buf = [0u8; 255];
    let n = encode_advert(&id, 1_700_000_000, &out, &mut buf).unwrap();
    assert_eq!(packet, hex::encode(&buf[..n]));
    let r = json(&["meshcore", "decode", &packet]);
    let a = &r["advert"];
    assert_eq!(r["payload_type"], "advert");
    assert_eq!(a["public_key"], TEST_CLIENT_PUB);
    assert_eq!(a["signature"], "valid");
    assert_eq!(a["node_type"], "chat");
    assert_eq!(a["name"], "Test Client");
    assert_eq!(a["timestamp"], 1_700_000_000);
    assert_eq!(a["lat"], 52.370216);
    assert_eq!(a["lon"], -4.895168);
    // One changed signature byte: still decoded, signature invalid.
    let mut bytes = hex::decode(&packet).unwrap();
    bytes[40] ^= 1;
    let r = json(&["meshcore", "decode", &hex::encode(bytes)]);
    assert_eq!(r["advert"]["signature"], "invalid");
}

#[test]
fn advert_names_are_cut_at_a_whole_character() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(&dir, "tc.key", TEST_CLIENT_PRV);
    // 30 bytes, then a 4-byte character that does not fit in 31.
    let name = format!("{}🌲tail", "n".repeat(30));
    let o = wireseal(&[
        "meshcore",
        "advert",
        "--key-file",
        &key,
        "--name",
        &name,
        "--timestamp",
        "1",
    ]);
    let note = String::from_utf8_lossy(&o.stderr).into_owned();
    let packet = success_stdout(o, &["advert"]).trim().to_owned();
    assert!(note.contains("the advert carries its first 30"), "{note}");
    let r = json(&["meshcore", "decode", &packet]);
    assert_eq!(r["advert"]["name"], "n".repeat(30));
    assert_eq!(r["advert"]["signature"], "valid");
    assert_eq!(r["advert"]["lat"], Value::Null);
    // With a location there is room for 23 bytes: the first "ë" (2 bytes)
    // would end at byte 24.
    let name = format!("{}ëë", "m".repeat(22));
    let packet = ok(&[
        "meshcore",
        "advert",
        "--key-file",
        &key,
        "--name",
        &name,
        "--timestamp",
        "1",
        "--lat",
        "-33.85",
        "--lon",
        "151.2",
    ]);
    let r = json(&["meshcore", "decode", &packet]);
    assert_eq!(r["advert"]["name"], "m".repeat(22));
    // Whole microdegrees, truncated toward zero as the firmware's C cast does.
    assert_eq!(
        r["advert"]["lat"],
        f64::from((-33.85f64 * 1e6) as i32) / 1e6
    );
}

#[test]
fn advert_arguments_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let key = key_file(&dir, "tc.key", TEST_CLIENT_PRV);
    let base = [
        "meshcore",
        "advert",
        "--key-file",
        &key,
        "--name",
        "x",
        "--timestamp",
        "1",
    ];
    for extra in [["--lat", "5"], ["--lon", "5"]] {
        let mut a = base.to_vec();
        a.extend(extra);
        let o = wireseal(&a);
        assert_eq!(o.status.code(), Some(2), "{a:?}: a usage error");
        assert!(o.stdout.is_empty());
        assert!(String::from_utf8_lossy(&o.stderr).contains("--l"));
    }
    let mut a = base.to_vec();
    a.extend(["--lat", "91", "--lon", "0"]);
    fails_json(&a, "invalid_input", "latitude within");
    let o = wireseal(&["meshcore", "advert", "--name", "x", "--timestamp", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--key-file"));
}

#[test]
fn text_over_160_bytes_is_refused() {
    let long = format!("A: {}", "x".repeat(158));
    fails_json(
        &[
            "meshcore",
            "encrypt-group",
            "--public-channel",
            "--timestamp",
            "1",
            "--text",
            &long,
        ],
        "invalid_input",
        "at most 160 bytes",
    );
    let o = wireseal(&[
        "meshcore",
        "encrypt-group",
        "--timestamp",
        "1",
        "--text",
        "a",
    ]);
    assert_eq!(o.status.code(), Some(2), "a channel is required");
    let o = wireseal(&[
        "meshcore",
        "encrypt-group",
        "--public-channel",
        "--hashtag",
        "a",
        "--timestamp",
        "1",
        "--text",
        "a",
    ]);
    assert_eq!(o.status.code(), Some(2), "one channel only");
}

/// Every packet the firmware drops: exit 1, nothing on stdout, the reason
/// and the library's message on stderr (as text and as JSON).
#[test]
fn malformed_packets_are_refused_with_the_reason() {
    let grp = format!("1500{}", "11".repeat(21));
    let cases: Vec<(String, &str, &str, &str)> = vec![
        (
            format!("55{}", &grp[2..]),
            "unsupported",
            "version",
            "unsupported payload version 1",
        ),
        (
            format!("15c0{}", &grp[4..]),
            "malformed",
            "reserved_hash_size",
            "reserved path hash size",
        ),
        (
            format!("1561{}{}", "ab".repeat(66), &grp[4..]),
            "too_long",
            "path_too_long",
            "path of 66 bytes (at most 64)",
        ),
        (
            "1505aabbcc".into(),
            "truncated",
            "truncated",
            "at least 7 needed",
        ),
        (
            format!("1500{}", "11".repeat(185)),
            "too_long",
            "payload_too_long",
            "payload of 185 bytes (at most 184)",
        ),
        (
            format!("1100{}", "22".repeat(99)),
            "truncated",
            "payload_too_short",
            "advert payload of 99 bytes (at least 100)",
        ),
        (
            "1500112233".into(),
            "truncated",
            "payload_too_short",
            "grp_txt payload of 3 bytes",
        ),
        (
            String::new(),
            "truncated",
            "truncated",
            "truncated: 0 bytes",
        ),
    ];
    for (packet, kind, reason, says) in &cases {
        let args = ["meshcore", "decode", "--public-channel", packet.as_str()];
        let e = fails_json(&args, kind, says);
        assert_eq!(e["reason"], *reason, "{packet}: {e}");
        let o = wireseal(&args);
        assert_eq!(o.status.code(), Some(1));
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(&format!("({reason})")) && err.contains(says),
            "{packet}: {err}"
        );
    }
    // Empty stdin, and hex that is not hex.
    let mut cmd = Command::new(support::BIN);
    cmd.args(["--json", "meshcore", "decode", "-"]);
    let o = output_fed(cmd, Some(b""));
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"reason\":\"truncated\""));
    for bad in ["zz", "151", "15 0g"] {
        let e = fails_json(&["meshcore", "decode", bad], "failed", "not valid hex");
        assert!(e.get("reason").is_none(), "{e}");
    }
}

#[test]
fn bad_keys_are_refused_without_showing_them() {
    let dir = tempfile::tempdir().unwrap();
    let packet = library_group_text(&ChannelKey::public(), 1, "a: b");
    let secret = "c0ffee".repeat(10);
    let cases = [
        (secret.clone(), "64 hex characters (a seed) or 128"),
        ("zz".repeat(64), "not hex"),
        (
            format!("71{}", &TEST_CLIENT_PRV[2..]),
            "scalar is not clamped",
        ),
    ];
    for (i, (text, says)) in cases.iter().enumerate() {
        let f = key_file(&dir, &format!("k{i}-{secret}"), text);
        for cmd in [
            vec!["meshcore", "decode", "--key-file", &f, &packet],
            vec!["meshcore", "pubkey", "--key-file", &f],
        ] {
            let e = fails_json(&cmd, "invalid_key", says);
            let msg = e["error"].as_str().unwrap();
            assert!(msg.starts_with("--key-file"), "{msg}");
            assert!(!msg.contains(&secret) && !msg.contains("c0ffee"), "{msg}");
        }
    }
    let missing = dir.path().join("missing").to_str().unwrap().to_owned();
    fails_json(
        &["meshcore", "pubkey", "--key-file", &missing],
        "failed",
        "no such file",
    );
    fails_json(
        &["meshcore", "decode", "--channel-key", "!!", &packet],
        "invalid_key",
        "--channel-key: the channel key is not base64",
    );
    fails_json(
        &[
            "meshcore",
            "decode",
            "--channel-key",
            "AAAAAAAAAAA=",
            &packet,
        ],
        "invalid_key",
        "invalid channel key length 8",
    );
    fails_json(
        &["meshcore", "decode", "--hashtag", "a b", &packet],
        "invalid_input",
        "--hashtag",
    );
    fails_json(
        &["meshcore", "decode", "--peer", "0102", &packet],
        "failed",
        "--peer: expected 32 bytes",
    );
}

#[test]
fn keygen_writes_a_private_firmware_key_and_pubkey_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("node.key");
    let p = path.to_str().unwrap();
    let public = ok(&["meshcore", "keygen", "--out", p]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.len(), 129, "128 hex digits and a newline");
    let id = LocalIdentity::from_hex(&text).unwrap();
    assert_eq!(public, hex::encode(id.public().as_bytes()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_eq!(ok(&["meshcore", "pubkey", "--key-file", p]), public);
    let r = json(&["meshcore", "pubkey", "--key-file", p]);
    assert_eq!(r["public_key"], public);
    assert_eq!(r["kind"], "meshcore");
    // Never overwritten unasked.
    let o = wireseal(&["meshcore", "keygen", "--out", p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("exists"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    let r = json(&["meshcore", "keygen", "--out", p, "--force"]);
    assert_ne!(r["public_key"], public);
    assert_eq!(r["out"], p);
    // A seed (64 hex digits) and the firmware's key both read.
    let seed = dir.path().join("seed.key");
    std::fs::write(
        &seed,
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60\n",
    )
    .unwrap();
    assert_eq!(
        ok(&["meshcore", "pubkey", "--key-file", seed.to_str().unwrap()]),
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    );
    let tc = dir.path().join("tc.key");
    std::fs::write(&tc, TEST_CLIENT_PRV).unwrap();
    assert_eq!(
        ok(&["meshcore", "pubkey", "--key-file", tc.to_str().unwrap()]),
        TEST_CLIENT_PUB
    );
}

#[test]
fn completions_know_meshcore() {
    let script = ok(&["completions", "bash"]);
    for word in ["meshcore", "encrypt-group", "--public-channel", "--hashtag"] {
        assert!(script.contains(word), "{word}");
    }
}
