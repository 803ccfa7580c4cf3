"""What changed in the errors between two releases, and the curated coverage at the newer. Pure."""

from __future__ import annotations

from generator.history.lineage import _places, link_errors


def drift(old: dict, new: dict, entries: list | None = None, weights: dict[str, int] | None = None) -> dict:
    """What changed in the errors between two catalogs, and the curated coverage at NEW.

    ``entries``: curated entries (anything with ``slug`` and ``ids``); ``weights``: how
    often people hit each id, for coverage weighted by it.
    """
    old_ids = {e["id"]: e for e in old["errors"]}
    new_ids = {e["id"]: e for e in new["errors"]}
    links = link_errors(old, new)
    linked_from = {link.source for link in links}
    linked_to = {link.target for link in links}

    def brief(error: dict) -> dict:
        site = error["sites"][0]
        return {"id": error["id"], "exception": error["exception"], "template": error["template"],
                "path": site["path"], "line": site["line"], "function": site["function"]}

    moved = []
    for error_id in sorted(set(old_ids) & set(new_ids)):
        before, after = _places(old_ids[error_id]), _places(new_ids[error_id])
        if before != after:
            moved.append({"id": error_id, "template": new_ids[error_id]["template"],
                          "from": sorted(f"{p}:{f}" for p, f in before - after),
                          "to": sorted(f"{p}:{f}" for p, f in after - before)})
    curated_ids = {i for e in entries or [] for i in e.ids}
    stale = [{"entry": e.slug, "ids": [i for i in e.ids if i in old_ids and i not in new_ids]}
             for e in entries or [] if any(i in old_ids and i not in new_ids for i in e.ids)]
    covered = [i for i in new_ids if i in curated_ids]
    weights = weights or {}
    total_weight = sum(w for i, w in weights.items() if i in new_ids)
    return {
        "old": old["revision"],
        "new": new["revision"],
        "added": [brief(new_ids[i]) for i in sorted(new_ids) if i not in old_ids and i not in linked_to],
        "removed": [brief(old_ids[i]) for i in sorted(old_ids) if i not in new_ids and i not in linked_from],
        "reworded": [dict(link.to_json(), old=brief(old_ids[link.source]), new=brief(new_ids[link.target]))
                     for link in links if link.kind != "retyped"],
        "retyped": [dict(link.to_json(), old=brief(old_ids[link.source]), new=brief(new_ids[link.target]))
                    for link in links if link.kind == "retyped"],
        "moved": moved,
        "stale_entries": stale,
        "coverage": {
            "errors": len(new_ids),
            "curated": len(covered),
            "share": round(len(covered) / len(new_ids), 4) if new_ids else 0.0,
            "weighted_share": round(sum(w for i, w in weights.items() if i in new_ids and i in curated_ids) / total_weight, 4)
            if total_weight else None,
        },
    }
