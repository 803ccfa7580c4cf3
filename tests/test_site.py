"""The site build: real mkdocs, atomic, deterministic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.site import BuildError, build_site
from gitrepo import tagged_repo

ROOT = Path(__file__).resolve().parents[1]

CATALOG = {
    "revision": "v1",
    "errors": [
        {
            "id": "0123456789abcdef",
            "exception": "ValueError",
            "template": "bad <script>alert(1)</script> {x}",
            "has_message": True,
            "sites": [{"path": "vllm/a.py", "line": 3, "function": "f", "template": "bad <script>alert(1)</script> {x}", "variants": []}],
        }
    ],
}


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_builds_are_byte_identical(tmp_path):
    build_site(ROOT / "mkdocs.yml", [CATALOG], tmp_path / "one")
    build_site(ROOT / "mkdocs.yml", [CATALOG], tmp_path / "two")
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    assert one == two
    assert "index.html" in one and "api/lookup-index.json" in one and "assets/lookup.js" in one


def test_home_page_has_the_paste_box_and_the_index_has_every_error(tmp_path):
    build_site(ROOT / "mkdocs.yml", [CATALOG], tmp_path / "site")
    home = (tmp_path / "site" / "index.html").read_text()
    assert 'id="errorkb-paste"' in home and 'id="errorkb-find"' in home and "assets/lookup.js" in home
    index = json.loads((tmp_path / "site" / "api" / "lookup-index.json").read_text())
    assert [row[0] for row in index["errors"]] == ["0123456789abcdef"]
    assert index["revisions"] == ["v1"] and index["rules"]["not_vllm"]


def test_a_failed_build_leaves_the_previous_site(tmp_path):
    build_site(ROOT / "mkdocs.yml", [CATALOG], tmp_path / "site")
    before = tree(tmp_path / "site")
    broken = tmp_path / "mkdocs.yml"
    broken.write_text((ROOT / "mkdocs.yml").read_text().replace("name: material", "name: no-such-theme"))
    with pytest.raises(BuildError):
        build_site(broken, [CATALOG], tmp_path / "site")
    assert tree(tmp_path / "site") == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_build_command(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    out = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--source", str(repo), "--rev", "v1", "--out", str(out), "--cache-dir", str(tmp_path / "c")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert (out / "index.html").is_file()
    assert json.loads((out / "api" / "lookup-index.json").read_text())["errors"][0][2] == "boom"
