#!/usr/bin/env python3
"""Turns `ftcoll-mpi bench` JSON lines (stdin) into one markdown table per run: latency per
protocol (rows) and size (columns), in µs, with the simulator's LogP prediction in parentheses.
Lines that are not JSON (commands, timings) are copied through as they are."""
import json
import sys


def flush(points, out):
    if not points:
        return
    sizes = sorted({p["size"] for p in points})
    protocols = []
    for p in points:
        if p["protocol"] not in protocols:
            protocols.append(p["protocol"])
    by = {(p["protocol"], p["size"]): p for p in points}
    head = points[0]
    out.write(
        f"\nP = {head['procs']}, failed {head['failed']}, {head['iterations']} timed operations "
        "per point; µs, the simulator's prediction in parentheses; fitted LogP step o per size: "
        + ", ".join(f"{s} B: {by[(protocols[0], s)]['step_us']:.3f}" for s in sizes)
        + "\n\n"
    )
    out.write("| protocol | " + " | ".join(f"{s} B" for s in sizes) + " |\n")
    out.write("|---|" + "---|" * len(sizes) + "\n")
    for proto in protocols:
        cells = []
        for s in sizes:
            p = by.get((proto, s))
            if p is None:
                cells.append("")
            elif p["predicted_us"] is None:
                cells.append(f"{p['latency_us']:.1f}")
            else:
                cells.append(f"{p['latency_us']:.1f} ({p['predicted_us']:.1f})")
        out.write(f"| {proto} | " + " | ".join(cells) + " |\n")


def main():
    points = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        try:
            points.append(json.loads(line))
            continue
        except json.JSONDecodeError:
            pass
        flush(points, sys.stdout)
        points = []
        if line.startswith("### "):
            sys.stdout.write(f"\n```text\n{line[4:]}\n```\n")
        elif line.startswith("# "):
            sys.stdout.write(f"\n{line[2:]}.\n")
        elif line.strip() and line != "DONE":
            sys.stdout.write(line + "\n")
    flush(points, sys.stdout)


main()
