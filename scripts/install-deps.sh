#!/usr/bin/env bash
# Install everything needed to build and test ladder from the distribution's
# packages: compiler and build tools, the FFmpeg libraries, dav1d, CLI11,
# nlohmann/json, fmt, spdlog, GoogleTest, and the ffmpeg/ffprobe tools that
# the end-to-end tests use to check outputs.
#
# Works on Debian 12 (bookworm), Debian 13 (trixie) and Ubuntu 24.04 (noble):
# the package names are the same on all three. Run as root or as a user with
# sudo. If every package is already installed, apt is not touched at all, so
# repeated runs are fast.
#
# Usage: scripts/install-deps.sh
set -euo pipefail

PACKAGES=(
  # toolchain and build system
  g++ cmake ninja-build pkg-config
  # FFmpeg libraries (5.1 on Debian 12, 6.1 on Ubuntu 24.04, 7.1 on Debian 13)
  libavformat-dev libavcodec-dev libavfilter-dev libswscale-dev
  libswresample-dev libavutil-dev
  # AV1 sequence header parsing
  libdav1d-dev
  # header/utility libraries
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  # tests
  libgtest-dev libgmock-dev
  # ffmpeg + ffprobe: the tests check outputs with them; make-sample.sh uses ffmpeg
  ffmpeg
  # misc
  ca-certificates git
)

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: this script needs a Debian/Ubuntu system with apt-get and dpkg" >&2
  exit 2
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages are already installed"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps.sh: missing packages (${missing[*]}) and not root; install sudo or run as root" >&2
    exit 2
  fi
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
# Install the whole list, not only the missing ones: apt leaves installed
# packages alone and this keeps the set consistent.
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${PACKAGES[@]}"
echo "install-deps.sh: done"
