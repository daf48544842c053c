"""One registry of error codes (nothanks_tui/link/errors.py) that the engine, the code and the document agree with.

- docs/protocol.md's "Error codes" table lists exactly the codes a host sends, each with the registry's meaning
  and fatal flag;
- every engine code is registered, under the engine's own constant;
- no refusal in nothanks_tui or the host is raised or built with a code written out as a string: each names a
  registry (or engine) constant, so a code is spelled in one place.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from nothanks_tui.engine import errors as engine_errors
from nothanks_tui.link import errors

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
SCANNED = [ROOT / "nothanks_tui", ROOT / "server" / "nothanks_server"]
# Every exception or event that carries a code as its first argument (or ``code=``).
CODE_CARRIERS = {"Rejected", "LobbyError", "ProtocolError", "HostError", "IllegalMove"}


def documented_codes() -> dict[str, tuple[str, bool]]:
    """code -> (meaning, fatal) from the table under "## Error codes" in docs/protocol.md."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    section = text.split("\n## Error codes\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    assert rows[0].replace(" ", "") == "|code|meaning|fatal|", rows[0]
    table: dict[str, tuple[str, bool]] = {}
    for row in rows[2:]:
        cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
        assert len(cells) == 3, f"a row of the error table has three cells: {row}"
        code_cell, meaning, fatal = cells
        match = re.fullmatch(r"`([a-z_]+)`", code_cell)
        assert match, f"one `code` per row: {row}"
        assert fatal in ("yes", "no"), row
        assert match.group(1) not in table, f"{match.group(1)} is listed twice"
        table[match.group(1)] = (meaning, fatal == "yes")
    return table


def test_the_protocol_document_lists_exactly_the_host_codes_with_their_meaning_and_fatality():
    documented = documented_codes()
    assert set(documented) == errors.HOST_CODES
    for code, (meaning, fatal) in documented.items():
        entry = errors.REGISTRY[code]
        assert (meaning, fatal) == (entry.meaning, entry.fatal), code


def test_every_engine_code_is_registered_under_the_engine_constant():
    assert engine_errors.ERROR_CODES <= errors.REGISTRY.keys()
    for name in dir(engine_errors):
        value = getattr(engine_errors, name)
        if name.isupper() and isinstance(value, str):
            assert value in engine_errors.ERROR_CODES, f"engine code {name} is missing from ERROR_CODES"
            assert getattr(errors, name) == value, f"link.errors.{name} is not the engine's {name}"


def test_registry_entries_are_whole():
    for code, entry in errors.REGISTRY.items():
        assert entry.code == code and re.fullmatch(r"[a-z]+(_[a-z]+)*", code), code
        assert entry.meaning and entry.sent_by in ("host", "engine", "client"), code
        assert not (entry.fatal and entry.sent_by != "host"), f"only a host closes a connection: {code}"


def literal_codes(source: str, where: str) -> list[str]:
    """Where ``source`` writes a code out as text: the code argument of a carrier, or ``"code": "..."`` in a map."""
    found = []
    for node in ast.walk(ast.parse(source, where)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name in CODE_CARRIERS:
                code = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "code"), None)
                if isinstance(code, (ast.Constant, ast.JoinedStr)):
                    found.append(f"{where}:{node.lineno}: {name}({ast.unparse(code)}, ...)")
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if key_is_code(key) and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.append(f"{where}:{node.lineno}: {{'code': {value.value!r}}}")
    return found


def key_is_code(key: ast.expr | None) -> bool:
    return isinstance(key, ast.Constant) and key.value == "code"


def python_files() -> list[Path]:
    return sorted(path for root in SCANNED for path in root.rglob("*.py"))


def test_the_scan_sees_the_code_it_must_check():
    files = {path.relative_to(ROOT).as_posix() for path in python_files()}
    assert {
        "nothanks_tui/client/tcp.py",
        "server/nothanks_server/table/authority.py",
        "server/nothanks_server/tcp.py",
    } <= files


@pytest.mark.parametrize(
    "source",
    [
        'raise LobbyError("closed", "gone")',
        'raise errors.HostError(f"no_{what}", "x")',
        'Rejected(code="stale_state", message="x")',
        'reply = {"type": "error", "code": "closed"}',
    ],
)
def test_the_scan_finds_a_code_written_out(source):
    assert len(literal_codes(source, "probe.py")) == 1


@pytest.mark.parametrize(
    "source",
    [
        'raise LobbyError(errors.CLOSED, "gone")',
        "Rejected(code=STALE_STATE, message=str(error))",
        'LobbyError(str(reply.get("code")), "")',
        'result = {"code": 0}',
    ],
)
def test_the_scan_lets_a_named_or_relayed_code_pass(source):
    assert literal_codes(source, "probe.py") == []


def test_no_refusal_spells_its_code_out():
    found = [
        line
        for path in python_files()
        for line in literal_codes(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    ]
    assert found == [], "use the nothanks_tui.link.errors constants:\n" + "\n".join(found)
