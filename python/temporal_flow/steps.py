"""What a Python step reads of the TypeScript run that called it.

The TypeScript interpreter puts headers on every activity it schedules (src/workflows/idempotency/ in the
TypeScript package); headers are not run through the payload codec, so they read the same with
encryption on:

- ``tflow-occurrence``: a JSON string, what stays the same on every retry of a step and every redrive of
  its run (``<jobId>@<nominal time>`` for a scheduled run, else the first run's workflow id);
- ``tflow-run``: a JSON object ``{"pipeline": ..., "jobId"?: ..., "nominalTime"?: ...}``.

The step's path (its id, ``<map id>[i]`` for a map item, ``<id>:compensate``) is the activity id.
"""

from __future__ import annotations

import contextvars
from typing import Any, Mapping, Optional

import temporalio.activity
import temporalio.converter
from temporalio.api.common.v1 import Payload
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

OCCURRENCE_HEADER = "tflow-occurrence"
RUN_HEADER = "tflow-run"

_occurrence: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("tflow_occurrence", default=None)
_run: contextvars.ContextVar[Optional[Mapping[str, Any]]] = contextvars.ContextVar("tflow_run", default=None)
_converter = temporalio.converter.PayloadConverter.default


def _header(headers: Mapping[str, Payload], name: str) -> Any:
    payload = headers.get(name)
    if payload is None:
        return None
    try:
        return _converter.from_payloads([payload])[0]
    except Exception:  # a header of another shape is someone else's: ignore it
        return None


class StepHeadersInterceptor(Interceptor):
    """Worker interceptor that reads temporal-flow's headers, for :func:`step_idempotency_key` and
    :func:`step_run`: ``Worker(..., interceptors=[StepHeadersInterceptor()])``."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _StepHeadersInbound(next)


class _StepHeadersInbound(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        occurrence = _header(input.headers, OCCURRENCE_HEADER)
        run = _header(input.headers, RUN_HEADER)
        # Context variables reach async steps and (the SDK copies the context) steps run in an executor.
        tokens = (
            _occurrence.set(occurrence if isinstance(occurrence, str) else None),
            _run.set(run if isinstance(run, dict) else None),
        )
        try:
            return await self.next.execute_activity(input)
        finally:
            _run.reset(tokens[1])
            _occurrence.reset(tokens[0])


def step_idempotency_key() -> str:
    """A key for the step execution running now, as ``stepIdempotencyKey()`` gives it in TypeScript:
    ``<occurrence>/<step path>``, the same on every attempt and when the run is redriven. Without the
    interceptor (or a run not started by temporal-flow) it is ``<workflow id>/<activity id>``, which a
    redrive changes. Raises ``RuntimeError`` outside an activity."""
    info = temporalio.activity.info()
    return f"{_occurrence.get() or info.workflow_id}/{info.activity_id}"


def step_run() -> Optional[Mapping[str, Any]]:
    """The run the running step belongs to: ``{"pipeline", "jobId"?, "nominalTime"?}``, or None."""
    return _run.get()


def rate_limited_task_queue(task_queue: str, activity: str) -> str:
    """The queue a rate-limited step served on ``task_queue`` runs on: poll it with
    ``Worker(..., max_task_queue_activities_per_second=<the step's rate>)`` (the server holds the rate)."""
    return f"{task_queue}--rate--{activity}"
