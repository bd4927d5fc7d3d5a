#!/usr/bin/env bash
# A clip of varied content for soak runs and benchmarks, from FFmpeg's
# built-in (lavfi) sources: six equal parts joined with hard cuts, each
# different: a moving test pattern under fine temporal noise (fading in), a
# zooming Mandelbrot set (fading out), flat colour with one moving box, the
# game of life scaled up without smoothing (fades both ways), a cellular
# automaton under noise, a hue-cycling test pattern fading out. H.264
# (libx264, yuv420p) at about 6 Mb/s, a key frame every 2 s, no audio.
#
# With KIND "fades" instead: noisy motion, a zoom and flat colour with a
# moving box, three equal parts, fading to black and back every 2 s (the
# content that made SVT-AV1 crash inside one process: docs/hardening.md).
#
# Usage: scripts/make-varied-clip.sh OUTPUT [WIDTHxHEIGHT] [SECONDS] [RATE] [KIND]
#        (defaults: 1920x1080, 24, 25, cuts). Needs ffmpeg with libx264.
set -euo pipefail
OUT="${1:?usage: make-varied-clip.sh OUTPUT [WIDTHxHEIGHT] [SECONDS] [RATE]}"
SIZE="${2:-1920x1080}"
SECONDS_TOTAL="${3:-24}"
RATE="${4:-25}"
W="${SIZE%x*}"
H="${SIZE#*x}"
P=$(awk -v s="$SECONDS_TOTAL" 'BEGIN { printf "%.3f", s / 6 }')   # one part
F=$(awk -v p="$P" 'BEGIN { printf "%.3f", p / 4 }')                 # a fade
END=$(awk -v p="$P" -v f="$F" 'BEGIN { printf "%.3f", p - f }')     # fade-out start
small="$((W / 4 / 2 * 2))x$((H / 4 / 2 * 2))"

if [[ "${5:-cuts}" == fades ]]; then
  T=$(awk -v s="$SECONDS_TOTAL" 'BEGIN { printf "%.3f", s / 3 }')
  fade="eq=eval=frame:contrast='abs(sin(PI*t/2))':brightness='-0.5*(1-abs(sin(PI*t/2)))':saturation='abs(sin(PI*t/2))'"
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=s=$SIZE:r=$RATE:d=$T,noise=alls=20:allf=t" \
    -f lavfi -i "mandelbrot=s=$small:r=$RATE,trim=duration=$T,scale=$W:$H" \
    -f lavfi -i "color=c=0x884422:s=$SIZE:r=$RATE:d=$T,drawbox=x=t*200:y=ih/4:w=iw/6:h=ih/4:c=white:t=fill,noise=alls=10:allf=t" \
    -filter_complex "[0][1][2]concat=n=3:v=1:a=0,$fade,format=yuv420p[v]" -map "[v]" \
    -c:v libx264 -preset veryfast -b:v 4M -maxrate 6M -bufsize 8M -g "$((2 * ${RATE%%/*}))" "$OUT"
  echo "make-varied-clip.sh: wrote $OUT ($(stat -c %s "$OUT") bytes)"
  exit 0
fi

ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "testsrc2=s=$SIZE:r=$RATE:d=$P,noise=alls=24:allf=t+u,fade=in:st=0:d=$F" \
  -f lavfi -i "mandelbrot=s=$small:r=$RATE,trim=duration=$P,scale=$W:$H,fade=out:st=$END:d=$F" \
  -f lavfi -i "color=c=0x336699:s=$SIZE:r=$RATE:d=$P,drawbox=x=t*200:y=ih/3:w=iw/10:h=ih/5:c=yellow:t=fill" \
  -f lavfi -i "life=s=$small:mold=10:r=$RATE:ratio=0.1:death_color=#C83232:life_color=#00ff00,trim=duration=$P,scale=$W:$H:flags=neighbor,fade=in:st=0:d=$F,fade=out:st=$END:d=$F" \
  -f lavfi -i "cellauto=s=$SIZE:rule=110:r=$RATE,trim=duration=$P,noise=alls=12:allf=t" \
  -f lavfi -i "testsrc=s=$SIZE:r=$RATE:d=$P,hue=H=t,fade=out:st=$END:d=$F" \
  -filter_complex "[0][1][2][3][4][5]concat=n=6:v=1:a=0,format=yuv420p[v]" -map "[v]" \
  -c:v libx264 -preset veryfast -b:v 6M -maxrate 8M -bufsize 12M -g "$((2 * ${RATE%%/*}))" "$OUT"
echo "make-varied-clip.sh: wrote $OUT ($(stat -c %s "$OUT") bytes)"
