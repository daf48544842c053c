"""A git merge driver for the .po catalogs: the union of both sides' translations, so that branches which each
added strings merge without conflicts (the location comments churn on every `scripts/i18n.py update`).

Enable it in a clone (not committed: git reads drivers from the local config only):

    git config merge.po.driver ".venv/bin/python scripts/po_merge.py %O %A %B"
    printf '*.po merge=po\\n*.mo merge=ours\\n' >> .git/info/attributes && git config merge.ours.driver true

then, after the merge, `.venv/bin/python scripts/i18n.py update` (it refreshes the locations and compiles the .mo).
A string translated on one side only keeps that translation; translated differently on both, the side that changed
it from the merge base wins, else ours.
"""

from __future__ import annotations

import sys

from babel.messages.pofile import read_po, write_po


def translated(message: object) -> bool:
    string = getattr(message, "string", None)
    done = all(string) if isinstance(string, tuple | list) else bool(string)
    return done and "fuzzy" not in getattr(message, "flags", ())


def main(base_path: str, ours_path: str, theirs_path: str) -> int:
    base, ours, theirs = (read_po(open(path, "rb")) for path in (base_path, ours_path, theirs_path))
    for message in theirs:
        if not message.id:
            continue
        mine = ours.get(message.id, context=message.context)
        if mine is None:
            ours[message.id] = message
            continue
        before = base.get(message.id, context=message.context)
        they_changed = before is not None and mine.string == before.string and message.string != before.string
        if translated(message) and (not translated(mine) or they_changed):
            mine.string = message.string
            mine.flags.discard("fuzzy")
    with open(ours_path, "wb") as out:
        write_po(out, ours, width=120)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:4]))
