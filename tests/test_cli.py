"""The errorkb command, run as a real process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from gitrepo import tagged_repo

ROOT = Path(__file__).resolve().parents[1]


def errorkb(*args: str, cache: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "ERRORKB_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=cwd, env=env, capture_output=True, text=True)


def test_scan_to_stdout(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    result = errorkb("scan", "--source", str(repo), "--rev", "v1", "--out", "-", cache=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    catalog = json.loads(result.stdout)
    assert [e["template"] for e in catalog["errors"]] == ["boom"]


def test_scan_to_file_reports_a_summary(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    out = tmp_path / "out" / "catalog.json"
    result = errorkb("scan", "--source", str(repo), "--rev", "v1", "--out", str(out), "--cache-dir", str(tmp_path / "c2"), cache=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    assert "1 errors from 1 sites in 1 files at v1" in result.stderr
    assert json.loads(out.read_text())["stats"]["sites"] == 1
    assert (tmp_path / "c2" / "analysis.sqlite").is_file()  # --cache-dir wins over the environment
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)


def test_unknown_revision_is_one_line_exit_2_and_keeps_the_old_output(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    out = tmp_path / "catalog.json"
    out.write_text("previous\n")
    result = errorkb("scan", "--source", str(repo), "--rev", "v9", "--out", str(out), cache=tmp_path / "c")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown revision 'v9'" in lines[0] and "--rev" in lines[0]
    assert out.read_text() == "previous\n"
    assert list(tmp_path.glob(".catalog.json.*")) == []


def test_a_mistyped_option_is_told_by_its_command_with_the_option_meant(tmp_path):
    result = errorkb("lookup", "--topp", "3", "ValueError: x", cache=tmp_path / "c")
    assert result.returncode == 2
    assert "usage: errorkb lookup" in result.stderr  # the command's own options, not errorkb's
    assert "errorkb lookup: error: unrecognized arguments: --topp" in result.stderr
    assert "(did you mean --top?)" in result.stderr
    result = errorkb("build", "--sourse=x", cache=tmp_path / "c")
    assert result.returncode == 2 and "(did you mean --source?)" in result.stderr
    result = errorkb("lookup", "--zzzzzz", cache=tmp_path / "c")
    assert result.returncode == 2 and "did you mean" not in result.stderr  # nothing close: no guess


def test_a_mistyped_command_names_the_command_meant(tmp_path):
    result = errorkb("lokup", "ValueError: x", cache=tmp_path / "c")
    assert result.returncode == 2
    assert "unknown command 'lokup' (did you mean 'lookup'?)" in result.stderr
    result = errorkb("zzz", cache=tmp_path / "c")
    assert result.returncode == 2 and "invalid choice: 'zzz'" in result.stderr


def test_missing_source_is_exit_2(tmp_path):
    result = errorkb("scan", "--source", str(tmp_path / "nope"), "--rev", "v1", "--out", "-", cache=tmp_path / "c")
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_defaults_come_from_the_config_file(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v7": {"vllm/a.py": "raise ValueError('pinned')\n"}})
    project = tmp_path / "project"
    project.mkdir()
    (project / "errorkb.toml").write_text(f'[pin]\nsource = "{repo}"\nrev = "v7"\n')
    result = errorkb("scan", "--out", "-", cache=tmp_path / "c", cwd=project)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["revision"] == "v7"


def test_without_a_config_file_the_cache_is_the_users_not_the_folders(tmp_path):
    """errorkb installed and run in any folder: its cache goes to $XDG_CACHE_HOME/errorkb/shared,
    one for every such folder, and nothing is left in the folder it ran in."""
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ERRORKB_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    result = subprocess.run([sys.executable, "-m", "generator", "scan", "--source", str(repo), "--rev", "v1", "--out", "-"],
                            cwd=elsewhere, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert list(elsewhere.iterdir()) == []
    assert (tmp_path / "xdg" / "errorkb" / "shared" / "analysis.sqlite").is_file()


def test_bad_config_is_exit_2_naming_the_file(tmp_path):
    (tmp_path / "errorkb.toml").write_text("[pin\n")
    result = errorkb("scan", "--out", "-", cache=tmp_path / "c", cwd=tmp_path)
    assert result.returncode == 2 and "errorkb.toml" in result.stderr


def test_repository_config_pins_vllm_0_33_0_from_pypi():
    from generator.config import load_config

    config = load_config(ROOT / "errorkb.toml")
    assert (config.source, config.rev) == ("pypi:vllm", "v0.33.0")
    assert config.releases[-1] == config.rev  # the pin is the newest [history] release


def test_a_source_naming_one_pypi_release_reads_the_others_by_their_tag():
    """`--source pypi:vllm==0.33.0` with [history]: each older release is read from pypi:vllm
    (the mismatch a fresh clone met: "revision 'v0.4.1' is not release 0.33.0")."""
    from generator.cli.common import source_for

    assert source_for("pypi:vllm==0.33.0", "v0.33.0") == "pypi:vllm==0.33.0"
    assert source_for("pypi:vllm==0.33.0", "v0.4.1") == "pypi:vllm"
    assert source_for("pypi:vllm", "v0.4.1") == "pypi:vllm"
    assert source_for("../corpus.bundle", "v0.4.1") == "../corpus.bundle"


def test_console_script_is_installed():
    result = subprocess.run(["errorkb", "scan", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "--source" in result.stdout


def test_writing_to_dev_null_leaves_it_a_device():
    import stat

    from generator.files import write_atomically

    write_atomically("/dev/null", "{}\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode), "/dev/null was replaced by a plain file"


def one_line_error(result: subprocess.CompletedProcess, code: int = 2) -> str:
    """The single ``errorkb: error: ...`` line of a failed command (no traceback)."""
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("errorkb: error: "), result.stderr
    return lines[0]


def test_a_corrupt_cache_heals_with_one_warning_line_naming_it(tmp_path):
    """The analysis cache only saves work: a damaged one is deleted and rebuilt, and said so once."""
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    cache = tmp_path / "c"
    cache.mkdir()
    (cache / "analysis.sqlite").write_bytes(b"this is not a database" * 100)
    result = errorkb("scan", "--source", str(repo), "--rev", "v1", "--out", "-", cache=cache)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("errorkb: warning: ") and str(cache / "analysis.sqlite") in line and "rebuilt" in line
    assert [e["template"] for e in json.loads(result.stdout)["errors"]] == ["boom"]
    again = errorkb("scan", "--source", str(repo), "--rev", "v1", "--out", "-", cache=cache)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == result.stdout


def test_a_path_that_cannot_be_written_is_one_line(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    (tmp_path / "file").write_text("")
    line = one_line_error(errorkb("scan", "--source", str(repo), "--rev", "v1", "--out", str(tmp_path / "file" / "x.json"), cache=tmp_path / "c"))
    assert "cannot write" in line and "file/x.json" in line


def test_a_missing_git_is_one_line_saying_what_to_install(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path), "ERRORKB_CACHE_DIR": str(tmp_path / "c")}  # no git on it
    result = subprocess.run([sys.executable, "-m", "generator", "scan", "--out", "-"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert "install it" in one_line_error(result)


def test_a_closed_pipe_ends_quietly(tmp_path):
    """`errorkb memory ... | head`: the reader leaves before the report is written."""
    env = {**os.environ, "ERRORKB_CACHE_DIR": str(tmp_path / "c")}
    process = subprocess.Popen([sys.executable, "-m", "generator", "memory", "--model", "models/qwen2.5-0.5b", "--gpu", "H100"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # before the process has written anything
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141 and stderr == "", stderr


def test_a_bad_memory_argument_is_one_line(tmp_path):
    line = one_line_error(errorkb("memory", "--model", "models/qwen2.5-0.5b", "--gpu", "H100", "--max-model-len", "abc", cache=tmp_path / "c"))
    assert "--max-model-len" in line
    line = one_line_error(errorkb("memory", "--model", str(tmp_path / "missing.json"), "--gpu", "H100", cache=tmp_path / "c"))
    assert "missing.json" in line


def test_drift_weights_must_be_counts(tmp_path):
    (tmp_path / "w.json").write_text('{"0123456789abcdef": "many"}')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}, "v2": {"vllm/a.py": "raise ValueError('bang')\n"}})
    line = one_line_error(errorkb("drift", "v1", "v2", "--source", str(repo), "--weights", str(tmp_path / "w.json"), cache=tmp_path / "c"))
    assert "w.json" in line and "count" in line


def test_drift_weights_weight_the_coverage(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}, "v2": {"vllm/a.py": "raise ValueError('bang')\n"}})
    catalog = json.loads(errorkb("scan", "--source", str(repo), "--rev", "v2", "--out", "-", cache=tmp_path / "c").stdout)
    (tmp_path / "w.json").write_text(json.dumps({catalog["errors"][0]["id"]: ["https://example.org/1", "https://example.org/2"]}))
    result = errorkb("drift", "v1", "v2", "--source", str(repo), "--weights", str(tmp_path / "w.json"), "--json", cache=tmp_path / "c")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["coverage"]["weighted_share"] == 0.0  # the one weighted error has no entry


def test_drift_weights_the_coverage_by_the_projects_reports_by_default(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"},
                                        "v2": {"vllm/a.py": "raise ValueError('bang')\nraise KeyError('gone')\n"}})
    project = tmp_path / "project"
    (project / "errors").mkdir(parents=True)
    (project / "errorkb.toml").write_text(f'[pin]\nsource = "{repo}"\nrev = "v2"\n')
    catalog = json.loads(errorkb("scan", "--source", str(repo), "--rev", "v2", "--out", "-", cache=tmp_path / "c").stdout)
    bang, gone = sorted(catalog["errors"], key=lambda e: e["template"])
    (project / "errors" / "reports.yaml").write_text(
        "gathered: 2026-12-01\nreports:\n"
        + "".join(f'  - id: "{bang["id"]}"\n    url: https://github.com/vllm-project/vllm/issues/{n}\n' for n in (1, 2, 3))
        + f'  - id: "{gone["id"]}"\n    url: https://github.com/vllm-project/vllm/issues/4\n')
    (project / "errors" / "bang.yaml").write_text(
        f"ids: [{bang['id']}]\ntitle: Bang\nsummary: It goes bang.\nsolutions:\n  - title: Stop it\n    why: Because.\n")
    result = errorkb("drift", "v1", "v2", cache=tmp_path / "c", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "1/2 errors curated (50.0%), 75.0% weighted by the reports in errors/reports.yaml" in result.stdout
    (project / "errors" / "reports.yaml").write_text("reports: 3\n")
    line = one_line_error(errorkb("drift", "v1", "v2", cache=tmp_path / "c", cwd=project))
    assert "reports.yaml:1:1" in line and "--weights" in line


def test_a_fix_of_several_lines_prints_a_prompt_per_command():
    from generator.cli.lookup import _command_lines

    two = "vllm serve m --block-size 32\nvllm serve m --block-size 32 --port 8200"
    assert _command_lines(two) == ["     $ vllm serve m --block-size 32", "     $ vllm serve m --block-size 32 --port 8200"]
    continued = "vllm serve m \\\n    --compilation-config '{\"mode\": 3}'"
    assert _command_lines(continued) == ["     $ vllm serve m \\", "       --compilation-config '{\"mode\": 3}'"]


def test_the_stored_release_index_is_keyed_by_the_lineage_code(tmp_path):
    """A change to the lineage rules (or the index's columns) makes a new stored index: the
    release index holds the lineage, so a key of the scanner alone left `errorkb lookup`
    answering with the old groups."""
    import shutil

    from generator.lookup.cache import INDEX_CODE, code_fingerprint

    for part in INDEX_CODE:  # a copy of the package's files that the key reads
        (tmp_path / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, tmp_path / part)
    before = code_fingerprint(tmp_path / "generator", INDEX_CODE)
    assert before == code_fingerprint(ROOT / "generator", INDEX_CODE)
    with open(tmp_path / "generator/history/lineage.py", "a") as lineage:
        lineage.write("\n# a rule changed\n")
    assert code_fingerprint(tmp_path / "generator", INDEX_CODE) != before


def test_an_installed_errorkb_looks_up_with_its_curated_entries_in_any_folder(tmp_path, corpus_bundle, session_cache,
                                                                               errorkb_wheel):
    """A regular `pip install .` ships errors/*.yaml as data files (<prefix>/share/errorkb/errors);
    `errorkb lookup` run in a folder without errorkb.toml reads them: the curated title and fix,
    not the bare message. (Here under --prefix: found through the installed files' record.)"""
    wheel = errorkb_wheel
    with zipfile.ZipFile(wheel) as archive:
        shipped = {Path(name).name for name in archive.namelist() if "/data/share/errorkb/errors/" in name}
    assert shipped == {p.name for p in (ROOT / "errors").glob("*.yaml")}
    prefix = tmp_path / "prefix"
    # (--ignore-installed: pip would otherwise uninstall the errorkb these tests run from first)
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed",
                                "--prefix", str(prefix), str(wheel)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-2000:]
    (package,) = prefix.glob("lib/*/site-packages/generator/__init__.py")
    anywhere = tmp_path / "anywhere"
    anywhere.mkdir()
    env = os.environ | {"PYTHONPATH": str(package.parent.parent), "ERRORKB_CACHE_DIR": str(session_cache)}
    where = subprocess.run([sys.executable, "-c", "import generator; from generator.config import load_config; "
                            "print(generator.__file__); print(load_config().entries_dir)"], cwd=anywhere, env=env,
                           capture_output=True, text=True)
    # the installed copy and its entries, not this checkout's
    assert where.stdout.splitlines() == [str(package), str((prefix / "share" / "errorkb" / "errors").resolve())], where.stderr
    text = "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128). Each decode sequence requires one Mamba cache block"
    result = subprocess.run([sys.executable, "-m", "generator", "lookup", "--source", str(corpus_bundle), "--rev", "v0.33.0", text],
                            cwd=anywhere, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "1. Fewer Mamba cache blocks than max_num_seqs, so full CUDA graphs cannot be captured", lines
    assert any(line.strip().startswith("Fix: Lower max_num_seqs") for line in lines)
    assert list(anywhere.iterdir()) == []
