#!/usr/bin/env bash
# Build the container image from the repository's Dockerfile with a real OCI
# builder (buildah, Debian's package), run it, and export it as an archive
# that `docker load` and `podman load` read. No registry is needed.
#
# 1. The base image. The Dockerfile says FROM debian:trixie-slim; where no
#    registry can be reached it is made here, and this is the one deviation
#    from `docker build`: a Debian 13 root from `debootstrap --variant=minbase
#    trixie`, set up like the official slim image (its apt sources: trixie,
#    trixie-updates, trixie-security; dpkg's unsafe-io and the slim variant's
#    path excludes, with what debootstrap had already installed under them
#    removed; apt's docker-clean, gzip-indexes, no-languages and
#    autoremove-suggests settings; policy-rc.d; no apt lists or caches, no
#    device nodes), copied into an empty container and committed as
#    docker.io/library/debian:trixie-slim with the official image's
#    configuration (PATH, CMD ["bash"]). It is made once and kept (see
#    --fresh): a new base invalidates every cached layer.
# 2. `buildah build --layers` with the Dockerfile as written, twice: first
#    `--target build` (tagged ladder-build: scripts/check-debian13.sh runs the
#    test suite in a container of it), then the whole file (tagged ladder);
#    the second run takes the build stage from the first one's layer cache.
#    Isolation is chroot (no OCI runtime, no user namespaces), storage is vfs
#    (no overlay or fuse needed; every layer is a full copy, so the storage
#    takes several GB). The layers stay cached between runs: an unchanged
#    repository rebuilds nothing, a change to the sources rebuilds from
#    `COPY . .` on, a change to scripts/install-deps.sh from there. Images
#    left without a name by a rebuild are removed.
# 3. The image runs through `buildah run` as the image's USER, in its
#    WORKDIR, with its ENTRYPOINT read from the image: `--version`, `devices`,
#    an encode of samples/sample.mp4 into a folder mounted at the WORKDIR
#    (like `docker run -v "$PWD:/work"`) and `validate --decode` of that output, whose
#    files must belong to the image's user; then its default command (CMD).
#    The image's size is printed.
# 4. The image is written as a docker-archive (`docker save`'s format, which
#    `docker load` and `podman load` read) and read back into an empty
#    storage, where it must have the same image ID.
#
# Needs root (debootstrap, and buildah's chroot isolation as root), buildah
# and debootstrap (installed with apt when missing) and network access to the
# Debian mirror. podman is not used: its run fails on these machines (crun
# cannot set RLIMIT_NOFILE/NPROC) and buildah needs no OCI runtime.
#
# Everything lives in build/image (ignored by git and the build context):
#   storage/, run/       buildah's storage (vfs) and run state
#   ladder-image.tar     the exported image (docker-archive)
#   base.stamp           how the base image was made, and its ID
#   debootstrap.log
# Two runs never work on it at once: a run waits for the lock $DIR/.lock.
#
# Usage: scripts/build-image.sh [--fresh | --prerequisites]
#   --fresh          remove the storage first (debootstrap again, no cache)
#   --prerequisites  only install what this script needs on this machine
#                    (debootstrap, buildah) and stop: .ci/run does this before
#                    anything else uses apt (two apt runs at once fail on
#                    apt's lock)
# Environment:
#   LADDER_IMAGE_DIR        where the storage and archive live (default: build/image)
#   LADDER_DEBIAN_MIRROR    Debian mirror (default: http://deb.debian.org/debian)
#   LADDER_DEBIAN_SECURITY  security mirror (default: http://deb.debian.org/debian-security)
#   LADDER_WERROR           the Dockerfile's build argument LADDER_WERROR
#                           (warnings as errors in the build stage; default ON)
# Commands to look inside afterwards (the same storage options every time):
#   buildah --root build/image/storage --runroot build/image/run --storage-driver vfs images
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SELF="$ROOT/scripts/build-image.sh"
cd "$ROOT"

FRESH=0
PREREQUISITES_ONLY=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fresh) FRESH=1 ;;
    --prerequisites) PREREQUISITES_ONLY=1 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{s/^# \{0,1\}//p}' "$SELF"; exit 0 ;;
    *) echo "build-image.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "build-image.sh: $*"; }
die() { echo "build-image.sh: error: $*" >&2; exit 1; }

[[ "$(id -u)" -eq 0 ]] || die "needs root (debootstrap, and buildah's chroot isolation)"

SUITE=trixie
BASE_IMAGE=docker.io/library/debian:trixie-slim
IMAGE=localhost/ladder:latest
BUILD_STAGE_IMAGE=localhost/ladder-build:latest
ARCHIVE_NAME=ladder:latest
MIRROR="${LADDER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${LADDER_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"
DIR="${LADDER_IMAGE_DIR:-$ROOT/build/image}"
WERROR="${LADDER_WERROR:-ON}"
ARCHIVE="$DIR/ladder-image.tar"
CHECK_CTR=ladder-image-check
# Bump format= when the way the base is made changes: the next run makes it anew.
STAMP="format=1 suite=$SUITE variant=minbase mirror=$MIRROR security=$SECURITY"

# buildah with this script's storage. Every call names it: the machine's
# default storage (/var/lib/containers) may use another driver, and a fresh
# clone should be self-contained.
bh() { buildah --root "$DIR/storage" --runroot "$DIR/run" --storage-driver vfs "$@"; }

# ---------------------------------------------------------------- timings
# shellcheck source=scripts/phase-timings.sh
. "$ROOT/scripts/phase-timings.sh"
# shellcheck source=scripts/mounts.sh
. "$ROOT/scripts/mounts.sh"

# ---------------------------------------------------------------- prerequisites
phase "prerequisites"
missing=()
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v buildah >/dev/null 2>&1 || missing+=(buildah)
if [[ ${#missing[@]} -gt 0 ]]; then
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update
  # Without recommends: no fuse-overlayfs, crun or runc (vfs storage and
  # chroot isolation need none of them).
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
for tool in tar cp find flock stat; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing"
done
[[ $PREREQUISITES_ONLY -eq 0 ]] || exit 0
say "$(buildah --version); storage $DIR (vfs)"

mkdir -p "$DIR"
exec 8>"$DIR/.lock"
if ! flock -n 8; then
  say "waiting for another run on $DIR (the lock $DIR/.lock)"
  flock 8
fi

SMOKE_DIR=
READBACK_DIR=
cleanup() {
  local rc=$?
  bh rm "$CHECK_CTR" >/dev/null 2>&1 || true
  [[ -n "$SMOKE_DIR" ]] && rm -rf "$SMOKE_DIR"
  [[ -n "$READBACK_DIR" ]] && rm -rf --one-file-system "$READBACK_DIR"
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A tree is removed only when nothing is mounted under it (a container's
# root may have /proc or /dev bound into it by check-debian13.sh).
remove_tree() {
  [[ -e "$1" ]] || return 0
  if mounted_under "$1"; then
    die "something is still mounted under $1; unmount it (umount -R) and retry"
  fi
  rm -rf --one-file-system "$1"
}

if [[ $FRESH -eq 1 ]]; then
  phase "--fresh: removing the storage"
  remove_tree "$DIR/storage"
  remove_tree "$DIR/run"
  remove_tree "$DIR/base.new"
  rm -f "$DIR/base.stamp" "$ARCHIVE"
fi

short_id() { local id="${1#sha256:}"; echo "${id:0:12}"; }
# image_id NAME: the image's full ID, empty when there is no such image. (An
# image with two names is listed twice; awk reads all lines, so buildah never
# writes into a closed pipe, which pipefail would turn into a failure.)
image_id() { { bh images --noheading --no-trunc --format '{{.ID}}' "$1" 2>/dev/null || true; } | awk 'NR == 1'; }

# An interrupted run leaves buildah's working containers behind (each a full
# copy of its image with vfs): they go, all but check-debian13.sh's
# container for the test suite, which it keeps between runs.
while read -r name; do
  [[ -n "$name" && "$name" != ladder-debian13-suite ]] || continue
  say "removing the container '$name' (left by an interrupted run)"
  bh rm "$name" >/dev/null
done < <(bh containers --noheading --format '{{.ContainerName}}' 2>/dev/null || true)

# ---------------------------------------------------------------- the base image
# debian:trixie-slim's set-up (debuerreotype's minimizing config and slim
# variant), written here for a debootstrap root.
configure_base() {
  local r="${1:?}" d
  rm -f "$r/etc/apt/sources.list"
  cat >"$r/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # No service starts during package installs.
  printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
  chmod 0755 "$r/usr/sbin/policy-rc.d"
  echo 'force-unsafe-io' >"$r/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
  echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$r/etc/apt/apt.conf.d/docker-autoremove-suggests"
  # apt removes the downloaded packages after every install, so no layer
  # keeps them (the Dockerfile relies on it: it only removes the lists).
  local clean='"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true";'
  cat >"$r/etc/apt/apt.conf.d/docker-clean" <<EOF
DPkg::Post-Invoke { $clean };
APT::Update::Post-Invoke { $clean };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  echo 'Acquire::GzipIndexes "true";' >"$r/etc/apt/apt.conf.d/docker-gzip-indexes"
  echo 'Acquire::Languages "none";' >"$r/etc/apt/apt.conf.d/docker-no-languages"
  # The slim variant: dpkg leaves these out of every package installed later...
  cat >"$r/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
path-include /usr/share/doc/*/copyright
path-include /usr/share/locale/locale.alias
EOF
  # ...and what debootstrap installed there before that file existed goes now
  # (files and links other than the included ones, then empty folders).
  for d in doc groff info linda lintian/overrides locale man; do
    [[ -d "$r/usr/share/$d" ]] || continue
    find "$r/usr/share/$d" -mindepth 1 ! -type d \
      ! -path "$r/usr/share/doc/*/copyright" ! -path "$r/usr/share/locale/locale.alias" -delete
    find "$r/usr/share/$d" -mindepth 1 -depth -type d -empty -delete
  done
  # Not in an image: apt's lists and caches, logs with dates, device nodes
  # (the engine provides /dev), this machine's name and resolver.
  rm -rf "${r:?}"/var/cache/apt/* "${r:?}"/var/lib/apt/lists/* "${r:?}"/dev/* "${r:?}"/proc/* "${r:?}"/sys/* \
    "$r/var/log/apt/history.log" "$r/var/log/apt/term.log" "$r/etc/hostname" "$r/etc/resolv.conf"
  mkdir -p "$r/var/lib/apt/lists/partial" "$r/var/cache/apt/archives/partial"
}

base_id="$(image_id "$BASE_IMAGE")"
if [[ -n "$base_id" && -f "$DIR/base.stamp" && "$(sed -n 1p "$DIR/base.stamp")" == "$STAMP" &&
      "$(sed -n 2p "$DIR/base.stamp")" == "$base_id" ]]; then
  say "reusing the base image $BASE_IMAGE ($(short_id "$base_id"), made $(date -r "$DIR/base.stamp" '+%F %T'))"
else
  phase "base image: debootstrap --variant=minbase $SUITE"
  remove_tree "$DIR/base.new"
  if ! debootstrap --variant=minbase "$SUITE" "$DIR/base.new" "$MIRROR" >"$DIR/debootstrap.log" 2>&1; then
    tail -n 30 "$DIR/debootstrap.log" >&2
    die "debootstrap failed (log: $DIR/debootstrap.log)"
  fi
  tail -n 1 "$DIR/debootstrap.log"
  ! mounted_under "$DIR/base.new" || die "debootstrap left something mounted under $DIR/base.new"
  configure_base "$DIR/base.new"
  phase "base image: import as $BASE_IMAGE"
  bh rm ladder-base-import >/dev/null 2>&1 || true
  bh from --name ladder-base-import scratch >/dev/null
  mnt="$(bh mount ladder-base-import)"
  cp -a "$DIR/base.new/." "$mnt/"
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --cmd '["bash"]' ladder-base-import
  bh commit --quiet --rm --format docker ladder-base-import "$BASE_IMAGE" >/dev/null
  remove_tree "$DIR/base.new"
  base_id="$(image_id "$BASE_IMAGE")"
  [[ -n "$base_id" ]] || die "the base image $BASE_IMAGE is missing after the import"
  printf '%s\n%s\n' "$STAMP" "$base_id" >"$DIR/base.stamp"
  say "base image $BASE_IMAGE: $(short_id "$base_id"), $(bh images --noheading --format '{{.Size}}' "$BASE_IMAGE")"
fi

# ---------------------------------------------------------------- the build
# --pull=never: FROM takes the local base (nothing to pull from). The
# context is the repository, less .dockerignore, as with `docker build .`.
BUILD_ARGS=(build --layers --pull=never --isolation chroot --format docker
            --build-arg "LADDER_WERROR=$WERROR" -f Dockerfile)
phase "buildah build --target build (tagged ladder-build)"
bh "${BUILD_ARGS[@]}" --target build -t "$BUILD_STAGE_IMAGE" . ||
  die "buildah could not build the Dockerfile's build stage"
phase "buildah build (the image, tagged ladder)"
bh "${BUILD_ARGS[@]}" -t "$IMAGE" . || die "buildah could not build the image"
# A rebuild leaves the previous images and their layers without a name; with
# vfs every layer is a full copy, so they go (those a container still uses,
# e.g. check-debian13.sh's, stay until it is replaced).
bh rmi --prune >/dev/null 2>&1 || true
say "images: $(bh images --noheading --format '{{.Name}}:{{.Tag}} {{.Size}}' | tr -s ' ' | paste -sd ';' | sed 's/;/; /g')"

# ---------------------------------------------------------------- running the image
phase "run the image (buildah run, as the image's user)"
mapfile -t ENTRYPOINT < <(bh inspect --type image --format '{{range .Docker.Config.Entrypoint}}{{println .}}{{end}}' "$IMAGE")
mapfile -t CMD < <(bh inspect --type image --format '{{range .Docker.Config.Cmd}}{{println .}}{{end}}' "$IMAGE")
image_user="$(bh inspect --type image --format '{{.Docker.Config.User}}' "$IMAGE")"
image_workdir="$(bh inspect --type image --format '{{.Docker.Config.WorkingDir}}' "$IMAGE")"
[[ ${#ENTRYPOINT[@]} -gt 0 && -n "${ENTRYPOINT[0]}" ]] || die "the image has no ENTRYPOINT"
image_uid="${image_user%%:*}"
[[ "$image_uid" =~ ^[0-9]+$ && "$image_uid" != 0 ]] ||
  die "the image must run as a numeric non-root user (its USER is '$image_user')"
[[ -n "$image_workdir" ]] || die "the image has no WORKDIR"
say "entry point: ${ENTRYPOINT[*]}; default command: ${CMD[*]}; user $image_user; working directory $image_workdir"

bh rm "$CHECK_CTR" >/dev/null 2>&1 || true
bh from --pull=never --name "$CHECK_CTR" "$IMAGE" >/dev/null
# Like `docker run -v "$PWD:/work" ladder ...`: a host folder owned by the
# image's user at the WORKDIR. buildah run takes the user and working
# directory from the image; the entry point is prepended here, since buildah
# run (unlike docker run) runs the command it is given.
SMOKE_DIR="$(mktemp -d "$DIR/smoke.XXXXXX")"
cp "$ROOT/samples/sample.mp4" "$SMOKE_DIR/in.mp4"
chown -R "$image_uid" "$SMOKE_DIR"
run_image() {  # run_image ARGS...: the entry point with ARGS, like `docker run ladder ARGS...`
  say "image: ${ENTRYPOINT[*]} $*"
  bh run --isolation chroot -v "$SMOKE_DIR:$image_workdir" "$CHECK_CTR" -- "${ENTRYPOINT[@]}" "$@"
}
run_image --version || die "the image's '${ENTRYPOINT[*]} --version' failed"
run_image devices || die "the image's '${ENTRYPOINT[*]} devices' failed"
run_image encode in.mp4 -o out --ladder /usr/local/share/ladder/ladders/small.json --preset 12 --progress plain ||
  die "the image's encode of samples/sample.mp4 failed"
run_image validate --decode out || die "the image's output did not validate"
[[ -f "$SMOKE_DIR/out/master.m3u8" ]] || die "the image's encode wrote no master playlist"
[[ "$(stat -c %u "$SMOKE_DIR/out/master.m3u8")" == "$image_uid" ]] ||
  die "the output does not belong to the image's user (uid $image_uid)"
say "image: encoded and validated as uid $image_uid"
if [[ ${#CMD[@]} -gt 0 ]]; then
  run_image "${CMD[@]}" >/dev/null || die "the image's default command '${ENTRYPOINT[*]} ${CMD[*]}' failed"
  say "image: the default command ran (exit 0)"
fi
bh rm "$CHECK_CTR" >/dev/null

say "image size: $(bh images --noheading --format '{{.Size}}' "$IMAGE") ($IMAGE, ID $(short_id "$(image_id "$IMAGE")"))"

# ---------------------------------------------------------------- the archive
phase "export as docker-archive and read it back"
rm -f "$ARCHIVE" "$ARCHIVE.new"
bh push --quiet "$IMAGE" "docker-archive:$ARCHIVE.new:$ARCHIVE_NAME" >/dev/null ||
  die "buildah could not write the docker-archive"
mv "$ARCHIVE.new" "$ARCHIVE"
# The archive's layout, as `docker load` expects it: manifest.json naming the
# config and the layer files, all of them present.
manifest="$(tar -xOf "$ARCHIVE" manifest.json)" || die "$ARCHIVE has no manifest.json"
[[ "$manifest" == *"\"docker.io/library/$ARCHIVE_NAME\""* ]] || die "the archive's manifest.json does not name $ARCHIVE_NAME: $manifest"
members="$(tar -tf "$ARCHIVE")"
n_layers=0
for f in $(grep -o '"[0-9a-f]\{64\}\.\(tar\|json\)"' <<<"$manifest" | tr -d '"'); do
  grep -qxF "$f" <<<"$members" || die "the archive lacks $f, which its manifest.json names"
  [[ "$f" == *.tar ]] && n_layers=$((n_layers + 1))
done
[[ $n_layers -gt 0 ]] || die "the archive's manifest.json names no layer"
# Read back by containers/image's loader (podman load's) into an empty storage.
READBACK_DIR="$(mktemp -d "$DIR/readback.XXXXXX")"
buildah --root "$READBACK_DIR/storage" --runroot "$READBACK_DIR/run" --storage-driver vfs \
  pull --quiet "docker-archive:$ARCHIVE" >/dev/null || die "the archive could not be read back"
read_id="$(buildah --root "$READBACK_DIR/storage" --runroot "$READBACK_DIR/run" --storage-driver vfs \
  images --noheading --no-trunc --format '{{.ID}}' | awk 'NR == 1')"
[[ "$read_id" == "$(image_id "$IMAGE")" ]] ||
  die "the image read back from the archive has another ID ($read_id) than the one built ($(image_id "$IMAGE"))"
rm -rf --one-file-system "$READBACK_DIR"
READBACK_DIR=
say "archive: $ARCHIVE ($(du -m "$ARCHIVE" | cut -f1) MB, $n_layers layers, read back with the same image ID)"
say "  docker load -i $ARCHIVE   (or podman load -i ...), then: docker run --rm ladder --version"

print_timings
say "passed: the image was built with buildah, ran as uid $image_uid and was exported"
