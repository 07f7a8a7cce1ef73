#!/usr/bin/env python3
"""Check queries-paraphrase.jsonl and measure how much it reuses the catalog's words.

The paraphrase set exists to train ranking on requests worded differently from
the API documents, so besides checking labels this reports the share of each
query's content words that also appear in its relevant operations' text.

Checks (exit status 1 if any fails): every line is a JSON object with a
non-empty "query", a non-empty "relevant" list and "split" == "train"; every
label is NAME.operationId of a real operation in catalog/NAME.yaml; no two
queries are equal or near-equal (content-word Jaccard >= NEAR_DUP).

Overlap: content words are lower-cased runs of 3+ letters minus STOP. A query
word overlaps if it appears in the relevant operations' summary, description
or operationId (split on camelCase). "exact" compares words as they are;
"stemmed" first strips a few English suffixes, which is closer to what a
stemming ranker sees. Pooled = overlapping words / content words over the
whole file; mean = average of the per-query shares.

Usage: python3 overlap.py [queries-paraphrase.jsonl] [--show N]
  --show N  also print the N queries with the highest stemmed overlap.
"""
import collections, glob, json, os, re, sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
NEAR_DUP = 0.6
METHODS = {"get", "put", "post", "patch", "delete", "head", "options"}
STOP = set("""
a an the and or but nor for with from into onto over than then that this these those
there their them they its it's are was were been being have has had having does did doing
can could will would should shall may might must not any all some each every both
our ours you your yours his her hers him she he we me my mine who whom whose what which
when where why how also just only very too so such about as at by in of on to up
is be do if no yes i it get got let
""".split())


def words(text):
    """Lower-cased runs of 3+ letters, camelCase split first."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 3]


def stem(w):
    for suf in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            if suf in ("ies", "ied"):
                w += "y"
            break
    return w.rstrip("e") if len(w) > 4 else w


def load_catalog():
    ops = {}
    for path in sorted(glob.glob(os.path.join(HERE, "catalog", "*.yaml"))):
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            doc = yaml.safe_load(f)
        for item in (doc.get("paths") or {}).values():
            for method, op in item.items():
                if method in METHODS and isinstance(op, dict) and op.get("operationId"):
                    text = " ".join([op.get("summary") or "", op.get("description") or "", op["operationId"]])
                    ops[name + "." + op["operationId"]] = text
    return ops


def main():
    args = sys.argv[1:]
    show = 0
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i : i + 2]
    path = args[0] if args else os.path.join(HERE, "queries-paraphrase.jsonl")
    ops = load_catalog()
    per_api_ops = collections.Counter(k.split(".")[0] for k in ops)
    errors, rows = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"line {n}: not JSON: {e}")
                continue
            if not isinstance(r, dict) or not str(r.get("query", "")).strip():
                errors.append(f"line {n}: no query")
                continue
            rel = r.get("relevant")
            if not isinstance(rel, list) or not rel:
                errors.append(f"line {n}: no relevant list")
                continue
            if r.get("split") != "train":
                errors.append(f"line {n}: split is {r.get('split')!r}, want 'train'")
            for id_ in rel:
                if id_ not in ops:
                    errors.append(f"line {n}: unknown operation {id_!r}")
            if len(set(rel)) != len(rel):
                errors.append(f"line {n}: repeated label")
            rows.append((n, r))

    content = lambda q: [w for w in words(q) if w not in STOP]
    # Near-duplicates: same content-word set or a large share of it.
    sets = [(n, set(content(r["query"]))) for n, r in rows]
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            a, b = sets[i][1], sets[j][1]
            if a and b and len(a & b) / len(a | b) >= NEAR_DUP:
                errors.append(f"lines {sets[i][0]} and {sets[j][0]}: near-duplicate queries")

    tot = {"exact": [0, 0], "stemmed": [0, 0]}
    shares = {"exact": [], "stemmed": []}
    scored = []
    for n, r in rows:
        qw = content(r["query"])
        target = set()
        for id_ in r["relevant"]:
            target |= set(words(ops.get(id_, "")))
        target_st = {stem(w) for w in target}
        hits = {"exact": sum(w in target for w in qw), "stemmed": sum(stem(w) in target_st for w in qw)}
        for k in hits:
            tot[k][0] += hits[k]
            tot[k][1] += len(qw)
            shares[k].append(hits[k] / len(qw) if qw else 0.0)
        scored.append((hits["stemmed"] / len(qw) if qw else 0.0, n, r["query"]))

    apis = collections.Counter(r["relevant"][0].split(".")[0] for _, r in rows)
    lengths = [len(r["query"].split()) for _, r in rows]
    print(f"queries: {len(rows)}  words per query: {min(lengths)}-{max(lengths)}, mean {sum(lengths)/len(lengths):.1f}")
    print("per API (queries / operations):")
    for api in sorted(per_api_ops):
        print(f"  {api:10s} {apis.get(api, 0):3d} / {per_api_ops[api]}")
    multi = sum(len(r["relevant"]) > 1 for _, r in rows)
    print(f"queries with more than one relevant operation: {multi}")
    for k in ("exact", "stemmed"):
        h, t = tot[k]
        mean = sum(shares[k]) / len(shares[k])
        zero = sum(s == 0 for s in shares[k])
        print(f"overlap {k:7s}: pooled {h}/{t} = {h/t:.1%}, mean per query {mean:.1%}, queries with none {zero}")
    if show:
        for s, n, q in sorted(scored, reverse=True)[:show]:
            print(f"  {s:.0%}  line {n}: {q}")
    for e in errors:
        print("ERROR", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
