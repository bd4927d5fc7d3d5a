#!/usr/bin/env bash
# Configure and build the `release` CMake preset (build/release, RelWithDebInfo)
# and print the path of the ladder binary.
#
# Usage: scripts/build.sh [--no-tests]
#   --no-tests   configure with LADDER_BUILD_TESTS=OFF (only the ladder binary
#                and its libraries; used by run-sample.sh). Without it the
#                GoogleTest suite is built as well (LADDER_BUILD_TESTS=ON).
# Environment:
#   JOBS           parallel build jobs (default: number of CPU cores)
#   LADDER_WERROR  ON: warnings are errors (-DLADDER_WERROR=ON; CI sets it),
#                  OFF: they are not; unset: the build directory's setting
#                  (OFF in a new one)
#
# Ninja is used when it is installed; a build directory that already exists
# keeps the generator it was configured with.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_TESTS=ON
for arg in "$@"; do
  case "$arg" in
    --no-tests) BUILD_TESTS=OFF ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "build.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

BUILD_DIR="$ROOT/build/release"
configure_args=(--preset release "-DLADDER_BUILD_TESTS=$BUILD_TESTS")
if [[ -n "${LADDER_WERROR:-}" ]]; then
  configure_args+=("-DLADDER_WERROR=$LADDER_WERROR")
fi
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  configure_args+=(-G Ninja)
fi

JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

cmake "${configure_args[@]}"
cmake --build --preset release --parallel "$JOBS"

BIN="$BUILD_DIR/ladder"
if [[ ! -x "$BIN" ]]; then
  echo "build.sh: the build finished but $BIN is missing" >&2
  exit 1
fi
echo "build.sh: built $BIN ($("$BIN" --version 2>/dev/null || echo 'version unknown'))"
