#!/usr/bin/env bash
# Build ladder and its unit tests under AddressSanitizer + UndefinedBehavior-
# Sanitizer (the `asan` preset), then under ThreadSanitizer (`tsan`), and run
# the unit tests and one short end-to-end run (tests/smoke/encode_smoke.sh,
# ctest label `smoke`) under each. Any sanitizer report fails the script:
# every report also goes to a file under build/<preset>/sanitizer-reports/
# (so a report from a child process whose exit status a test ignores still
# counts), and the files are printed.
#
# Only what the tests need is built (the ladder binary, ladder_unit_tests and
# the fake driver libraries), not the e2e GoogleTest suite, as a unity build
# with clang at -O0 -g1 (CMakePresets.json; clang compiles these about twice
# as fast as g++, and TSan at -O0 built in 98 s instead of 161 s at -O1 for
# 5 s more test time), to keep CI cheap
# (docs/hardening.md).
#
# Usage: scripts/run-sanitizers.sh [asan|tsan|all]   (default: all)
# Environment:
#   JOBS           parallel build and test jobs (default: number of CPU cores)
#   LADDER_WERROR  as for scripts/build.sh
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

case "${1:-all}" in
  all) presets=(asan tsan) ;;
  asan|tsan) presets=("$1") ;;
  *) echo "run-sanitizers.sh: unknown argument '$1' (asan, tsan or all)" >&2; exit 2 ;;
esac
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

# The build and test packages, then clang with its sanitizer runtimes (apt is
# not touched when they are there).
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/install-deps.sh" --fuzz

run_preset() {
  local preset="$1" build_dir="$ROOT/build/$1" t0=$SECONDS
  local reports="$build_dir/sanitizer-reports"
  local configure_args=(--preset "$preset")
  [[ -n "${LADDER_WERROR:-}" ]] && configure_args+=("-DLADDER_WERROR=$LADDER_WERROR")
  if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
    configure_args+=(-G Ninja)
  fi
  cmake "${configure_args[@]}" >/dev/null || return 1
  cmake --build --preset "$preset" --parallel "$JOBS" --target ladder ladder_unit_tests || return 1
  local build_s=$((SECONDS - t0))

  rm -rf "$reports" && mkdir -p "$reports"
  # halt_on_error: the first report ends the process with a failure.
  # ASan's leak checker is on (the default on Linux); its suppressions name
  # only third-party libraries (tests/lsan.supp says why).
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1:log_path=$reports/asan"
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"
  # The codec libraries are not instrumented: tests/tsan.supp silences races
  # inside them only, never in ladder's frames.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tests/tsan.supp:log_path=$reports/tsan"

  # The unit tests in one process per core, each running its GoogleTest shard
  # (ctest starts one process per test: 245 sanitizer start-ups cost about
  # 80 s more; a single process leaves the other cores idle), then the smoke
  # test through ctest. A shard's output is printed when it failed.
  local t1=$SECONDS rc=0 shard pids=()
  for ((shard = 0; shard < JOBS; shard++)); do
    # Bounded: a deadlock under TSan fails the shard instead of holding CI.
    GTEST_TOTAL_SHARDS="$JOBS" GTEST_SHARD_INDEX="$shard" timeout --kill-after=10 "${SAN_SHARD_LIMIT_S:-900}" \
      "$build_dir/tests/ladder_unit_tests" --gtest_brief=1 >"$build_dir/unit-shard-$shard.log" 2>&1 &
    pids+=($!)
  done
  for ((shard = 0; shard < JOBS; shard++)); do
    if wait "${pids[shard]}"; then
      echo "run-sanitizers.sh: $preset: unit tests, shard $((shard + 1)) of $JOBS: $(grep -E '^\[  PASSED  \]' "$build_dir/unit-shard-$shard.log")"
    else
      echo "run-sanitizers.sh: $preset: unit test shard $shard of $JOBS failed:" >&2
      cat "$build_dir/unit-shard-$shard.log" >&2
      rc=1
    fi
  done
  ctest --preset "$preset" -L '^smoke$' --no-tests=error || rc=$?
  local test_s=$((SECONDS - t1))
  if compgen -G "$reports/*" >/dev/null; then
    echo "run-sanitizers.sh: $preset: sanitizer reports:" >&2
    for f in "$reports"/*; do echo "==> $f" >&2; cat "$f" >&2; done
    rc=1
  fi
  echo "run-sanitizers.sh: $preset: build ${build_s} s, tests ${test_s} s, exit $rc"
  return "$rc"
}

status=0
for p in "${presets[@]}"; do
  run_preset "$p" || status=1
done
exit "$status"
