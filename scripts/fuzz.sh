#!/usr/bin/env bash
# Install clang and the libFuzzer runtime when missing (install-deps.sh
# --fuzz), build the libFuzzer targets (the `fuzz` preset: clang, ASan+UBSan, only the
# parsers they feed), replay their seed corpora and kept regression inputs
# (ctest --preset fuzz), then fuzz each chosen target for SECONDS.
#
# Usage: scripts/fuzz.sh TARGET|all SECONDS
#   TARGET   fuzz_sequence_header, fuzz_hls_playlist or fuzz_ladder_json
#            (tests/fuzz/TARGET.cpp); all: each in turn
#   SECONDS  fuzzing time per target (-max_total_time); 0: only build and replay
# Environment:
#   JOBS            parallel build jobs (default: number of CPU cores)
#   FUZZ_RSS_MB     memory limit per run (-rss_limit_mb, default 2048)
#   FUZZ_TIMEOUT_S  one input slower than this is a finding (-timeout, default 10)
#   FUZZ_PARALLEL   targets fuzzed at the same time (default: number of CPU cores)
#   FUZZ_GRACE_S    a run still going this long after SECONDS is killed and
#                   fails the script (default 120)
#
# The working corpus of a target is build/fuzz/corpus/TARGET (seeded from
# tests/fuzz/corpus/TARGET; what fuzzing finds stays there, not in git). A
# crash, leak, timeout or out-of-memory input is written to
# build/fuzz/artifacts/TARGET/ and fails the script; once fixed, keep it as a
# regression: copy it to tests/fuzz/regressions/TARGET/ (docs/hardening.md).
# The exit status is non-zero when the build, a replay or any fuzzing run failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TARGETS=(fuzz_sequence_header fuzz_hls_playlist fuzz_ladder_json)
if [[ $# -ne 2 || ! "$2" =~ ^[0-9]+$ ]]; then
  sed -n '2,/^set -euo pipefail/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" | sed '$d' >&2
  exit 2
fi
case "$1" in
  all) chosen=("${TARGETS[@]}") ;;
  *)
    if [[ ! " ${TARGETS[*]} " == *" $1 "* ]]; then
      echo "fuzz.sh: unknown target '$1' (one of: ${TARGETS[*]}, all)" >&2
      exit 2
    fi
    chosen=("$1")
    ;;
esac
SECONDS_EACH="$2"

# clang and the libFuzzer runtime (apt is not touched when they are there).
"$ROOT/scripts/install-deps.sh" --fuzz

BUILD_DIR="$ROOT/build/fuzz"
configure_args=(--preset fuzz)
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi
cmake "${configure_args[@]}" >/dev/null
cmake --build --preset fuzz --parallel "${JOBS:-$(nproc 2>/dev/null || echo 2)}"
ctest --preset fuzz --no-tests=error

[[ "$SECONDS_EACH" -eq 0 ]] && exit 0

# One target per core at a time (each libFuzzer run is single-threaded).
fuzz_one() {
  local t="$1" corpus="$BUILD_DIR/corpus/$1" artifacts="$BUILD_DIR/artifacts/$1"
  local log="$BUILD_DIR/$1.log" t_rc=0
  mkdir -p "$corpus" "$artifacts"
  rm -f "$BUILD_DIR/$t.result"
  cp -n "tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
  echo "fuzz.sh: $t for ${SECONDS_EACH} s (log $log)"
  # libFuzzer stops itself after -max_total_time; the outer bound is for a
  # run that does not (a CI run once sat past its 90 minutes in this step),
  # so that CI ends with the log's tail instead of nothing.
  timeout --kill-after=10 "$((SECONDS_EACH + ${FUZZ_GRACE_S:-120}))" \
    "$BUILD_DIR/tests/fuzz/$t" "$corpus" \
    -max_total_time="$SECONDS_EACH" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
    -timeout="${FUZZ_TIMEOUT_S:-10}" -artifact_prefix="$artifacts/" \
    -print_final_stats=1 >"$log" 2>&1 || t_rc=$?
  # The last status line ("#N DONE cov: ... ft: ... corp: ...") and the run count.
  local status execs
  status="$(grep -E '^#[0-9]+' "$log" | tail -1 | tr -s ' \t' ' ' || true)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  if [[ $t_rc -eq 124 || $t_rc -eq 137 ]]; then
    tail -40 "$log" >&2
    echo "$t: FAILED: still running $((SECONDS_EACH + ${FUZZ_GRACE_S:-120})) s after it started (killed); log $log" >"$BUILD_DIR/$t.result"
  elif [[ $t_rc -ne 0 ]]; then
    tail -40 "$log" >&2
    echo "$t: FAILED (exit $t_rc), inputs in $artifacts: $(ls "$artifacts" | tr '\n' ' ')" >"$BUILD_DIR/$t.result"
  else
    echo "$t: ok, ${execs:-?} runs; $status" >"$BUILD_DIR/$t.result"
  fi
  return "$t_rc"
}

PARALLEL="${FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 1)}"
# In batches of PARALLEL, each run waited for by its own PID rather than with
# `wait -n` (the three runs end within the same second; which of the two
# held that CI run is not known, so neither is trusted alone).
rc=0
batch=()
for t in "${chosen[@]}"; do
  fuzz_one "$t" &
  batch+=("$!")
  if [[ ${#batch[@]} -ge $PARALLEL ]]; then
    for pid in "${batch[@]}"; do wait "$pid" || rc=1; done
    batch=()
  fi
done
for pid in "${batch[@]}"; do wait "$pid" || rc=1; done
echo
for t in "${chosen[@]}"; do echo "fuzz.sh: $(cat "$BUILD_DIR/$t.result")"; done
exit "$rc"
