#!/usr/bin/env bash
# Recorded runs: one libFuzzer process per target, one after another, each
# until 10 million executions or SECONDS_PER_TARGET seconds, on a scratch copy
# of corpus/<target>/. Prints one table row per target for docs/fuzzing.md.
# Usage (from fuzz/): scripts/record.sh SECONDS_PER_TARGET target...
set -u
secs=$1; shift
bin=${FUZZ_BIN:-target/x86_64-unknown-linux-gnu/release}
work=${FUZZ_WORK:-/tmp/wireseal-fuzz-runs}
mkdir -p "$work"
for t in "$@"; do
  rm -rf "$work/$t"; mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
  cp corpus/"$t"/* "$work/$t/corpus/" 2>/dev/null || true
  start=$(date +%s)
  "$bin/$t" "$work/$t/corpus" -runs=10000000 -max_total_time="$secs" -print_final_stats=1 \
    -artifact_prefix="$work/$t/artifacts/" >"$work/$t/log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(grep -o 'number_of_executed_units: [0-9]*' "$work/$t/log" | tail -1 | awk '{print $2}')
  last=$(grep -E '^#[0-9]+' "$work/$t/log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | awk '{print $2}')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | awk '{print $2}')
  found=$(ls "$work/$t/artifacts" | wc -l)
  echo "| \`$t\` | ${execs:-?} | $took | ${cov:-?} | ${ft:-?} | $found (rc $rc) |"
done
