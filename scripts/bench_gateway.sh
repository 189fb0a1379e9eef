#!/usr/bin/env bash
# The gateway read benchmarks (docs/PERFORMANCE.md, "## Over the gateway"), against REAL gateways of the
# peer on loopback:
#   1. `sessions --gateway URL list --json` beside OpenClaw's own `openclaw gateway call sessions.list`
#      on the same gateway (2026.1.30 on a copy of testdata/state-2026.1.30, and 2026.9.6);
#   2. `sessions --context all list --json` over 3 gateways beside the slowest single one.
# Prints markdown on stdout; every gateway it starts is stopped on exit.
#
# env: PEER, BIN, BENCH_WORK (default .bench/gateway), BENCH_RUNS (default 11), BENCH_OC_RUNS (default 3).
set -euo pipefail
BENCH_NAME=bench_gateway BENCH_WORK_DEFAULT=.bench/gateway
source "$(dirname "$0")/bench_lib.sh"
bench_init
RUNS=${BENCH_RUNS:-11}
OC_RUNS=${BENCH_OC_RUNS:-3}
HOMES=()
cleanup() { for h in "${HOMES[@]}"; do "$PEER" gateway stop --home "$h" >/dev/null 2>&1 || true; done; }
trap cleanup EXIT

# start NAME VERSION [STATE]: a gateway; sets URL_NAME and TOK_NAME.
start() {
  local name=$1 version=$2 home=$WORK/$1 extra=()
  rm -rf "$home" && mkdir -p "$home"
  if [ -n "${3:-}" ]; then rm -rf "$home/state" && cp -a "$3" "$home/state" && extra=(--state "$home/state"); fi
  HOMES+=("$home")
  local j
  j=$("$PEER" gateway start --version "$version" --home "$home" --max-seconds 1800 "${extra[@]}")
  printf -v "URL_$name" '%s' "$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')"
  printf -v "TOK_$name" '%s' "$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')"
}

# median SECONDS of RUNS runs of a command (its output discarded; a failure stops the bench).
median() {
  local runs=$1; shift
  python3 - "$runs" "$@" <<'PY'
import subprocess, sys, time, statistics
runs = int(sys.argv[1]); cmd = sys.argv[2:]
ts = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append(time.perf_counter() - t)
print(f"{statistics.median(ts):.3f}")
PY
}

log "starting gateways (2026.1.30 on the fixture, 2026.9.6, a second 2026.1.30)"
start a 2026.1.30 "$FIXTURE"
start b 2026.9.6
start c 2026.1.30 "$FIXTURE"
export XDG_CONFIG_HOME=$WORK/cfg
rm -rf "$XDG_CONFIG_HOME"
export TOK_a TOK_b TOK_c
for n in a b c; do
  u=URL_$n
  "$BIN" context add "$n" --gateway "${!u}" --token-env "TOK_$n" >/dev/null
done
unset OPENCLAW_GATEWAY_URL OPENCLAW_GATEWAY_TOKEN OPENCLAW_STATE_DIR OPENCLAW_SESSION_KEY

echo "## Over the gateway: $(date -u +%F), $(nproc) CPU, $(uname -sr), $(cd "$ROOT" && go version | cut -d' ' -f3)"
echo
echo "| | OpenClaw 2026.1.30 (fixture, $("$BIN" --context a list --limit all --json --jq .count) sessions) | OpenClaw 2026.9.6 ($("$BIN" --context b list --limit all --json --jq .count) sessions) |"
echo "|---|---|---|"
ours_a=$(median "$RUNS" env OPENCLAW_GATEWAY_TOKEN="$TOK_a" "$BIN" --gateway "$URL_a" list --json)
ours_b=$(median "$RUNS" env OPENCLAW_GATEWAY_TOKEN="$TOK_b" "$BIN" --gateway "$URL_b" list --json)
oc_a=$(median "$OC_RUNS" "$PEER" gateway call --home "$WORK/a" sessions.list --params '{}' --json)
oc_b=$(median "$OC_RUNS" "$PEER" gateway call --home "$WORK/b" sessions.list --params '{}' --json)
echo "| \`sessions --gateway URL list --json\` (median of $RUNS) | ${ours_a} s | ${ours_b} s |"
echo "| \`openclaw gateway call sessions.list\` (median of $OC_RUNS) | ${oc_a} s | ${oc_b} s |"
echo "| ratio | $(python3 -c "print(f'{$oc_a/$ours_a:.0f}×')") | $(python3 -c "print(f'{$oc_b/$ours_b:.0f}×')") |"
echo
s_a=$ours_a s_b=$ours_b
s_c=$(median "$RUNS" "$BIN" --context c list --json)
all=$(median "$RUNS" "$BIN" --context all list --json)
slowest=$(python3 -c "print(max($s_a,$s_b,$s_c))")
echo "| \`list --json\`, median of $RUNS | a (1.30) | b (9.6) | c (1.30) | \`--context all\` | all / slowest |"
echo "|---|---|---|---|---|---|"
echo "| seconds | $s_a | $s_b | $s_c | $all | $(python3 -c "print(f'{$all/$slowest:.2f}×')") |"
