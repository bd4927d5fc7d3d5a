#!/usr/bin/env bash
# Install everything needed to build and test ladder from the distribution's
# packages: compiler and build tools, the FFmpeg libraries, dav1d, CLI11,
# nlohmann/json, fmt, spdlog, GoogleTest, the ffmpeg/ffprobe tools that
# the end-to-end tests use to check outputs, and Chromium + Node.js/npm for the
# real-player check in tests/player (hls.js in headless Chromium).
#
# Works on Debian 12 (bookworm), Debian 13 (trixie) and Ubuntu 24.04 (noble):
# the package names are the same on all three, except Chromium (see below).
# Run as root or as a user with
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
  # GPU probing and hardware codecs: NVIDIA Video Codec SDK headers (ffnvcodec,
  # the driver libraries are loaded at run time) and oneVPL (Intel Quick Sync)
  libffmpeg-nvenc-dev libvpl-dev
  # header/utility libraries
  libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  # tests
  libgtest-dev libgmock-dev
  # ffmpeg + ffprobe: the tests check outputs with them; make-sample.sh uses ffmpeg
  ffmpeg
  # misc
  ca-certificates git
  # real-player check (tests/player/play.mjs drives /usr/bin/chromium)
  chromium
)

# Ubuntu's Chromium is the chromium-browser package, a transitional stub that
# installs the snap: it needs snapd (so it does not work in most containers)
# and gives no /usr/bin/chromium (tests/player takes another binary through
# LADDER_CHROMIUM). Not solved here: on Ubuntu the player check may not run.
os_id="$(sed -n 's/^ID=//p' /etc/os-release 2>/dev/null | tr -d '"' || true)"
if [[ "$os_id" == ubuntu ]]; then
  for i in "${!PACKAGES[@]}"; do
    if [[ "${PACKAGES[$i]}" == chromium ]]; then PACKAGES[i]=chromium-browser; fi
  done
fi

# Node.js and npm (tests/player: npm ci, then node play.mjs; Node >= 18) only
# when the commands are missing. Machines that already have a Node.js from
# elsewhere must not get Debian's npm: NodeSource's nodejs bundles npm and
# declares "Conflicts: npm", so apt would refuse the whole install.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

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
