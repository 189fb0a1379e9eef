#!/usr/bin/env bash
# Benchmarks of `sessions spawn` (docs/PERFORMANCE.md, "## Spawn"): `spawn TASK --json` against a plain
# `list --json` on a 10,000-entry store, and the archive sweep when nothing is due; the harness is
# scripts/bench_spawn.py. Prints markdown on stdout.
#
# env: PEER         openclaw-peer script (default ../shared/peer/openclaw-peer; synth-store makes the store)
#      BIN          the sessions binary (default bin/sessions; built into the work dir when missing)
#      BENCH_WORK   work dir (default .bench/spawn, gitignored; remade on every run)
#      BENCH_RUNS   timed runs per case (default 11), BENCH_WARMUP (default 2)
# Skips with one line (exit 0) when the peer is unavailable (missing, or `openclaw-peer install` exits
# 75) or python3 is missing (scripts/bench_lib.sh). Needs about 150 MB of disk.
set -euo pipefail
BENCH_NAME=bench_spawn BENCH_WORK_DEFAULT=.bench/spawn
source "$(dirname "$0")/bench_lib.sh"
bench_init

echo "## sessions spawn: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
python3 "$ROOT/scripts/bench_spawn.py" --bin "$BIN" --peer "$PEER" --work "$WORK" \
  --runs "${BENCH_RUNS:-11}" --warmup "${BENCH_WARMUP:-2}"
