#!/usr/bin/env python3
"""Timing harness and report of `make bench` (called by scripts/bench.sh).

Runs every command of a group round-robin (so background load hits them alike),
after warm-up runs, each as a child forked by a small spawner process and reaped
with os.wait4: wall time (time.perf_counter around fork..wait4), CPU time
(ru_utime + ru_stime) and peak RSS (ru_maxrss) of that one child. Figures are
medians over the runs; peak RSS is also given as the maximum. Before timing,
every command runs once with its stdout captured and checked (exit 0, the JSON
it should print), so a broken command cannot look fast.

Prints the markdown report on stdout and writes it, with the raw samples as JSON,
to WORK/report.md and WORK/results.json. Progress goes to stderr.
"""
import argparse, json, os, platform, statistics, subprocess, sys, time

from benchlib import log  # benchlib.NAME is "bench"

# The spawner: a small separate Python process that forks and execs each command and reports
# wall time, CPU time and peak RSS of that child. A child's ru_maxrss includes the RSS of the
# process it was forked from (Linux keeps the larger of the pre-exec and post-exec peaks), so
# spawning from this harness (tens of MB) would hide small figures; the spawner stays at about
# 5 MB, the floor of every RSS figure.
SPAWNER = r"""
import json, os, sys, time
null = os.open(os.devnull, os.O_WRONLY)
for line in sys.stdin:
    r = json.loads(line)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            if r.get("cwd"):
                os.chdir(r["cwd"])
            os.dup2(null, 1)
            os.execve(r["argv"][0], r["argv"], r["env"])
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.perf_counter()
    print(json.dumps({"wall": t1 - t0, "cpu": ru.ru_utime + ru.ru_stime, "rss": ru.ru_maxrss,
                      "code": os.waitstatus_to_exitcode(status)}), flush=True)
"""


class Spawner:
    def __init__(self):
        self.p = subprocess.Popen([sys.executable, "-I", "-S", "-c", SPAWNER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env={})

    def run(self, argv, env, cwd=None):
        self.p.stdin.write(json.dumps({"argv": argv, "env": env, "cwd": cwd}) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())


SPAWN = None


class Cmd:
    def __init__(self, name, argv, runs, env=None, check=None, cwd=None):
        self.name, self.argv, self.runs, self.env, self.check, self.cwd = name, argv, runs, env, check, cwd
        self.wall, self.cpu, self.rss = [], [], []

    def spawn_once(self):
        r = SPAWN.run(self.argv, dict(self.env if self.env is not None else os.environ), self.cwd)
        if r["code"] != 0:
            raise SystemExit(f"bench: {self.name} exited {r['code']}: {' '.join(self.argv)}")
        return r["wall"], r["cpu"], r["rss"]  # ru_maxrss: KiB on Linux

    def verify(self):
        p = subprocess.run(self.argv, env=self.env, cwd=self.cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise SystemExit(f"bench: {self.name} exited {p.returncode}: {' '.join(self.argv)}\n{p.stderr.decode(errors='replace')[-2000:]}")
        self.out_bytes = len(p.stdout)
        if self.check:
            err = self.check(p.stdout)
            if err:
                raise SystemExit(f"bench: {self.name}: unexpected output: {err}")

    def med(self, what="wall"):
        return statistics.median(getattr(self, what))


def run_group(title, cmds, warmup):
    log(f"{title}: checking outputs")
    for c in cmds:
        c.verify()
    log(f"{title}: {warmup} warm-up round(s)")
    for _ in range(warmup):
        for c in cmds:
            c.spawn_once()
    rounds = max(c.runs for c in cmds)
    for r in range(rounds):
        for c in cmds:
            if r < c.runs:
                w, cpu, rss = c.spawn_once()
                c.wall.append(w)
                c.cpu.append(cpu)
                c.rss.append(rss)
        if r == 0 or (r + 1) % 5 == 0 or r + 1 == rounds:
            log(f"{title}: round {r + 1}/{rounds}")


def json_check(fn):
    def check(out):
        try:
            doc = json.loads(out)
        except ValueError as e:
            return f"not JSON ({e})"
        return fn(doc)
    return check


def count_is(n):
    return json_check(lambda d: None if d.get("count") == n and len(d.get("sessions", [])) == n else f"count {d.get('count')}, want {n}")


def messages_ok(d):
    if not isinstance(d.get("messages"), list) or not d["messages"]:
        return "no messages"
    return None


def list_msgs(n, per):
    def f(d):
        if d.get("count") != n:
            return f"count {d.get('count')}, want {n}"
        short = [s["key"] for s in d["sessions"] if len(s.get("messages") or []) != per]
        return f"{len(short)} sessions without {per} messages, e.g. {short[:3]}" if short else None
    return json_check(f)


def ms(s):
    return f"{s * 1000:.1f} ms" if s < 10 else f"{s:.2f} s"


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    go = subprocess.run(["go", "version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip() or "?"
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / (1 << 20):.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "go": go, "mem": mem, "kernel": platform.release(),
            "python": platform.python_version()}


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--oc-env", required=True, help="JSON file: the environment for openclaw")
    ap.add_argument("--node", required=True)
    ap.add_argument("--oc", required=True, help="openclaw.mjs")
    ap.add_argument("--hist-keys", required=True, help="KEY200K,KEY200M,KEY1G")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--oc-runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    global SPAWN
    SPAWN = Spawner()
    W, B = a.work, a.bin
    with open(a.oc_env) as f:
        oc_env = json.load(f)
    go_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "CLAWDBOT_"))}
    go_env["NO_COLOR"] = "1"
    s10k = os.path.join(W, "list10k")
    store10k = os.path.join(s10k, "agents", "main", "sessions", "sessions.json")
    hist = os.path.join(W, "history")
    m1k = os.path.join(W, "msgs1k")
    k200k, k200m, k1g = a.hist_keys.split(",")
    load0 = loadavg()
    t0 = time.time()

    def sess(*args, **kw):
        return [B, "--state-dir", kw.pop("state")] + list(args)

    cat = Cmd("cat store >/dev/null", ["/bin/cat", store10k], a.runs, env=go_env)
    l200 = Cmd("sessions list --json", sess("list", "--json", state=s10k), a.runs, env=go_env, check=count_is(200))
    l10k = Cmd("sessions list --json --limit 10000", sess("list", "--json", "--limit", "10000", state=s10k), a.runs,
               env=go_env, check=count_is(10000))
    oc = Cmd("openclaw sessions --json --store …", [a.node, a.oc, "sessions", "--json", "--store", store10k], a.oc_runs,
             env=oc_env, check=json_check(lambda d: None if d.get("count") == 10000 else f"count {d.get('count')}"),
             cwd=os.path.join(W, "oc-home"))
    run_group("list 10k", [cat, l200, l10k, oc], a.warmup)

    h_small = Cmd("history 200 KB", sess("history", k200k, "--limit", "50", "--json", state=hist), a.runs, env=go_env, check=json_check(messages_ok))
    h_big = Cmd("history 200 MB", sess("history", k200m, "--limit", "50", "--json", state=hist), a.runs, env=go_env, check=json_check(messages_ok))
    h_1g = Cmd("history 1 GB", sess("history", k1g, "--limit", "50", "--json", state=hist), a.runs, env=go_env, check=json_check(messages_ok))
    run_group("history", [h_small, h_big, h_1g], a.warmup)

    plain = Cmd("list --limit 1000", sess("list", "--limit", "1000", "--json", state=m1k), a.runs, env=go_env, check=count_is(1000))
    msgs = Cmd("list --messages 3 --limit 1000", sess("list", "--messages", "3", "--limit", "1000", "--json", state=m1k), a.runs,
               env=go_env, check=list_msgs(1000, 3))
    run_group("messages", [plain, msgs], a.warmup)

    size = lambda p: os.path.getsize(p)
    hist_store = json.load(open(os.path.join(hist, "agents", "main", "sessions", "sessions.json")))
    tsize = {}
    for k in (k200k, k200m, k1g):
        e = hist_store[k]
        p = e.get("sessionFile") or os.path.join(hist, "agents", "main", "sessions", e["sessionId"] + ".jsonl")
        tsize[k] = size(p)

    results = []  # (target, measured, limit, pass)

    def target(name, value, limit, ok, how, best="", cpu=""):
        results.append({"target": name, "value": value, "limit": limit, "pass": ok, "how": how,
                        "best": best, "cpu": cpu})

    for c in (l200, l10k):
        r = oc.med() / c.med()
        target(f"`{c.name}` ≥ 75× faster than openclaw", f"{r:.0f}×", "≥ 75×", r >= 75,
               f"{ms(oc.med())} / {ms(c.med())}", f"{min(oc.wall) / min(c.wall):.0f}×",
               f"{oc.med('cpu') / c.med('cpu'):.0f}×")
    for c in (l200, l10k):
        r = c.med() / cat.med()
        target(f"`{c.name}` within 5× of cat", f"{r:.1f}×", "≤ 5×", r <= 5, f"{ms(c.med())} / {ms(cat.med())}",
               f"{min(c.wall) / min(cat.wall):.1f}×", f"{c.med('cpu') / cat.med('cpu'):.1f}×")
    r = h_big.med() / h_small.med()
    target("history --limit 50: 200 MB within 1.5× of 200 KB", f"{r:.2f}×", "≤ 1.5×", r <= 1.5,
           f"{ms(h_big.med())} / {ms(h_small.med())}", f"{min(h_big.wall) / min(h_small.wall):.2f}×",
           f"{h_big.med('cpu') / h_small.med('cpu'):.2f}×")
    peak = max(h_1g.rss) / 1024
    target("history --limit 50 on 1 GB: peak RSS", f"{peak:.1f} MB", "≤ 30 MB", peak <= 30,
           f"max of {len(h_1g.rss)} runs (median {statistics.median(h_1g.rss) / 1024:.1f} MB)")
    r = msgs.med() / plain.med()
    target("list --messages 3 vs plain, 1,000 sessions", f"{r:.2f}×", "≤ 3×", r <= 3,
           f"{ms(msgs.med())} / {ms(plain.med())}", f"{min(msgs.wall) / min(plain.wall):.2f}×",
           f"{msgs.med('cpu') / plain.med('cpu'):.2f}×")

    m = machine()
    L = []
    p = L.append
    p(f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(t0))}, took {time.time() - t0:.0f} s. "
      f"Machine: {m['nproc']} CPUs ({m['cpu']}), {m['mem']} RAM, Linux {m['kernel']}; {m['go']}; "
      f"load average {load0} at the start, {loadavg()} at the end.")
    p("")
    p(f"Runs per command: {a.runs} (openclaw: {a.oc_runs}), after {a.warmup} warm-up round(s), interleaved; "
      "medians. CPU = user + sys of the child; RSS = its peak resident set (ru_maxrss; about 5 MB is the floor "
      "of the spawner it is forked from).")
    p("")
    p("| group | command | median wall | min wall | median CPU | peak RSS (median / max) | stdout |")
    p("|---|---|---:|---:|---:|---:|---:|")

    def row(group, c):
        p(f"| {group} | `{c.name}` | {ms(c.med())} | {ms(min(c.wall))} | {ms(c.med('cpu'))} | "
          f"{statistics.median(c.rss) / 1024:.1f} / {max(c.rss) / 1024:.1f} MB | {c.out_bytes / 1e6:.2f} MB |")

    for c in (cat, l200, l10k, oc):
        row(f"10k store ({size(store10k) / 1e6:.1f} MB)", c)
    for c, k in ((h_small, k200k), (h_big, k200m), (h_1g, k1g)):
        row(f"transcript {tsize[k] / 1e6:,.1f} MB", c)
    for c in (plain, msgs):
        row("1,000 sessions × 1 MB", c)
    p("")
    p("Result on the median wall times (the ratio from the fastest runs and from the median CPU times are "
      "given beside it: they show how much other load on the machine moved the medians).")
    p("")
    p("| target | measured (median wall) | limit | result | from | on min wall | on median CPU |")
    p("|---|---:|---:|:---:|---|---:|---:|")
    for r in results:
        p(f"| {r['target']} | {r['value']} | {r['limit']} | {'pass' if r['pass'] else '**FAIL**'} | {r['how']} | "
          f"{r['best']} | {r['cpu']} |")
    report = "\n".join(L) + "\n"
    sys.stdout.write(report)
    with open(os.path.join(W, "report.md"), "w") as f:
        f.write(report)
    with open(os.path.join(W, "results.json"), "w") as f:
        json.dump({"machine": m, "targets": results, "commands": [
            {"name": c.name, "argv": c.argv, "wall": c.wall, "cpu": c.cpu, "rss_kib": c.rss}
            for c in (cat, l200, l10k, oc, h_small, h_big, h_1g, plain, msgs)]}, f, indent=1)
    return 0 if all(r["pass"] for r in results) else 3


if __name__ == "__main__":
    sys.exit(main())
