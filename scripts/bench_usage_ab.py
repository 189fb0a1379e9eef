#!/usr/bin/env python3
"""Two builds of `sessions usage --by day` side by side with `cat`, in one run (runs interleaved, so a
shared machine's load falls on all three alike): medians of wall and CPU time (user + sys).

usage: bench_usage_ab.py --before BIN --after BIN --s1k DIR [--s1g DIR] --work DIR [--runs N]
(--s1k/--s1g: the states scripts/bench_usage.sh generates under .bench/usage/). Prints markdown.
"""
import argparse, glob, os, shutil, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_usage import timed  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--s1k", required=True)
    ap.add_argument("--s1g")
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    bins = {"before": a.before, "after": a.after}
    files = sorted(glob.glob(os.path.join(a.s1k, "agents/main/sessions/*.jsonl")))
    env = lambda name: dict(os.environ, XDG_CACHE_HOME=os.path.join(a.work, "cache-" + name))
    usage = lambda b, st, *x: [b, "--state-dir", st, "usage", "--by", "day", *x]
    res = {}

    def run(label, cmd, **kw):
        w, c = res.setdefault(label, ([], []))
        w.append(timed(cmd, c, **kw))

    timed(["cat"] + files)
    for name, b in bins.items():
        shutil.rmtree(os.path.join(a.work, "cache-" + name), ignore_errors=True)
        timed(usage(b, a.s1k), env=env(name))  # fills the cache for the warm runs
    for _ in range(a.runs):
        run("cat", ["cat"] + files)
        for name, b in bins.items():
            run("cold " + name, usage(b, a.s1k, "--no-cache"), env=env(name))
            run("warm " + name, usage(b, a.s1k), env=env(name))
    big = glob.glob(os.path.join(a.s1g, "agents/main/sessions/*.jsonl")) if a.s1g else []
    if big:
        timed(["cat"] + big)
        for _ in range(max(1, a.runs // 2)):
            run("big cat", ["cat"] + big)
            for name, b in bins.items():
                run("big " + name, usage(b, a.s1g, "--no-cache"), env=env(name))
    med = {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in res.items()}
    ms = lambda s: f"{s * 1000:.0f} ms"
    cell = lambda k: f"{ms(med[k][0])} / {ms(med[k][1])}"
    ratio = lambda k, base: f"{med[k][0] / med[base][0]:.2f}× / {med[k][1] / med[base][1]:.2f}×"
    size = sum(os.path.getsize(f) for f in files)
    print(f"median of {a.runs} interleaved runs, {os.cpu_count()} CPU, load average {os.getloadavg()[0]:.1f} at the end; "
          "wall / CPU (user + sys)\n")
    print("| case | cat | before | after | before ÷ cat | after ÷ cat | target |")
    print("|---|---|---|---|---|---|---|")
    print(f"| 1,000 × 1 MB ({size / 2**30:.2f} GiB), cold (`--no-cache`) | {cell('cat')} | {cell('cold before')} | "
          f"{cell('cold after')} | {ratio('cold before', 'cat')} | {ratio('cold after', 'cat')} | ≤ 3× |")
    print(f"| same, warm (every file in the cache) | — | {cell('warm before')} | {cell('warm after')} | — | — | ≤ 50 ms |")
    if big:
        bsize = sum(os.path.getsize(f) for f in big)
        print(f"| one {bsize / 2**30:.2f} GiB transcript, cold | {cell('big cat')} | {cell('big before')} | "
              f"{cell('big after')} | {ratio('big before', 'big cat')} | {ratio('big after', 'big cat')} | — |")


if __name__ == "__main__":
    main()
