"""What the bench harnesses share (scripts/bench_run.py, bench_send.py, bench_spawn.py).

Import it from a script in this directory (`import benchlib`: Python puts the running script's
directory first on sys.path). Progress goes to stderr with the harness's name as prefix; a failed
command ends the harness with that prefix, the command and its stderr.
"""
import fcntl, json, os, re, statistics, subprocess, sys, time

NAME = "bench"  # the prefix of log lines and errors; each harness sets its own


def log(*a):
    print(f"{NAME}:", *a, file=sys.stderr, flush=True)


def timed(cmd, env):
    """Runs cmd to its end; returns (wall seconds fork..exit, stdout, stderr). A failure ends the harness."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{NAME}: {' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()[-2000:]}")
    return dt, p.stdout, p.stderr


def wait_run(state, run_id, limit=600):
    """Waits until the run's record is terminal and its detached runner has ended (the flock on
    runs/<id>.lock is free), so no runner competes with the next timed command; returns the record."""
    runs = os.path.join(state, "sessions-cli", "runs")
    rec_path, lock_path = os.path.join(runs, run_id + ".json"), os.path.join(runs, run_id + ".lock")
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            rec = json.load(open(rec_path))
        except (OSError, ValueError):
            rec = None
        if rec and rec.get("status") in ("ok", "error", "timeout") and os.path.exists(lock_path):
            fd = os.open(lock_path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return rec
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.02)
    sys.exit(f"{NAME}: run {run_id} did not end within {limit}s")


UNIT = {"ns": 1e-6, "µs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}


def go_ms(d):
    """A Go duration as the debug log prints it (1.5s, 169.46ms, 320µs, 1m2.5s) in milliseconds."""
    parts = re.findall(r"([0-9.]+)(ns|µs|us|ms|s|m|h)", d)
    if not parts:
        raise ValueError(d)
    return sum(float(n) * UNIT[u] for n, u in parts)


def med(xs):
    """The median, NaN for no samples."""
    return statistics.median(xs) if xs else float("nan")
