#!/usr/bin/env bash
# Checks the harness itself: firmware built to panic, to fault and to hang
# must each fail the run with the matching report. Prints one line per case
# and a closing `N passed, M failed`. Only the firmware test binary is
# rebuilt for each case (the dependencies are shared with `cargo test`).
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0
for case in panic:'^panicked at ' fault:'^HardFault: ' hang:'no exit after'; do
  name=${case%%:*}
  want=${case#*:}
  out=$(WIRESEAL_MCU_TIMEOUT=10 WIRESEAL_MCU_PROVOKE=$name cargo test --quiet --release 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && grep -qE "$want" <<<"$out"; then
    echo "selftest $name ... ok (run failed as it must, with: $(grep -E "$want" <<<"$out" | head -n1))"
    passed=$((passed + 1))
  else
    echo "selftest $name ... FAILED (exit $rc; want a failure reporting /$want/)"
    tail -n 20 <<<"$out"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
