#!/usr/bin/env bash
# Runs the GPU checks of docs/gpu-verification.md on a machine with an NVIDIA
# GPU, using the bundle made by scripts/make-gpu-bundle.sh (ladder, a trimmed
# FFmpeg with NVDEC/scale_cuda, ffmpeg/ffprobe): inventory, the policies that
# must fail without NVENC, and a 1080p encode with NVDEC decoding and CUDA
# scaling checked against the same encode with CPU decoding (frame counts,
# PSNR against the source per rung) and by `ladder validate`.
#
# Usage: scripts/gpu-verify.sh BUNDLE_DIR CLIP_1080P LOG_DIR
set -uo pipefail

bundle="$(cd "$1" && pwd)"
clip="$(realpath "$2")"
logs="$(mkdir -p "$3" && cd "$3" && pwd)"
work="$(mktemp -d)"
# shellcheck source=/dev/null
source "$bundle/env.sh"

# GNU time gives peak RSS where it is installed; bash's time otherwise.
timer=""; [[ -x /usr/bin/time ]] && timer="/usr/bin/time -v"
step() { printf '\n$ %s\n' "$*"; "$@"; printf '[exit %d]\n' "$?"; }

{
  echo "== machine"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,pci.bus_id --format=csv 2>&1
  nproc; grep -m1 'model name' /proc/cpuinfo; . /etc/os-release; echo "$PRETTY_NAME"
  echo "== inventory"
  step ladder devices
  step ladder devices --json
  echo "== policies that need an encoding GPU"
  for p in all-gpus nvidia gpu:0; do
    step ladder encode "$clip" -o "$work/fail-$p" --policy "$p" --rung 360p=640x360@600
    [[ -e "$work/fail-$p" ]] && echo "UNEXPECTED: $work/fail-$p was created"
  done
} 2>&1 | tee "$logs/gpu-verify.log"

# The first use of scale_cuda on a machine compiles its PTX for the GPU (a few
# seconds, then cached by the driver): a short warm-up run keeps that out of
# the timed runs.
ladder encode "$clip" -o "$work/warmup" --policy auto --decode nvdec --rung 360p=640x360@600 --preset 13 -q \
  > /dev/null 2>&1 || echo "warm-up run failed" | tee -a "$logs/gpu-verify.log"
ladder_rungs=(--rung 1080p=1920x1080@4500 --rung 720p=1280x720@2500 --rung 360p=640x360@600)
for mode in nvdec cpu; do
  {
    echo "== encode 1080p, --policy auto --decode $mode"
    $timer ladder encode "$clip" -o "$work/$mode" --policy auto --decode "$mode" --format both \
      "${ladder_rungs[@]}" --progress plain --report "$work/$mode-report.json" 2> "$work/$mode-time.txt"
    echo "[exit $?]"
    grep -E "Elapsed|Maximum resident|Percent of CPU" "$work/$mode-time.txt"
    grep -v -E "^\s" "$work/$mode-time.txt" | grep -v progress: | head -20
    step ladder validate "$work/$mode"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print({k: r.get(k) for k in ('decode_device','frames_decoded_on_gpu','source_frames_decoded','frames_normalized','decode_seconds','wall_seconds','encoder_slots')})" "$work/$mode-report.json"
    for rung in 1080p=1920x1080 720p=1280x720 360p=640x360; do
      name="${rung%%=*}"; size="${rung#*=}"
      frames="$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$work/$mode/$name.mp4")"
      psnr="$(ffmpeg -hide_banner -nostats -i "$work/$mode/$name.mp4" -i "$clip" -lavfi \
        "[1:v]scale=${size/x/:}:flags=bicubic,format=yuv420p[ref];[0:v]format=yuv420p[d];[d][ref]psnr" -f null - 2>&1 \
        | sed -n 's/.*PSNR.* average:\([0-9.inf]*\).*/\1/p')"
      echo "rung $name decode=$mode frames=$frames psnr_avg=$psnr"
    done
  } 2>&1 | tee -a "$logs/gpu-verify.log"
done
cp "$work"/*-report.json "$logs/" 2>/dev/null
rm -rf "$work"
