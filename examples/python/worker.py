"""A Python worker that serves steps of temporal-flow pipelines (docs/python-steps.md).

    pip install -r examples/python/requirements.txt    # temporalio, cryptography
    PYTHONPATH=python python examples/python/worker.py  # or: pip install ./python

Environment: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE (default), TFLOW_PY_TASK_QUEUE
(the queue the pipelines name for these steps, default py-steps), TFLOW_PY_RATE_LIMITS for steps the
pipelines rate-limit (`resize=5,publish=0.5`: the same rates as their `rateLimit`, per second), and
TFLOW_CODEC_KEYS/TFLOW_CODEC_KEY_ID when the TypeScript side encrypts payloads (the same keys). SIGTERM or
SIGINT stops it gracefully.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
from datetime import timedelta

import temporalio.converter
from temporalio.client import Client
from temporalio.worker import Worker

from image_steps import publish, resize
from temporal_flow import StepHeadersInterceptor, codec_from_env, rate_limited_task_queue

STEPS = {"resize": resize, "publish": publish}


def rate_limits(text: str) -> dict:
    """`resize=5,publish=0.5` -> {"resize": 5.0, "publish": 0.5}."""
    limits = {}
    for entry in filter(None, (e.strip() for e in text.split(","))):
        name, _, rate = entry.partition("=")
        if name not in STEPS:
            raise SystemExit(f"TFLOW_PY_RATE_LIMITS: unknown step {name!r}; the steps are {', '.join(STEPS)}")
        try:
            limits[name] = float(rate)
        except ValueError:
            raise SystemExit(f"TFLOW_PY_RATE_LIMITS: the rate of {name!r} is not a number of steps per second: {rate!r}")
    return limits


async def main() -> None:
    codec = codec_from_env()
    converter = temporalio.converter.default()
    if codec is not None:
        converter = dataclasses.replace(converter, payload_codec=codec)
    client = await Client.connect(
        os.environ.get("TEMPORAL_ADDRESS", "localhost:7233"),
        namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"),
        data_converter=converter,
    )
    task_queue = os.environ.get("TFLOW_PY_TASK_QUEUE", "py-steps")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    common = dict(interceptors=[StepHeadersInterceptor()], graceful_shutdown_timeout=timedelta(seconds=5))
    workers = [Worker(client, task_queue=task_queue, activities=list(STEPS.values()), **common)]
    # A rate-limited step runs on its queue's companion; the server holds the rate set by its pollers.
    for name, per_second in rate_limits(os.environ.get("TFLOW_PY_RATE_LIMITS", "")).items():
        workers.append(
            Worker(
                client,
                task_queue=rate_limited_task_queue(task_queue, name),
                activities=[STEPS[name]],
                max_task_queue_activities_per_second=per_second,
                **common,
            )
        )
    async with contextlib.AsyncExitStack() as stack:
        for worker in workers:
            await stack.enter_async_context(worker)
        print(f"python worker polling {task_queue}{' (payloads encrypted)' if codec else ''}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
