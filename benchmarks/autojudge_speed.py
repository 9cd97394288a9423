"""Throughput of ``pooljudge autojudge`` against the test server, next to the server's own.

For each server latency (instant, and a fixed 50 ms per reply) and each concurrency (1, 8,
32), three figures in requests per second over the wall time:

- ``server``: the server's capacity, measured by a bare loop of ``http.client`` keep-alive
  connections (one thread per connection) sending the same request body;
- ``judge``: the judge alone (:class:`pooljudge.annotate.autojudge.client.Judge`: the ``openai``
  client, the retry policy, the label parser), ``concurrency`` tasks;
- ``autojudge``: a whole run (:class:`pooljudge.annotate.autojudge.runner.Run`: prompts filled from
the
  database, each label committed in its own SQLite transaction).

When ``autojudge`` is close to ``server``, the client is not the bottleneck. ``judge_cpu_ms``
and ``autojudge_cpu_ms`` are the measuring process's CPU time per request (all its threads):
the client's own cost, whatever else the machine is doing. The server runs
in a process of its own (:class:`ServerProcess`), so it does not share the measured side's
interpreter lock.

    .venv/bin/python benchmarks/autojudge_speed.py [--requests 300] [--latencies 0,0.05]
        [--concurrency 1,8,32]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pooljudge.annotate.autojudge.client import Judge, Tally, make_client
from pooljudge.annotate.autojudge.prompt import PromptTemplate
from pooljudge.annotate.autojudge.retry import RetryPolicy
from pooljudge.annotate.autojudge.runner import Run, plan_run
from pooljudge.annotate.records import LabelScale
from pooljudge.annotate.store import create_campaign, open_engine, session_scope

from tests.support.openai_server import FakeOpenAI

SCALE = LabelScale.range(0, 2)
DOCS_PER_TOPIC = 50


def collection(pairs: int) -> tuple[dict[str, pd.DataFrame], dict[tuple[str, str], int]]:
    """Topics, documents and pool of ``pairs`` pairs (50 documents per topic), and a truth."""
    n_topics = -(-pairs // DOCS_PER_TOPIC)
    keys = [(f"T{i}", f"D{j}") for i in range(n_topics) for j in range(DOCS_PER_TOPIC)][:pairs]
    topics = pd.DataFrame({"id": [f"T{i}" for i in range(n_topics)], "title": "a need",
                           "description": "what the user wants", "narrative": "relevant if…"})
    documents = pd.DataFrame({"id": [f"D{j}" for j in range(DOCS_PER_TOPIC)],
                              "title": "a document", "text": "some words " * 60})
    pool = pd.DataFrame([(t, d, j + 1, j + 1, "run") for j, (t, d) in enumerate(keys)],
                        columns=["topic", "doc", "order", "best_rank", "runs"])
    truth = {key: (i + 2 * len(key[1])) % 3 for i, key in enumerate(keys)}
    return {"topics": topics, "documents": documents, "pool": pool}, truth


class ServerProcess:
    """A :class:`FakeOpenAI` in a child process; ``base_url`` and ``latency`` as the server's."""

    def __init__(self, truth: dict, *, latency: float) -> None:
        self.latency = latency
        parent, child = multiprocessing.Pipe()
        self._process = multiprocessing.get_context("fork").Process(
            target=_serve, args=(truth, latency, child), daemon=True)
        self._process.start()
        self.base_url = parent.recv()
        self._pipe = parent

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc) -> None:
        self._pipe.send("stop")
        self._process.join(timeout=10)


def _serve(truth: dict, latency: float, pipe) -> None:
    with FakeOpenAI(truth, values=SCALE.values, latency=latency) as server:
        pipe.send(server.base_url)
        pipe.recv()  # until told to stop


def bare_loop(server: ServerProcess, body: bytes, requests: int, concurrency: int) -> float:
    """Requests per second of ``concurrency`` threads on keep-alive ``http.client``."""
    parts = urlsplit(server.base_url)
    left = iter(range(requests))
    lock = threading.Lock()

    def worker() -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port)
        while True:
            with lock:
                if next(left, None) is None:
                    break
            connection.request("POST", "/v1/chat/completions", body,
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            json.loads(response.read())
        connection.close()

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return requests / (time.perf_counter() - start)


def judge_only(server: ServerProcess, prompts: list[str], concurrency: int
               ) -> tuple[float, float]:
    """(requests per second, CPU milliseconds per request) of the judge alone,
    ``concurrency`` tasks over ``prompts``."""

    async def main() -> float:
        client = make_client(base_url=server.base_url, api_key="none", timeout=30)
        judge = Judge(client, model="m", scale=SCALE, policy=RetryPolicy(), tally=Tally())
        queue = list(reversed(prompts))

        async def worker() -> None:
            while queue:
                await judge.judge(queue.pop())

        start, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        await client.close()
        return judge.tally.requests / elapsed, 1000 * cpu / judge.tally.requests

    return asyncio.run(main())


def whole_run(server: ServerProcess, frames: dict, requests: int, concurrency: int,
              folder: Path) -> tuple[float, float]:
    """(requests per second, CPU milliseconds per request) of a whole run on a fresh SQLite
    campaign of ``requests`` pairs."""
    url = f"sqlite:///{folder / f'bench-{concurrency}-{server.latency}.db'}"
    engine = open_engine(url)
    with session_scope(engine) as session:
        create_campaign(session, name="bench", scale=SCALE, **frames)
    plan = plan_run(engine, campaign="bench", name="llm", pairs="all", limit=None)

    async def main() -> float:
        client = make_client(base_url=server.base_url, api_key="none", timeout=30)
        judge = Judge(client, model="m", scale=SCALE, policy=RetryPolicy(), tally=Tally())
        run = Run(engine, plan, judge, PromptTemplate.default(), concurrency=concurrency)
        start, cpu = time.perf_counter(), time.process_time()
        summary = await run.execute()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        await client.close()
        if summary.labelled != requests:
            raise RuntimeError(f"labelled {summary.labelled} of {requests}")
        return summary.requests / elapsed, 1000 * cpu / summary.requests

    try:
        return asyncio.run(main())
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300,
                        help="requests per measurement with the instant server")
    parser.add_argument("--latencies", default="0,0.05")
    parser.add_argument("--concurrency", default="1,8,32")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for latency in [float(x) for x in args.latencies.split(",")]:
            for concurrency in [int(x) for x in args.concurrency.split(",")]:
                # a 50 ms server: enough requests for ~2 s at full speed, at least 100
                requests = (args.requests if latency == 0
                            else max(100, int(2 * concurrency / latency)))
                frames, truth = collection(requests)
                template = PromptTemplate.default()
                prompts = [f"## Topic {t}: x\n## Document {d}: y\n" for t, d in truth]
                with ServerProcess(truth, latency=latency) as server:
                    body = json.dumps({"model": "m", "messages": [
                        {"role": "user", "content": template.text.replace(
                            "{topic_id}", "T0").replace("{doc_id}", "D0")}]}).encode()
                    server_rps = bare_loop(server, body, requests, concurrency)
                    judge_rps, judge_cpu = judge_only(server, prompts, concurrency)
                    run_rps, run_cpu = whole_run(server, frames, requests, concurrency,
                                                 Path(tmp))
                    rows.append({
                        "latency_ms": round(latency * 1000), "concurrency": concurrency,
                        "requests": requests, "server_rps": server_rps,
                        "judge_rps": judge_rps, "autojudge_rps": run_rps,
                        "judge_cpu_ms": judge_cpu, "autojudge_cpu_ms": run_cpu,
                    })
                print(pd.DataFrame(rows[-1:]).round(1).to_string(index=False, header=False),
                      file=sys.stderr)
    table = pd.DataFrame(rows)
    table["autojudge/server"] = table["autojudge_rps"] / table["server_rps"]
    print(table.round(2).to_string(index=False))


if __name__ == "__main__":
    main()
