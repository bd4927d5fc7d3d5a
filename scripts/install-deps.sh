#!/usr/bin/env bash
# Install what ladder needs from the distribution's packages, in one of four
# modes:
#
#   (default)          build AND test: compiler and build tools, the FFmpeg
#                      libraries, dav1d, the NVIDIA Video Codec SDK headers,
#                      oneVPL, CLI11, nlohmann/json, fmt, GoogleTest,
#                      the ffmpeg/ffprobe tools that the end-to-end tests use to
#                      check outputs, python3 (their XML parser) with
#                      python3-yaml (the deploy manifests), universal-ctags
#                      (the function length check), munge and Slurm
#                      (a one-node cluster runs deploy/slurm), and Chromium
#                      + Node.js/npm for the real-player check in tests/player
#                      (hls.js in headless Chromium). scripts/run-tests.sh and
#                      run-sample.sh use it.
#   --build            only what `scripts/build.sh --no-tests` needs (the
#                      Dockerfile's build stage).
#   --fuzz             what scripts/fuzz.sh needs: the --build packages plus
#                      clang and the libFuzzer/sanitizer runtime (the
#                      distribution's default clang: 14 on Debian 12, 18 on
#                      Ubuntu 24.04, 19 on Debian 13).
#   --runtime FILE     the runtime packages listed in FILE, one per line (made
#                      by scripts/runtime-packages.sh from a built binary), plus
#                      the libraries ladder and FFmpeg load at run time for GPUs
#                      (oneVPL and its Intel GPU runtime, the Intel VA-API
#                      driver); the NVIDIA driver libraries come from the host
#                      (NVIDIA Container Toolkit). The Dockerfile's runtime stage.
#
# Works on Debian 12 (bookworm), Debian 13 (trixie) and Ubuntu 24.04 (noble):
# the package names are the same on all three, except Chromium (see below).
# Run as root or as a user with sudo. If every package is already installed,
# apt is not touched at all, so repeated runs are fast.
#
# Usage: scripts/install-deps.sh [--build | --fuzz | --runtime FILE]
set -euo pipefail

MODE=all
RUNTIME_LIST=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) MODE=build ;;
    --fuzz) MODE=fuzz ;;
    --runtime)
      MODE=runtime
      RUNTIME_LIST="${2:-}"
      if [[ -z "$RUNTIME_LIST" ]]; then
        echo "install-deps.sh: --runtime needs a file (one package per line)" >&2
        exit 2
      fi
      shift
      ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "install-deps.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

# What scripts/build.sh --no-tests needs.
BUILD_PACKAGES=(
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
  libcli11-dev nlohmann-json3-dev libfmt-dev
  # the DASH manifest (written and validated as XML)
  libpugixml-dev
)

# Added for the test suite (scripts/run-tests.sh).
TEST_PACKAGES=(
  # tests
  libgtest-dev libgmock-dev
  # ffmpeg + ffprobe: the tests check outputs with them; make-sample.sh uses ffmpeg
  ffmpeg
  # python3 (xml.dom.minidom): the `ladder report` test parses the SVG with it
  python3
  # universal-ctags: FunctionLength.NoneOver80Lines measures functions with it
  # (scripts/check-function-length.py)
  universal-ctags
  # xmllint: the track-metadata test checks the DASH manifest is well-formed
  # XML with a reader other than the pugixml ladder writes it with
  libxml2-utils
  # python3-yaml: the deploy test reads deploy/kubernetes/*.yaml with a real YAML parser
  python3-yaml
  # a one-node Slurm cluster (tests/slurm/one_node_cluster.sh) runs deploy/slurm
  munge slurmctld slurmd slurm-client
  # misc
  ca-certificates git
  # gdb: the e2e watchdog prints a hung ladder's thread stacks before killing it
  gdb
  # real-player check (tests/player/play.mjs drives /usr/bin/chromium)
  chromium
  # iso-codes: its ISO 639-2 list checks ladder's language table
  # (tests/unit/language_tag_test.cpp)
  iso-codes
  # libaom's encoder headers: the stand-in NVENC driver (tests/standin) encodes
  # with libaom (with nv-codec-headers 12.1+, installed below on Debian 12)
  libaom-dev
)

# Added for the libFuzzer targets (scripts/fuzz.sh, tests/fuzz): clang and
# compiler-rt (libclang_rt.fuzzer and the ASan/UBSan runtimes). Both names
# are llvm-defaults' unversioned packages, present on all three systems.
FUZZ_PACKAGES=(clang libclang-rt-dev)

# Loaded at run time (dlopen), so scripts/runtime-packages.sh cannot see them
# in the binary: the oneVPL dispatcher, its Intel GPU implementation and the
# VA-API driver it drives (Quick Sync in a container with /dev/dri). The
# latter two exist for amd64 only. The NVIDIA libraries (libcuda,
# libnvidia-encode, libnvcuvid, libnvidia-ml) are the host driver's: the
# NVIDIA Container Toolkit mounts them, given NVIDIA_DRIVER_CAPABILITIES with
# compute,video,utility.
GPU_RUNTIME_PACKAGES=(libvpl2)
if [[ "$(dpkg --print-architecture 2>/dev/null || true)" == amd64 ]]; then
  GPU_RUNTIME_PACKAGES+=(libmfx-gen1.2 intel-media-va-driver)
fi

# Is tests/player/node_modules what package-lock.json pins? (npm ci writes
# node_modules/.package-lock.json; run-tests.sh makes the same check.)
player_modules_current() {
  local player
  player="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/player"
  [[ -f "$player/package-lock.json" && -f "$player/node_modules/.package-lock.json" &&
     ! "$player/package-lock.json" -nt "$player/node_modules/.package-lock.json" ]]
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps.sh: this script needs a Debian/Ubuntu system with apt-get and dpkg" >&2
  exit 2
fi

case "$MODE" in
  build) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  fuzz) PACKAGES=("${BUILD_PACKAGES[@]}" "${FUZZ_PACKAGES[@]}") ;;
  all) PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  runtime)
    if [[ ! -r "$RUNTIME_LIST" ]]; then
      echo "install-deps.sh: cannot read the runtime package list '$RUNTIME_LIST'" >&2
      exit 2
    fi
    PACKAGES=()
    while read -r pkg _; do
      [[ -z "$pkg" || "$pkg" == \#* ]] && continue
      PACKAGES+=("$pkg")
    done <"$RUNTIME_LIST"
    if [[ ${#PACKAGES[@]} -eq 0 ]]; then
      echo "install-deps.sh: the runtime package list '$RUNTIME_LIST' is empty" >&2
      exit 2
    fi
    PACKAGES+=("${GPU_RUNTIME_PACKAGES[@]}")
    ;;
esac

if [[ "$MODE" == all ]]; then
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

  # Node.js (tests/player: node play.mjs; Node >= 18) and npm (npm ci) only
  # when the commands are missing. Machines that already have a Node.js from
  # elsewhere must not get Debian's npm: NodeSource's nodejs bundles npm and
  # declares "Conflicts: npm", so apt would refuse the whole install. npm is
  # not needed when tests/player/node_modules is already what the lock file
  # pins (run-tests.sh then skips npm ci): Debian's npm brings about 350
  # packages (scripts/check-debian13.sh copies the host's node_modules).
  if ! command -v node >/dev/null 2>&1; then
    PACKAGES+=(nodejs)
  fi
  if ! command -v npm >/dev/null 2>&1 && ! player_modules_current; then
    PACKAGES+=(npm)
  fi
fi

# NVIDIA Video Codec SDK headers 12.0 or newer (AV1 in nvEncodeAPI.h): ladder's
# own NVENC backend (engine/encode/backend/nvenc_encoder.*) encodes AV1
# through them, and the stand-in driver (tests/standin) needs 12.1. Debian 12
# ships 11.1 (no AV1); Debian 13's libffmpeg-nvenc-dev (headers only,
# "Architecture: all", no dependencies) is installed in its place from
# Debian 13's archive through a private apt configuration, so the system's
# apt sources are not touched. Ubuntu 24.04 and Debian 13 have 12.1.
nvenc_headers_current() {
  local version
  version="$(pkg-config --modversion ffnvcodec 2>/dev/null || true)"
  [[ -n "$version" && "${version%%.*}" -ge 12 ]]
}

install_nvenc_headers_from_debian13() {
  local mirror="${LADDER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local dir
  dir="$(mktemp -d)"
  mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
  printf 'deb [signed-by=%s] %s trixie main\n' "$keyring" "$mirror" >"$dir/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$dir/sources.list" -o "Dir::Etc::SourceParts=$dir/sources.list.d"
              -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o "APT::Sandbox::User=$(id -un)")
  echo "install-deps.sh: NVIDIA codec headers $(pkg-config --modversion ffnvcodec 2>/dev/null || echo none) have no AV1; installing Debian 13's libffmpeg-nvenc-dev"
  apt-get "${opts[@]}" -q update
  (cd "$dir" && apt-get "${opts[@]}" -q download libffmpeg-nvenc-dev)
  "${SUDO[@]}" dpkg -i "$dir"/libffmpeg-nvenc-dev_*_all.deb
  rm -rf "$dir"
}

missing=()
for pkg in "${PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

need_headers=0
if [[ "$MODE" != runtime ]] && ! nvenc_headers_current; then need_headers=1; fi

if [[ ${#missing[@]} -eq 0 && $need_headers -eq 0 ]]; then
  echo "install-deps.sh: all ${#PACKAGES[@]} packages ($MODE) are already installed"
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

if [[ ${#missing[@]} -eq 0 ]]; then
  install_nvenc_headers_from_debian13
  echo "install-deps.sh: done"
  exit 0
fi

echo "install-deps.sh: installing ($MODE) ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
# Install the whole list, not only the missing ones: apt leaves installed
# packages alone and this keeps the set consistent.
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${PACKAGES[@]}"
if [[ "$MODE" != runtime ]] && ! nvenc_headers_current; then install_nvenc_headers_from_debian13; fi
echo "install-deps.sh: done"
