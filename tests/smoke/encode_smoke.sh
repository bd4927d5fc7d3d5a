#!/usr/bin/env bash
# One short end-to-end run, cheap enough for the sanitizer builds
# (scripts/run-sanitizers.sh), which build the ladder binary but not the e2e
# GoogleTest suite: encode a generated 3 s clip (320x180, 25 fps, with audio)
# into two HLS rungs on the CPU, then check the outputs with independent
# readers: ffprobe decodes every rung (frame count, size, codec) and
# `ladder validate` checks the ladder. Every thread of a run takes part (pump,
# scalers, encoder workers, dispatcher, finalizers, audio).
#
# Usage: encode_smoke.sh LADDER_BINARY
set -euo pipefail

LADDER="$1"
work="$(mktemp -d "${TMPDIR:-/tmp}/ladder-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() { echo "encode_smoke: $*" >&2; exit 1; }

# Two audio tracks (stereo, and 5.1: a stereo and a 5.1 rendition of it) and
# a mov_text subtitle track, so that every rendition writer runs too.
printf '1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:01,800 --> 00:00:02,600\nAgain\n' >"$work/subs.srt"
ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=320x180:rate=25 \
  -f lavfi -i sine=frequency=440:sample_rate=48000 -f lavfi -i sine=frequency=660:sample_rate=48000 \
  -i "$work/subs.srt" -filter_complex '[2:a]pan=5.1|FL=c0|FR=c0|FC=c0[s]' \
  -map 0:v -map 1:a -map '[s]' -map 3 -t 3 \
  -c:v libx264 -preset ultrafast -g 25 -pix_fmt yuv420p -c:a aac -c:s mov_text \
  -metadata:s:a:0 language=eng -metadata:s:a:1 language=fra -metadata:s:s:0 language=eng "$work/clip.mp4"

# Both places an encoder runs: the encoder processes (the default) and
# ladder's own process (--isolation none), so the sanitizers see each; and
# three decode lanes (key frames every second, lanes at least two 0.5-s
# segments long), whose chunks across a lane boundary are joined and whose
# audio is read on its own; and budget's later passes, which hand the
# first pass's frames on in three lanes of whole chunks.
for isolation in process none lanes replay; do
out="$work/out-$isolation"
extra=(--isolation "$isolation" --segment-seconds 1)
[[ "$isolation" == lanes ]] && extra=(--isolation none --decoders 3 --segment-seconds 0.5 --rate-control vbr)
[[ "$isolation" == replay ]] && extra=(--isolation none --decoders 3 --segment-seconds 0.5 --rate-control budget)
# The in-process run also writes the DASH manifest and measures PSNR (a
# decoder and a two-input filter graph on the encoder threads).
[[ "$isolation" == none ]] && extra+=(--format hls,dash,mp4 --quality psnr)
"$LADDER" encode "$work/clip.mp4" -o "$out" --policy cpu --cpu-slots 2 --preset 12 \
  --rung 180p=320x180@300 --rung 90p=160x90@150 --progress plain --report "$work/report-$isolation.json" \
  "${extra[@]}" || fail "ladder encode ($isolation) failed (exit $?)"
lanes="$(grep -o '"first_frame":' "$work/report-$isolation.json" | wc -l)"
chunks="$(grep -o '"index":' "$work/report-$isolation.json" | wc -l)"
if [[ "$isolation" == lanes || "$isolation" == replay ]]; then
  # report.json: 3 decode_lanes entries, and a first_frame in each of the 2 x 6 chunks
  [[ $((lanes - chunks)) -eq 3 ]] || fail "expected 3 decode lanes, report.json has $((lanes - chunks))"
fi

check_rung() {  # NAME WIDTH HEIGHT
  local got
  got="$(ffprobe -v error -select_streams v:0 -count_frames \
    -show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 \
    "$out/$1/index.m3u8" | awk 'NF && !seen++')" || fail "ffprobe cannot read rung $1 ($isolation)"
  # (the HLS demuxer lists the stream under its program too: first line only)
  [[ "$got" == "av1,$2,$3,75" ]] || fail "rung $1 ($isolation): ffprobe read '$got', expected 'av1,$2,$3,75'"
}
check_rung 180p 320 180
check_rung 90p 160 90

# 2 rungs, each once with the stereo group and once with the 5.1 group
variants="$(grep -c '^#EXT-X-STREAM-INF:' "$out/master.m3u8")" || true
[[ "$variants" -eq 4 ]] || fail "master.m3u8 lists $variants variants, expected 4 ($isolation)"
media="$(grep -c '^#EXT-X-MEDIA:' "$out/master.m3u8")" || true
[[ "$media" -eq 5 ]] || fail "master.m3u8 lists $media renditions, expected 4 audio and 1 subtitle ($isolation)"

"$LADDER" validate "$out" -q || fail "ladder validate failed (exit $?, $isolation)"
if [[ "$isolation" == none ]]; then
  [[ -f "$out/manifest.mpd" ]] || fail "no manifest.mpd with --format hls,dash"
  grep -q '"psnr"' "$work/report-$isolation.json" || fail "no psnr in report.json with --quality psnr"
  streams="$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$out/180p.mp4" | tr '\n' ' ')"
  [[ "$streams" == "av1 aac aac aac mov_text " ]] || fail "180p.mp4 has streams '$streams'"
fi
done
echo "encode_smoke: ok (2 rungs x 75 frames, 3 audio and 1 subtitle renditions, validate passed; in encoder processes, in-process with DASH, MP4 and PSNR, on 3 decode lanes, and budget's passes on 3 lanes of kept frames)"
