#!/usr/bin/env python3
"""Write large, realistic OpenClaw 2026.1.30 transcripts for the benchmarks.

Every line is a real line of the fixture transcripts (testdata/state-2026.1.30),
replayed in its original order (user -> assistant -> toolCall -> toolResult -> ...)
with a fresh 8-hex `id`, `parentId` = the previous line's id, and increasing
timestamps, after the header OpenClaw writes (`"id"` = the sessionId), up to the end
of the turn (an assistant reply before a user message) in which N bytes are reached. One
toolResult in 10 (at random) gets a large output (real tool output text repeated, in
`content[0].text` and, for exec results, `details.aggregated` too, as OpenClaw
stores it): mostly 16-256 KB, and one in 20 of those 2 MB (over the reader's 1 MB
"big line" threshold). So the tail of a 200 KB and of a 1 GB file look alike.

usage:
  gen_transcripts.py one   --source STATE --out FILE --bytes N --session-id ID [--seed S]
  gen_transcripts.py store --source STATE --store sessions.json --bytes N [--seed S]
      (one transcript per entry: its sessionFile, else <store dir>/<sessionId>.jsonl)
Sizes: N accepts K, M, G suffixes (powers of 1024). Output is written to FILE.tmp and
renamed, so an interrupted run leaves nothing half-written.
"""
import argparse, glob, json, os, random, sys, time

ID, PARENT, TS, MTS = "@@ID@@", "@@PARENT@@", "@@TS@@", 1111111111111


def size(s):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper()
    return int(float(s[:-1]) * m[s[-1]]) if s and s[-1] in m else int(s)


class Gen:
    def __init__(self, source, seed):
        files = sorted(glob.glob(os.path.join(source, "agents", "*", "sessions", "*.jsonl")))
        if not files:
            sys.exit(f"gen_transcripts: no transcripts under {source}/agents/*/sessions")
        self.header = None
        self.lines = []  # (template, is_tool_result, parsed)
        texts = []
        for f in files:
            with open(f, encoding="utf-8") as fh:
                for n, raw in enumerate(fh):
                    d = json.loads(raw)
                    if n == 0 and d.get("type") == "session":
                        self.header = self.header or d
                        continue
                    if d.get("type") != "message":
                        continue  # model_change etc. only once per file: not worth replaying
                    m = d["message"]
                    for c in m.get("content") or []:
                        if isinstance(c, dict) and c.get("type") == "text" and len(c.get("text", "")) > 200:
                            texts.append(c["text"])
                    self.lines.append((self.template(d), m.get("role") == "toolResult", d))
        self.prelude = []
        with open(files[0], encoding="utf-8") as fh:
            for n, raw in enumerate(fh):
                d = json.loads(raw)
                if n > 0 and d.get("type") != "message":
                    self.prelude.append(self.template(d))
        self.bigtext = "\n".join(texts) or "x" * 1000
        self.rnd = random.Random(seed)
        self.cache = {}

    @staticmethod
    def template(d):
        d = json.loads(json.dumps(d))
        d["id"] = ID
        if "parentId" in d:
            d["parentId"] = PARENT
        d["timestamp"] = TS
        if isinstance(d.get("message"), dict) and "timestamp" in d["message"]:
            d["message"]["timestamp"] = MTS
        return json.dumps(d, separators=(",", ":"), ensure_ascii=False)

    def big(self, i, parsed, nbytes):
        key = (i, nbytes)
        t = self.cache.get(key)
        if t is None:
            d = json.loads(json.dumps(parsed))
            reps = nbytes // (len(self.bigtext) + 1) + 1
            text = ("\n".join([self.bigtext] * reps))[:nbytes]
            content = d["message"].get("content") or [{"type": "text", "text": ""}]
            content[0] = {"type": "text", "text": text}
            d["message"]["content"] = content
            if isinstance(d["message"].get("details"), dict) and "aggregated" in d["message"]["details"]:
                d["message"]["details"]["aggregated"] = text
            t = self.template(d)
            self.cache[key] = t
        return t

    def role(self, i):
        return self.lines[i % len(self.lines)][2]["message"].get("role")

    def turn_end(self, i):
        return i > 0 and self.role(i - 1) == "assistant" and self.role(i) == "user"

    def write(self, out, nbytes, session_id, big_every=10):
        rnd = self.rnd
        h = dict(self.header)
        h["id"] = session_id
        tmp = out + ".tmp"
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        ms = 1795236215000
        parent = None
        written = 0
        buf = []
        pending = 0
        tool_results = 0
        used = set()
        with open(tmp, "w", encoding="utf-8") as fh:
            first = json.dumps(h, separators=(",", ":"), ensure_ascii=False) + "\n"
            buf.append(first)
            written += len(first)

            def emit(t):
                nonlocal parent, ms, written, pending
                ms += rnd.randint(5, 4000)
                nid = "%08x" % rnd.getrandbits(32)
                while nid in used:  # 8 hex digits collide within ~100k lines
                    nid = "%08x" % rnd.getrandbits(32)
                used.add(nid)
                iso = "%s.%03dZ" % (time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)), ms % 1000)
                line = (t.replace('"' + ID + '"', '"' + nid + '"', 1)
                        .replace('"' + PARENT + '"', ('"' + parent + '"') if parent else "null", 1)
                        .replace('"' + TS + '"', '"' + iso + '"', 1)
                        .replace(str(MTS), str(ms), 1)) + "\n"
                parent = nid
                buf.append(line)
                n = len(line) if line.isascii() else len(line.encode("utf-8"))
                written += n
                pending += n
                if pending > 8 << 20:
                    fh.write("".join(buf))
                    buf.clear()
                    pending = 0

            for t in self.prelude:
                emit(t)
            i = rnd.randrange(len(self.lines))  # each file starts elsewhere in the replay
            while not self.turn_end(i):
                i += 1
            # Stop at the end of a turn (an assistant message followed by a user message), where a
            # transcript rests between runs, once the size is reached.
            while written < nbytes or not self.turn_end(i):
                t, is_tr, parsed = self.lines[i % len(self.lines)]
                if is_tr:
                    tool_results += 1
                    if rnd.randrange(big_every) == 0:
                        want = rnd.choice([16 << 10, 64 << 10, 256 << 10])
                        if rnd.randrange(20) == 0:
                            want = 2 << 20
                        # never overshoot a small file by much
                        want = min(want, max(1024, (nbytes - written) // 2))
                        t = self.big(i % len(self.lines), parsed, want)
                emit(t)
                i += 1
            fh.write("".join(buf))
        os.replace(tmp, out)
        return written


def main():
    ap = argparse.ArgumentParser(prog="gen_transcripts.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    one = sub.add_parser("one")
    one.add_argument("--out", required=True)
    one.add_argument("--session-id", required=True)
    st = sub.add_parser("store")
    st.add_argument("--store", required=True)
    for p in (one, st):
        p.add_argument("--source", required=True, help="a state dir with real transcripts")
        p.add_argument("--bytes", required=True, type=size)
        p.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    g = Gen(a.source, a.seed)
    if a.cmd == "one":
        n = g.write(a.out, a.bytes, a.session_id)
        print(json.dumps({"out": os.path.abspath(a.out), "bytes": n}))
        return
    with open(a.store, encoding="utf-8") as f:
        store = json.load(f)
    d = os.path.dirname(os.path.abspath(a.store))
    total = 0
    for k, e in store.items():
        if not isinstance(e, dict) or not e.get("sessionId"):
            continue
        out = e.get("sessionFile") or os.path.join(d, e["sessionId"] + ".jsonl")
        total += g.write(out, a.bytes, e["sessionId"])
    print(json.dumps({"store": os.path.abspath(a.store), "transcripts": len(store), "bytes": total}))


if __name__ == "__main__":
    main()
