#!/usr/bin/env bash
# BIP324 on a CUDA GPU (crates/wireseal-gpu): correctness against the CPU
# library first, then `wireseal bench --section gpu`, on a machine with the
# NVIDIA driver and CUDA 13 (NVRTC) but no Rust and no package registry.
#
#   scripts/gpu-check.sh build   on a machine with Rust (x86-64 Linux): builds
#                                the two programs the run needs into
#                                target/gpu-check/ (about 25 MB; carry that
#                                folder to the GPU machine)
#   scripts/gpu-check.sh [run]   on the GPU machine, from the repository root:
#                                runs them, writing under $OUT (default
#                                target/gpu-check/out)
#
# The run, about 2-5 minutes on an H100, at most ~8 (each step has a timeout):
#   1. target/gpu-check/wireseal-gpu-tests: the crate's tests. The kernels'
#      CUDA C built for the host against RFC 8439, BIP324's vectors and the
#      library; NVRTC compiling the kernels; and on the device, the engine
#      against the library on random sessions (over 200,000 packets across
#      1,024 sessions, batches up to 130K packets, tampered and cut runs).
#      -> $OUT/correctness.log
#   2. only if step 1 passed, target/gpu-check/wireseal-bench --section gpu:
#      the correctness check again, the CPU/GPU threshold measured, packets/s,
#      time per packet and goodput for batches of 1 to 128K, end to end and
#      kernels only, 4 streams and 1, with and without 20 % decoys, beside the
#      library on all cores. -> $OUT/gpu.json (the rows), $OUT/bench.log (the
#      table), $OUT/report.tar.gz (the --report page and its plots)
#   3. $OUT/summary.txt: the device, each step's status, the headline rows.
#
# Exit status: 0 every step passed; 1 a check or the bench failed (see the
# logs); 2 no usable CUDA device (no driver, no GPU, no NVRTC: nothing was
# measured, and the reason is printed and in summary.txt); 3 the programs are
# missing or do not start here (build them with `scripts/gpu-check.sh build`).
set -uo pipefail
cd "$(dirname "$0")/.."

bin=target/gpu-check
mode=${1:-run}

say() { printf '== gpu-check: %s\n' "$*" >&2; }

if [ "$mode" = build ]; then
  set -e
  say "building the bench (release profile) and the wireseal-gpu tests"
  cargo build --release --locked -p wireseal-bench
  mkdir -p "$bin"
  cp target/release/wireseal-bench "$bin/wireseal-bench"
  # The test program's file name carries a hash: take it from cargo.
  tests=$(CARGO_PROFILE_RELEASE_LTO=false cargo test --release --locked -p wireseal-gpu --lib \
    --no-run --message-format=json |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "wireseal_gpu" \
            and m["profile"]["test"] and m.get("executable"):
        print(m["executable"])')
  [ -n "$tests" ] || { say "cargo reported no test program"; exit 1; }
  cp "$tests" "$bin/wireseal-gpu-tests"
  say "built $(du -sh "$bin" | cut -f1) in $bin: carry it to the GPU machine and run scripts/gpu-check.sh there"
  exit 0
fi
if [ "$mode" != run ]; then
  echo "usage: scripts/gpu-check.sh [build|run]" >&2
  exit 64
fi

OUT=${OUT:-$bin/out}
mkdir -p "$OUT"
summary=$OUT/summary.txt
: >"$summary"
note() { printf '%s\n' "$*" | tee -a "$summary" >&2; }

for p in wireseal-bench wireseal-gpu-tests; do
  if [ ! -x "$bin/$p" ]; then
    note "missing $bin/$p: build it with 'scripts/gpu-check.sh build' on a machine with Rust and carry $bin"
    exit 3
  fi
  if ! "$bin/$p" --help >/dev/null 2>&1; then
    note "$bin/$p does not start here: $("$bin/$p" --help 2>&1 | head -n 2 | tr '\n' ' ')"
    exit 3
  fi
done

# The driver's libcuda and the toolkit's libnvrtc (with its builtins) on the
# loader's path: the engine loads both at run time. They live in different
# folders (the driver's with the system libraries, the toolkit's under its
# own prefix), so each is looked for on its own; a CUDA `stubs` folder
# (link-time stand-ins whose every call fails) is never taken.
find_lib_dir() {
  local name=$1 d
  d=$(ldconfig -p 2>/dev/null | awk -v n="$name" 'index($1, n ".so") == 1 {print $NF}' |
    grep -v '/stubs/' | head -n 1)
  if [ -n "$d" ]; then dirname "$d"; return 0; fi
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 \
    /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64 \
    /usr/local/cuda-*/targets/x86_64-linux/lib /opt/cuda/lib64; do
    if [ -d "$d" ] && ls "$d/$name".so* >/dev/null 2>&1; then echo "$d"; return 0; fi
  done
  d=$(find /usr /opt -name "$name.so*" -not -path '*/stubs/*' 2>/dev/null | head -n 1)
  [ -n "$d" ] && dirname "$d"
}
libdirs=()
for lib in libcuda libnvrtc; do
  d=$(find_lib_dir "$lib")
  if [ -n "$d" ]; then
    note "$lib: $d"
    case " ${libdirs[*]:-} " in *" $d "*) ;; *) libdirs+=("$d") ;; esac
  else
    note "$lib: not found (outside any stubs folder)"
  fi
done
if [ ${#libdirs[@]} -gt 0 ]; then
  LD_LIBRARY_PATH="$(IFS=:; echo "${libdirs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
fi
note "library path: ${LD_LIBRARY_PATH:-(none found)}"
if command -v nvidia-smi >/dev/null 2>&1; then
  note "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 4)"
else
  note "nvidia-smi: not installed"
fi
note "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs"

# 1. Correctness.
say "correctness: the wireseal-gpu tests (device against the library included)"
timeout 200 "$bin/wireseal-gpu-tests" --test-threads 2 --nocapture >"$OUT/correctness.log" 2>&1
status=$?
if grep -q '^skipped: no CUDA device' "$OUT/correctness.log"; then
  note "no usable CUDA device: $(grep -m1 '^skipped: no CUDA device' "$OUT/correctness.log")"
  note "(the host-side tests ran: $(grep -m1 '^test result' "$OUT/correctness.log"))"
  exit 2
fi
if grep -q 'a CUDA device is there but cannot be used' "$OUT/correctness.log"; then
  note "a CUDA device is there but cannot be used: $(grep -m1 -o 'cannot be used: .*' "$OUT/correctness.log")"
  exit 2
fi
note "correctness: $(grep -m1 '^device: ' "$OUT/correctness.log")"
note "correctness: $(grep -m1 'opened on the device across' "$OUT/correctness.log")"
note "correctness: $(grep -m1 '^an arena of' "$OUT/correctness.log")"
note "correctness: $(grep -m1 '^arenas of' "$OUT/correctness.log")"
note "correctness: $(grep -m1 '^test result' "$OUT/correctness.log") (exit $status)"
if [ "$status" -ne 0 ]; then
  note "correctness FAILED (exit $status): see correctness.log; the bench was not run"
  grep -E 'panicked|FAILED' "$OUT/correctness.log" | head -n 20 >&2
  exit 1
fi

# 2. The bench section.
say "wireseal bench --section gpu"
report=$(mktemp -d)
timeout 270 "$bin/wireseal-bench" --section gpu --rows "$OUT/gpu.json" --report "$report/report" \
  >"$OUT/bench.log" 2>&1
bench=$?
[ -d "$report/report" ] && tar czf "$OUT/report.tar.gz" -C "$report" report
rm -rf "$report"
note "bench: exit $bench"
grep -E 'GPU end to end, [0-9]+ streams|through an arena|GPU kernels only|threshold|check:|CPU fallback|batch of 64: time' \
  "$OUT/bench.log" | grep -E 'batch of (1|64|16384|131072)[ :,]|threshold|check:|fallback' |
  tee -a "$summary" >&2
if [ "$bench" -ne 0 ]; then
  note "bench FAILED (exit $bench): see bench.log"
  tail -n 5 "$OUT/bench.log" >&2
  exit 1
fi
note "done: $OUT/{summary.txt,correctness.log,bench.log,gpu.json,report.tar.gz}"
exit 0
