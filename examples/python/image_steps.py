"""Two steps of the image pipeline (examples/python/image-pipeline.ts), served from Python.

Each is a temporalio activity named as the pipeline's step. A step receives what the previous step
returned (the first step receives the run's args, one argument each) and returns a JSON value; a
business failure is an ApplicationError with a type, which the TypeScript side sees as the failure's
type (retry.nonRetryableErrorTypes, the dead letter, PipelineFailed's details).
"""

from __future__ import annotations

import os
import platform
from typing import Any, Dict

from temporalio import activity
from temporalio.exceptions import ApplicationError

from temporal_flow import step_idempotency_key, step_run

MAX_WIDTH = 10_000


@activity.defn
async def resize(image: Dict[str, Any]) -> Dict[str, Any]:
    width = int(image.get("width", 0))
    if width > MAX_WIDTH:
        raise ApplicationError(
            f"image is {width} px wide, more than {MAX_WIDTH}", type="ImageTooWide", non_retryable=True
        )
    # A long step heartbeats (the step's `heartbeat` option is its heartbeat timeout).
    activity.heartbeat({"stage": "resizing"})
    return {
        **image,
        "thumbnail": f"{image['url']}?w=200",
        "resizedBy": f"python {platform.python_version()}",
        "resizeKey": step_idempotency_key(),
    }


@activity.defn
async def publish(image: Dict[str, Any]) -> Dict[str, Any]:
    # The example's stand-in for an outage: while this file exists, the CDN is "down" (a retryable failure).
    down = os.environ.get("EXAMPLE_CDN_DOWN_FILE")
    if down and os.path.exists(down):
        raise ApplicationError("the CDN is unavailable", type="CdnUnavailable")
    # The key is the same on every attempt and after a redrive: give it to the CDN as its idempotency key.
    return {
        "published": image["thumbnail"],
        "resizedBy": image.get("resizedBy"),
        "publishKey": step_idempotency_key(),
        "run": step_run(),
    }
