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

The file's ``apart:`` list is the other way round: two errors whose messages are alike
enough for `generator.history.lineage` to link them, but which are two checks (an error
raised beside the one it was linked to, for another library). Each item names the link
it undoes (``from``, ``to``) and ``why``; the site and the lookup leave that link out.
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


@dataclass(frozen=True)
class Lineage:
    """What ``lineage.yaml`` says: links to add, and links of the text's lineage to leave out."""
    links: list[ManualLink]
    apart: list[ManualLink]  # each a link `generator.history.lineage` found that joins two checks

    def apart_pairs(self) -> frozenset[frozenset[str]]:
        """The links to leave out, each as the set of its two ids (either way round)."""
        return frozenset(frozenset((link.source, link.target)) for link in self.apart)


def load_links(folder: Path, root: Path) -> tuple[list[ManualLink], list[Problem]]:
    """The links of ``folder/lineage.yaml`` (none when there is no such file) and the
    problems of the file's shape; a link with a problem is left out."""
    lineage, problems = load_lineage(folder, root)
    return lineage.links, problems


def load_lineage(folder: Path, root: Path) -> tuple[Lineage, list[Problem]]:
    """The links and the pairs kept apart of ``folder/lineage.yaml`` (none when there is no
    such file) and the problems of the file's shape; an item with a problem is left out."""
    file = Path(folder) / LINEAGE_FILE
    composed, problems = read_list_file(file, root, "links", "{from, to, why}")
    if composed is None:
        return Lineage([], []), problems
    path = _relative(file, root)
    data = composed.data
    problems = []
    unknown_top = sorted(set(map(str, data)) - {"links", "apart"})
    if unknown_top:
        problems.append(Problem(path, *composed.positions.get((unknown_top[0],), (1, 1)),
                                f"unknown key `{unknown_top[0]}`: the file has `links:` and `apart:`"))
    if "apart" in data and not isinstance(data["apart"], list):
        problems.append(Problem(path, *composed.positions.get(("apart",), (1, 1)),
                                "`apart:` must be a list of {from, to, why}"))
    lists = {}
    for key, why in (("links", "what shows the two are one check"), ("apart", "what shows the two are two checks")):
        items = data.get(key) if isinstance(data.get(key), list) else []
        lists[key] = []
        for index, item in enumerate(items):
            line, col = composed.positions.get((key, index), (1, 1))
            where = lambda name: composed.positions.get((key, index, name), (line, col))  # noqa: E731
            if not isinstance(item, dict):
                problems.append(Problem(path, line, col, f"an item of `{key}:` is a mapping with from, to and why"))
                continue
            found = []
            unknown = sorted(set(map(str, item)) - {"from", "to", "why"})
            if unknown:
                found.append(Problem(path, *where(unknown[0]), f"unknown key `{unknown[0]}`: an item of `{key}:` has from, to and why"))
            for name in ("from", "to"):
                if not isinstance(item.get(name), str) or not _ID.match(item[name]):
                    found.append(Problem(path, *where(name), f"`{name}` must be an error id: 16 hex digits, in quotes"))
            if not isinstance(item.get("why"), str) or not item["why"].strip():
                found.append(Problem(path, *where("why"), f"`why` must say {why}"))
            if found:
                problems.extend(found)
                continue
            lists[key].append(ManualLink(item["from"], item["to"], " ".join(item["why"].split()), line, col))
    linked = {frozenset((link.source, link.target)) for link in lists["links"]}
    for link in lists["apart"]:
        if frozenset((link.source, link.target)) in linked:
            problems.append(Problem(path, link.line, link.col,
                                    f"{link.source} and {link.target} are both linked and kept apart; remove one of the two"))
    return Lineage(lists["links"], lists["apart"]), sorted(problems)


def link_problems(links: list[ManualLink], path: str, versions: dict[str, list[str]], releases: list[str],
                  apart: list[ManualLink] = ()) -> list[Problem]:
    """What the shape cannot show: ids no release covered raises, and a ``to`` not newer than ``from``
    (of ``apart`` too: a link the lineage finds goes from an older error to a newer one).
    ``versions``: each error id's releases; ``releases``: the releases covered, oldest first."""
    order = {r: n for n, r in enumerate(releases)}
    problems = []
    for link in [*links, *apart]:
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
