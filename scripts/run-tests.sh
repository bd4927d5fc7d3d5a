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
"$ROOT/scripts/build.sh"

exec ctest --preset release --output-on-failure --no-tests=error -j2 "$@"
