"""Every ```python block in notes/*.md and README.md runs: the blocks of one file in order, in one
namespace."""
import re
from pathlib import Path

import pytest

NOTES = Path(__file__).resolve().parent.parent / "notes"
FILES = sorted(NOTES.glob("*.md")) + [NOTES.parent / "README.md"]
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def blocks(path):
    """[(first line number, source)] of the ```python blocks of a markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in BLOCK.finditer(text)]


def test_there_are_notes():
    assert FILES, f"no notes/*.md found in {NOTES}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_note_blocks_run(path):
    found = blocks(path)
    assert found, f"{path.name} has no ```python block"
    namespace = {"__name__": f"notes.{path.stem}"}
    for line, source in found:
        # Pad with newlines so a traceback's line numbers are the markdown file's.
        code = compile("\n" * (line - 1) + source, str(path), "exec")
        exec(code, namespace)
