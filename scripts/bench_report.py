"""scripts/bench's outputs: results.json, results.csv, runs.csv and
table.md of one clip, and the issue's targets judged from them
(docs/benchmarks.md). Python 3 standard library only."""

import csv
from pathlib import Path

import benchlib as bl


CONFIGS = {
    "a": "ladder",
    "a2": "ladder (--ladder-b)",
    "b": "FFmpeg, one process (split)",
    "c": "FFmpeg, one process per rung",
}
LADDER_CONFIGS = ("a", "a2")


def ratio(x, y):
    return round(x / y, 3) if x is not None and y else None


def label(cfg, s):
    if cfg in LADDER_CONFIGS and s.get("encoder_slots"):
        t = s.get("threads_per_slot")
        name = "ladder" if cfg == "a" else "ladder-b"
        return f"{name} ({s['encoder_slots']} slots x {t} thread{'s' if t != 1 else ''})" if t else name
    return CONFIGS[cfg]


def write_outputs(a, out, meta, summaries, runs, quality, rungs):
    cfgs = [c for c in a.configs]
    b = summaries.get("b")
    for c, s in summaries.items():
        s["wall_vs_b"] = ratio(s["wall_s"], b and b["wall_s"])
        s["cpu_vs_b"] = ratio(s["cpu_s"], b and b["cpu_s"])
        s["rss_vs_b"] = ratio(s["peak_rss_mb"], b and b["peak_rss_mb"])
    if "a" in summaries and "a2" in summaries:
        sa, sa2 = summaries["a"], summaries["a2"]
        sa["wall_vs_a2"] = ratio(sa["wall_s"], sa2["wall_s"])
        sa["cpu_vs_a2"] = ratio(sa["cpu_s"], sa2["cpu_s"])
        sa["rss_vs_a2"] = ratio(sa["peak_rss_mb"], sa2["peak_rss_mb"])
    targets = evaluate(a, summaries, quality, rungs)
    bl.write_json(out / "results.json", {"meta": meta, "summary": summaries, "quality": quality,
                                          "targets": targets, "runs": runs})

    # results.csv: one row per configuration (medians), per-rung columns.
    fields = ["config", "description", "repeats", "wall_s", "wall_min_s", "wall_max_s", "cpu_s", "user_s", "sys_s",
              "peak_rss_mb", "peak_rss_is_upper_bound", "busy_pct", "busy_encode_pct", "other_cpu_s",
              "wall_vs_b", "cpu_vs_b", "rss_vs_b", "wall_vs_a2", "cpu_vs_a2", "rss_vs_a2", "encoder_slots", "threads_per_slot", "memory_budget_bytes"]
    for r in rungs:
        n = r["name"]
        fields += [f"{n}_kbps", f"{n}_vs_target_pct", f"{n}_gop_kbps_max", f"{n}_peak_kbps", f"{n}_peak_to_average",
                   f"{n}_psnr_avg", f"{n}_psnr_y", f"{n}_ssim_all", f"{n}_xpsnr_y", f"{n}_frames", f"{n}_gop_ok"]
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for c in cfgs:
            row = dict(summaries[c])
            row["description"] = label(c, summaries[c])
            for r in rungs:
                q = quality.get(c, {}).get(r["name"], {})
                n = r["name"]
                row.update({f"{n}_kbps": q.get("kbps"), f"{n}_vs_target_pct": q.get("vs_target_pct"),
                            f"{n}_gop_kbps_max": max(q.get("gop_kbps") or [0]) or None,
                            f"{n}_peak_kbps": q.get("peak_kbps"), f"{n}_peak_to_average": q.get("peak_to_average"),
                            f"{n}_psnr_avg": q.get("psnr_avg"), f"{n}_psnr_y": q.get("psnr_y"),
                            f"{n}_ssim_all": q.get("ssim_all"), f"{n}_xpsnr_y": q.get("xpsnr_y"),
                            f"{n}_frames": q.get("frames"), f"{n}_gop_ok": q.get("gop_ok")})
            w.writerow(row)
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "config", "repeat", "ok", "wall_s", "cpu_s", "user_s", "sys_s", "peak_rss_mb",
                    "busy_pct", "busy_encode_pct", "other_cpu_s", "load1_before"])
        for r in runs:
            w.writerow([r["run_id"], r["config"], r["repeat"], r["ok"], r["wall_s"], r["cpu_s"], r["user_s"],
                        r["sys_s"], r["peak_rss_mb_total"], r["busy_pct"],
                        r.get("ladder", {}).get("busy_encode_pct"), r["other_cpu_s"], r["loadavg_before"][0]])

    md = table_md(a, meta, summaries, quality, rungs, targets)
    (out / "table.md").write_text(md)
    return md


def evaluate(a, summaries, quality, rungs):
    """The issue's targets, with the numbers (needs a and b)."""
    if "a" not in summaries or "b" not in summaries:
        return []
    sa, sb = summaries["a"], summaries["b"]
    t = []

    def add(name, ok, detail):
        t.append({"target": name, "met": ok, "detail": detail})

    failed = [c for c, s in (("a", sa), ("b", sb)) if not s["ok"]]
    if failed:
        # A crashed or failed run's wall time and CPU say nothing about the
        # targets: judge none of them.
        add("every run of (a) and (b) succeeded", False,
            f"{', '.join(failed)} had a failed run (see runs/*.log); no target is judged")
        return t

    # On 2 cores FFmpeg already keeps the CPU busy: match it. From 16 cores
    # one encoder per rung cannot fill the machine: be twice as fast.
    wall_target = 0.5 if a.cores >= 16 else 1.0
    add(f"wall <= {wall_target:.2f}x of (b) on {a.cores} cores", sa["wall_s"] <= wall_target * sb["wall_s"],
        f"{sa['wall_s']:.2f} s vs {sb['wall_s']:.2f} s = {sa['wall_vs_b']:.3f}x")
    add("CPU <= 1.05x of (b)", sa["cpu_s"] <= 1.05 * sb["cpu_s"],
        f"{sa['cpu_s']:.2f} s vs {sb['cpu_s']:.2f} s = {sa['cpu_vs_b']:.3f}x")
    be = sa.get("busy_encode_pct")
    add(">= 90% of cores busy while encoding", be is not None and be >= 90,
        f"ladder {be}% between its first chunk start and last chunk end, {sa['busy_pct']}% over the whole run "
        f"(FFmpeg one process: {sb['busy_pct']}%)")
    budget = sa.get("memory_budget_bytes")
    if budget:
        rss = sa["peak_rss_mb"] * 1024 * 1024
        q = sa.get("peak_queued_bytes")
        add("peak RSS within ladder's memory budget", rss <= budget,
            f"peak RSS {sa['peak_rss_mb']:.0f} MB vs memory_budget {budget / 2**20:.0f} MiB"
            + (f" (queued raw frames peaked at {q / 2**20:.0f} MiB)" if q else ""))
    for r in rungs:
        qa, qb = quality.get("a", {}).get(r["name"], {}), quality.get("b", {}).get(r["name"], {})
        if "psnr_avg" not in qa or "psnr_avg" not in qb or not qa.get("kbps") or not qb.get("kbps"):
            continue
        d = qa["psnr_avg"] - qb["psnr_avg"]
        rate = qa["kbps"] / qb["kbps"] - 1
        add(f"{r['name']}: bit rate within 5% of (b)", abs(rate) <= 0.05,
            f"{qa['kbps']:.0f} vs {qb['kbps']:.0f} kb/s ({100 * rate:+.1f}%), target {r['kbps']} "
            f"(ladder {qa['vs_target_pct']:+.1f}%, FFmpeg {qb['vs_target_pct']:+.1f}% off target)")
        detail = f"at the targets: {qa['psnr_avg']:.2f} vs {qb['psnr_avg']:.2f} dB ({d:+.2f})"
        ok = abs(d) <= 0.3 and abs(rate) <= 0.05
        if qb.get("psnr_avg_at_a_rate") is not None:
            d2 = qa["psnr_avg"] - qb["psnr_avg_at_a_rate"]
            ok = abs(d2) <= 0.3
            detail = (f"at ladder's rate {qa['kbps']:.0f} kb/s: {qa['psnr_avg']:.2f} vs (b) {qb['psnr_avg_at_a_rate']:.2f} dB "
                      f"({d2:+.2f}{', extrapolated' if qb.get('psnr_at_a_rate_extrapolated') else ''}); " + detail)
        add(f"{r['name']}: PSNR within 0.3 dB of (b) at the same rate", ok, detail)
    return t


def table_md(a, meta, summaries, quality, rungs, targets):
    src = meta["source"]
    lines = [
        f"Source `{Path(src['path']).name}`: {src['width']}x{src['height']} {src['fps']:g} fps, {src['frames']} frames "
        f"({src['codec']}); libsvtav1 preset {a.preset}, VBR, GOP {meta['gop_frames']} frames closed "
        f"({a.segment_seconds} s), no audio; rungs "
        + ", ".join(f"{r['name']} {r['width']}x{r['height']} {r['kbps']}k" for r in rungs)
        + f"; {meta['cores']} cores; median of {a.repeat} run(s), interleaved; "
        f"{meta['machine']['cpu_model']}; FFmpeg's SVT-AV1 threads "
        + ("real-time (SCHED_FIFO 99, allowed here)" if meta["svt_threads_realtime"] else "normal (SCHED_OTHER)")
        + ("; ladder's normal: it forbids itself real-time scheduling (a ladder built before that: as FFmpeg's)"
           if meta["svt_threads_realtime"] else "") + ".",
        "",
        "| | configuration | wall s (min–max) | × (b) | CPU s | × (b) | peak RSS MB | × (b) | CPU busy % | other CPU s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c, s in summaries.items():
        rss = f"{s['peak_rss_mb']:.0f}" + (" (≤, sum)" if s["peak_rss_is_upper_bound"] else "")
        busy = f"{s['busy_pct']:.0f}"
        if s.get("busy_encode_pct") is not None:
            busy += f" ({s['busy_encode_pct']:.0f} encoding)"
        lines.append(
            f"| {c} | {label(c, s)} | {s['wall_s']:.2f} ({s['wall_min_s']:.2f}–{s['wall_max_s']:.2f}) | "
            f"{bl.fmt_num(s['wall_vs_b'], 2)} | {s['cpu_s']:.2f} | {bl.fmt_num(s['cpu_vs_b'], 2)} | {rss} | "
            f"{bl.fmt_num(s['rss_vs_b'], 2)} | {busy} | {s['other_cpu_s']:.1f} |")
    if "a" in summaries and "a2" in summaries:
        sa = summaries["a"]
        lines += ["", f"a against a2 (medians): wall {bl.fmt_num(sa['wall_vs_a2'], 3)}×, CPU "
                  f"{bl.fmt_num(sa['cpu_vs_a2'], 3)}×, peak RSS {bl.fmt_num(sa['rss_vs_a2'], 3)}×; "
                  f"a is {meta['tools']['ladder']}, a2 {meta['tools']['ladder_b']}."]
    cfgs = list(summaries)
    xp = any("xpsnr_y" in q for c in cfgs for q in quality.get(c, {}).values())
    lines += ["", "| rung | target kb/s | " + " | ".join(f"{c} kb/s (vs target)" for c in cfgs) + " | "
              + " | ".join(f"{c} GOP kb/s max" for c in cfgs) + " | "
              + " | ".join(f"{c} peak / avg" for c in cfgs) + " | "
              + " | ".join(f"{c} PSNR dB" for c in cfgs) + " | "
              + " | ".join(f"{c} SSIM" for c in cfgs)
              + ("".join(f" | {c} XPSNR Y dB" for c in cfgs) if xp else "")
              + (" | a − b dB | a / b rate | b PSNR at a's rate | a − b dB, same rate |"
                 if "a" in cfgs and "b" in cfgs else " |"),
              "| --- " * (2 + (6 if xp else 5) * len(cfgs) + (4 if "a" in cfgs and "b" in cfgs else 0)) + "|"]
    for r in rungs:
        row = [r["name"], str(r["kbps"])]
        qs = [quality.get(c, {}).get(r["name"], {}) for c in cfgs]
        for q in qs:
            row.append(f"{bl.fmt_num(q.get('kbps'), 0)} ({q['vs_target_pct']:+.1f}%)" if q.get("kbps") else "–")
        for q in qs:
            row.append(bl.fmt_num(max(q["gop_kbps"]), 0) if q.get("gop_kbps") else "–")
        for q in qs:
            row.append(bl.fmt_num(q.get("peak_to_average"), 2))
        for q in qs:
            row.append(bl.fmt_num(q.get("psnr_avg"), 2))
        for q in qs:
            row.append(bl.fmt_num(q.get("ssim_all"), 4))
        if xp:
            for q in qs:
                row.append(bl.fmt_num(q.get("xpsnr_y"), 2))
        if "a" in cfgs and "b" in cfgs:
            qa, qb = quality.get("a", {}).get(r["name"], {}), quality.get("b", {}).get(r["name"], {})
            if qa.get("psnr_avg") is not None and qb.get("psnr_avg") is not None:
                row.append(f"{qa['psnr_avg'] - qb['psnr_avg']:+.2f}")
            else:
                row.append("–")
            row.append(bl.fmt_num(ratio(qa.get("kbps"), qb.get("kbps")), 3))
            est = qb.get("psnr_avg_at_a_rate")
            if est is not None and qa.get("psnr_avg") is not None:
                row.append(f"{est:.2f}" + (" (extrap.)" if qb.get("psnr_at_a_rate_extrapolated") else ""))
                row.append(f"{qa['psnr_avg'] - est:+.2f}")
            else:
                row += ["–", "–"]
        lines.append("| " + " | ".join(row) + " |")
    notes = ["", "CPU busy % = CPU / (wall × cores); for ladder also over its encode window (first chunk start "
             "to last chunk end). PSNR: average of Y, U, V from FFmpeg's psnr filter, against the source scaled to "
             "the rung with swscale bicubic; SSIM: FFmpeg's ssim filter (All), the same way"
             + ("; XPSNR Y: FFmpeg's xpsnr filter, luma" if xp else "") + ". GOP kb/s max: the highest rate of "
             "one GOP (one ladder chunk). peak / avg: the peak rate HLS would put in BANDWIDTH (highest rate over "
             "consecutive GOPs lasting 0.5-1.5 target durations, as ladder's master playlist computes it, from the "
             "video packets) over the average rate. "
             "other CPU s: CPU time used on the machine by processes outside the benchmark during the run."]
    bad = [f"{c}: {q['name']}" for c in cfgs for q in quality.get(c, {}).values() if q.get("gop_ok") is False]
    if bad:
        notes.append(f"Key frames not every {meta['gop_frames']} frames in: " + ", ".join(bad) + ".")
    if any(quality.get("b", {}).get(r["name"], {}).get("psnr_avg_at_a_rate") is not None for r in rungs):
        notes.append("b PSNR at a's rate: (b) encoded again (untimed), aimed at the rate ladder produced, until "
                     "its encodes lie on both sides of it (at most --rate-match-tries times); (b)'s PSNR interpolated "
                     "linearly in log(rate) between the nearest encode below and above ladder's measured rate.")
    sa = summaries.get("a")
    if sa and sa.get("sessions_note"):
        busy = ", ".join(f"{100 * x:.0f}%" for x in sa.get("slot_busy_share") or [] if x is not None)
        notes.append(f"ladder chose {sa['sessions_note']}; memory_budget "
                     f"{(sa.get('memory_budget_bytes') or 0) / 2**20:.0f} MiB; slot busy shares {busy}; fewer "
                     f"chunks in flight than slots for {bl.fmt_num(sa.get('time_below_all_slots_s'), 2)} s of its "
                     f"encode window; decode thread busy {bl.fmt_num(sa.get('decode_s'), 2)} s (median run).")
    for c in LADDER_CONFIGS:
        rows = (summaries.get(c) or {}).get("busy_by_second")
        if rows:
            notes.append(f"{c}, each second of its median run (CPU busy % / chunks in flight): " + ", ".join(
                f"{i}: {bl.fmt_num(b, 0)}/{n}" for i, b, n in rows) + ".")
    lines += notes
    if targets:
        lines += ["", "Targets:", ""]
        for t in targets:
            lines.append(f"- {'met' if t['met'] else '**missed**'}: {t['target']}: {t['detail']}")
    return "\n".join(lines) + "\n"
