"""Python side of temporal-flow: serve a TypeScript pipeline's steps from a ``temporalio`` worker.

A step is a ``temporalio`` activity whose name is the step's activity name; it receives the previous
step's result (the first step the run's args), returns its own, and fails with
``ApplicationError(type=...)``. See docs/python-steps.md in the temporal-flow package.
"""

from .codec import (
    AesGcmPayloadCodec,
    CodecKeyError,
    PayloadDecryptionError,
    codec_from_env,
    parse_codec_keys,
)
from .steps import (
    OCCURRENCE_HEADER,
    RUN_HEADER,
    StepHeadersInterceptor,
    rate_limited_task_queue,
    step_idempotency_key,
    step_run,
)

__all__ = [
    "AesGcmPayloadCodec",
    "CodecKeyError",
    "PayloadDecryptionError",
    "codec_from_env",
    "parse_codec_keys",
    "OCCURRENCE_HEADER",
    "RUN_HEADER",
    "StepHeadersInterceptor",
    "rate_limited_task_queue",
    "step_idempotency_key",
    "step_run",
]
