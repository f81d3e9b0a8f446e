"""A Python worker that serves steps of temporal-flow pipelines (docs/python-steps.md).

    pip install -r examples/python/requirements.txt    # temporalio, cryptography
    PYTHONPATH=python python examples/python/worker.py  # or: pip install ./python

Environment: TEMPORAL_ADDRESS (default localhost:7233), TEMPORAL_NAMESPACE (default), TFLOW_PY_TASK_QUEUE
(the queue the pipelines name for these steps, default py-steps), and TFLOW_CODEC_KEYS/TFLOW_CODEC_KEY_ID
when the TypeScript side encrypts payloads (the same keys). SIGTERM or SIGINT stops it gracefully.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
from datetime import timedelta

import temporalio.converter
from temporalio.client import Client
from temporalio.worker import Worker

from image_steps import publish, resize
from temporal_flow import StepHeadersInterceptor, codec_from_env


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
    worker = Worker(
        client,
        task_queue=task_queue,
        activities=[resize, publish],
        interceptors=[StepHeadersInterceptor()],
        graceful_shutdown_timeout=timedelta(seconds=5),
    )
    async with worker:
        print(f"python worker polling {task_queue}{' (payloads encrypted)' if codec else ''}", flush=True)
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
