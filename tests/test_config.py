"""generator/config.py: errorkb.toml read into a Config, and where `errorkb lookup` finds the
curated entries when it runs outside a project (a regular install's data folder, an editable
install's checkout)."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path

import pytest

from generator.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[1]
# What the installed errorkb says, run in a folder without errorkb.toml: its package and its entries.
WHERE = "import generator; from generator.config import load_config; print(generator.__file__); print(load_config().entries_dir)"


def test_a_project_folder_reads_its_own_errors(tmp_path, monkeypatch):
    (tmp_path / "errorkb.toml").write_text('[pin]\nrev = "v0.32.0"\n[history]\nreleases = ["v0.31.0", "v0.32.0"]\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    config = load_config()
    assert (config.from_file, config.rev, config.releases) == (True, "v0.32.0", ("v0.31.0", "v0.32.0"))
    assert config.entries_dir == tmp_path.resolve() / "errors"


def test_a_bad_errorkb_toml_names_the_file_and_what_to_write(tmp_path):
    (tmp_path / "errorkb.toml").write_text('[history]\nreleases = "v0.32.0"\n')
    with pytest.raises(ConfigError, match=r"errorkb\.toml: \[history\] releases must be a list of release tags"):
        load_config(tmp_path / "errorkb.toml")


def _new_environment(folder: Path) -> Path:
    venv.EnvBuilder(with_pip=True).create(folder)
    return folder / "bin" / "python"


def _where(python: Path, folder: Path) -> list[str]:
    folder.mkdir()
    result = subprocess.run([str(python), "-c", WHERE], cwd=folder, capture_output=True, text=True,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(folder)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert list(folder.iterdir()) == []
    return result.stdout.splitlines()


def test_a_regular_install_reads_the_entries_in_its_environments_data_folder(tmp_path, errorkb_wheel):
    """`pip install .` in a virtual environment: the entries are in <venv>/share/errorkb/errors,
    found without the installed files' record (it is deleted here to show that)."""
    python = _new_environment(tmp_path / "venv")
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(errorkb_wheel)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-2000:]
    (record,) = (tmp_path / "venv").glob("lib/*/site-packages/errorkb-*.dist-info/RECORD")
    record.unlink()
    package, entries = _where(python, tmp_path / "anywhere")
    assert Path(package).is_relative_to(tmp_path / "venv" / "lib")
    assert entries == str((tmp_path / "venv" / "share" / "errorkb" / "errors").resolve())
    assert {p.name for p in Path(entries).glob("*.yaml")} == {p.name for p in (ROOT / "errors").glob("*.yaml")}


def test_an_editable_install_reads_its_checkouts_errors(tmp_path, checkout_copy):
    """`pip install -e .` copies no data files: the entries are the checkout's errors/, found
    through the install's direct_url.json."""
    python = _new_environment(tmp_path / "venv")
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(checkout_copy)],
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr[-2000:]
    package, entries = _where(python, tmp_path / "anywhere")
    assert package == str(checkout_copy.resolve() / "generator" / "__init__.py")
    assert entries == str(checkout_copy.resolve() / "errors")


def test_without_an_install_or_a_project_the_entries_are_the_current_folders(tmp_path, checkout_copy):
    """generator imported from a bare folder by an interpreter where errorkb is not installed:
    no entries are found elsewhere, so the lookup reads errors/ of the folder it runs in."""
    venv.EnvBuilder(with_pip=False).create(tmp_path / "venv")  # no errorkb of the tests' own environment
    code = f"import sys; sys.path.insert(0, {str(checkout_copy)!r}); " + WHERE
    result = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-c", code], cwd=tmp_path,
                            capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines() == [str(checkout_copy / "generator" / "__init__.py"), str(tmp_path.resolve() / "errors")]
