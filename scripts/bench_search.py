#!/usr/bin/env python3
"""Timing harness of `make bench-search` (called by scripts/bench_search.sh).

`sessions search LITERAL` over 1,000 x 1 MB transcripts beside `grep -rF -c` and (when installed)
`rg -F -c` over the same files, round-robin after warm-up runs (the page cache holds the files:
every tool reads them from memory), each child timed by bench_run's spawner (wall time, CPU time,
peak RSS from wait4). Then peak RSS with /usr/bin/time -v: the same search, and a search of one
1 GB transcript (literal, then --include-tools, which parses the big tool-result lines too).
Prints markdown on stdout; BENCH_STRICT=1 exits 3 when a target is missed.
"""
import argparse, json, os, re, subprocess, sys

import benchlib
benchlib.NAME = "bench_search"
import bench_run
from bench_run import Cmd, Spawner, run_group, machine, loadavg
from benchlib import log

GREP_MAX, RG_MAX, RSS_MAX_KB = 1.5, 2.0, 64 * 1024


class AnyExit(Cmd):
    """grep and rg exit 1 when nothing matches: that is not a failure here."""

    def spawn_once(self):
        r = bench_run.SPAWN.run(self.argv, dict(self.env if self.env is not None else os.environ), self.cwd)
        if r["code"] not in (0, 1):
            raise SystemExit(f"bench_search: {self.name} exited {r['code']}: {' '.join(self.argv)}")
        return r["wall"], r["cpu"], r["rss"]

    def verify(self):
        p = subprocess.run(self.argv, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode not in (0, 1):
            raise SystemExit(f"bench_search: {self.name} exited {p.returncode}: {p.stderr.decode()[-2000:]}")
        self.lines = sum(int(l.rsplit(b":", 1)[1]) for l in p.stdout.splitlines() if l.strip())


def total_count(out):
    try:
        d = json.loads(out)
    except ValueError as e:
        return f"not JSON ({e})"
    if not isinstance(d.get("totalCount"), int):
        return "no totalCount"
    return None


def max_rss_kb(argv, env):
    p = subprocess.run(["/usr/bin/time", "-v"] + argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(f"bench_search: {' '.join(argv)} exited {p.returncode}: {p.stderr.decode()[-2000:]}")
    m = re.search(rb"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    if not m:
        sys.exit("bench_search: /usr/bin/time -v printed no maximum resident set size")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--needle", action="append", default=[])
    a = ap.parse_args()
    needles = a.needle or ["deploy", "quick question"]
    s1k, one = os.path.join(a.work, "s1k"), os.path.join(a.work, "one1g")
    files = os.path.join(s1k, "agents", "main", "sessions")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": a.work, "LC_ALL": "C", "NO_COLOR": "1"}
    rg = None
    for d in env["PATH"].split(":"):
        if os.access(os.path.join(d, "rg"), os.X_OK):
            rg = os.path.join(d, "rg")
            break
    grep = next(os.path.join(d, "grep") for d in env["PATH"].split(":") if os.access(os.path.join(d, "grep"), os.X_OK))
    bench_run.SPAWN = Spawner()
    size = sum(os.path.getsize(os.path.join(files, f)) for f in os.listdir(files) if f.endswith(".jsonl"))
    nfiles = sum(1 for f in os.listdir(files) if f.endswith(".jsonl"))

    m = machine()
    print(f"Machine: {m['nproc']} CPU ({m['cpu']}), {m['mem']}, Linux {m['kernel']}, {m['go']}; "
          f"load average at start {loadavg()}.")
    print(f"Data: {nfiles} transcripts, {size / 2**20:.0f} MiB (scripts/gen_transcripts.py), in the page cache; "
          f"{a.runs} timed rounds after {a.warmup} warm-up rounds, round-robin; medians.")
    print()
    print("| literal | hits (`totalCount`) | lines (`grep -c`) | sessions search | grep -rF -c | rg -F -c | "
          "sessions / grep | sessions / rg | CPU sessions / grep / rg |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    missed = []
    last = None
    for n in needles:
        cmds = [
            Cmd("sessions", [a.bin, "--state-dir", s1k, "search", n, "--json"], a.runs, env=env, check=total_count),
            AnyExit("grep", [grep, "-rF", "-c", "--include=*.jsonl", n, files], a.runs, env=env),
        ]
        if rg:
            cmds.append(AnyExit("rg", [rg, "-F", "-c", "-g", "*.jsonl", n, files], a.runs, env=env))
        run_group(f"search {n!r}", cmds, a.warmup)
        out = subprocess.run(cmds[0].argv, env=env, stdout=subprocess.PIPE, check=True).stdout
        hits = json.loads(out)["totalCount"]
        s, g = cmds[0], cmds[1]
        rgw = cmds[2].med() if rg else None
        rg_ratio = s.med() / rgw if rg else None
        print(f"| `{n}` | {hits:,} | {g.lines:,} | {s.med():.3f} s | {g.med():.3f} s | "
              f"{f'{rgw:.3f} s' if rg else 'not installed'} | **{s.med() / g.med():.2f}x** | "
              f"{f'**{rg_ratio:.2f}x**' if rg else '-'} | {s.med('cpu'):.2f} / {g.med('cpu'):.2f} / "
              f"{cmds[2].med('cpu') if rg else float('nan'):.2f} s |")
        if s.med() / g.med() > GREP_MAX:
            missed.append(f"{n!r}: {s.med() / g.med():.2f}x grep > {GREP_MAX}x")
        if rg and rg_ratio > RG_MAX:
            missed.append(f"{n!r}: {rg_ratio:.2f}x rg > {RG_MAX}x")
        last = n
    print()
    print("Peak RSS (`/usr/bin/time -v`, maximum resident set size):")
    print()
    print("| run | peak RSS |")
    print("|---|---:|")
    one_file = next(os.path.join(one, "agents", "main", "sessions", f)
                    for f in os.listdir(os.path.join(one, "agents", "main", "sessions")) if f.endswith(".jsonl"))
    one_size = os.path.getsize(one_file)
    for label, argv in [
        (f"`search {last!r}` over the {nfiles} x 1 MB", [a.bin, "--state-dir", s1k, "search", last, "--json"]),
        (f"`search {last!r} --limit all` over the {nfiles} x 1 MB", [a.bin, "--state-dir", s1k, "search", last, "--json", "--limit", "all"]),
        (f"`search {last!r}` of one {one_size / 2**30:.2f} GiB transcript", [a.bin, "--state-dir", one, "search", last, "--json"]),
        (f"`search {last!r} --include-tools` of one {one_size / 2**30:.2f} GiB transcript", [a.bin, "--state-dir", one, "search", last, "--json", "--include-tools"]),
    ]:
        kb = max_rss_kb(argv, env)
        print(f"| {label} | {kb / 1024:.1f} MB |")
        if kb > RSS_MAX_KB:
            missed.append(f"{label}: {kb / 1024:.1f} MB > 64 MB")
    print()
    print(f"Targets: <= {GREP_MAX}x grep, <= {RG_MAX}x rg, peak RSS <= 64 MB: "
          + ("all met." if not missed else "MISSED: " + "; ".join(missed)))
    if missed and os.environ.get("BENCH_STRICT") == "1":
        sys.exit(3)


if __name__ == "__main__":
    main()
