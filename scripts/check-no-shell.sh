#!/usr/bin/env bash
# ladder never builds a shell command (or runs another program) from its
# input: file names, rung names and ladder files reach FFmpeg's libraries and
# the file system as data, never through /bin/sh. This check fails when the
# sources of the ladder binary (av/ cli/ engine/ gpu/ mux/) call anything
# that runs a program, with one exception: engine/encode/process/encoder_process.cpp starts
# ladder's own encoder processes, posix_spawn of "/proc/self/exe" with one
# fixed argument and no shell; that call, exactly as written there, is
# allowed, and nothing else in that file. Tests and scripts/ may run
# programs (ffmpeg, ffprobe).
#
# Usage: scripts/check-no-shell.sh [ROOT]
set -euo pipefail
ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$ROOT"
pattern='\b(std::)?(system|popen|execl|execlp|execle|execv|execvp|execvpe|execve|fexecve|posix_spawnp?|wordexp)[[:space:]]*\(|/bin/(ba)?sh\b'
# Comments are left out (a line's text after //), so prose may say "system".
hits=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' "$pattern" av cli engine gpu mux |
  while IFS= read -r hit; do
    code="${hit#*:*:}"
    code="${code%%//*}"
    if [[ "${hit%%:*}" == engine/encode/process/encoder_process.cpp && "$code" == *'::posix_spawn(&pid_, "/proc/self/exe", &actions, &attr, argv, environ);'* ]]; then
      continue  # ladder's own encoder process (see above)
    fi
    if grep -qE "$pattern" <<<"$code"; then echo "$hit"; fi
  done || true)
if [[ -n "$hits" ]]; then
  echo "check-no-shell: the ladder sources run programs; pass data to libraries instead:" >&2
  echo "$hits" >&2
  exit 1
fi
count=$(find av cli engine gpu mux -name '*.[ch]pp' | wc -l)
echo "check-no-shell: none of the $count source files of the ladder binary runs a program or a shell (the one exception: ladder's own encoder process, engine/encode/process/encoder_process.cpp)"
