#!/usr/bin/env bash
# List the Debian packages that own the shared libraries a binary needs at run
# time: every library `ldd BINARY` resolves (the whole closure, not only the
# direct ones), mapped to its package with `dpkg -S`. One package name per
# line, sorted, without the architecture suffix; for `install-deps.sh
# --runtime FILE`.
#
# The Dockerfile runs it in its build stage and installs its output in the
# runtime stage (CI builds the image with scripts/build-image.sh). It fails (exit 1) when a library is not found or belongs to no
# package (e.g. one built by hand under /usr/local): the list would be
# incomplete. Libraries that are loaded with dlopen (GPU drivers, the oneVPL
# runtime) do not show up here: install-deps.sh --runtime adds those.
#
# Usage: scripts/runtime-packages.sh BINARY
set -euo pipefail

if [[ $# -ne 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,/^set -euo pipefail/{s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
  [[ $# -eq 1 && ( "$1" == -h || "$1" == --help ) ]] && exit 0
  exit 2
fi
BIN="$1"
if [[ ! -x "$BIN" ]]; then
  echo "runtime-packages.sh: '$BIN' is not an executable file" >&2
  exit 2
fi
for tool in ldd dpkg-query; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "runtime-packages.sh: '$tool' is missing (this script needs a Debian/Ubuntu system)" >&2
    exit 2
  fi
done

if ! ldd_out="$(ldd "$BIN" 2>&1)"; then
  echo "runtime-packages.sh: ldd $BIN failed: $ldd_out" >&2
  exit 1
fi

# The libraries: "name => /path (addr)", the loader as "/path (addr)",
# "name => not found", and linux-vdso.so.1 (in the kernel, not in a file).
libs=()
problems=0
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  if [[ "$line" == *" => not found"* ]]; then
    echo "runtime-packages.sh: $BIN needs ${line%% *}, which is not installed" >&2
    problems=$((problems + 1))
  elif [[ "$line" == *" => /"* ]]; then
    line="${line#* => }"
    libs+=("${line%% (*}")
  elif [[ "$line" == /* ]]; then
    libs+=("${line%% (*}")
  fi
done <<<"$ldd_out"
if [[ ${#libs[@]} -eq 0 && $problems -eq 0 ]]; then
  echo "runtime-packages.sh: ldd found no shared library in $BIN (a static binary?)" >&2
  exit 1
fi

# Where dpkg may have recorded each library: ldd prints the path it loaded
# from, which on a merged-/usr system may be /lib/... while dpkg recorded
# /usr/lib/... (or the other way round), and may be a symlink
# (libfoo.so.N -> libfoo.so.N.M.P). One dpkg-query call for all of them.
candidates_of() {
  local path="$1" dir
  dir="$(readlink -f "$(dirname "$path")" 2>/dev/null || true)"
  printf '%s\n' "$path" "/usr$path" "${path#/usr}" "$dir/$(basename "$path")" \
    "$(readlink -f "$path" 2>/dev/null || true)"
}
mapfile -t all_candidates < <(for lib in "${libs[@]}"; do candidates_of "$lib"; done | grep '^/' | sort -u)
declare -A owner=()
# "pkg:arch: /path" per line ("pkg1, pkg2: /dir" for a shared directory, which
# a library is not; "diversion by ..." lines are skipped). dpkg-query exits 1
# when some candidate is nobody's, which is expected here.
while IFS= read -r line; do
  [[ "$line" == "diversion "* || "$line" != *": /"* ]] && continue
  pkg="${line%%: /*}"
  owner["/${line#*: /}"]="${pkg%%:*}"
done < <(dpkg-query -S "${all_candidates[@]}" 2>/dev/null || true)

declare -A packages=()
for lib in "${libs[@]}"; do
  found=
  while IFS= read -r candidate; do
    if [[ -n "$candidate" && -n "${owner[$candidate]:-}" ]]; then
      found="${owner[$candidate]}"
      break
    fi
  done < <(candidates_of "$lib")
  if [[ -n "$found" ]]; then
    packages["$found"]=1
  else
    echo "runtime-packages.sh: no Debian package owns $lib (needed by $BIN)" >&2
    problems=$((problems + 1))
  fi
done

if [[ $problems -gt 0 ]]; then
  exit 1
fi
printf '%s\n' "${!packages[@]}" | LC_ALL=C sort
