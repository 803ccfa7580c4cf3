"""errors/lineage.yaml: links people know, checked like the other files of errors/."""

from __future__ import annotations

from pathlib import Path

from generator.entries.lineage import link_problems, load_lineage, load_links

ROOT = Path(__file__).resolve().parents[1]


def _links(tmp_path, text: str):
    (tmp_path / "lineage.yaml").write_text(text, encoding="utf-8")
    return load_links(tmp_path, tmp_path)


def test_the_repositorys_links_load():
    links, problems = load_links(ROOT / "errors", ROOT)
    assert not problems and len(links) >= 5
    assert all(link.why for link in links)


def test_a_bad_link_names_its_line_and_what_to_fix(tmp_path):
    links, problems = _links(tmp_path, 'links:\n  - from: "b17c69541467529f"\n    to: "nope"\n    why: same check\n'
                                       '  - from: "b17c69541467529f"\n    to: "e9b8b9d5e25cd686"\n    how: x\n')
    assert links == []
    text = [str(p) for p in problems]
    assert text[0].startswith("lineage.yaml:3:9: `to` must be an error id")
    assert any("unknown key `how`" in t for t in text) and any("`why` must say" in t for t in text)


def test_ids_must_exist_and_the_target_be_newer(tmp_path):
    links, problems = _links(tmp_path, 'links:\n  - from: "aaaaaaaaaaaaaaaa"\n    to: "bbbbbbbbbbbbbbbb"\n    why: one check\n'
                                       '  - from: "bbbbbbbbbbbbbbbb"\n    to: "aaaaaaaaaaaaaaaa"\n    why: the wrong way\n'
                                       '  - from: "aaaaaaaaaaaaaaaa"\n    to: "cccccccccccccccc"\n    why: no such id\n')
    assert not problems and len(links) == 3
    versions = {"aaaaaaaaaaaaaaaa": ["v1"], "bbbbbbbbbbbbbbbb": ["v2"]}
    found = [p.message for p in link_problems(links, "errors/lineage.yaml", versions, ["v1", "v2"])]
    assert found == ["`to` aaaaaaaaaaaaaaaa is raised by no release newer than `from` bbbbbbbbbbbbbbbb's last",
                     "`to` cccccccccccccccc is not raised by the releases covered"]


def test_pairs_kept_apart_load_beside_the_links(tmp_path):
    (tmp_path / "lineage.yaml").write_text('links: []\napart:\n  - from: "aaaaaaaaaaaaaaaa"\n    to: "bbbbbbbbbbbbbbbb"\n'
                                           '    why: two libraries\n', encoding="utf-8")
    lineage, problems = load_lineage(tmp_path, tmp_path)
    assert not problems and lineage.links == []
    assert lineage.apart_pairs() == {frozenset({"aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"})}
    versions = {"aaaaaaaaaaaaaaaa": ["v2"], "bbbbbbbbbbbbbbbb": ["v1"]}  # a link the text finds goes forward
    assert [p.message for p in link_problems([], "lineage.yaml", versions, ["v1", "v2"], lineage.apart)] == [
        "`to` bbbbbbbbbbbbbbbb is raised by no release newer than `from` aaaaaaaaaaaaaaaa's last"]


def test_a_bad_pair_kept_apart_names_its_line(tmp_path):
    text = ('links:\n  - from: "aaaaaaaaaaaaaaaa"\n    to: "bbbbbbbbbbbbbbbb"\n    why: one check\n'
            'apart:\n  - from: "bbbbbbbbbbbbbbbb"\n    to: "aaaaaaaaaaaaaaaa"\n    why: two checks\n'
            '  - from: "cccccccccccccccc"\n    to: "dddd"\n    why: ""\n'
            'extra: 1\n')
    (tmp_path / "lineage.yaml").write_text(text, encoding="utf-8")
    lineage, problems = load_lineage(tmp_path, tmp_path)
    assert len(lineage.links) == 1 and len(lineage.apart) == 1
    assert [str(p) for p in problems] == [
        "lineage.yaml:6:5: bbbbbbbbbbbbbbbb and aaaaaaaaaaaaaaaa are both linked and kept apart; remove one of the two",
        "lineage.yaml:10:9: `to` must be an error id: 16 hex digits, in quotes",
        "lineage.yaml:11:10: `why` must say what shows the two are two checks",
        "lineage.yaml:12:8: unknown key `extra`: the file has `links:` and `apart:`"]
