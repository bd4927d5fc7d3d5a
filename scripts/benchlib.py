"""Shared code of scripts/bench and scripts/bench-scaling (python3 stdlib only).

Measuring a configuration means: start its processes (one or several, all at
once), sample their CPU time from /proc every SAMPLE_SECONDS, reap them with
os.wait4 (user+sys time and ru_maxrss of each process tree), and note the
machine-wide busy time from /proc/stat so a run disturbed by someone else's
work can be seen afterwards (`other_cpu_s`).
"""

import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.25


def die(msg, code=2):
    print(f"{Path(sys.argv[0]).name}: {msg}", file=sys.stderr)
    sys.exit(code)


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Tools and machine


def find_tool(given, name, preferred=None):
    """Path of an executable: the --option value, else `preferred` when it
    exists, else the first `name` on PATH."""
    if given:
        if Path(given).is_file() and os.access(given, os.X_OK):
            return str(Path(given).resolve())
        found = shutil.which(given)
        if found:
            return found
        die(f"{given}: not an executable file")
    if preferred and Path(preferred).is_file() and os.access(preferred, os.X_OK):
        return str(Path(preferred).resolve())
    found = shutil.which(name)
    if found:
        return found
    die(f"{name} not found (PATH, or pass --{name} BIN)")


def built_ladder():
    """build/release/ladder of this checkout (preferred over PATH)."""
    return str(REPO / "build" / "release" / "ladder")


def usable_cpus():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


CAP_SYS_NICE = 23
PR_CAPBSET_DROP = 24


def realtime_allowed():
    """Whether SVT-AV1 in a child would run its threads SCHED_FIFO 99: 1.4.1
    asks for it only when geteuid() == 0 (pthread_setschedparam on each thread
    it creates and on the thread that opens the encoder, carrying on when
    refused), and the kernel grants it with CAP_SYS_NICE or an RLIMIT_RTPRIO of
    99. A ladder that forbids itself real-time scheduling never gets it."""
    if os.geteuid() != 0:
        return False
    cap = False
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    cap = bool(int(line.split()[1], 16) >> CAP_SYS_NICE & 1)
    except OSError:
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_RTPRIO)
    return cap or soft == resource.RLIM_INFINITY or soft >= 99


def _drop_realtime():
    """In a child before exec: no CAP_SYS_NICE and RLIMIT_RTPRIO 0, so that
    SVT-AV1's SCHED_FIFO threads fail with EPERM and it makes normal ones."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_CAPBSET_DROP, CAP_SYS_NICE, 0, 0, 0)  # fails harmlessly without CAP_SETPCAP
    resource.setrlimit(resource.RLIMIT_RTPRIO, (0, 0))


def child_setup(cores, no_realtime=False):
    """preexec_fn: pin to the first `cores` usable CPUs (when fewer than all)
    and, with no_realtime, take away real-time scheduling; None if neither."""
    cpus = usable_cpus()
    chosen = set(cpus[:cores]) if cores < len(cpus) else None
    if chosen is None and not no_realtime:
        return None

    def setup():
        if chosen is not None:
            os.sched_setaffinity(0, chosen)
        if no_realtime:
            _drop_realtime()
    return setup


def loadavg():
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def machine_busy_ticks():
    """Busy jiffies of the whole machine (all CPUs), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    # guest time is already counted in user/nice
    return sum(fields[:8]) - idle


def live_children(pid):
    """The pids of a process's children that are alive (not yet reaped)."""
    kids = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return kids


def proc_cpu_ticks(pid):
    """CPU ticks of a live (or zombie) process's tree: utime + stime of all its
    threads, of the children it has reaped (cutime + cstime) and of its live
    children (ladder's encoder processes), recursively; None once reaped."""
    # Children first: one reaped meanwhile is then in the parent's cutime.
    children = sum(proc_cpu_ticks(k) or 0 for k in live_children(pid))
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
    except OSError:
        return None
    rest = data[data.rindex(")") + 2:].split()
    # rest[0] is field 3 (state); utime, stime, cutime, cstime are fields 14-17
    return sum(int(x) for x in rest[11:15]) + children


def wait_quiet(threshold, max_wait):
    """Wait until the 1-minute load average is below threshold (or max_wait s)."""
    start = time.monotonic()
    la = loadavg()
    if threshold <= 0:
        return {"waited_s": 0.0, "loadavg": la, "quiet": None}
    while la[0] >= threshold and time.monotonic() - start < max_wait:
        log(f"waiting for a quiet machine: load {la[0]:.2f} >= {threshold} "
            f"({time.monotonic() - start:.0f}/{max_wait:.0f} s)")
        time.sleep(15)
        la = loadavg()
    waited = time.monotonic() - start
    quiet = la[0] < threshold
    if not quiet:
        log(f"machine not quiet after {waited:.0f} s (load {la[0]:.2f}); running anyway")
    return {"waited_s": round(waited, 1), "loadavg": la, "quiet": quiet}


def machine_description():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    osname = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    osname = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"cpu_model": model, "cpus_usable": len(usable_cpus()), "cpu_count": os.cpu_count(),
            "uid": os.getuid(), "realtime_allowed": realtime_allowed(),
            "mem_total_bytes": mem, "os": osname, "python": sys.version.split()[0],
            "hostname": os.uname().nodename}


def tool_version(binary, args=("-version",)):
    try:
        out = subprocess.run([binary, *args], capture_output=True, text=True, timeout=30)
        return (out.stdout or out.stderr).splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


# --------------------------------------------------------------------------
# Source and rungs


def probe_source(ffprobe, path):
    out = subprocess.run(
        [ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=codec_name,width,height,r_frame_rate,avg_frame_rate,nb_frames,pix_fmt,"
         "sample_aspect_ratio:format=duration,format_name", "-of", "json", str(path)],
        capture_output=True, text=True)
    if out.returncode != 0:
        die(f"ffprobe cannot read {path}: {out.stderr.strip()}")
    info = json.loads(out.stdout)
    if not info.get("streams"):
        die(f"{path}: no video stream")
    s = info["streams"][0]
    rate = Fraction(s.get("avg_frame_rate") or "0/1") if s.get("avg_frame_rate", "0/0") != "0/0" else Fraction(0)
    if rate == 0:
        rate = Fraction(s["r_frame_rate"])
    sar = s.get("sample_aspect_ratio") or "1:1"
    try:
        sn, sd = (int(x) for x in sar.split(":"))
        sar_f = Fraction(sn, sd) if sn and sd else Fraction(1)
    except ValueError:
        sar_f = Fraction(1)
    duration = float(info.get("format", {}).get("duration") or 0)
    frames = int(s["nb_frames"]) if s.get("nb_frames", "").isdigit() else round(duration * rate)
    return {"path": str(path), "codec": s["codec_name"], "width": s["width"], "height": s["height"],
            "pix_fmt": s.get("pix_fmt"), "frame_rate": f"{rate.numerator}/{rate.denominator}",
            "fps": float(rate), "frames": frames, "duration": duration,
            "dar": float(Fraction(s["width"], s["height"]) * sar_f),
            "size_bytes": Path(path).stat().st_size}


DEFAULT_RUNGS = [("1080p", 1080, 4500), ("720p", 720, 2500), ("540p", 540, 1200), ("360p", 360, 600)]


def even_round(v):
    return max(2, int(round(v / 2.0)) * 2)


def parse_rung(text, src):
    m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9_.-]{0,63})=(\d*)x(\d+)@(\d+)", text)
    if not m:
        die(f"--rung '{text}': expected NAME=WxH@KBPS (e.g. 720p=1280x720@2500; W may be left out)")
    name, w, h, kbps = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
    width = int(w) if w else min(even_round(h * src["dar"]), src["width"] - src["width"] % 2)
    return {"name": name, "width": width, "height": h, "kbps": kbps}


def default_rungs(src):
    rungs = [parse_rung(f"{n}=x{h}@{k}", src) for n, h, k in DEFAULT_RUNGS if h <= src["height"]]
    return rungs or [parse_rung(f"src=x{src['height'] - src['height'] % 2}@2500", src)]


def chunk_frames(segment_seconds, fps):
    """ladder's chunk length in frames (engine/run/job.cpp chunk_frames_for)."""
    return max(1, int(segment_seconds * fps + 0.5))


# --------------------------------------------------------------------------
# Running and measuring a configuration


def run_measured(cmds, logs, cores, cwd=None, preexec=None, label=""):
    """Start every command at once, wait for all; return the measurements.

    cmds: list of argv lists; logs: list of paths (stdout+stderr of each).
    """
    files = [open(p, "wb") for p in logs]
    la_before = loadavg()
    ru_children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    mach0 = machine_busy_ticks()
    samples = []  # [t, process-tree cpu s so far (live processes), machine busy s]
    last = {}
    done = threading.Event()
    t0 = time.monotonic()
    procs = []
    try:
        for cmd, f in zip(cmds, files):
            procs.append(subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          cwd=cwd, preexec_fn=preexec))
    except OSError as e:
        for p in procs:
            p.kill()
        die(f"cannot start {cmd[0]}: {e}")
    pids = [p.pid for p in procs]
    finished = {}  # pid -> ticks at reaping (from rusage)

    def sampler():
        while not done.is_set():
            t = time.monotonic() - t0
            for pid in pids:
                if pid in finished:
                    continue
                v = proc_cpu_ticks(pid)
                if v is not None:
                    last[pid] = v
            cpu = sum(finished.get(pid, last.get(pid, 0)) for pid in pids) / CLK_TCK
            samples.append([round(t, 3), round(cpu, 3), round((machine_busy_ticks() - mach0) / CLK_TCK, 3)])
            done.wait(SAMPLE_SECONDS)

    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    results = {}
    remaining = set(pids)
    while remaining:
        pid, status, ru = os.wait4(-1, 0)
        if pid not in remaining:
            continue
        t_end = time.monotonic() - t0
        remaining.discard(pid)
        finished[pid] = (ru.ru_utime + ru.ru_stime) * CLK_TCK
        results[pid] = {"end_s": t_end, "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
                        "maxrss_kb": ru.ru_maxrss, "exit_code": os.waitstatus_to_exitcode(status)}
    wall = time.monotonic() - t0
    mach_busy = (machine_busy_ticks() - mach0) / CLK_TCK
    done.set()
    th.join()
    ru_children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    for p in procs:
        p.returncode = results[p.pid]["exit_code"]
    for f in files:
        f.close()
    samples.append([round(wall, 3), round(sum(r["user_s"] + r["sys_s"] for r in results.values()), 3),
                    round(mach_busy, 3)])
    per = [results[pid] for pid in pids]
    user = sum(r["user_s"] for r in per)
    sys_ = sum(r["sys_s"] for r in per)
    cpu = user + sys_
    cpu_children = (ru_children1.ru_utime - ru_children0.ru_utime) + (ru_children1.ru_stime - ru_children0.ru_stime)
    return {
        "label": label,
        "commands": cmds,
        "processes": len(cmds),
        "exit_codes": [r["exit_code"] for r in per],
        "ok": all(r["exit_code"] == 0 for r in per),
        "wall_s": round(wall, 3),
        "process_end_s": [round(r["end_s"], 3) for r in per],
        "user_s": round(user, 3),
        "sys_s": round(sys_, 3),
        "cpu_s": round(cpu, 3),
        "cpu_s_rusage_children": round(cpu_children, 3),
        "peak_rss_mb": [round(r["maxrss_kb"] / 1024, 1) for r in per],
        "peak_rss_mb_total": round(sum(r["maxrss_kb"] for r in per) / 1024, 1),
        "peak_rss_is_upper_bound": len(per) > 1,
        "cores": cores,
        "busy_pct": round(100 * cpu / (wall * cores), 1) if wall > 0 else None,
        "machine_busy_s": round(mach_busy, 3),
        "other_cpu_s": round(max(0.0, mach_busy - cpu), 3),
        "loadavg_before": la_before,
        "timeline": samples,
    }


def busy_in_window(timeline, t1, t2, cores):
    """CPU busy % of the measured processes between t1 and t2 (linear interpolation)."""
    def at(t, col):
        prev = timeline[0]
        if t <= prev[0]:
            return prev[col]
        for cur in timeline[1:]:
            if cur[0] >= t:
                span = cur[0] - prev[0]
                return prev[col] + (cur[col] - prev[col]) * ((t - prev[0]) / span if span > 0 else 1)
            prev = cur
        return timeline[-1][col]
    if not timeline or t2 <= t1:
        return None
    return round(100 * (at(t2, 1) - at(t1, 1)) / ((t2 - t1) * cores), 1)


def busy_by_second(timeline, chunks, wall, cores):
    """[second, CPU busy % of the measured processes in it, chunks in flight at its middle] for each second
    of a ladder run: where the cores went idle (the start, the sessions themselves, the end)."""
    rows = []
    for i in range(int(math.ceil(wall))):
        end = min(i + 1.0, wall)
        in_flight = sum(1 for c in chunks if c["start_seconds"] <= (i + end) / 2 < c["end_seconds"])
        rows.append([i, busy_in_window(timeline, i, end, cores), in_flight])
    return rows


def median_run(runs):
    """The run with the median wall time (lower median for an even count)."""
    ok = [r for r in runs if r["ok"]] or runs
    ordered = sorted(ok, key=lambda r: r["wall_s"])
    return ordered[(len(ordered) - 1) // 2]


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


# --------------------------------------------------------------------------
# ladder


def ladder_command(ladder, src, outdir, rungs, preset, segment_seconds, slots=None, extra=()):
    cmd = [ladder, "encode", str(src), "-o", str(outdir), "--policy", "cpu", "--format", "mp4",
           "--audio", "none", "--preset", str(preset), "--segment-seconds", str(segment_seconds),
           "--overwrite", "--progress", "json"]
    for r in rungs:
        cmd += ["--rung", f"{r['name']}={r['width']}x{r['height']}@{r['kbps']}"]
    if slots:
        cmd += ["--cpu-slots", str(slots)]
    return cmd + list(extra)


def read_ladder_run(outdir, log_path, run):
    """Add what ladder's report.json and its progress log say to a run."""
    info = {}
    rep_path = Path(outdir) / "report.json"
    try:
        rep = json.loads(rep_path.read_text())
    except (OSError, ValueError):
        run["ladder"] = {"error": f"no report at {rep_path}"}
        return
    slots = rep.get("slots", [])
    info["report_wall_s"] = rep.get("wall_seconds")
    info["decode_s"] = rep.get("decode_seconds")
    info["encoder_slots"] = rep.get("encoder_slots")
    info["slot_labels"] = [s.get("label") for s in slots]
    info["slot_busy_share"] = [s.get("busy_share") for s in slots]
    info["slot_chunks"] = [s.get("chunks") for s in slots]
    info["memory_budget_bytes"] = rep.get("memory_budget")
    info["peak_queued_bytes"] = rep.get("peak_queued_bytes")
    info["frames"] = rep.get("frames_normalized")
    chunks = rep.get("chunks", [])
    if chunks:
        t1 = min(c["start_seconds"] for c in chunks)
        t2 = max(c["end_seconds"] for c in chunks)
        info["encode_window_s"] = [round(t1, 3), round(t2, 3)]
        info["busy_encode_pct"] = busy_in_window(run["timeline"], t1, t2, run["cores"])
        # Time with fewer chunks in flight than slots, inside the encode window.
        n = len(slots) or 1
        events = sorted([(c["start_seconds"], 1) for c in chunks] + [(c["end_seconds"], -1) for c in chunks])
        level, prev, under = 0, t1, 0.0
        for t, d in events:
            if level < n:
                under += t - prev
            level += d
            prev = t
        info["time_below_all_slots_s"] = round(under, 3)
        info["busy_by_second"] = busy_by_second(run["timeline"], chunks, run["wall_s"], run["cores"])
        rung_names = [r["name"] for r in rep.get("rungs", [])]
        info["chunks"] = [{"rung": rung_names[c["rung"]] if c["rung"] < len(rung_names) else c["rung"],
                           "index": c["index"], "frames": c["frames"], "bytes": c["bytes"], "slot": c["slot"],
                           "start_s": c["start_seconds"], "end_s": c["end_seconds"]} for c in chunks]
        info["chunk_frames"] = max(c["frames"] for c in chunks)
    info["rungs"] = [{k: r.get(k) for k in ("name", "width", "height", "bitrate_kbps", "chunks", "frames",
                                            "average_kbps", "encode_seconds", "encode_fps")}
                     for r in rep.get("rungs", [])]
    # "N encoder sessions (N libsvtav1 x T threads)" from the start-up note.
    try:
        for line in Path(log_path).read_text(errors="replace").splitlines():
            if '"note"' not in line:
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            m = re.search(r"(\d+) encoder sessions \(([^)]*)\)", ev.get("message", ""))
            if m:
                info["sessions_note"] = m.group(0)
                t = re.search(r"x (\d+) threads", m.group(2))
                if t:
                    info["threads_per_slot"] = int(t.group(1))
                break
    except OSError:
        pass
    run["ladder"] = info


# --------------------------------------------------------------------------
# Outputs: bit rate, key frames, PSNR


def probe_output(ffprobe, path, fps, gop=None):
    out = subprocess.run([ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=codec_name,width,height:packet=size,flags", "-of", "json", str(path)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip()}
    info = json.loads(out.stdout)
    pkts = info.get("packets", [])
    st = (info.get("streams") or [{}])[0]
    sizes = [int(p["size"]) for p in pkts]
    keys = [i for i, p in enumerate(pkts) if "K" in p.get("flags", "")]
    frames = len(sizes)
    seconds = frames / fps if fps else 0
    total = sum(sizes)
    res = {"codec": st.get("codec_name"), "width": st.get("width"), "height": st.get("height"),
           "frames": frames, "video_bytes": total,
           "kbps": round(total * 8 / seconds / 1000, 1) if seconds else None,
           "key_frames": keys, "file_bytes": Path(path).stat().st_size}
    # Bit rate of each GOP (key frame to key frame): the rate control's view of a chunk.
    bounds = keys + [frames]
    gops = []
    for a, b in zip(bounds, bounds[1:]):
        if b > a:
            gops.append(round(sum(sizes[a:b]) * 8 / ((b - a) / fps) / 1000, 1))
    res["gop_kbps"] = gops
    peak = hls_peak_kbps([(sum(sizes[a:b]) * 8, (b - a) / fps) for a, b in zip(bounds, bounds[1:]) if b > a]) \
        if fps else None
    res["peak_kbps"] = round(peak, 1) if peak is not None else None
    res["peak_to_average"] = round(peak / res["kbps"], 3) if peak is not None and res["kbps"] else None
    if gop:
        res["gop_ok"] = keys == list(range(0, frames, gop))
    return res


def hls_target_duration(durations):
    """EXT-X-TARGETDURATION: the longest segment rounded to whole seconds, at
    least 1 (mux/hls_bandwidth.cpp target_duration)."""
    return max([1] + [int(math.floor(d + 0.5)) for d in durations if d > 0])


def hls_peak_kbps(segments):
    """The peak rate HLS puts in BANDWIDTH, from (bits, seconds) per segment:
    the highest rate of any run of consecutive segments lasting 0.5 to 1.5
    target durations (RFC 8216bis 4.4.6.2; ladder's master playlist does the
    same, mux/hls_bandwidth.cpp peak_bandwidth); the highest single segment
    when no run qualifies. None without segments."""
    segs = [(b, d) for b, d in segments if d > 0]
    if not segs:
        return None
    td = hls_target_duration([d for _, d in segs])
    peak = None
    for i in range(len(segs)):
        bits = dur = 0.0
        for b, d in segs[i:]:
            dur += d
            if dur > 1.5 * td + 1e-9:
                break
            bits += b
            if dur < 0.5 * td - 1e-9:
                continue
            rate = bits / dur / 1000
            peak = rate if peak is None else max(peak, rate)
    if peak is None:
        peak = max(b / d / 1000 for b, d in segs)
    return peak


PSNR_RE = re.compile(r"PSNR y:(\S+) u:(\S+) v:(\S+) average:(\S+) min:(\S+) max:(\S+)")
SSIM_RE = re.compile(r"SSIM Y:(\S+) \(\S+\) U:(\S+) \(\S+\) V:(\S+) \(\S+\) All:(\S+) \((\S+)\)")
# FFmpeg 7.1's xpsnr: "XPSNR  y: 38.1234  u: 40.5678  v: 41.0000  (minimum: 38.1234)"
XPSNR_RE = re.compile(r"XPSNR\s+y:\s*(\S+)\s+u:\s*(\S+)\s+v:\s*(\S+)", re.IGNORECASE)

_filters = {}


def has_filter(ffmpeg, name):
    """Whether this ffmpeg has the filter NAME (e.g. xpsnr: FFmpeg 7.1 and later)."""
    if ffmpeg not in _filters:
        try:
            out = subprocess.run([ffmpeg, "-hide_banner", "-filters"], capture_output=True, text=True, timeout=60)
            _filters[ffmpeg] = {f.split()[1] for f in out.stdout.splitlines() if len(f.split()) >= 3
                                and "->" in f.split()[2]}
        except (OSError, subprocess.SubprocessError):
            _filters[ffmpeg] = set()
    return name in _filters[ffmpeg]


def _num(x):
    x = x.strip("()")
    return float("inf") if x == "inf" else float(x)


def same_colour_as(ffprobe, path):
    """A setparams filter that labels a frame with the colour properties of
    PATH's first video stream ("unknown" where it has none), for both inputs
    of a comparison. FFmpeg 7.x negotiates colour between a filter's inputs:
    ladder's output (tagged BT.709, limited) against a reference scaled from
    an untagged source makes it convert the reference to BT.709 first, and
    PSNR drops by 2-6 dB that are not there. With the same labels on both
    sides it converts neither, and compares the pixels as FFmpeg 5.1 does."""
    out = subprocess.run([ffprobe, "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=color_space,color_range,color_primaries,color_transfer", "-of", "json",
                          str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        die(f"ffprobe cannot read {path}: {out.stderr.strip()}")
    stream = (json.loads(out.stdout).get("streams") or [{}])[0]

    def tag(field):  # ffprobe's names are the ones setparams takes
        return stream.get(field, "unknown")

    return (f"setparams=colorspace={tag('color_space')}:range={tag('color_range')}"
            f":color_primaries={tag('color_primaries')}:color_trc={tag('color_transfer')}")


# The scaler ladder uses for its rungs (av/bitexact_scaling.hpp): the
# references and FFmpeg's own rungs are scaled the same way, or ladder's
# rungs would carry a rounding difference to the reference that FFmpeg's do
# not (up to 0.35 dB at 49 dB: docs/benchmarks.md).
SCALE_FLAGS = "bicubic+accurate_rnd+bitexact"


def quality_metrics(ffmpeg, encoded, src, width, height, threads=0, ssim=False, xpsnr=False, ffprobe="ffprobe"):
    """PSNR (and with ssim / xpsnr those too, in the same pass) of an encoded
    rung (decoded with libdav1d) against the source scaled to the rung's size
    with swscale bicubic as ladder scales (SCALE_FLAGS), both labelled with
    the encoded rung's colour properties (same_colour_as)."""
    metrics = ["psnr"] + (["ssim"] if ssim else []) + (["xpsnr"] if xpsnr else [])
    n = len(metrics)
    refs = "".join(f"[ref{i}]" for i in range(n))
    colour = same_colour_as(ffprobe, encoded)
    graph = (f"[1:v]scale={width}:{height}:flags={SCALE_FLAGS},format=yuv420p,{colour}" + (f",split={n}" if n > 1 else "")
             + f"{refs};[0:v]format=yuv420p,{colour}[enc0];")
    for i, m in enumerate(metrics):
        graph += f"[enc{i}][ref{i}]{m}" + (f"[enc{i + 1}];" if i + 1 < n else "")
    cmd = [ffmpeg, "-hide_banner", "-nostdin", "-c:v", "libdav1d", "-i", str(encoded), "-i", str(src),
           "-filter_complex", graph, "-an", "-f", "null", "-"]
    if threads:
        cmd[1:1] = ["-threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = PSNR_RE.search(out.stderr)
    if out.returncode != 0 or not m:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1], "command": cmd}
    res = {"psnr_y": round(_num(m.group(1)), 3), "psnr_u": round(_num(m.group(2)), 3),
           "psnr_v": round(_num(m.group(3)), 3), "psnr_avg": round(_num(m.group(4)), 3), "command": cmd}
    if ssim:
        m = SSIM_RE.search(out.stderr)
        if m:
            res.update({"ssim_y": round(_num(m.group(1)), 5), "ssim_u": round(_num(m.group(2)), 5),
                        "ssim_v": round(_num(m.group(3)), 5), "ssim_all": round(_num(m.group(4)), 5),
                        "ssim_all_db": round(_num(m.group(5)), 3)})
    if xpsnr:
        m = XPSNR_RE.search(out.stderr)
        if m:
            res.update({"xpsnr_y": round(_num(m.group(1)), 3), "xpsnr_u": round(_num(m.group(2)), 3),
                        "xpsnr_v": round(_num(m.group(3)), 3)})
    return res


def psnr(ffmpeg, encoded, src, width, height, threads=0, ffprobe="ffprobe"):
    """PSNR of an encoded rung (decoded with libdav1d) against the source scaled
    to the rung's size with swscale bicubic as ladder scales."""
    return quality_metrics(ffmpeg, encoded, src, width, height, threads, ffprobe=ffprobe)


def fmt_num(v, digits=1):
    if v is None:
        return "–"
    if isinstance(v, float) and v == float("inf"):
        return "inf"
    return f"{v:.{digits}f}"


def write_json(path, data):
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    tmp.replace(path)
