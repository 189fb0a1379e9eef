#!/usr/bin/env bash
# make bench: `sessions` side by side with the real OpenClaw 2026.1.30 (the test peer) and with cat,
# on generated data; prints a markdown report (see docs/PERFORMANCE.md).
#
# env: PEER   openclaw-peer script (default ../shared/peer/openclaw-peer)
#      BIN    the sessions binary (default bin/sessions; built into the work dir when missing)
#      BENCH_WORK    work dir (default .bench/, gitignored; data is generated once and reused)
#      BENCH_RUNS    timed runs per sessions/cat command (default 21)
#      BENCH_OC_RUNS timed runs of openclaw (default 5; each takes seconds)
#      BENCH_WARMUP  warm-up rounds (default 2)
#      BENCH_STRICT=1  exit 3 when a target is missed (default: report only)
# Skips with one line (exit 0) when the peer is unavailable (`openclaw-peer install` exits 75).
# Needs about 2.5 GB of disk in the work dir. No hyperfine: scripts/bench_run.py times the runs.
set -euo pipefail
BENCH_NAME=bench BENCH_WORK_DEFAULT=.bench
source "$(dirname "$0")/bench_lib.sh"
bench_init

# A state dir: the fixture's config, with logging.file moved inside the work dir (the fixture's points
# to /home/claw), and a synthetic main store of N entries cloned from the fixture's real ones.
make_state() { # dir count
  local d=$1 n=$2
  mkdir -p "$d/agents/main/sessions"
  python3 - "$FIXTURE/openclaw.json" "$d/openclaw.json" "$WORK/oc-home/openclaw.log" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.setdefault("logging", {})["file"] = sys.argv[3]
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
  "$PEER" synth-store --from "$FIXTURE/agents/main/sessions/sessions.json" --count "$n" \
    --out "$d/agents/main/sessions/sessions.json" --with-transcripts >/dev/null
}
# Data sets are generated once and reused; the version in the mark changes when the generator does.
done_mark() { [ -f "$1/.bench-$2" ]; } # dir version
mark() { touch "$1/.bench-$2"; }
fresh() { rm -rf "$1"; mkdir -p "$1"; }
mkdir -p "$WORK/oc-home/tmp"

# 1. 10,000 entries (~54 MB, ~5.4 KB each), with their (small) transcripts.
if ! done_mark "$WORK/list10k" v1; then
  log "generating a 10,000-entry store (openclaw-peer synth-store)"
  fresh "$WORK/list10k"; make_state "$WORK/list10k" 10000; mark "$WORK/list10k" v1
fi

# 2. A 100-entry state whose keys agent:main:synthetic:s0/s8/s16 (the clones of agent:main:main) point
#    at transcripts of 200 KB, 200 MB and 1 GB.
HKEYS=agent:main:synthetic:s0,agent:main:synthetic:s8,agent:main:synthetic:s16
if ! done_mark "$WORK/history" v2; then
  log "generating 200 KB, 200 MB and 1 GB transcripts"
  fresh "$WORK/history"; make_state "$WORK/history" 100
  st=$WORK/history/agents/main/sessions/sessions.json
  for kv in s0:200K s8:200M s16:1G; do
    sid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["agent:main:synthetic:"+sys.argv[2]]["sessionId"])' "$st" "${kv%%:*}")
    python3 "$ROOT/scripts/gen_transcripts.py" one --source "$FIXTURE" --bytes "${kv#*:}" --session-id "$sid" \
      --out "$WORK/history/agents/main/sessions/$sid.jsonl" >/dev/null
  done
  mark "$WORK/history" v2
fi

# 3. 1,000 sessions, each with a 1 MB transcript.
if ! done_mark "$WORK/msgs1k" v2; then
  log "generating 1,000 sessions with 1 MB transcripts"
  fresh "$WORK/msgs1k"; make_state "$WORK/msgs1k" 1000
  python3 "$ROOT/scripts/gen_transcripts.py" store --source "$FIXTURE" --bytes 1M \
    --store "$WORK/msgs1k/agents/main/sessions/sessions.json" >/dev/null
  mark "$WORK/msgs1k" v2
fi

# OpenClaw runs on Node directly, as the peer's own lib/bench.sh does (no bash wrapper in the timing),
# in the environment `openclaw-peer run` gives it: isolated HOME/TMPDIR, nothing inherited that could
# point it at a real installation, and the bench state dir (for its config).
python3 - "$WORK/oc-env.json" "$WORK/list10k" <<PY
import json, os, subprocess, sys
env = {k: v for k, v in os.environ.items()
       if not (k.startswith(("OPENCLAW_", "CLAWDBOT_", "MOLTBOT_", "MOLDBOT_", "PI_")) or k == "NODE_OPTIONS"
               or (k.startswith("XDG_") and k.endswith("_HOME")))}
out = subprocess.run(["bash", "-c", 'eval "\$("\$1" env --home "\$2")" && env -0', "-", "$PEER", "$WORK/oc-home"],
                     env=env, check=True, stdout=subprocess.PIPE).stdout
env = dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)
env["OPENCLAW_STATE_DIR"] = sys.argv[2]
json.dump(env, open(sys.argv[1], "w"))
PY
node=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["OPENCLAW_PEER_NODE"])' "$WORK/oc-env.json")
oc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["OPENCLAW_PEER_OC_DIR"])' "$WORK/oc-env.json")/openclaw.mjs

rc=0
python3 "$ROOT/scripts/bench_run.py" --work "$WORK" --bin "$BIN" --oc-env "$WORK/oc-env.json" --node "$node" --oc "$oc" \
  --hist-keys "$HKEYS" --runs "${BENCH_RUNS:-21}" --oc-runs "${BENCH_OC_RUNS:-5}" --warmup "${BENCH_WARMUP:-2}" || rc=$?
if [ "$rc" -eq 3 ]; then
  log "some targets were missed (see the table)"
  [ "${BENCH_STRICT:-0}" = 1 ] || rc=0
fi
exit "$rc"
