"""Digests of everything errorkb writes for the corpus: catalogs, history, sites.

Run it before and after a change that must not change behaviour, and diff the two:

    python tests/output_digest.py --source ../shared/corpus/vllm-releases.bundle > before.txt
    ... change ...
    python tests/output_digest.py --source ../shared/corpus/vllm-releases.bundle > after.txt
    diff before.txt after.txt

It drives the ``errorkb`` command, never the modules, so it reads the same across a
reorganisation of the package.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def errorkb(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "generator", *args], cwd=ROOT, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the corpus bundle")
    parser.add_argument("--site", action=argparse.BooleanOptionalAction, default=True, help="build the two sites too")
    args = parser.parse_args()
    releases = tomllib.loads((ROOT / "errorkb.toml").read_text(encoding="utf-8"))["history"]["releases"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for rev in releases:
            errorkb("scan", "--source", args.source, "--rev", rev, "--out", str(out / f"{rev}.json"))
            print(f"catalog {rev} {digest(out / f'{rev}.json')}", flush=True)
        errorkb("scan", "--source", args.source, *[a for rev in releases for a in ("--rev", rev)], "--out", str(out / "history.json"))
        print(f"history {digest(out / 'history.json')}", flush=True)
        if args.site:
            for name, extra in (("pin", ["--pin-only"]), ("history", [])):
                site = out / f"site-{name}"
                errorkb("build", "--source", args.source, "--out", str(site), *extra)
                files = sorted(p for p in site.rglob("*") if p.is_file())
                whole = hashlib.sha256()
                for path in files:
                    rel = path.relative_to(site).as_posix()
                    whole.update(f"{rel} {digest(path)}\n".encode())
                print(f"site-{name} {len(files)} files {whole.hexdigest()}", flush=True)
                for path in files:
                    print(f"  {name}/{path.relative_to(site).as_posix()} {digest(path)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
