#!/usr/bin/env bash
# Build ladder and run the whole test suite on Debian 13 (trixie: FFmpeg 7.1,
# GCC 14, Chromium, Node.js 20) in a root made with debootstrap, and prove the
# Dockerfile there: no Docker engine is needed.
#
# 1. A Debian 13 minbase root (debootstrap --variant=minbase), set up like the
#    debian:trixie-slim image (trixie, trixie-updates and trixie-security;
#    dpkg's unsafe-io and path excludes; no apt translations).
# 2. The Dockerfile is replayed stage by stage: every stage starts from a copy
#    of that root and its RUN lines run verbatim with /bin/sh -c in the
#    stage's WORKDIR as the stage's USER with its ENV, COPY copies from the
#    build context (the git-visible files, less .dockerignore) or from an
#    earlier stage. Only FROM debian:trixie-slim [AS name], WORKDIR, COPY
#    [--from=stage], RUN (shell form), ENV, USER, ENTRYPOINT, CMD and LABEL
#    are understood; anything else stops the check, so nothing in the
#    Dockerfile goes unproven.
# 3. The build stage's runtime package list (scripts/runtime-packages.sh) must
#    name the libavcodec package.
# 4. The last stage (the image) runs its ENTRYPOINT as its USER: --version, an
#    encode of samples/sample.mp4 into a folder mounted at its WORKDIR (like
#    `docker run -v "$PWD:/work"`) and `validate`.
# 5. The whole test suite, `scripts/run-tests.sh`, runs in the build stage's
#    root (the same script as on the host: installs the test dependencies,
#    builds with the GoogleTest suite, npm ci for the player check, ctest).
#    Its exit code is this script's.
#
# Everything runs with LADDER_WERROR=ON (unless set otherwise), so a warning
# under FFmpeg 7.1 / GCC 14 fails the check.
#
# Needs root, debootstrap (installed with apt when missing) and network access
# to the Debian mirror and the npm registry. Mounts (/proc, /sys read-only,
# /dev with its own /dev/pts and /dev/shm, resolv.conf, a shared apt cache)
# are made in a private mount namespace when unshare(1) allows it, and are
# always unmounted on exit.
#
# The roots live in build/debian13 (ignored by git). The build stage's root is
# kept and reused by the next run when it was made from the same base (only
# the changed sources are rebuilt, installed packages are skipped); the other
# stages are made anew every run. A fresh clone (CI) makes everything. After
# a run was killed while apt or dpkg ran in the build stage, use --fresh.
#
# Before the test suite, the host's tests/player/node_modules is copied into
# the build stage when it is what package-lock.json pins (the host's
# run-tests.sh ran npm ci): the player check then needs no npm in the root,
# whose Debian package brings about 350 packages (scripts/install-deps.sh).
#
# Two runs never work on the roots at once: a run waits for the lock
# $DIR/.lock.
#
# Usage: scripts/check-debian13.sh [--fresh | --prerequisites] [-- CTEST_ARGS...]
#   --fresh          remove the roots first (debootstrap again)
#   --prerequisites  only install what the check needs on this machine
#                    (debootstrap, with apt) and stop: .ci/run does this
#                    before anything else uses apt, since two apt runs at once
#                    fail on apt's lock (the roots' apt has locks of its own)
#   CTEST_ARGS go to scripts/run-tests.sh (e.g. -- -L unit)
# Environment:
#   LADDER_DEBIAN13_DIR     where the roots live (default: build/debian13)
#   LADDER_DEBIAN_MIRROR    Debian mirror (default: http://deb.debian.org/debian)
#   LADDER_DEBIAN_SECURITY  security mirror (default: http://deb.debian.org/debian-security)
#   LADDER_WERROR           passed to the builds (default: ON)
#   LADDER_DEB13_GO_FILE    when set: everything up to the test run (the roots,
#                           the Dockerfile replay, the image's run, the test
#                           dependencies and build) is done, then the check
#                           waits for this file to exist before it runs the
#                           suite, at nice 0 and best-effort I/O priority from
#                           there on. .ci/run starts the check at nice 19
#                           alongside the host's steps, so it takes only the
#                           CPU they leave idle, and creates the file once
#                           they are done: the suite's timing-sensitive tests
#                           never run behind other work.
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
  die "needs root (debootstrap, chroot and mount)"
fi

# Mounts are private to this run (and vanish with it, even on kill -9) when
# the kernel lets us make a mount namespace; the trap below unmounts anyway.
if [[ -z "${LADDER_DEB13_NS:-}" ]] && command -v unshare >/dev/null 2>&1 &&
   unshare --mount --propagation private true 2>/dev/null; then
  export LADDER_DEB13_NS=1
  exec unshare --mount --propagation private -- bash "$SELF" "${ARGS[@]}"
fi

SUITE=trixie
IMAGE=debian:trixie-slim
MIRROR="${LADDER_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY="${LADDER_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"
DIR="${LADDER_DEBIAN13_DIR:-$ROOT/build/debian13}"
BASE="$DIR/base"
APT_CACHE="$DIR/apt-archives"
WERROR="${LADDER_WERROR:-ON}"
HOST_CA="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
[[ -f "$HOST_CA" ]] || HOST_CA=
# The build stage: the one kept between runs, and where the test suite runs.
BUILD_STAGE=build
# Kept from the previous run when a reused stage gets `COPY . DIR` again.
KEEP_ON_RECOPY=(build tests/player/node_modules)
CHROOT="$(command -v chroot)"
STAMP="format=1 suite=$SUITE variant=minbase mirror=$MIRROR security=$SECURITY"

# ---------------------------------------------------------------- timings
declare -a PHASES=()
phase_name=
phase_start=0
T0=$SECONDS
phase() {  # phase NAME: ends the running phase, starts the next one
  if [[ -n "$phase_name" ]]; then
    PHASES+=("$(printf '%5d s  %s' $((SECONDS - phase_start)) "$phase_name")")
  fi
  phase_name="${1:-}"
  phase_start=$SECONDS
  [[ -n "$phase_name" ]] && say "== $phase_name"
  return 0
}
print_timings() {
  phase ""
  say "wall time per phase:"
  local p
  for p in "${PHASES[@]}"; do echo "    $p"; done
  printf '    %5d s  total\n' $((SECONDS - T0))
}

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
  [[ -n "${SMOKE_DIR:-}" ]] && rm -rf "$SMOKE_DIR"
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Is anything mounted at or under DIR? (a root is never removed while it is)
mounted_under() {
  local dir
  dir="$(readlink -f "$1")"
  awk -v d="$dir" '{ gsub(/\\040/, " ", $5); if ($5 == d || index($5, d "/") == 1) found = 1 }
                   END { exit !found }' /proc/self/mountinfo
}
remove_root() {
  [[ -e "$1" ]] || return 0
  if mounted_under "$1"; then
    die "something is still mounted under $1 (a run without a mount namespace was killed?); unmount it (umount -R) and retry"
  fi
  rm -rf --one-file-system "$1"
}

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
  mkdir -p "$APT_CACHE/partial" "$r/var/cache/apt/archives"
  mount_at "$r/var/cache/apt/archives" --bind "$APT_CACHE"
  if [[ -n "$HOST_CA" ]]; then
    mkdir -p "$r/etc/ssl"
    : >"$r/etc/ssl/ladder-host-ca.crt"
    mount_at "$r/etc/ssl/ladder-host-ca.crt" --bind "$HOST_CA"
    mount -o remount,bind,ro "$r/etc/ssl/ladder-host-ca.crt"
  fi
}

# ---------------------------------------------------------------- running in a root
passwd_entry() {  # passwd_entry ROOT USER: USER's line (by name or uid) in ROOT
  awk -F: -v u="$2" '$1 == u || $3 == u { print; exit }' "$1/etc/passwd"
}
# run_in ROOT USER WORKDIR ENV-ARRAY-NAME COMMAND...: COMMAND in ROOT as USER
# (a name or uid from ROOT's /etc/passwd), in WORKDIR, with a clean environment: the
# Docker defaults (PATH, HOME), the stage's ENV and this check's settings.
run_in() {
  local r="$1" user="$2" wd="$3"
  local -n envref="$4"
  shift 4
  local entry uid gid home
  entry="$(passwd_entry "$r" "$user")"
  [[ -n "$entry" ]] || die "user '$user' does not exist in $r"
  IFS=: read -r _ _ uid gid _ home _ <<<"$entry"
  local vars=(
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    HOME="$home" LANG=C.UTF-8 LADDER_WERROR="$WERROR"
  )
  [[ -n "$HOST_CA" ]] && vars+=(NODE_EXTRA_CA_CERTS=/etc/ssl/ladder-host-ca.crt)
  [[ -n "${CI:-}" ]] && vars+=(CI="$CI")
  vars+=("${envref[@]}")
  env -i "${vars[@]}" "$CHROOT" --userspec="$uid:$gid" "$r" \
    /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$wd" "$@"
}

# ---------------------------------------------------------------- the base root
phase "prerequisites"
if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap
fi
for tool in mount umount cp tar git awk flock renice ionice; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' is missing"
done
[[ $PREREQUISITES_ONLY -eq 0 ]] || exit 0
say "roots in $DIR ($([[ -n "${LADDER_DEB13_NS:-}" ]] && echo "private mount namespace" || echo "no mount namespace: host mounts, unmounted on exit"))"

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
if ! flock -n 9; then
  say "waiting for another run on $DIR (the lock $DIR/.lock)"
  flock 9
fi
if [[ $FRESH -eq 1 ]]; then
  say "--fresh: removing the old roots"
  for r in "$DIR"/base "$DIR"/base.new "$DIR"/stage-*; do remove_root "$r"; done
fi

if [[ -f "$BASE/.ladder-root" && "$(head -n1 "$BASE/.ladder-root")" == "$STAMP" && -x "$BASE/usr/bin/apt-get" ]]; then
  BASE_ID="$(sed -n 2p "$BASE/.ladder-root")"
  say "reusing the Debian 13 base root $BASE"
else
  phase "debootstrap --variant=minbase $SUITE"
  remove_root "$BASE.new"
  remove_root "$BASE"
  if ! debootstrap --variant=minbase "$SUITE" "$BASE.new" "$MIRROR" >"$DIR/debootstrap.log" 2>&1; then
    tail -n 30 "$DIR/debootstrap.log" >&2
    die "debootstrap failed (log: $DIR/debootstrap.log)"
  fi
  tail -n 1 "$DIR/debootstrap.log"
  # Like the debian:trixie-slim image: its apt sources, dpkg speed-ups and
  # excluded docs, no service starts.
  rm -f "$BASE.new/etc/apt/sources.list"
  cat >"$BASE.new/etc/apt/sources.list.d/debian.sources" <<EOF
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
  echo 'force-unsafe-io' >"$BASE.new/etc/dpkg/dpkg.cfg.d/docker-apt-speedup"
  cat >"$BASE.new/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
EOF
  echo 'Acquire::Languages "none";' >"$BASE.new/etc/apt/apt.conf.d/docker-no-languages"
  printf '#!/bin/sh\nexit 101\n' >"$BASE.new/usr/sbin/policy-rc.d"
  chmod +x "$BASE.new/usr/sbin/policy-rc.d"
  rm -rf "$BASE.new"/var/cache/apt/archives/*.deb "$BASE.new"/var/lib/apt/lists/*
  BASE_ID="$(date +%s%N)"
  printf '%s\n%s\n' "$STAMP" "$BASE_ID" >"$BASE.new/.ladder-root"
  mv "$BASE.new" "$BASE"
fi

# ---------------------------------------------------------------- the build context
# What `docker build .` sends: the files git sees (tracked and untracked, not
# ignored), less the .dockerignore patterns (plain paths and globs; a pattern
# also excludes what is under a folder it matches).
mapfile -d '' -t CONTEXT < <(git -C "$ROOT" ls-files -z --cached --others --exclude-standard)
IGNORES=()
if [[ -f "$ROOT/.dockerignore" ]]; then
  while IFS= read -r pat || [[ -n "$pat" ]]; do
    pat="${pat#"${pat%%[![:space:]]*}"}"; pat="${pat%"${pat##*[![:space:]]}"}"
    [[ -z "$pat" || "$pat" == \#* ]] && continue
    [[ "$pat" == !* ]] && die ".dockerignore: exceptions (!) are not understood by this check"
    pat="${pat#/}"; pat="${pat%/}"
    IGNORES+=("$pat")
  done <"$ROOT/.dockerignore"
fi
dockerignored() {
  local p="$1" pat
  for pat in "${IGNORES[@]}"; do
    # shellcheck disable=SC2053  # glob match on purpose
    if [[ "$p" == $pat || "$p" == $pat/* || ( "$pat" == '**/'* && ( "$p" == ${pat#\*\*/} || "$p" == ${pat#\*\*/}/* ) ) ]]; then
      return 0
    fi
  done
  return 1
}
CTX_FILES=()
for f in "${CONTEXT[@]}"; do
  [[ -e "$ROOT/$f" || -L "$ROOT/$f" ]] || continue  # deleted in the work tree
  dockerignored "$f" && continue
  CTX_FILES+=("$f")
done
[[ ${#CTX_FILES[@]} -gt 0 ]] || die "the build context is empty"

# copy_from_context STAGEROOT SRC DEST DEST_IS_DIR
copy_from_context() {
  local r="$1" src="$2" dest="$3" dest_is_dir="$4" f
  src="${src#./}"
  if [[ "$src" == . || "$src" == "" ]]; then
    mkdir -p "$r$dest"
    printf '%s\0' "${CTX_FILES[@]}" | tar -C "$ROOT" --null -T - -cf - | tar -C "$r$dest" -xf -
    return
  fi
  src="${src%/}"
  local under=()
  for f in "${CTX_FILES[@]}"; do
    [[ "$f" == "$src"/* ]] && under+=("${f#"$src"/}")
  done
  if [[ ${#under[@]} -gt 0 ]]; then  # a folder: its contents go into DEST
    mkdir -p "$r$dest"
    printf '%s\0' "${under[@]}" | tar -C "$ROOT/$src" --null -T - -cf - | tar -C "$r$dest" -xf -
    return
  fi
  local found=0
  for f in "${CTX_FILES[@]}"; do [[ "$f" == "$src" ]] && found=1 && break; done
  [[ $found -eq 1 ]] || die "COPY: '$src' is not in the build context"
  if [[ "$dest_is_dir" == 1 ]]; then
    mkdir -p "$r$dest"
    cp -p "$ROOT/$src" "$r$dest/"
  else
    mkdir -p "$(dirname "$r$dest")"
    cp -p "$ROOT/$src" "$r$dest"
  fi
}

# touch_changed PREVIOUS NEW: the files of the new copy of the context whose
# content differs from the previous copy's get the current time. The copy
# keeps the work tree's modification times, so a file edited after the
# previous copy was made, but before that copy's build finished, would be
# older than its object file, and the kept build would not compile it again.
touch_changed() {
  local previous="$1" new="$2" f
  for f in "${CTX_FILES[@]}"; do
    [[ -f "$new/$f" && ! -L "$new/$f" ]] || continue
    cmp -s "$previous/$f" "$new/$f" || touch "$new/$f"
  done
}

# ---------------------------------------------------------------- the Dockerfile
# Logical lines: continuations joined, comments and blank lines dropped.
INSTRUCTIONS=()
acc=
while IFS= read -r line || [[ -n "$line" ]]; do
  trimmed="${line#"${line%%[![:space:]]*}"}"
  [[ "$trimmed" == \#* ]] && continue
  if [[ -z "$acc" && -z "$trimmed" ]]; then continue; fi
  if [[ "$line" =~ ^(.*)\\[[:space:]]*$ ]]; then
    acc+="${BASH_REMATCH[1]}"
    continue
  fi
  acc+="$line"
  INSTRUCTIONS+=("$acc")
  acc=
done <"$ROOT/Dockerfile"
[[ -z "$acc" ]] || INSTRUCTIONS+=("$acc")

json_array() {  # ["a", "b"] -> one element per line (simple strings only)
  local s="$1" item
  s="${s#"${s%%[![:space:]]*}"}"; s="${s%"${s##*[![:space:]]}"}"
  [[ "$s" == \[*\] ]] || die "only the JSON (exec) form is understood here: $s"
  s="${s#[}"; s="${s%]}"
  [[ "$s" != *\\* ]] || die "escapes in JSON arrays are not understood: $s"
  IFS=, read -ra items <<<"$s"
  for item in "${items[@]}"; do
    item="${item#"${item%%[![:space:]]*}"}"; item="${item%"${item##*[![:space:]]}"}"
    [[ "$item" == \"*\" ]] || die "not a JSON string: $item"
    item="${item#\"}"; echo "${item%\"}"
  done
}

declare -A STAGE_ROOTS=()
STAGE_NAMES=()
stage= r= workdir=/ user=root
STAGE_ENV=()
ENTRYPOINT=() CMD=()
n=0
for ins in "${INSTRUCTIONS[@]}"; do
  n=$((n + 1))
  keyword="${ins%%[[:space:]]*}"
  keyword="${keyword^^}"
  args="${ins#*[[:space:]]}"
  args="${args#"${args%%[![:space:]]*}"}"
  [[ -n "$stage" || "$keyword" == FROM ]] || die "Dockerfile: '$keyword' before FROM"
  case "$keyword" in
    FROM)
      read -r image as name extra <<<"$args"
      [[ "$image" == "$IMAGE" ]] || die "Dockerfile: FROM $image: this check emulates only $IMAGE"
      if [[ -n "${as:-}" ]]; then
        [[ "${as,,}" == as && -n "${name:-}" && -z "${extra:-}" ]] || die "Dockerfile: cannot read 'FROM $args'"
      else
        name="stage${#STAGE_NAMES[@]}"
      fi
      stage="$name"
      r="$DIR/stage-$stage"
      workdir=/ user=root STAGE_ENV=() ENTRYPOINT=() CMD=()
      phase "Dockerfile stage '$stage' (FROM $IMAGE)"
      if [[ "$stage" == "$BUILD_STAGE" && -f "$r/.ladder-root" && "$(sed -n 2p "$r/.ladder-root")" == "$BASE_ID" ]]; then
        say "reusing the root of stage '$stage' ($r)"
        REUSED_STAGE=1
      else
        remove_root "$r"
        cp -a "$BASE" "$r.new"
        mv "$r.new" "$r"
        REUSED_STAGE=0
      fi
      mount_root "$r"
      STAGE_ROOTS["$stage"]="$r"
      STAGE_NAMES+=("$stage")
      ;;
    WORKDIR)
      [[ "$args" == /* ]] || args="${workdir%/}/$args"
      workdir="$args"
      mkdir -p "$r$workdir"
      ;;
    ENV)
      [[ "$args" == *=* && "$args" != *[\"\'\\]* ]] || die "Dockerfile: only 'ENV K=V ...' without quotes is understood: $args"
      read -ra kvs <<<"$args"
      STAGE_ENV+=("${kvs[@]}")
      ;;
    USER)
      user="${args%%:*}"
      ;;
    LABEL) ;;
    ENTRYPOINT) mapfile -t ENTRYPOINT < <(json_array "$args") ;;
    CMD) mapfile -t CMD < <(json_array "$args") ;;
    COPY)
      read -ra words <<<"$args"
      from=
      while [[ "${words[0]}" == --* ]]; do
        case "${words[0]}" in
          --from=*) from="${words[0]#--from=}" ;;
          *) die "Dockerfile: COPY ${words[0]} is not understood by this check" ;;
        esac
        words=("${words[@]:1}")
      done
      [[ ${#words[@]} -ge 2 ]] || die "Dockerfile: COPY needs a source and a destination: $args"
      dest="${words[-1]}"
      srcs=("${words[@]:0:${#words[@]}-1}")
      dest_is_dir=0
      [[ "$dest" == */ || ${#srcs[@]} -gt 1 || "$dest" == . ]] && dest_is_dir=1
      [[ "$dest" == /* ]] || dest="${workdir%/}/$dest"
      dest="${dest%/}"; dest="${dest%/.}"; [[ -n "$dest" ]] || dest=/
      for src in "${srcs[@]}"; do
        if [[ -n "$from" ]]; then
          fr="${STAGE_ROOTS[$from]:-}"
          [[ -n "$fr" ]] || die "Dockerfile: COPY --from=$from: no such stage before this one"
          [[ -e "$fr$src" ]] || die "Dockerfile: COPY --from=$from $src: not in that stage"
          if [[ -d "$fr$src" ]]; then
            mkdir -p "$r$dest"
            cp -a "$fr$src/." "$r$dest/"
          elif [[ "$dest_is_dir" == 1 ]]; then
            mkdir -p "$r$dest"
            cp -a "$fr$src" "$r$dest/"
          else
            mkdir -p "$(dirname "$r$dest")"
            cp -a "$fr$src" "$r$dest"
          fi
        else
          previous=
          if [[ "$REUSED_STAGE" == 1 && ( "$src" == . || "$src" == ./ ) ]]; then
            # A kept root: the previous copy goes (kept aside until the new
            # one is compared with it), its build outputs stay.
            keep="$(mktemp -d "$DIR/keep.XXXXXX")"
            for k in "${KEEP_ON_RECOPY[@]}"; do
              if [[ -e "$r$dest/$k" ]]; then mkdir -p "$keep/$(dirname "$k")"; mv "$r$dest/$k" "$keep/$k"; fi
            done
            previous="$(mktemp -d "$DIR/previous.XXXXXX")"
            mv "$r$dest" "$previous/copy"
            mkdir -p "$r$dest"
            for k in "${KEEP_ON_RECOPY[@]}"; do
              if [[ -e "$keep/$k" ]]; then mkdir -p "$r$dest/$(dirname "$k")"; mv "$keep/$k" "$r$dest/$k"; fi
            done
            rm -rf "$keep"
          fi
          copy_from_context "$r" "$src" "$dest" "$dest_is_dir"
          if [[ -n "$previous" ]]; then
            touch_changed "$previous/copy" "$r$dest"
            rm -rf --one-file-system "$previous"
          fi
        fi
      done
      ;;
    RUN)
      [[ "$args" != \[* ]] || die "Dockerfile: RUN in exec (JSON) form is not understood by this check: $args"
      say "[$stage] RUN $args"
      if ! run_in "$r" "$user" "$workdir" STAGE_ENV /bin/sh -c "$args"; then
        die "Dockerfile line '$ins' failed in stage '$stage'"
      fi
      ;;
    *) die "Dockerfile: instruction '$keyword' is not understood by this check (teach it, or the Dockerfile goes unproven)" ;;
  esac
done
[[ ${#STAGE_NAMES[@]} -gt 0 ]] || die "the Dockerfile has no stage"
[[ -n "${STAGE_ROOTS[$BUILD_STAGE]:-}" ]] || die "the Dockerfile has no stage named '$BUILD_STAGE'"
BUILD_ROOT="${STAGE_ROOTS[$BUILD_STAGE]}"
IMAGE_ROOT="$r"
IMAGE_USER="$user"
IMAGE_WORKDIR="$workdir"
IMAGE_ENV=("${STAGE_ENV[@]}")

# ---------------------------------------------------------------- the runtime package list
phase "runtime package list"
LIST="$BUILD_ROOT/src/build/runtime-packages.txt"
[[ -s "$LIST" ]] || die "the build stage wrote no runtime package list ($LIST is missing or empty)"
grep -Eq '^libavcodec[0-9]+$' "$LIST" || die "the runtime package list does not name the libavcodec package: $(tr '\n' ' ' <"$LIST")"
cp "$LIST" "$DIR/runtime-packages.txt"
say "$(wc -l <"$LIST") runtime packages, e.g. $(grep -E '^lib(avcodec|avformat|dav1d|svtav1enc|aom)[0-9]' "$LIST" | tr '\n' ' ')"

# ---------------------------------------------------------------- the image
phase "image: ENTRYPOINT as user '$IMAGE_USER'"
[[ ${#ENTRYPOINT[@]} -gt 0 ]] || die "the image has no ENTRYPOINT"
image_uid="$(passwd_entry "$IMAGE_ROOT" "$IMAGE_USER" | cut -d: -f3)"
[[ -n "$image_uid" && "$image_uid" != 0 ]] || die "the image must run as a non-root user (USER is '$IMAGE_USER')"
say "image: ${ENTRYPOINT[*]} --version"
run_in "$IMAGE_ROOT" "$IMAGE_USER" "$IMAGE_WORKDIR" IMAGE_ENV "${ENTRYPOINT[@]}" --version
# Like `docker run -v "$PWD:/work" ...`: a host folder owned by the image's
# user at its WORKDIR; the image's ladder encodes into it and validates.
SMOKE_DIR="$(mktemp -d "$DIR/smoke.XXXXXX")"
cp "$ROOT/samples/sample.mp4" "$SMOKE_DIR/in.mp4"
chown -R "$image_uid" "$SMOKE_DIR"
mkdir -p "$IMAGE_ROOT$IMAGE_WORKDIR"
mount_at "$IMAGE_ROOT$IMAGE_WORKDIR" --bind "$SMOKE_DIR"
say "image: ${ENTRYPOINT[*]} encode in.mp4 -o out --ladder /usr/local/share/ladder/ladders/small.json --preset 12"
run_in "$IMAGE_ROOT" "$IMAGE_USER" "$IMAGE_WORKDIR" IMAGE_ENV "${ENTRYPOINT[@]}" encode in.mp4 -o out \
  --ladder /usr/local/share/ladder/ladders/small.json --preset 12 --progress plain
run_in "$IMAGE_ROOT" "$IMAGE_USER" "$IMAGE_WORKDIR" IMAGE_ENV "${ENTRYPOINT[@]}" validate out
[[ -f "$SMOKE_DIR/out/master.m3u8" ]] || die "the image's encode wrote no master playlist"
[[ "$(stat -c %u "$SMOKE_DIR/out/master.m3u8")" == "$image_uid" ]] || die "the output is not owned by the image's user"
say "image: encoded and validated as uid $image_uid"

# ---------------------------------------------------------------- the test suite
phase "test dependencies and build in the build stage"
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
# the wait below (run-tests.sh then finds it done).
NO_ENV=()
run_in "$BUILD_ROOT" root /src NO_ENV /bin/sh -c 'scripts/install-deps.sh && scripts/build.sh' ||
  die "installing the test dependencies or building the tests failed in the build stage"

if [[ -n "${LADDER_DEB13_GO_FILE:-}" ]]; then
  phase "waiting for $LADDER_DEB13_GO_FILE"
  while [[ ! -e "$LADDER_DEB13_GO_FILE" ]]; do sleep 1; done
  renice -n 0 -p $$ >/dev/null
  ionice -c 2 -n 4 -p $$ 2>/dev/null || true
fi

phase "test suite in the build stage (scripts/run-tests.sh)"
suite_rc=0
run_in "$BUILD_ROOT" root /src NO_ENV scripts/run-tests.sh "${CTEST_ARGS[@]}" || suite_rc=$?

print_timings
if [[ $suite_rc -ne 0 ]]; then
  say "FAILED: the test suite on Debian 13 exited with $suite_rc"
else
  say "passed: Debian 13 build, image and test suite"
fi
exit $suite_rc
