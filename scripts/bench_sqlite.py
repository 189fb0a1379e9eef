"""sessions list vs the real openclaw@2026.9.6 `sessions --json` on one 10,000-session SQLite store
(scripts/bench_sqlite.sh), and the floor: the native sqlite3 shell selecting the rows' entry_json to
/dev/null. Round-robin, wall time per process, medians."""
import argparse, json, os, subprocess, sys

import benchlib
from benchlib import log, med, timed

benchlib.NAME = "bench_sqlite"

ap = argparse.ArgumentParser()
for a in ("--bin", "--state", "--oc-state", "--node", "--openclaw", "--home"):
    ap.add_argument(a, required=True)
ap.add_argument("--sqlite3", default="", help="the sqlite3 shell for the floor (none: no floor row)")
ap.add_argument("--db", default="", help="agent main's database, for the floor")
ap.add_argument("--bin-before", default="", help="an earlier sessions binary, timed beside (before/after)")
ap.add_argument("--runs", type=int, default=11)
ap.add_argument("--oc-runs", type=int, default=5)
o = ap.parse_args()

ours_env = {"PATH": os.environ["PATH"], "HOME": o.home, "NO_COLOR": "1"}
oc_env = dict(ours_env, TMPDIR=o.home, OPENCLAW_STATE_DIR=o.oc_state, OPENCLAW_NO_RESPAWN="1",
              OPENCLAW_DISABLE_BONJOUR="1")
cases = [
    ("`sessions list --all-agents --json`", [o.bin, "--state-dir", o.state, "list", "--all-agents", "--json"], ours_env, o.runs, 200),
    ("`sessions list --all-agents --limit all --json`", [o.bin, "--state-dir", o.state, "list", "--all-agents", "--limit", "all", "--json"], ours_env, o.runs, 10001),
    ("`openclaw sessions --json --all-agents --limit all` (2026.9.6)", [o.node, o.openclaw, "sessions", "--json", "--all-agents", "--limit", "all"], oc_env, o.oc_runs, 10001),
]
if o.bin_before:
    cases.append(("`sessions list --all-agents --limit all --json` (before)", [o.bin_before, "--state-dir", o.state, "list", "--all-agents", "--limit", "all", "--json"], ours_env, o.runs, 10001))
FLOOR = "`sqlite3 -readonly DB 'SELECT entry_json FROM session_nodes' >/dev/null` (floor)"
if o.sqlite3:
    # The shell's own output goes straight to /dev/null (not through a pipe to this harness).
    cases.append((FLOOR, ["sh", "-c", 'exec "$0" -readonly "$1" "SELECT entry_json FROM session_nodes" >/dev/null', o.sqlite3, o.db], ours_env, o.runs, None))
# Check the outputs first: a broken command must not look fast.
for name, cmd, env, _, want in cases:
    _, out, _ = timed(cmd, env)
    if want is None:
        continue
    got = json.loads(out)["count"]
    if got != want:
        sys.exit(f"bench_sqlite: {name}: count {got}, want {want}")
times = {name: [] for name, *_ in cases}
for r in range(max(c[3] for c in cases) + 1):
    for name, cmd, env, runs, _ in cases:
        if r <= runs:
            dt, _, _ = timed(cmd, env)
            if r > 0:  # round 0 warms up
                times[name].append(dt * 1000)
    log(f"round {r}")


def peak_rss(cmd, env):
    """The peak resident set (MB) of one run of cmd, its output to /dev/null."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return ru.ru_maxrss / 1024


rss = {name: peak_rss(cmd, env) for name, cmd, env, *_ in cases}
oc = med(times[cases[2][0]])
print("| command | median wall | min wall | runs | peak RSS |")
print("|---|---:|---:|---:|---:|")
for name, *_ in cases:
    print(f"| {name} | {med(times[name]):.1f} ms | {min(times[name]):.1f} ms | {len(times[name])} | {rss[name]:.0f} MB |")
print()
for name in [c[0] for c in cases[:2]] + [c[0] for c in cases[3:] if c[4] is not None]:
    print(f"- {name}: **{oc / med(times[name]):.1f}×** faster than OpenClaw 2026.9.6")
if o.sqlite3:
    floor = med(times[FLOOR])
    for name in [c[0] for c in cases[:2]] + [c[0] for c in cases[3:] if c[4] is not None]:
        print(f"- {name}: **{med(times[name]) / floor:.2f}×** the sqlite3 floor")
