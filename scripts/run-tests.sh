#!/usr/bin/env bash
# Quick start (b): install dependencies, build the release preset with the
# GoogleTest suite, and run every test (unit + end-to-end) with ctest.
# The exit code is ctest's: 0 only when every test passed.
#
# Usage: scripts/run-tests.sh [extra ctest options...]
#   e.g. scripts/run-tests.sh -L unit        (unit tests only)
#        scripts/run-tests.sh -R Ladder      (tests whose name matches)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

"$ROOT/scripts/install-deps.sh"

# Real-player check (tests/player): install its pinned npm packages from
# package-lock.json, only when node_modules is missing or older than the lock
# file (npm ci rewrites node_modules/.package-lock.json), so reruns stay fast.
# It downloads while the build below compiles. A failure here is reported,
# not fatal: the player tests then fail with play.mjs's exit code 2 ("node
# modules missing") and the other tests still run.
PLAYER_DIR="$ROOT/tests/player"
npm_pid=
if [[ -f "$PLAYER_DIR/package-lock.json" ]] &&
   [[ ! -f "$PLAYER_DIR/node_modules/.package-lock.json" ||
      "$PLAYER_DIR/package-lock.json" -nt "$PLAYER_DIR/node_modules/.package-lock.json" ]]; then
  echo "run-tests.sh: npm ci --prefix tests/player (in the background, log build/npm-ci.log)"
  mkdir -p "$ROOT/build"
  npm ci --prefix "$PLAYER_DIR" --no-audit --no-fund >"$ROOT/build/npm-ci.log" 2>&1 &
  npm_pid=$!
fi

"$ROOT/scripts/build.sh"

if [[ -n "$npm_pid" ]] && ! wait "$npm_pid"; then
  cat "$ROOT/build/npm-ci.log" >&2
  echo "run-tests.sh: warning: npm ci in tests/player failed; the player check cannot run" >&2
fi

# --timeout: the default limit of a test that sets none (the unit tests);
# ctest's own default, 1500 s, would let one hung test hold CI for 25 min.
exec ctest --preset release --output-on-failure --no-tests=error -j2 --timeout 600 "$@"
