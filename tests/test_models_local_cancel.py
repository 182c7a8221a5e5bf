"""The embedded model stops generating when its caller gives up.

Before, ``LocalModel.complete`` ran llama.cpp's blocking call in a thread: a timed-out or
cancelled call generated on (up to ``max_tokens``) and every later call queued behind it.
"""

from __future__ import annotations

import asyncio

import pytest

from _local_model import needs_local_model
from forethought.models import ModelRequest
from forethought.models.base import Message
from forethought.models.local import LocalModel

pytestmark = needs_local_model

# Long enough that it is still generating when cancelled (1024 tokens take many seconds).
LONG = ModelRequest(
    messages=[Message(role="user", content="Count from 1 to 2000, one number per line.")],
    max_tokens=1024,
    temperature=0.0,
)
SHORT = ModelRequest(
    messages=[Message(role="user", content="Say hi.")],
    max_tokens=4,
    temperature=0.0,
    json_schema={"type": "object", "properties": {"hi": {"type": "boolean"}}, "required": ["hi"]},
)


async def test_a_timed_out_complete_stops_its_generation_and_frees_the_model() -> None:
    model = LocalModel()
    await model.server()  # loaded first: the timeout below hits the generation, not the load
    # The bench's --plan-limit and --goal-limit give up on a call this way (cancellation).
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(model.complete(LONG), timeout=1.0)
    # The call returned only after its generation stopped: nothing runs on behind the next call.
    assert model.in_flight == 0
    answer = await model.complete(SHORT)
    assert answer.text.startswith('{"hi":')
    assert answer.usage.output_tokens <= 4
    assert model.in_flight == 0


async def test_a_cancelled_complete_stops_even_before_its_first_token() -> None:
    model = LocalModel()
    await model.server()
    task = asyncio.create_task(model.complete(LONG))
    await asyncio.sleep(0)  # let it start (one pass of the loop); then cancel at once
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert model.in_flight == 0
    assert (await model.complete(SHORT)).text.startswith('{"hi":')


async def test_complete_keeps_text_usage_and_token_logprobs() -> None:
    from forethought.planning.candidates import mean_logprob

    answer = await LocalModel().complete(SHORT)
    assert answer.finish_reason in {"stop", "length"}
    assert answer.usage.input_tokens > 0 and answer.usage.output_tokens > 0
    content = answer.raw["choices"][0]["logprobs"]["content"]
    assert "".join(t["token"] for t in content) == answer.text
    logprob = mean_logprob(answer.raw)
    assert logprob is not None and logprob <= 0
