#!/usr/bin/env bash
# Runs the GPU checks of docs/gpu-verification.md on a machine with an NVIDIA
# GPU, using the bundle made by scripts/make-gpu-bundle.sh (ladder, a trimmed
# FFmpeg with NVDEC/scale_cuda, ffmpeg/ffprobe): inventory, the policies that
# must fail without NVENC, and for each clip an encode with NVDEC decoding and
# CUDA scaling checked against the same encode with CPU decoding (frame
# counts; PSNR per plane against the source scaled by swscale; PSNR of the
# NVDEC rung against the CPU rung) and by `ladder validate`.
#
# Usage: scripts/gpu-verify.sh BUNDLE_DIR LOG_DIR CLIP [CLIP...]
set -uo pipefail

bundle="$(cd "$1" && pwd)"
logs="$(mkdir -p "$2" && cd "$2" && pwd)"
shift 2
work="$(mktemp -d)"
log="$logs/gpu-verify.log"
# shellcheck source=/dev/null
source "$bundle/env.sh"

# GNU time gives peak RSS where it is installed; bash's time otherwise.
timer=""; [[ -x /usr/bin/time ]] && timer="/usr/bin/time -v"
step() { printf '\n$ %s\n' "$*"; "$@"; printf '[exit %d]\n' "$?"; }

# "y:.. u:.. v:.. average:.." of ffmpeg's psnr filter, DIST against REF
# scaled to WxH by swscale with FLAGS, or used as it is (SIZE=same).
# ladder scales with swscale bicubic on the CPU and with scale_cuda bilinear
# on the GPU, whose taps widen with the ratio like swscale's area filter.
psnr() {
  local dist="$1" ref="$2" size="$3" flags="${4:-bicubic}" chain="[1:v]format=yuv420p[ref];[0:v]format=yuv420p[d]"
  [[ "$size" != same ]] && chain="[1:v]scale=${size/x/:}:flags=$flags,format=yuv420p[ref];[0:v]format=yuv420p[d]"
  # upscaled: the rung brought back to the source's size (bicubic) against
  # the untouched source, the way a viewer sees a lower rung full screen; it
  # does not favour either downscaler.
  [[ "$flags" == upscaled ]] && chain="[1:v]format=yuv420p[ref];[0:v]scale=${size/x/:}:flags=bicubic,format=yuv420p[d]"
  ffmpeg -hide_banner -nostats -i "$dist" -i "$ref" -lavfi "$chain;[d][ref]psnr" -f null - 2>&1 |
    sed -n 's/.*PSNR \(y:[0-9.inf]* u:[0-9.inf]* v:[0-9.inf]* average:[0-9.inf]*\).*/\1/p'
}

{
  echo "== machine"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,pci.bus_id --format=csv 2>&1
  nproc; grep -m1 'model name' /proc/cpuinfo; . /etc/os-release; echo "$PRETTY_NAME"
  echo "== inventory"
  step ladder devices
  step ladder devices --json
  echo "== policies that need an encoding GPU"
  for p in all-gpus nvidia gpu:0; do
    step ladder encode "$1" -o "$work/fail-$p" --policy "$p" --rung 360p=640x360@600
    [[ -e "$work/fail-$p" ]] && echo "UNEXPECTED: $work/fail-$p was created"
  done
  # The first use of scale_cuda on a machine compiles its PTX for the GPU (a
  # few seconds, then cached by the driver): a warm-up run keeps that out of
  # the timed runs.
  ladder encode "$1" -o "$work/warmup" --policy auto --decode nvdec --rung 360p=640x360@600 --preset 13 -q \
    > /dev/null 2>&1 || echo "warm-up run failed"
} 2>&1 | tee "$log"

rungs=(--rung 1080p=1920x1080@4500 --rung 720p=x720@2500 --rung 360p=x360@600)
n=0
for clip in "$@"; do
  n=$((n + 1))
  for mode in nvdec cpu; do
    out="$work/clip$n-$mode"
    {
      echo "== clip $n $(basename "$clip"): encode --policy auto --decode $mode"
      ffprobe -v error -select_streams v:0 -show_entries stream=codec_name,width,height,r_frame_rate,nb_frames -of csv=p=0 "$clip"
      src_size="$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$clip")"
      $timer ladder encode "$clip" -o "$out" --policy auto --decode "$mode" --format both "${rungs[@]}" \
        --progress plain --report "$out.json" 2> "$out.stderr"
      echo "[exit $?]"
      grep -E "Elapsed|Maximum resident|Percent of CPU" "$out.stderr"
      grep -E "^ladder:" "$out.stderr"
      step ladder validate "$out"
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print({k: r.get(k) for k in ('decode_device','frames_decoded_on_gpu','source_frames_decoded','frames_normalized','decode_seconds','wall_seconds','encoder_slots')})" "$out.json"
      for mp4 in "$out"/*.mp4; do
        size="$(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=s=x:p=0 "$mp4")"
        frames="$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$mp4")"
        echo "clip $n rung $(basename "$mp4" .mp4) decode=$mode frames=$frames vs-source-bicubic $(psnr "$mp4" "$clip" "$size" bicubic)"
        echo "clip $n rung $(basename "$mp4" .mp4) decode=$mode frames=$frames vs-source-area $(psnr "$mp4" "$clip" "$size" area)"
        echo "clip $n rung $(basename "$mp4" .mp4) decode=$mode frames=$frames upscaled-vs-source $(psnr "$mp4" "$clip" "$src_size" upscaled)"
        if [[ "$mode" == cpu ]]; then
          echo "clip $n rung $(basename "$mp4" .mp4) nvdec-vs-cpu $(psnr "$work/clip$n-nvdec/$(basename "$mp4")" "$mp4" same)"
        fi
      done
    } 2>&1 | tee -a "$log"
    cp "$out.json" "$logs/clip$n-$mode-report.json" 2>/dev/null
  done
done
{
  echo "== scalers alone (no encode), clip 1 against swscale bicubic / area"
  for size in 1280:720 640:360; do
    for flags in bicubic area; do
      echo "scale_cuda bilinear $size vs swscale $flags: $(ffmpeg -hide_banner -nostats -hwaccel cuda -hwaccel_output_format cuda -i "$1" -i "$1" -lavfi \
        "[0:v]scale_cuda=$size:format=yuv420p:interp_algo=bilinear,hwdownload,format=yuv420p[a];[1:v]scale=$size:flags=$flags,format=yuv420p[b];[a][b]psnr" \
        -f null - 2>&1 | sed -n 's/.*PSNR \(y:.* average:[0-9.inf]*\).*/\1/p')"
    done
    echo "swscale area $size vs swscale bicubic: $(ffmpeg -hide_banner -nostats -i "$1" -i "$1" -lavfi \
      "[0:v]scale=$size:flags=area,format=yuv420p[a];[1:v]scale=$size:flags=bicubic,format=yuv420p[b];[a][b]psnr" \
      -f null - 2>&1 | sed -n 's/.*PSNR \(y:.* average:[0-9.inf]*\).*/\1/p')"
  done
} 2>&1 | tee -a "$log"
rm -rf "$work"
