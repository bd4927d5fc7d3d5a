# shellcheck shell=bash
# Sourced by scripts/build-image.sh and scripts/check-debian13.sh, which
# both make and remove root folders that have things mounted in them.

# Is anything mounted at or under DIR? (a root is never removed while it is)
mounted_under() {
  local dir
  dir="$(readlink -f "$1")"
  awk -v d="$dir" '{ gsub(/\\040/, " ", $5); if ($5 == d || index($5, d "/") == 1) found = 1 }
                   END { exit !found }' /proc/self/mountinfo
}
