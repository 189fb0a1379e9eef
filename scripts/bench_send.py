#!/usr/bin/env python3
"""Timing harness of `sessions send` (called by scripts/bench_send.sh).

1. accepted vs list: `send KEY MSG --timeout 0 --json` against a plain `list --json`
   on the same state, round-robin after warm-up runs; wall time of each command
   (fork..exit). After every send the harness waits, untimed, for the detached
   runner to end (its flock on runs/<id>.lock free and the record terminal), so
   no runner competes with the next timed command. Target: send <= 2x list.
2. runner overhead per turn: runs started with SESSIONS_LOG_LEVEL=debug; the
   runner logs one "turn timing" line per turn into runs/<id>.log (wait = our
   session lock, locate = store read to find the entry and transcript,
   history = transcript leaf path, engine = the model, append = transcript
   append under OpenClaw's lock, store = store update under OpenClaw's lock).
   Overhead = everything but "engine". Also the whole run (record startedAt..endedAt,
   turn + announce + run bookkeeping) minus the engine time, and the runner's
   start latency (createdAt..startedAt).

Prints a markdown report on stdout; progress on stderr.
"""
import argparse, json, os, re, sys

import benchlib
from benchlib import log, med, timed, wait_run

benchlib.NAME = "bench_send"


def turn_timings(state, run_id):
    out = []
    path = os.path.join(state, "sessions-cli", "runs", run_id + ".log")
    for line in open(path, encoding="utf-8", errors="replace"):
        if "turn timing" not in line:
            continue
        phases = {}
        for k, v in re.findall(r"(\w+)=(\S+)", line):
            if k in ("wait", "locate", "history", "engine", "append", "store"):
                phases[k] = benchlib.go_ms(v)
        out.append(phases)
    return out


def fmt(x):
    if x != x:
        return "–"
    return f"{x / 1000:.2f} s" if x >= 1000 else (f"{x:.0f} ms" if x >= 10 else f"{x:.1f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--state", required=True)
    ap.add_argument("--small", required=True, help="session key with a small transcript")
    ap.add_argument("--big", required=True, help="session key with a 200 MB transcript")
    ap.add_argument("--provider-url", default="", help="baseUrl of a fake provider already configured in the state")
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "SESSIONS_"))}
    base = [a.bin, "--state-dir", a.state]
    instant = "exec:echo ANNOUNCE_SKIP"  # replies at once; the announce stays silent

    # 1. accepted vs list
    log(f"send --timeout 0 vs list, {a.runs} runs (+{a.warmup} warm-up)")
    t_list, t_send = [], []
    for i in range(a.warmup + a.runs):
        dl, _, _ = timed(base + ["list", "--json"], env)
        ds, out, _ = timed(base + ["send", a.small, f"bench {i}", "--timeout", "0", "--engine", instant, "--json"], env)
        res = json.loads(out)
        if res.get("status") != "accepted":
            sys.exit(f"bench_send: send answered {res}")
        wait_run(a.state, res["runId"])
        if i >= a.warmup:
            t_list.append(dl * 1000)
            t_send.append(ds * 1000)
    ratio = med(t_send) / med(t_list)

    # 2. runner overhead per turn
    denv = dict(env, SESSIONS_LOG_LEVEL="debug")
    scen = [("exec (instant)", instant, a.small), ("exec (instant)", instant, a.big)]
    if a.provider_url:
        # not on the 200 MB transcript: the provider engine sends the whole leaf
        # path as context (a request of ~200 MB; the fake takes at most 64 MB)
        scen.append(("provider (fake on 127.0.0.1)", "provider", a.small))
    rows = []
    for name, eng, key in scen:
        log(f"runner: {name} on {key}, {a.runs} runs")
        turns, runs_over, starts, runs_total, errors = [], [], [], [], 0
        for i in range(a.warmup + a.runs):
            _, out, _ = timed(base + ["send", key, f"bench turn {i}", "--timeout", "0", "--engine", eng, "--json"], denv)
            rid = json.loads(out)["runId"]
            rec = wait_run(a.state, rid)
            if i < a.warmup:
                continue
            if rec["status"] != "ok":
                errors += 1
            tt = turn_timings(a.state, rid)
            for p in tt:
                turns.append(p)
            engine = sum(p.get("engine", 0) for p in tt)
            total = rec["endedAt"] - rec["startedAt"]
            runs_total.append(total)
            runs_over.append(total - engine)
            starts.append(rec["startedAt"] - rec["createdAt"])
        over = [sum(v for k, v in p.items() if k != "engine") for p in turns]
        rows.append({
            "engine": name, "key": key, "turns": len(turns), "errors": errors,
            "per_turn": med(over),
            "phases": {k: med([p.get(k, 0) for p in turns]) for k in ("wait", "locate", "history", "engine", "append", "store")},
            "run_over": med(runs_over), "run_total": med(runs_total), "start": med(starts),
        })

    print(f"### send --timeout 0 vs list ({a.runs} runs, medians)\n")
    print("| command | wall |\n|---|---|")
    print(f"| `sessions list --json` | {fmt(med(t_list))} (min {fmt(min(t_list))}, max {fmt(max(t_list))}) |")
    print(f"| `sessions send {a.small} … --timeout 0 --json` | {fmt(med(t_send))} (min {fmt(min(t_send))}, max {fmt(max(t_send))}) |")
    print(f"\nratio send/list: **{ratio:.2f}** (target <= 2: {'met' if ratio <= 2 else 'MISSED'})\n")
    print(f"### runner overhead per turn ({a.runs} runs each, medians; ms)\n")
    print("| engine | session | overhead/turn | wait | locate | history | append | store | engine (model) | run total | run minus engine | runner start |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        p = r["phases"]
        err = f" ({r['errors']} runs failed)" if r["errors"] else ""
        print(f"| {r['engine']}{err} | `{r['key']}` | **{fmt(r['per_turn'])}** | {fmt(p['wait'])} | {fmt(p['locate'])} | {fmt(p['history'])} | "
              f"{fmt(p['append'])} | {fmt(p['store'])} | {fmt(p['engine'])} | {fmt(r['run_total'])} | {fmt(r['run_over'])} | {fmt(r['start'])} |")
    if any(r["errors"] for r in rows):
        log("some runs failed (see the table): the figures of those rows are not valid")
        return 1
    return 0 if ratio <= 2 else 3


if __name__ == "__main__":
    sys.exit(main())
