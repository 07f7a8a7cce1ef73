#!/usr/bin/env python3
"""Freeze the held-out split of queries.jsonl (run once, before any tuning).

Rule: the ceil(30 %) of queries with the smallest SHA-256 of their text are
held out; the rest are the training split. The split is written on every
line, so adding queries later never moves an existing one.
Usage: python3 freeze_split.py < queries-unlabeled.jsonl > queries.jsonl
"""
import hashlib, json, math, sys

rows = [json.loads(l) for l in sys.stdin if l.strip()]
order = sorted(range(len(rows)), key=lambda i: hashlib.sha256(rows[i]["query"].encode()).hexdigest())
held = set(order[: math.ceil(0.3 * len(rows))])
for i, r in enumerate(rows):
    if "split" not in r:
        r["split"] = "heldout" if i in held else "train"
    print(json.dumps(r, ensure_ascii=False))
