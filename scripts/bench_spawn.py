#!/usr/bin/env python3
"""Timing harness of `sessions spawn` and of the archive sweep every command does.

Usage: scripts/bench_spawn.py --bin BIN --peer PEER --work DIR [--runs N] [--warmup W]

1. spawn vs list on a 10,000-entry store (openclaw-peer synth-store from the
   fixture's main store): `spawn TASK --json` (exec engine answering at once)
   against a plain `list --json` on the same state, round-robin after warm-up
   runs, wall time of each command (fork..exit). After every spawn the
   harness waits, untimed, for the detached runner to end (its flock free and
   the record terminal) so no runner competes with the next timed command.
   Target: spawn <= 2x list. The debug log of each spawn gives the phases of
   the child's insert under OpenClaw's store lock.
2. the sweep when nothing is due: `list --json` on the fixture state (small
   store) and on the 10k state, with no archive index vs with an index of
   100 pending children (none due), round-robin. Target: < 5% of a list.

Prints a markdown report on stdout; progress on stderr.
"""
import argparse, json, os, re, shutil, statistics, subprocess

import benchlib
from benchlib import log, timed, wait_run

benchlib.NAME = "bench_spawn"


def stats(xs):
    xs = sorted(xs)
    return {"median": statistics.median(xs), "min": xs[0], "p90": xs[int(0.9 * (len(xs) - 1))], "n": len(xs)}


def fmt(s):
    return f"{s['median']*1e3:.1f} ms (min {s['min']*1e3:.1f}, p90 {s['p90']*1e3:.1f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=2)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fixture = os.path.join(root, "testdata", "state-2026.1.30")
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, SESSIONS_LOG_LEVEL="debug", NO_COLOR="1")
    env.pop("OPENCLAW_SESSION_KEY", None)
    engine = os.path.join(work, "engine.sh")
    with open(engine, "w") as f:
        f.write("cat >/dev/null\necho ANNOUNCE_SKIP\n")

    # 1. spawn vs list, 10k entries
    big = os.path.join(work, "state10k")
    shutil.rmtree(big, ignore_errors=True)
    shutil.copytree(fixture, big)
    store = os.path.join(big, "agents", "main", "sessions", "sessions.json")
    log("synth-store 10000 entries")
    subprocess.run([a.peer, "synth-store", "--from", os.path.join(fixture, "agents/main/sessions/sessions.json"),
                    "--count", "10000", "--out", store], check=True, stdout=subprocess.DEVNULL)
    size = os.path.getsize(store)
    lst = [a.bin, "--state-dir", big, "list", "--json"]
    spw = [a.bin, "--state-dir", big, "spawn", "bench task", "--engine", "exec:sh " + engine, "--json"]
    L, S, phases = [], [], []
    for i in range(a.warmup + a.runs):
        dl, _, _ = timed(lst, env)
        ds, out, err = timed(spw, env)
        run_id = json.loads(out)["runId"]
        m = re.search(r"child session created .*", err.decode())
        if m:
            phases.append({k: benchlib.go_ms(v) for k, v in re.findall(r"(lockWait|held|read|write)=(\S+)", m.group(0))})
        wait_run(big, run_id)
        if i >= a.warmup:
            L.append(dl)
            S.append(ds)
        log(f"round {i}: list {dl*1e3:.0f} ms, spawn {ds*1e3:.0f} ms")
    ls, ss = stats(L), stats(S)
    ratio = ss["median"] / ls["median"]
    ph = {k: statistics.median(p[k] for p in phases[a.warmup:] if k in p) for k in ("lockWait", "held", "read", "write")}

    # 2. the sweep with nothing due
    def sweep_case(state, label):
        idx = os.path.join(state, "sessions-cli", "archive-index.json")
        entries = [{"runId": f"00000000-0000-4000-8000-{i:012d}", "childKey": f"agent:main:subagent:{i}", "agent": "main",
                    "archiveAtMs": 4102444800000 + i} for i in range(100)]
        cmd = [a.bin, "--state-dir", state, "list", "--json"]
        without, with_ = [], []
        for i in range(a.warmup + 2 * a.runs):
            try:
                os.remove(idx)
            except FileNotFoundError:
                pass
            d0, _, _ = timed(cmd, env)
            os.makedirs(os.path.dirname(idx), exist_ok=True)
            with open(idx, "w") as f:
                json.dump({"version": 1, "nextAtMs": entries[0]["archiveAtMs"], "entries": entries}, f, indent=2)
            d1, _, _ = timed(cmd, env)
            if i >= a.warmup:
                without.append(d0)
                with_.append(d1)
        w0, w1 = stats(without), stats(with_)
        return label, w0, w1, (w1["median"] - w0["median"]) / w0["median"]

    small = os.path.join(work, "statesmall")
    shutil.rmtree(small, ignore_errors=True)
    shutil.copytree(fixture, small)
    sweeps = [sweep_case(small, "fixture store (9 entries)"), sweep_case(big, "10,000 entries")]

    print("| | median wall time |")
    print("|---|---|")
    print(f"| `list --json`, {size/1e6:.1f} MB store | {fmt(ls)} |")
    print(f"| `spawn TASK --json`, same state | {fmt(ss)} |")
    print(f"| ratio spawn / list | **{ratio:.2f}x** (target <= 2x) |")
    print()
    print(f"spawn's insert under OpenClaw's store lock (median of the debug log): held {ph['held']:.0f} ms = read+scan "
          f"{ph['read']:.0f} ms + write {ph['write']:.0f} ms (temp file, fsync, rename, dir fsync); lock wait {ph['lockWait']:.2f} ms.")
    print()
    print("| sweep, nothing due | `list --json` without index | with 100 pending children | difference |")
    print("|---|---|---|---|")
    for label, w0, w1, d in sweeps:
        print(f"| {label} | {fmt(w0)} | {fmt(w1)} | {d*100:+.1f}% (target < 5%) |")


if __name__ == "__main__":
    main()
