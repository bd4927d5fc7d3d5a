#!/usr/bin/env bash
# The default command (no --rate-control) on 1 slot and 1 decoder, on 2 slots and 2 decoders, and
# killed with SIGKILL after 3 s then resumed: each rung's MD5 (first 8 hex digits) and chunk CRFs.
# (A manual check: the kill lands wherever the run is after 3 s; the e2e tests decide by journal counts.)
set -u
L=${LADDER:-build/release/ladder}
for c in zoomnoise lifefade cutsfull; do
  rm -rf "out/same/$c"; mkdir -p "out/same/$c"
  "$L" encode "$c.mp4" -o "out/same/$c/one" --cpu-slots 1 --decoders 1 --format mp4 --audio none --preset 10 -q
  "$L" encode "$c.mp4" -o "out/same/$c/two" --cpu-slots 2 --decoders 2 --format mp4 --audio none --preset 10 -q
  "$L" encode "$c.mp4" -o "out/same/$c/kill" --format mp4 --audio none --preset 10 -q & pid=$!
  sleep 3; kill -9 "$pid"; wait "$pid" 2>/dev/null
  n=$(find "out/same/$c/kill/.ladder" -name 'chunk_*' | wc -l)
  "$L" encode "$c.mp4" -o "out/same/$c/kill" --format mp4 --audio none --preset 10 -q --resume
  for f in "out/same/$c/one/"*.mp4; do
    b=$(basename "$f")
    echo "$c $b journaled-at-kill=$n $(md5sum < "$f" | cut -c1-8) $(md5sum < "out/same/$c/two/$b" | cut -c1-8)" \
      "$(md5sum < "out/same/$c/kill/$b" | cut -c1-8)"
  done
done
