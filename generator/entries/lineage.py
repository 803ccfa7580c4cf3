"""``errors/lineage.yaml``: lineage that the text cannot show, written by people.

`generator.history.lineage` links an error to the one it became when their messages are
alike. Some checks were reworded past recognition: "Cannot request more than 5
logprobs." (v0.4.1 – v0.10.0) is "Requested sample logprobs of 5, which is greater than
max allowed: 1" today. A person who knows both writes the link here, with why; the
lookup then leads the old message to the current page, as for any other lineage.

Each link names two error ids (``from``, the older; ``to``, the one that does its check
now) and ``why``. ``errorkb check`` checks each item (``link_problems``): ids are 16 hex
digits, both are raised by some release covered, ``to`` is raised by a newer release than
``from``'s last.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.entries.load import _relative
from generator.entries.problems import Problem
from generator.entries.reports import read_list_file

LINEAGE_FILE = "lineage.yaml"
_ID = re.compile(r"^[0-9a-f]{16}$")


@dataclass(frozen=True)
class ManualLink:
    source: str  # the older error
    target: str  # the error that does its check now
    why: str
    line: int = 0
    col: int = 0


def load_links(folder: Path, root: Path) -> tuple[list[ManualLink], list[Problem]]:
    """The links of ``folder/lineage.yaml`` (none when there is no such file) and the
    problems of the file's shape; a link with a problem is left out."""
    file = Path(folder) / LINEAGE_FILE
    composed, problems = read_list_file(file, root, "links", "{from, to, why}")
    if composed is None:
        return [], problems
    path = _relative(file, root)
    data = composed.data
    links, problems = [], []
    for index, item in enumerate(data["links"]):
        line, col = composed.positions.get(("links", index), (1, 1))
        where = lambda key: composed.positions.get(("links", index, key), (line, col))  # noqa: E731
        if not isinstance(item, dict):
            problems.append(Problem(path, line, col, "a link is a mapping with from, to and why"))
            continue
        found = []
        unknown = sorted(set(map(str, item)) - {"from", "to", "why"})
        if unknown:
            found.append(Problem(path, *where(unknown[0]), f"unknown key `{unknown[0]}`: a link has from, to and why"))
        for key in ("from", "to"):
            if not isinstance(item.get(key), str) or not _ID.match(item[key]):
                found.append(Problem(path, *where(key), f"`{key}` must be an error id: 16 hex digits, in quotes"))
        if not isinstance(item.get("why"), str) or not item["why"].strip():
            found.append(Problem(path, *where("why"), "`why` must say what shows the two are one check"))
        if found:
            problems.extend(found)
            continue
        links.append(ManualLink(item["from"], item["to"], " ".join(item["why"].split()), line, col))
    return links, sorted(problems)


def link_problems(links: list[ManualLink], path: str, versions: dict[str, list[str]], releases: list[str]) -> list[Problem]:
    """What the shape cannot show: ids no release covered raises, and a ``to`` not newer than ``from``.
    ``versions``: each error id's releases; ``releases``: the releases covered, oldest first."""
    order = {r: n for n, r in enumerate(releases)}
    problems = []
    for link in links:
        for role, id_ in (("from", link.source), ("to", link.target)):
            if id_ not in versions:
                problems.append(Problem(path, link.line, link.col, f"`{role}` {id_} is not raised by the releases covered"))
        if link.source in versions and link.target in versions:
            last = max(order.get(v, -1) for v in versions[link.source])
            newest = max(order.get(v, -1) for v in versions[link.target])
            if newest <= last:
                problems.append(Problem(path, link.line, link.col,
                                        f"`to` {link.target} is raised by no release newer than `from` {link.source}'s last"))
    return problems
