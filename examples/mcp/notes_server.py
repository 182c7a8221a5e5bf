"""A small MCP server (official SDK, stdio) for the MCP example: a notebook kept in a JSON file.

Tool annotations tell forethought the effects: `list_notes`/`search_notes` are read-only,
`add_note` is a mutation, `clear_notes` is destructive (it would need its own approval).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel

NOTES = Path(os.environ.get("NOTES_FILE", Path(__file__).resolve().parent / "notes.json"))
server = MCPServer("notes", subscriptions=False)
# The SDK may run two tool calls at once (forethought runs independent steps in parallel), so
# read-modify-write of the notebook is serialised and each write replaces the file whole: a reader
# never sees half a file and two adds never lose one another.
_NOTEBOOK = threading.Lock()


class Note(BaseModel):
    title: str
    text: str


class Notes(BaseModel):
    notes: list[Note]
    count: int


def _load() -> list[Note]:
    if not NOTES.exists():
        return []
    return [Note.model_validate(n) for n in json.loads(NOTES.read_text(encoding="utf-8"))]


def _save(notes: list[Note]) -> None:
    partial = NOTES.with_name(NOTES.name + ".partial")
    partial.write_text(json.dumps([n.model_dump() for n in notes], indent=2), encoding="utf-8")
    partial.replace(NOTES)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
def add_note(title: str, text: str) -> Note:
    """Add a note to the notebook."""
    note = Note(title=title, text=text)
    with _NOTEBOOK:
        _save([*_load(), note])
    return note


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def search_notes(query: str) -> Notes:
    """Notes whose title or text contains the query (case-insensitive)."""
    with _NOTEBOOK:
        notes = _load()
    found = [n for n in notes if query.lower() in (n.title + " " + n.text).lower()]
    return Notes(notes=found, count=len(found))


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def list_notes() -> Notes:
    """Every note in the notebook."""
    with _NOTEBOOK:
        notes = _load()
    return Notes(notes=notes, count=len(notes))


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def clear_notes() -> str:
    """Delete every note."""
    with _NOTEBOOK:
        _save([])
    return "cleared"


if __name__ == "__main__":
    server.run("stdio")
