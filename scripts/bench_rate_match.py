"""scripts/bench's quality measurement: a rung's output probed and compared
with the source, and FFmpeg one process (b) encoded again at the rate ladder
produced, so that both are compared at the same rate (docs/benchmarks.md).
Python 3 standard library only."""

import math
import shutil
from pathlib import Path

import benchlib as bl


def measure_quality(a, src, rung, gop, path, run_id):
    q = {"name": rung["name"], "file": str(path), "run": run_id}
    if not Path(path).is_file():
        q["error"] = f"{path} missing"
        return q
    q.update(bl.probe_output(a.ffprobe, path, src["fps"], gop))
    if q.get("kbps"):
        q["vs_target_pct"] = round(100 * (q["kbps"] / rung["kbps"] - 1), 1)
    if not a.rates_only:
        q.update(bl.quality_metrics(a.ffmpeg, path, a.source, rung["width"], rung["height"], ssim=True,
                                    xpsnr=a.xpsnr, ffprobe=a.ffprobe))
    if q.get("frames") != src["frames"]:
        q["frames_note"] = f"{q.get('frames')} frames, source has {src['frames']}"
    return q


RATE_METRICS = (("psnr_avg", 3), ("ssim_all", 5), ("xpsnr_y", 3))


def interpolate_at(points, rate, key):
    """key at `rate`, linear in log(rate) between the nearest measured point
    below and the nearest above (or the two nearest, extrapolating, when all
    lie on one side); (value, extrapolated) or None."""
    pts = sorted(((math.log(p["kbps"]), p[key]) for p in points
                  if p.get("kbps") and isinstance(p.get(key), float) and math.isfinite(p[key])))
    if not pts:
        return None
    x = math.log(rate)
    for px, pv in pts:
        if abs(px - x) < 1e-9:
            return pv, False
    below = [p for p in pts if p[0] < x]
    above = [p for p in pts if p[0] > x]
    if below and above:
        (x1, v1), (x2, v2), extra = below[-1], above[0], False
    elif len(pts) >= 2:
        (x1, v1), (x2, v2) = (pts[-2], pts[-1]) if below else (pts[0], pts[1])
        extra = True
    else:
        return pts[0][1], True
    if abs(x2 - x1) < 1e-9:
        return v1, extra
    return v1 + (v2 - v1) * (x - x1) / (x2 - x1), extra


def next_target(points, rate):
    """The (b) target to try next for a rung: from the last two (target, rate)
    points, the slope of log(rate) over log(target) (clamped to 0.4-1.5; 1
    with one point or with targets less than 3% apart, where the slope is
    mostly noise), aimed 2% past ladder's rate so that the next encode lands
    on the other side of it."""
    t2, r2 = points[-1]["target_kbps"], points[-1]["kbps"]
    k = 1.0
    if len(points) >= 2:
        t1, r1 = points[-2]["target_kbps"], points[-2]["kbps"]
        if abs(math.log(t2 / t1)) > math.log(1.03):
            k = min(1.5, max(0.4, math.log(r2 / r1) / math.log(t2 / t1)))
    aim = rate * (1.02 if rate > r2 else 0.98)
    return max(1, round(t2 * (aim / r2) ** (1 / k)))


def bracketed(points, rate):
    """Whether (b)'s encodes lie on both sides of ladder's rate (or one within 0.5% of it)."""
    rates = [p["kbps"] for p in points if p.get("kbps")]
    return any(abs(r / rate - 1) <= 0.005 for r in rates) or (min(rates) < rate < max(rates) if rates else False)


def rate_match(a, src, rungs, gop, out, quality, preexec, cores, commands):
    """(b)'s quality at ladder's rate: encode (b) again (untimed) aimed at the
    rate ladder produced for each rung, until (b)'s encodes lie on both sides
    of it (at most --rate-match-tries more encodes), and interpolate (b)'s
    PSNR, SSIM (and XPSNR) there, linearly in log(rate) between the nearest
    encode below and the nearest above. Asking (b) for ladder's rate itself
    does not do: (b) misses a target by about as much again, so its encodes
    end up on one side, close together, and extrapolating from them is noisy.
    The first retry aims at target x ladder's rate / (b)'s rate (2% past), the
    next ones follow (b)'s measured rate response. commands(cfg, a, rungs,
    gop, rundir) gives (b)'s argv lists and output files (scripts/bench)."""
    points = {}
    for r in rungs:
        qb = quality["b"].get(r["name"], {})
        points[r["name"]] = [dict(qb, target_kbps=r["kbps"], run="b")] if qb.get("kbps") else []
    for attempt in range(1, a.rate_match_tries + 1):
        unmatched = [r for r in rungs if quality["a"].get(r["name"], {}).get("kbps") and points[r["name"]]
                and not bracketed(points[r["name"]], quality["a"][r["name"]]["kbps"])]
        if not unmatched:
            break
        # One (b) process encodes every rung: the rungs already bracketed keep their target.
        matched = [dict(r, kbps=next_target(points[r["name"]], quality["a"][r["name"]]["kbps"])) if r in unmatched
                   else dict(r) for r in rungs]
        run_id = f"b-ratematch{attempt}"
        rundir = out / "runs" / run_id
        if rundir.exists():
            shutil.rmtree(rundir)
        rundir.mkdir(parents=True)
        cmds, outputs = commands("b", a, matched, gop, rundir)
        bl.log(f"rate-matched (b), try {attempt}: targets " + ", ".join(f"{r['name']} {r['kbps']}k" for r in matched))
        res = bl.run_measured(cmds, [out / "runs" / f"{run_id}.log"], cores, preexec=preexec)
        if not res["ok"]:
            bl.log(f"rate-matched (b) failed; see runs/{run_id}.log")
            break
        for r, m in zip(rungs, matched):
            if r in unmatched:
                q2 = measure_quality(a, src, m, gop, outputs[r["name"]], run_id)
                q2["target_kbps"] = m["kbps"]
                points[r["name"]].append(q2)
    for r in rungs:
        qa, qb = quality["a"].get(r["name"], {}), quality["b"].get(r["name"], {})
        if not points[r["name"]] or not qa.get("kbps"):
            continue
        qb["rate_matched"] = [{k: v for k, v in p.items() if k != "command"} for p in points[r["name"]][1:]]
        qb["psnr_at_a_rate_extrapolated"] = not bracketed(points[r["name"]], qa["kbps"])
        for key, digits in RATE_METRICS:
            est = interpolate_at(points[r["name"]], qa["kbps"], key)
            if est is not None:
                qb[f"{key}_at_a_rate"] = round(est[0], digits)
