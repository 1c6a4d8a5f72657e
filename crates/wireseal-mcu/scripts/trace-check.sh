#!/usr/bin/env bash
# The constant-time check: runs src/bin/trace.rs under a QEMU TCG plugin
# (plugin/trace_hash.c) that fingerprints each traced operation by the
# addresses of the instructions it executes and of the memory it reads and
# writes, in order, and requires every run of one operation (different
# secret scalars, keys, points and messages of one length) to leave the same
# fingerprint. Fails on any difference, and when an operation was traced
# fewer than 3 times or the counts of cases and fingerprints disagree. The
# firmware's `control:` cases leak a secret on purpose (a secret table index,
# a secret loop count): they must differ, or the check itself is broken.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/trace-check
scripts/run-with-plugin.sh trace_hash wsmcu_trace_mark trace "$out" \
  build --release --locked --bin trace
python3 - "$out/firmware.log" "$out/plugin.log" <<'PY'
import sys
cases = [l.split(" ", 1)[1].strip() for l in open(sys.argv[1]) if l.startswith("trace-case ")]
errors = [l.strip() for l in open(sys.argv[1]) if l.startswith("trace-error ")]
hashes = [l.split()[1:] for l in open(sys.argv[2]) if l.startswith("trace-hash ")]
assert cases and len(cases) == len(hashes), f"{len(cases)} cases, {len(hashes)} fingerprints"
runs = {}
for name, (insns, accesses, digest) in zip(cases, hashes):
    runs.setdefault(name, []).append((int(insns), int(accesses), digest))
passed = failed = 0
for name, rs in runs.items():
    same = len(set(rs)) == 1
    control = name.startswith("control:")
    ok = len(rs) >= 3 and (same != control)
    insns, accesses, _ = rs[0]
    verdict = "identical" if same else "different: " + ", ".join(f"{i}/{a}/{d}" for i, a, d in rs)
    want = "must differ" if control else "must be identical"
    print(f"test {name}: {len(rs)} runs, {insns} instructions, {accesses} accesses ... "
          f"{verdict} ({want}): {'ok' if ok else 'FAILED'}")
    passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
for e in errors:
    print(e)
    failed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(0 if failed == 0 else 1)
PY
