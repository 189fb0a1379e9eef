#!/usr/bin/env python3
"""Write a state dir for the search benchmark: the fixture's config and a main store of N
sessions (agent:main:bench:<i>, fresh sessionIds, newest first) whose transcripts
scripts/gen_transcripts.py then fills.

usage: bench_search_state.py --fixture STATE --out DIR --count N
"""
import argparse, json, os, uuid

p = argparse.ArgumentParser()
p.add_argument("--fixture", required=True)
p.add_argument("--out", required=True)
p.add_argument("--count", type=int, required=True)
a = p.parse_args()
sess = os.path.join(a.out, "agents", "main", "sessions")
os.makedirs(sess, exist_ok=True)
cfg = json.load(open(os.path.join(a.fixture, "openclaw.json")))
cfg.setdefault("logging", {})["file"] = os.path.join(os.path.abspath(a.out), "openclaw.log")
json.dump(cfg, open(os.path.join(a.out, "openclaw.json"), "w"), indent=2)
base = 1795236215000
store = {}
for i in range(a.count):
    store[f"agent:main:bench:{i}"] = {"sessionId": str(uuid.UUID(int=0x5EA4C400000040008000000000000000 + i)),
                                      "updatedAt": base - i * 1000, "chatType": "direct"}
json.dump(store, open(os.path.join(sess, "sessions.json"), "w"), indent=2)
