# Sourced by the bench scripts (bench.sh, bench_send.sh, bench_spawn.sh) after they set BENCH_NAME
# (the prefix of their messages) and BENCH_WORK_DEFAULT (their work dir under .bench/).
#
# Sets ROOT, PEER (default ../shared/peer/openclaw-peer), BIN (default bin/sessions), FIXTURE and
# WORK (BENCH_WORK or BENCH_WORK_DEFAULT, made absolute), and log(). bench_init skips the bench with
# one line and exit 0 when the peer is unavailable (missing, or `openclaw-peer install` exits 75) or
# python3 is missing, and builds the sessions binary into WORK when BIN does not exist.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PEER=${PEER:-$ROOT/../shared/peer/openclaw-peer}
BIN=${BIN:-$ROOT/bin/sessions}
WORK=${BENCH_WORK:-$ROOT/$BENCH_WORK_DEFAULT}
FIXTURE=$ROOT/testdata/state-2026.1.30
log() { echo "$BENCH_NAME: $*" >&2; }

bench_init() {
  if [ ! -x "$PEER" ]; then echo "$BENCH_NAME: skipped ($PEER not found)"; exit 0; fi
  local rc=0
  "$PEER" install >/dev/null 2>&1 || rc=$?
  if [ "$rc" -eq 75 ]; then echo "$BENCH_NAME: skipped (OpenClaw peer unavailable: $PEER install exited 75)"; exit 0; fi
  if [ "$rc" -ne 0 ]; then echo "$BENCH_NAME: $PEER install failed (exit $rc)" >&2; exit "$rc"; fi
  command -v python3 >/dev/null 2>&1 || { echo "$BENCH_NAME: skipped (python3 not found)"; exit 0; }
  mkdir -p "$WORK"
  WORK=$(cd "$WORK" && pwd)
  if [ ! -x "$BIN" ]; then
    log "$BIN not found; building it"
    (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$WORK/sessions" ./cmd/sessions)
    BIN=$WORK/sessions
  fi
}
