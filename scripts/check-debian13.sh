#!/usr/bin/env bash
# Build the container image with buildah and run the whole test suite on
# Debian 13 (trixie: FFmpeg 7.1, GCC 14, Chromium, Node.js 20) in its build
# stage: no Docker engine and no registry are needed.
#
# 1. scripts/build-image.sh builds the image from the Dockerfile as written
#    with buildah, on a debian:trixie-slim base made locally with debootstrap
#    (the one deviation from `docker build`), runs its entry point as its
#    non-root user (--version, devices, an encode of samples/sample.mp4 and
#    `validate`) and exports it as a docker-archive (build/image/ladder-image.tar).
#    Its build stage is tagged ladder-build.
# 2. The build stage's runtime package list (scripts/runtime-packages.sh) must
#    name the libavcodec package.
# 3. The whole test suite, `scripts/run-tests.sh`, runs in a container of the
#    build stage (the same script as on the host: installs the test
#    dependencies, builds with the GoogleTest suite on top of the image's
#    build of ladder, npm ci for the player check, ctest). Its exit code is
#    this script's. The container (ladder-debian13-suite in build-image.sh's
#    storage) is kept and reused by the next run while the build stage is
#    the same image; when the build stage was rebuilt it is made anew.
#
# Everything runs with LADDER_WERROR=ON (unless set otherwise; the image's
# build gets it as the Dockerfile's build argument), so a warning under
# FFmpeg 7.1 / GCC 14 fails the check.
#
# Needs root (debootstrap, buildah, chroot and mount), debootstrap and buildah
# (installed with apt when missing) and network access to the Debian mirror
# and the npm registry. The suite runs with chroot in the container's root
# (buildah mount): mounts (/proc, /sys read-only, /dev with its own /dev/pts
# and /dev/shm, resolv.conf) are made in a private mount namespace when
# unshare(1) allows it, and are always unmounted on exit.
#
# Before the test suite, the host's tests/player/node_modules is copied into
# the container when it is what package-lock.json pins (the host's
# run-tests.sh ran npm ci): the player check then needs no npm in the root,
# whose Debian package brings about 350 packages (scripts/install-deps.sh).
#
# Two runs never work on the container at once: a run waits for the lock
# $LADDER_IMAGE_DIR/.suite.lock (build-image.sh has a lock of its own).
#
# Usage: scripts/check-debian13.sh [--fresh | --prerequisites] [-- CTEST_ARGS...]
#   --fresh          start from nothing: debootstrap again, no cached layers,
#                    a new container for the suite (build-image.sh --fresh)
#   --prerequisites  only install what the check needs on this machine
#                    (debootstrap and buildah, with apt) and stop: .ci/run does
#                    this before anything else uses apt, since two apt runs at
#                    once fail on apt's lock (the container's apt has locks
#                    of its own)
#   CTEST_ARGS go to scripts/run-tests.sh (e.g. -- -L unit)
# Environment:
#   LADDER_IMAGE_DIR        build-image.sh's storage and archive (default: build/image)
#   LADDER_DEBIAN_MIRROR    Debian mirror (default: http://deb.debian.org/debian)
#   LADDER_DEBIAN_SECURITY  security mirror (default: http://deb.debian.org/debian-security)
#   LADDER_WERROR           passed to the builds (default: ON)
#   LADDER_DEB13_GO_FILE    when set: everything up to the test run (the image,
#                           its run and export, the test dependencies and
#                           build) is done, then the check waits for this file
#                           to exist before it runs the suite, at nice 0 and
#                           best-effort I/O priority from there on. .ci/run
#                           starts the check at nice 19 alongside the host's
#                           steps, so it takes only the CPU they leave idle,
#                           and creates the file once they are done: the
#                           suite's timing-sensitive tests never run behind
#                           other work.
#   NODE_EXTRA_CA_CERTS     a CA bundle npm must trust (a TLS-inspecting proxy);
#                           default: the host's /etc/ssl/certs/ca-certificates.crt.
#                           Made readable inside the root.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SELF="$ROOT/scripts/check-debian13.sh"
cd "$ROOT"

ARGS=("$@")
FRESH=0
PREREQUISITES_ONLY=0
CTEST_ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fresh) FRESH=1 ;;
    --prerequisites) PREREQUISITES_ONLY=1 ;;
    --) shift; CTEST_ARGS=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{s/^# \{0,1\}//p}' "$SELF"; exit 0 ;;
    *) echo "check-debian13.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "check-debian13.sh: $*"; }
die() { echo "check-debian13.sh: error: $*" >&2; exit 1; }

if [[ "$(id -u)" -ne 0 ]]; then
  die "needs root (debootstrap, buildah, chroot and mount)"
fi

# Mounts are private to this run (and vanish with it, even on kill -9) when
# the kernel lets us make a mount namespace; the trap below unmounts anyway.
if [[ -z "${LADDER_DEB13_NS:-}" ]] && command -v unshare >/dev/null 2>&1 &&
   unshare --mount --propagation private true 2>/dev/null; then
  export LADDER_DEB13_NS=1
  exec unshare --mount --propagation private -- bash "$SELF" "${ARGS[@]}"
fi

IMAGE_DIR="${LADDER_IMAGE_DIR:-$ROOT/build/image}"
BUILD_STAGE_IMAGE=localhost/ladder-build:latest
SUITE_CTR=ladder-debian13-suite
WERROR="${LADDER_WERROR:-ON}"
HOST_CA="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
[[ -f "$HOST_CA" ]] || HOST_CA=
CHROOT="$(command -v chroot)"

# buildah with build-image.sh's storage (the same options as there).
bh() { buildah --root "$IMAGE_DIR/storage" --runroot "$IMAGE_DIR/run" --storage-driver vfs "$@"; }

# ---------------------------------------------------------------- timings
# shellcheck source=scripts/phase-timings.sh
. "$ROOT/scripts/phase-timings.sh"
# shellcheck source=scripts/mounts.sh
. "$ROOT/scripts/mounts.sh"

# ---------------------------------------------------------------- mounts
MOUNTS=()
mount_at() {  # mount_at TARGET MOUNT-ARGS...: mount and remember
  local target="$1"; shift
  mount "$@" "$target"
  MOUNTS+=("$target")
}
cleanup() {
  local rc=$? i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" 2>/dev/null ||
      echo "check-debian13.sh: warning: could not unmount ${MOUNTS[i]}" >&2
  done
  MOUNTS=()
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_root() {  # the mounts a root needs to build, test and run ladder
  local r="$1"
  mount_at "$r/proc" -t proc proc
  mount_at "$r/sys" --bind /sys
  mount -o remount,bind,ro "$r/sys"
  mount_at "$r/dev" --bind /dev
  mount_at "$r/dev/pts" -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts
  mount_at "$r/dev/shm" -t tmpfs -o mode=1777,nosuid,nodev shm
  if [[ -L "$r/etc/resolv.conf" || ! -f "$r/etc/resolv.conf" ]]; then
    rm -f "$r/etc/resolv.conf"
    : >"$r/etc/resolv.conf"
  fi
  mount_at "$r/etc/resolv.conf" --bind "$(readlink -f /etc/resolv.conf)"
  if [[ -n "$HOST_CA" ]]; then
    mkdir -p "$r/etc/ssl"
    : >"$r/etc/ssl/ladder-host-ca.crt"
    mount_at "$r/etc/ssl/ladder-host-ca.crt" --bind "$HOST_CA"
    mount -o remount,bind,ro "$r/etc/ssl/ladder-host-ca.crt"
  fi
}

# run_in ROOT WORKDIR COMMAND...: COMMAND in ROOT as root, in WORKDIR, with a
# clean environment: PATH and HOME as in a container, and this check's settings.
run_in() {
  local r="$1" wd="$2"
  shift 2
  local vars=(
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    HOME=/root LANG=C.UTF-8 LADDER_WERROR="$WERROR"
  )
  [[ -n "$HOST_CA" ]] && vars+=(NODE_EXTRA_CA_CERTS=/etc/ssl/ladder-host-ca.crt)
  [[ -n "${CI:-}" ]] && vars+=(CI="$CI")
  env -i "${vars[@]}" "$CHROOT" "$r" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$wd" "$@"
}

# ---------------------------------------------------------------- prerequisites
phase "prerequisites"
bash "$ROOT/scripts/build-image.sh" --prerequisites
for tool in mount umount cp awk flock renice ionice; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing"
done
[[ $PREREQUISITES_ONLY -eq 0 ]] || exit 0
say "mounts: $([[ -n "${LADDER_DEB13_NS:-}" ]] && echo "private mount namespace" || echo "no mount namespace: host mounts, unmounted on exit")"
if [[ -d "$ROOT/build/debian13" ]]; then
  say "note: build/debian13 (the roots of an earlier version of this check) is no longer used: rm -rf --one-file-system build/debian13"
fi

mkdir -p "$IMAGE_DIR"
exec 9>"$IMAGE_DIR/.suite.lock"
if ! flock -n 9; then
  say "waiting for another run (the lock $IMAGE_DIR/.suite.lock)"
  flock 9
fi

# ---------------------------------------------------------------- the image
phase "the image (scripts/build-image.sh)"
image_args=()
[[ $FRESH -eq 1 ]] && image_args+=(--fresh)
if ! LADDER_IMAGE_DIR="$IMAGE_DIR" LADDER_WERROR="$WERROR" bash "$ROOT/scripts/build-image.sh" "${image_args[@]}"; then
  die "scripts/build-image.sh failed: the Dockerfile did not build, or the image did not run or export"
fi

# ---------------------------------------------------------------- the build stage's container
phase "a container of the build stage ($BUILD_STAGE_IMAGE)"
build_id="$(bh inspect --type image --format '{{.FromImageID}}' "$BUILD_STAGE_IMAGE")" ||
  die "build-image.sh left no $BUILD_STAGE_IMAGE"
ctr_id="$(bh inspect --type container --format '{{.FromImageID}}' "$SUITE_CTR" 2>/dev/null || true)"
if [[ -n "$ctr_id" && "$ctr_id" == "$build_id" ]]; then
  say "reusing the container $SUITE_CTR (the build stage is the same image, ${build_id:0:12})"
else
  if [[ -n "$ctr_id" ]]; then
    old_root="$(bh mount "$SUITE_CTR")"
    if mounted_under "$old_root"; then
      die "something is still mounted under $old_root (a run without a mount namespace was killed?); unmount it (umount -R) and retry"
    fi
    bh rm "$SUITE_CTR" >/dev/null
    # The previous build stage's image and layers, now used by nothing.
    bh rmi --prune >/dev/null 2>&1 || true
  fi
  bh from --pull=never --name "$SUITE_CTR" "$BUILD_STAGE_IMAGE" >/dev/null
  say "made the container $SUITE_CTR from the build stage (${build_id:0:12})"
fi
BUILD_ROOT="$(bh mount "$SUITE_CTR")"
[[ -d "$BUILD_ROOT/src" ]] || die "the build stage has no /src ($BUILD_ROOT)"
say "its root: $BUILD_ROOT"

# ---------------------------------------------------------------- the runtime package list
phase "runtime package list"
LIST="$BUILD_ROOT/src/build/runtime-packages.txt"
[[ -s "$LIST" ]] || die "the build stage wrote no runtime package list ($LIST is missing or empty)"
grep -Eq '^libavcodec[0-9]+$' "$LIST" || die "the runtime package list does not name the libavcodec package: $(tr '\n' ' ' <"$LIST")"
say "$(wc -l <"$LIST") runtime packages, e.g. $(grep -E '^lib(avcodec|avformat|dav1d|svtav1enc|aom)[0-9]' "$LIST" | tr '\n' ' ')"

# ---------------------------------------------------------------- the test suite
phase "test dependencies and build in the build stage"
mount_root "$BUILD_ROOT"
HOST_PLAYER="$ROOT/tests/player"
ROOT_PLAYER="$BUILD_ROOT/src/tests/player"
if [[ -f "$HOST_PLAYER/node_modules/.package-lock.json" &&
      ! "$HOST_PLAYER/package-lock.json" -nt "$HOST_PLAYER/node_modules/.package-lock.json" ]] &&
   cmp -s "$HOST_PLAYER/package-lock.json" "$ROOT_PLAYER/package-lock.json"; then
  say "copying the host's tests/player/node_modules (what package-lock.json pins) into the build stage"
  rm -rf "$ROOT_PLAYER/node_modules"
  cp -a "$HOST_PLAYER/node_modules" "$ROOT_PLAYER/node_modules"
fi
# What run-tests.sh does before ctest, done here so that it is done before
# the wait below (run-tests.sh then finds it done). build.sh adds the tests
# to the image's build of ladder (build/release, the same LADDER_WERROR).
run_in "$BUILD_ROOT" /src /bin/sh -c 'scripts/install-deps.sh && scripts/build.sh' ||
  die "installing the test dependencies or building the tests failed in the build stage"

if [[ -n "${LADDER_DEB13_GO_FILE:-}" ]]; then
  phase "waiting for $LADDER_DEB13_GO_FILE"
  while [[ ! -e "$LADDER_DEB13_GO_FILE" ]]; do sleep 1; done
  renice -n 0 -p $$ >/dev/null
  ionice -c 2 -n 4 -p $$ 2>/dev/null || true
fi

phase "test suite in the build stage (scripts/run-tests.sh)"
suite_rc=0
run_in "$BUILD_ROOT" /src scripts/run-tests.sh "${CTEST_ARGS[@]}" || suite_rc=$?

print_timings
if [[ $suite_rc -ne 0 ]]; then
  say "FAILED: the test suite on Debian 13 exited with $suite_rc"
else
  say "passed: Debian 13 image (buildah), its run and export, and the test suite"
fi
exit $suite_rc
