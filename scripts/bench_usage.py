#!/usr/bin/env python3
"""Timings for scripts/bench_usage.sh: medians of --runs runs, side by side, as markdown."""
import argparse, glob, os, re, resource, shutil, statistics, subprocess, sys, time


def cpu_now():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, cpu=None, **kw):
    c, t = cpu_now(), time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    wall = time.perf_counter() - t
    if cpu is not None:
        cpu.append(cpu_now() - c)
    return wall


def median(cmd, runs, before=None, **kw):
    """Median wall time and median CPU time (user + sys) in seconds."""
    out, cpu = [], []
    for _ in range(runs):
        if before:
            before()
        out.append(timed(cmd, cpu, **kw))
    return statistics.median(out), statistics.median(cpu)


def rss_mb(cmd):
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    return int(m.group(1)) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--s1k", required=True)
    ap.add_argument("--s1g", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.s1k, "agents/main/sessions/*.jsonl")))
    size = sum(os.path.getsize(f) for f in files)
    usage = lambda st, *extra: [a.bin, "--state-dir", st, "usage", "--by", "day", *extra]
    drop = lambda: shutil.rmtree(a.cache, ignore_errors=True)
    # page cache warm for everyone: one read of every file first
    timed(["cat"] + files)
    cat, ccat = median(["cat"] + files, a.runs)
    cold, ccold = median(usage(a.s1k, "--no-cache"), a.runs)
    cold_fill, cfill = median(usage(a.s1k), a.runs, before=drop)  # no cache file yet; writes it
    timed(usage(a.s1k))
    warm, cwarm = median(usage(a.s1k), a.runs)
    rss_cold = rss_mb(usage(a.s1k, "--no-cache"))
    rss_warm = rss_mb(usage(a.s1k))
    big = glob.glob(os.path.join(a.s1g, "agents/main/sessions/*.jsonl"))
    bsize = sum(os.path.getsize(f) for f in big)
    timed(["cat"] + big)
    bcat, cbcat = median(["cat"] + big, max(1, a.runs // 2))
    bcold, cbcold = median(usage(a.s1g, "--no-cache"), max(1, a.runs // 2))
    rss_big = rss_mb(usage(a.s1g, "--no-cache"))
    ms = lambda s: f"{s * 1000:.0f} ms"
    load = os.getloadavg()[0]
    print(f"`sessions usage --by day`, median of {a.runs} runs, page cache warm (dropping it needs root), "
          f"{os.cpu_count()} CPU, load average {load:.1f} at the end. Wall time and CPU time (user + sys) side by side.\n")
    print("| case | cat: wall / CPU | sessions usage: wall / CPU | ratio wall / CPU | target |")
    print("|---|---|---|---|---|")
    print(f"| 1,000 × 1 MB ({size / 2**30:.2f} GiB), cold: no usage cache (`--no-cache`) | {ms(cat)} / {ms(ccat)} | {ms(cold)} / {ms(ccold)} | {cold / cat:.2f}× / {ccold / ccat:.2f}× | ≤ 3× |")
    print(f"| same, first run writing the cache | {ms(cat)} / {ms(ccat)} | {ms(cold_fill)} / {ms(cfill)} | {cold_fill / cat:.2f}× / {cfill / ccat:.2f}× | ≤ 3× |")
    print(f"| same, warm (every file in the cache) | — | {ms(warm)} / {ms(cwarm)} | — | ≤ 50 ms |")
    print(f"| one {bsize / 2**30:.2f} GiB transcript, cold | {ms(bcat)} / {ms(cbcat)} | {ms(bcold)} / {ms(cbcold)} | {bcold / bcat:.2f}× / {cbcold / cbcat:.2f}× | — |")
    print()
    print("| peak RSS (/usr/bin/time -v) | MB | target |")
    print("|---|---|---|")
    print(f"| 1,000 × 1 MB, cold | {rss_cold:.1f} | ≤ 64 |")
    print(f"| 1,000 × 1 MB, warm | {rss_warm:.1f} | ≤ 64 |")
    print(f"| one 1 GiB transcript, cold | {rss_big:.1f} | ≤ 64 |")


if __name__ == "__main__":
    main()
