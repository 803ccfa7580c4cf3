"""What every benchmark script shares: the source options and the pin's catalog."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.config import load_config  # noqa: E402


def source_parser(doc: str, rev: bool = True) -> argparse.ArgumentParser:
    """--source, --rev and --cache-dir, defaulting to errorkb.toml's pin."""
    config = load_config()
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--source", default=config.source)
    if rev:
        parser.add_argument("--rev", default=config.rev)
    parser.add_argument("--cache-dir", type=Path, default=config.cache_dir)
    return parser


def pin_catalog(args: argparse.Namespace):
    """The resolved revision and its catalog as JSON data (scanned through the cache)."""
    from generator.scan.cache import BlobCache
    from generator.scan.catalog import catalog_json, scan_revision
    from generator.scan.sources import resolve

    revision = resolve(args.source, args.rev, args.cache_dir)
    with BlobCache(args.cache_dir / "analysis.sqlite") as cache:
        return revision, json.loads(catalog_json(scan_revision("vllm", revision, cache)))
