#!/usr/bin/env bash
# RAG retrievers: from logs to a per-category report (the walkthrough of docs/guides/logs-rag.md).
#
# Usage: docs/rag_walkthrough.sh [FOLDER]   (default: a new temporary folder)
# Needs `pooljudge` and `python3` on PATH (the venv's bin/). Deterministic: the log, the labels
# and every number are the same on every run. The last step writes FOLDER/report.html.
#
# The log is generated: 90 queries in 3 categories and 2 languages from 2 tenants, each asked
# 1-3 times of two retriever configurations, bm25@v7 and hybrid@v8. hybrid@v8 finds more
# relevant passages on shipping and returns questions but fewer on billing ones, and is slower.
# The people who would judge the pool (`pooljudge serve`) are simulated from the generator's
# hidden truth (truth.tsv), through `pooljudge judgments import`.
set -euo pipefail

WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
cd "$WORK"
echo "# working in $WORK"

# 1. A small retrieval log (JSON Lines), its documents, and the hidden truth -----------------
python3 - <<'PY'
import json
import random

rng = random.Random(7)
CATEGORIES = ("billing", "shipping", "returns")
docs = {c: [f"{c[:4]}-{i:03d}" for i in range(80)] for c in CATEGORIES}
with open("docs.jsonl", "w", encoding="utf-8") as out:
    for category, ids in docs.items():
        for doc in ids:
            out.write(json.dumps({"id": doc, "title": f"{category} help page {doc}",
                                  "text": f"How {category} works, part {doc[-3:]}."}) + "\n")
# the chance that each configuration ranks a relevant passage in its top 10, per category
RECALL = {"bm25@v7": {"billing": 0.8, "shipping": 0.45, "returns": 0.45},
          "hybrid@v8": {"billing": 0.3, "shipping": 0.9, "returns": 0.9}}
LATENCY = {"bm25@v7": (38.0, 6.0), "hybrid@v8": (92.0, 18.0)}
truth, log = [], []
for q in range(90):
    category = CATEGORIES[q % 3]
    query_id = f"q{q:03d}"
    relevant = rng.sample(docs[category], 4)
    truth += [(query_id, doc) for doc in relevant]
    others = [d for d in docs[category] if d not in relevant]
    for run, recall in RECALL.items():
        config, version = run.split("@")
        found = [d for d in relevant if rng.random() < recall[category]]
        top = found + rng.sample(others, 10 - len(found))
        rng.shuffle(top)
        for _ in range(rng.randint(1, 3)):  # the same question asked again: traffic
            mean, sd = LATENCY[run]
            log.append({
                "query_id": query_id, "query": f"{category} question {q}",
                "config": config, "index_version": version,
                "latency_ms": round(max(5.0, rng.gauss(mean, sd)), 1),
                "category": category, "language": "en" if q % 4 else "de",
                "tenant": "acme" if q % 2 else "globex",
                "results": [{"id": d, "rank": r + 1, "score": round(20 - r * 1.3, 2)}
                            for r, d in enumerate(top)]})
rng.shuffle(log)
with open("traffic.jsonl", "w", encoding="utf-8") as out:
    out.writelines(json.dumps(record) + "\n" for record in log)
with open("truth.tsv", "w", encoding="utf-8") as out:
    out.writelines(f"{query_id}\t{doc}\n" for query_id, doc in truth)
PY
echo "## two lines of the log"
head -n 2 traffic.jsonl | cut -c1-230

# 2. Which queries to label: 20 per category ------------------------------------------------
pooljudge logs sample traffic.jsonl --n 60 --stratify category --allocation equal --seed 1 \
    -o sample-topics.tsv --ids sample.ids
echo "## sampled: $(wc -l < sample.ids) queries"; head -n 3 sample-topics.tsv

# 3. Runs per configuration@version, topics, topic groups, latency, for the sampled queries --
rm -rf imported  # a second run in the same FOLDER starts afresh (import refuses a full folder)
pooljudge logs import traffic.jsonl --queries sample.ids --out imported
ls imported imported/runs
head -n 4 imported/topic-groups.tsv

# 4. The pool of both configurations' top 10 --------------------------------------------------
pooljudge pool imported/runs/*.run --depth 10 -o pool.tsv

# 5. The campaign; people would judge it with `pooljudge serve --db sqlite:///rag.db` --------
rm -f rag.db
pooljudge init rag --topics imported/topics.tsv --docs docs.jsonl --pool pool.tsv \
    --db sqlite:///rag.db
# simulated judges: every pooled pair labelled from the hidden truth
awk -F'\t' 'NR == FNR { relevant[$1 "\t" $2] = 1; next }
            FNR == 1 { print "annotator\ttopic\tdoc\tlabel"; next }
            { print "ana\t" $1 "\t" $2 "\t" (($1 "\t" $2) in relevant ? 1 : 0) }' \
    truth.tsv pool.tsv > labels.tsv
pooljudge judgments import labels.tsv --campaign rag --new-annotator ana --db sqlite:///rag.db

# 6. The qrels ---------------------------------------------------------------------------------
pooljudge export --campaign rag --db sqlite:///rag.db -o qrels.txt

# 7. Means per category, language and tenant, with 95% intervals -----------------------------
pooljudge eval qrels.txt imported/runs/*.run -m nDCG@10 \
    --topic-groups imported/topic-groups.tsv

# 8. hybrid@v8 against bm25@v7 per group: the regression check --------------------------------
pooljudge compare qrels.txt imported/runs/bm25@v7.run imported/runs/hybrid@v8.run -m nDCG@10 \
    --baseline bm25@v7.run --topic-groups imported/topic-groups.tsv

# 9. The report: per-group means, regression flags, latency beside the scores ----------------
pooljudge report qrels.txt imported/runs/bm25@v7.run imported/runs/hybrid@v8.run \
    -m "nDCG@10 P@10" --topic-groups imported/topic-groups.tsv --baseline bm25@v7.run \
    --latency imported/latency.tsv --title "RAG retrievers: bm25@v7 vs hybrid@v8" \
    -o report.html
echo "## wrote $WORK/report.html"
