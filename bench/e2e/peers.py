"""The peers of the end-to-end benchmark: a LangGraph ReAct agent and LLMCompiler, one task each.

Runs in the peers' venv (``/work/venvs/e2e``, see requirements-peers.txt), never the project's:

    /work/venvs/e2e/bin/python bench/e2e/peers.py react --task ID --base-url URL --tag TAG [--serial]
    /work/venvs/e2e/bin/python bench/e2e/peers.py llmcompiler --task ID --base-url URL --tag TAG \
        --llmcompiler-src /work/venvs/llmcompiler-src [--stream]

Both use the same tools (``tools_core``) and talk to the same model server as forethought; the
``--tag`` goes in the request's ``model`` field so the server can attribute the calls. Prints one
JSON object: the answer and the in-process start/end of the agent call (imports excluded).

LLMCompiler is imported from its own repository's checkout (``--llmcompiler-src`` or
``LLMCOMPILER_SRC``), fetched for the benchmark and never copied here. Its planner needs
few-shot examples and its joiner instructions for the task's tools; the ones below are written
for this benchmark's tools in LLMCompiler's documented plan format.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore")

import tools_core  # noqa: E402
from tasks import NUMERIC_PARAMS, PARAMS, RETURNS, TASKS, Task  # noqa: E402


def _signature(name: str) -> str:
    params = ", ".join(f"{p}: {'float' if p in NUMERIC_PARAMS else 'str'}" for p in PARAMS[name])
    return f"{name}({params}) -> {RETURNS.get(name, 'float')}"


# ------------------------------------------------------------------------------------ ReAct


def langchain_tools() -> list[Any]:
    from langchain_core.tools import StructuredTool
    from pydantic import create_model

    out = []
    for name in PARAMS:
        fields: dict[str, Any] = {p: (float if p in NUMERIC_PARAMS else str, ...) for p in PARAMS[name]}
        schema = create_model(f"{name}_args", **fields)

        def make(tool_name: str) -> Any:
            async def run(**kwargs: Any) -> Any:
                return await tools_core.call(tool_name, kwargs)

            return run

        out.append(
            StructuredTool.from_function(
                coroutine=make(name),
                name=name,
                description=tools_core.DESCRIPTIONS[name],
                args_schema=schema,
            )
        )
    return out


async def run_react(task: Task, base_url: str, tag: str, serial: bool) -> dict[str, Any]:
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    tools = langchain_tools()
    llm = ChatOpenAI(model=tag, base_url=base_url, api_key="not-needed", temperature=0, max_retries=0)
    model = llm.bind_tools(tools, parallel_tool_calls=False) if serial else llm
    agent = create_react_agent(model, tools)
    start = time.time()
    state = await agent.ainvoke({"messages": [("user", task.question)]}, {"recursion_limit": 60})
    end = time.time()
    return {"answer": state["messages"][-1].content, "start": start, "end": end}


# ------------------------------------------------------------------------------------ LLMCompiler

# Few-shot examples for the planner, in LLMCompiler's plan format, written for these tools.
PLANNER_EXAMPLES = (
    "Question: Which is warmer right now, Seville or Porto, and by how much?\n"
    '1. city_temperature("Seville")\n'
    '2. city_temperature("Porto")\n'
    '3. subtract("$1", "$2")\n'
    "Thought: I can answer the question now.\n"
    "4. join()<END_OF_PLAN>\n"
    "###\n\n"
    "Question: What is the GDP of the country whose capital is Bern?\n"
    '1. city_country("Bern")\n'
    '2. country_gdp("$1")\n'
    "Thought: I can answer the question now.\n"
    "3. join()<END_OF_PLAN>\n"
    "###\n"
)

JOINER_PROMPT = (
    "Answer the question from the observations of the executed plan.\n"
    "Reply with a Thought, then an Action, which is one of:\n"
    " (1) Finish(answer): the observations answer the question; give the answer, naming every "
    "value it uses.\n"
    " (2) Replan(missing): the observations are not enough; say what is missing.\n"
    "Never write a closing parenthesis inside the answer.\n\n"
    "Example:\n"
    "Question: Which is warmer right now, Seville or Porto, and by how much?\n"
    "city_temperature(Seville)\nObservation: 24.0\n"
    "city_temperature(Porto)\nObservation: 18.5\n"
    "subtract(('24.0', '18.5'))\nObservation: 5.5\n"
    "Thought: Seville is warmer by 5.5 degrees.\n"
    "Action: Finish(Seville is warmer by 5.5 degrees Celsius)\n"
    "###\n"
)


def llmcompiler_tools(src_tool: Any) -> list[Any]:
    out = []
    for name in PARAMS:

        def make(tool_name: str) -> Any:
            async def run(*args: Any) -> Any:
                return await tools_core.call(tool_name, dict(zip(PARAMS[tool_name], args, strict=False)))

            return run

        desc = f"{_signature(name)}:\n - {tools_core.DESCRIPTIONS[name]}\n"
        out.append(src_tool(name=name, func=make(name), description=desc))
    return out


async def run_llmcompiler(task: Task, base_url: str, tag: str, src: str, stream: bool) -> dict[str, Any]:
    sys.path.insert(0, src)
    from langchain.chat_models import ChatOpenAI
    from src.llm_compiler.constants import END_OF_PLAN
    from src.llm_compiler.llm_compiler import LLMCompiler
    from src.tools.base import Tool
    from src.utils.logger_utils import enable_logging

    enable_logging(False)

    def llm(streaming: bool) -> Any:
        return ChatOpenAI(
            model_name=tag,
            openai_api_key="not-needed",
            openai_api_base=base_url,
            streaming=streaming,
            temperature=0,
            max_retries=0,
        )

    agent = LLMCompiler(
        tools=llmcompiler_tools(Tool),
        planner_llm=llm(stream),
        planner_example_prompt=PLANNER_EXAMPLES,
        planner_example_prompt_replan=None,
        planner_stop=[END_OF_PLAN],
        planner_stream=stream,
        agent_llm=llm(False),
        joinner_prompt=JOINER_PROMPT,
        joinner_prompt_final=None,
        max_replans=2,
        benchmark=False,
    )
    start = time.time()
    answer = await agent.arun(task.question)
    end = time.time()
    return {"answer": answer, "start": start, "end": end}


def main() -> None:
    parser = argparse.ArgumentParser(description="run one benchmark task with a peer system")
    parser.add_argument("system", choices=["react", "llmcompiler"])
    parser.add_argument("--task", required=True, choices=sorted(TASKS))
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--tag", required=True)
    parser.add_argument("--serial", action="store_true", help="ReAct: one tool call per model turn")
    parser.add_argument("--stream", action="store_true", help="LLMCompiler: stream the plan")
    parser.add_argument("--llmcompiler-src", default=os.environ.get("LLMCOMPILER_SRC"))
    args = parser.parse_args()
    task = TASKS[args.task]
    if args.system == "react":
        result = asyncio.run(run_react(task, args.base_url, args.tag, args.serial))
    else:
        if not args.llmcompiler_src:
            sys.exit("peers.py: give --llmcompiler-src (or LLMCOMPILER_SRC): the LLMCompiler checkout")
        result = asyncio.run(
            run_llmcompiler(task, args.base_url, args.tag, args.llmcompiler_src, args.stream)
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
