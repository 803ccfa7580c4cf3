"""Catalogs of real git repositories built here: grouping, stable ids, the blob cache."""

from __future__ import annotations

import json
from pathlib import Path

from generator.scan.cache import BlobCache
import generator.scan.catalog as catalog_module
from generator.scan.catalog import catalog_json, new_versions, scan_revision, scan_revisions
from generator.scan.ids import error_id
from generator.scan.incremental import scan_file
from generator.scan.sources import resolve
from gitrepo import tagged_repo

LIMIT = '''\
def check(n, limit):
    if n > limit:
        raise ValueError(f"n ({n}) exceeds the limit ({limit})")
'''


def scan(repo: Path, rev: str, cache_dir: Path, workers: int = 1) -> dict:
    with BlobCache(cache_dir / "analysis.sqlite") as cache:
        catalog = scan_revision("vllm", resolve(str(repo), rev, cache_dir), cache, workers)
    return json.loads(catalog_json(catalog))


def by_template(catalog: dict) -> dict[str, dict]:
    return {e["template"]: e for e in catalog["errors"]}


def test_same_exception_and_template_in_two_files_is_one_error(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": LIMIT, "vllm/b/c.py": "\n\n" + LIMIT}})
    catalog = scan(repo, "v1", tmp_path / "cache")
    (error,) = catalog["errors"]
    assert [(s["path"], s["line"]) for s in error["sites"]] == [("vllm/a.py", 3), ("vllm/b/c.py", 5)]
    assert catalog["stats"]["errors"] == 1 and catalog["stats"]["sites"] == 2


def test_another_exception_with_the_same_template_is_another_error(tmp_path):
    other = LIMIT.replace("ValueError", "RuntimeError")
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": LIMIT, "vllm/b.py": other}})
    catalog = scan(repo, "v1", tmp_path / "cache")
    assert sorted(e["exception"] for e in catalog["errors"]) == ["RuntimeError", "ValueError"]


def test_id_survives_moving_the_raise_and_changes_with_the_message(tmp_path):
    moved = "import os\n\n\nclass Unrelated:\n    pass\n\n\n" + LIMIT.replace("def check", "def check_limit")
    reworded = LIMIT.replace("exceeds the limit", "is above the limit")
    repo = tagged_repo(
        tmp_path / "r",
        {"v1": {"vllm/a.py": LIMIT}, "v2": {"vllm/a.py": None, "vllm/moved/x.py": moved}, "v3": {"vllm/moved/x.py": reworded}},
    )
    v1, v2, v3 = (scan(repo, tag, tmp_path / "cache")["errors"] for tag in ("v1", "v2", "v3"))
    assert v1[0]["id"] == v2[0]["id"]
    assert (v1[0]["sites"][0]["line"], v2[0]["sites"][0]["line"]) == (3, 10)
    assert v2[0]["sites"][0]["function"] == "check_limit"
    assert v3[0]["id"] != v1[0]["id"]


def test_raise_without_message_is_identified_by_module_and_function(tmp_path):
    code = "def f():\n    raise NotImplementedError\n"
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": code, "vllm/b.py": code}})
    errors = scan(repo, "v1", tmp_path / "cache")["errors"]
    assert len(errors) == 2
    assert all(e["template"] == "" and e["has_message"] is False for e in errors)


def test_reraises_skipped_files_and_files_outside_vllm(tmp_path):
    repo = tagged_repo(
        tmp_path / "r",
        {
            "v1": {
                "vllm/a.py": "try:\n    pass\nexcept Exception:\n    raise\n",
                "vllm/broken.py": "def f(:\n    raise ValueError('x')\n",
                "vllm/ok.py": LIMIT,
                "setup.py": LIMIT,
            }
        },
    )
    catalog = scan(repo, "v1", tmp_path / "cache")
    stats = catalog["stats"]
    assert (stats["files"], stats["reraises"], stats["sites"]) == (3, 1, 1)
    assert [s["path"] for s in stats["skipped"]] == ["vllm/broken.py"]
    assert "does not parse" in stats["skipped"][0]["reason"]


def test_catalog_header_and_determinism_across_workers_and_cache(tmp_path):
    files = {f"vllm/m{i}.py": LIMIT.replace("limit", f"limit{i}") for i in range(20)}
    repo = tagged_repo(tmp_path / "r", {"v1.0": files})
    cold = scan(repo, "v1.0", tmp_path / "cache", workers=2)
    warm = scan(repo, "v1.0", tmp_path / "cache", workers=2)
    serial = scan(repo, "v1.0", tmp_path / "other-cache", workers=1)
    assert cold == warm == serial
    assert cold["schema_version"] == 1 and cold["project"] == "vllm" and cold["revision"] == "v1.0"
    assert len(cold["commit"]) == 40 and cold["tag"] == "v1.0"
    assert [e["id"] for e in cold["errors"]] == sorted(e["id"] for e in cold["errors"])


def test_a_blob_is_analysed_once_across_revisions(tmp_path):
    repo = tagged_repo(
        tmp_path / "r",
        {"v1": {"vllm/a.py": LIMIT, "vllm/b.py": "raise KeyError('b')\n"}, "v2": {"vllm/c.py": "raise KeyError('c')\n"}},
    )
    scan(repo, "v1", tmp_path / "cache")
    with BlobCache(tmp_path / "cache" / "analysis.sqlite") as cache:
        rows_after_v1 = cache.db.execute("SELECT COUNT(*) FROM analysis").fetchone()[0]
    scan(repo, "v2", tmp_path / "cache")
    with BlobCache(tmp_path / "cache" / "analysis.sqlite") as cache:
        rows_after_v2 = cache.db.execute("SELECT COUNT(*) FROM analysis").fetchone()[0]
    # v2 shares a.py and b.py with v1: only c.py is new
    assert (rows_after_v1, rows_after_v2) == (2, 3)


def test_cached_analysis_is_what_the_scan_uses(tmp_path):
    """Poison the cache row of a blob: the next scan must take it, not re-analyse."""
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": LIMIT}})
    scan(repo, "v1", tmp_path / "cache")
    with BlobCache(tmp_path / "cache" / "analysis.sqlite") as cache:
        (blob,) = [row[0] for row in cache.db.execute("SELECT blob FROM analysis")]
        cache.put_many([(blob, {"sites": [], "reraises": 7, "skipped": None})])
    assert scan(repo, "v1", tmp_path / "cache")["stats"]["reraises"] == 7


MODULE = '''\
PREFIX = "engine"


def check(n, limit):
    if n > limit:
        raise ValueError(f"n ({n}) exceeds the limit ({limit})")


def named(name):
    raise KeyError(f"{PREFIX}: no {name}")


def quiet(name):  # a quiet function: its name is all the scan takes from it
    return PREFIX + name


class Runner:
    def start(self):
        raise RuntimeError("cannot start")

    def stop(self):
        raise RuntimeError(f"{PREFIX} cannot stop")
'''


def scan_with(cache: BlobCache, repo: Path, rev: str, cache_dir: Path, workers: int = 1) -> dict:
    return json.loads(catalog_json(scan_revision("vllm", resolve(str(repo), rev, cache_dir), cache, workers)))


def test_an_edited_function_is_analysed_again_alone(tmp_path):
    """A new blob costs only its new pieces, and gives the catalog a cold scan gives."""
    edited = MODULE.replace("cannot start", "cannot start now")
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": MODULE}, "v2": {"vllm/a.py": edited}})
    for workers in (1, 2):
        with BlobCache(tmp_path / f"cache{workers}" / "analysis.sqlite") as cache:
            scan_with(cache, repo, "v1", tmp_path / f"cache{workers}", workers)
            before = cache.stats.as_dict()
            warm = scan_with(cache, repo, "v2", tmp_path / f"cache{workers}", workers)
            after = cache.stats.as_dict()
        assert {k: after[k] - before[k] for k in after} == {
            "blobs_cached": 0, "blobs_analysed": 1, "pieces_reused": 5, "pieces_walked": 1, "pieces_parsed": 1,
            "pieces_quiet": 1, "files_whole": 0,
        }
        assert warm == scan(repo, "v2", tmp_path / f"cold{workers}")


def test_a_changed_constant_invalidates_the_pieces_that_use_it(tmp_path):
    changed = MODULE.replace('PREFIX = "engine"', 'PREFIX = "the engine"')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": MODULE}, "v2": {"vllm/a.py": changed}})
    with BlobCache(tmp_path / "cache" / "analysis.sqlite") as cache:
        scan_with(cache, repo, "v1", tmp_path / "cache")
        before = cache.stats.as_dict()
        warm = scan_with(cache, repo, "v2", tmp_path / "cache")
        after = cache.stats.as_dict()
    # the first piece is new; named() and Runner.stop read PREFIX; check(), Runner's
    # header and Runner.start do not
    assert (after["pieces_walked"] - before["pieces_walked"], after["pieces_reused"] - before["pieces_reused"]) == (3, 3)
    assert warm == scan(repo, "v2", tmp_path / "cold")
    assert "the engine: no {name}" in by_template(warm)


def test_new_versions_are_chains_of_a_files_versions_each_blob_once():
    listings = [
        [("vllm/a.py", "a1"), ("vllm/b.py", "b1")],
        [("vllm/a.py", "a2"), ("vllm/b.py", "b1"), ("vllm/c.py", "a1")],  # c.py: a copy of a.py's first
        [("vllm/a.py", "a3"), ("vllm/b.py", "b2")],
    ]
    assert new_versions(listings, lambda blob: blob == "b2") == [["a1", "a2", "a3"], ["b1"]]


def test_several_releases_in_one_pass_give_what_each_scan_gives(tmp_path, monkeypatch):
    """One pass over three releases: every blob analysed once, each version after the one
    before (reusing its pieces), the catalogs those of cold scans one by one."""
    v2 = MODULE.replace("cannot start", "cannot start now")
    v3 = v2.replace('raise KeyError(f"{PREFIX}: no {name}")', 'raise KeyError(f"{PREFIX}: no such {name}")')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": MODULE, "vllm/b.py": LIMIT},
                                        "v2": {"vllm/a.py": v2, "vllm/b.py": LIMIT},
                                        "v3": {"vllm/a.py": v3}})
    alone = [scan(repo, rev, tmp_path / f"alone-{rev}") for rev in ("v1", "v2", "v3")]
    monkeypatch.setattr(catalog_module, "_STORE_EVERY", 1)  # rows stored while the scan goes on
    for workers in (1, 2):
        cache_dir = tmp_path / f"together{workers}"
        revisions = [resolve(str(repo), rev, cache_dir) for rev in ("v1", "v2", "v3")]
        with BlobCache(cache_dir / "analysis.sqlite") as cache:
            together = [json.loads(catalog_json(c)) for c in scan_revisions("vllm", revisions, cache, workers)]
            stats = cache.stats.as_dict()
            stored = cache.db.execute("SELECT COUNT(*) FROM analysis").fetchone()[0]
        assert together == alone
        assert stats["blobs_analysed"] == stored == 4  # a.py three times, b.py once
        # a.py: v1 walks its 6 pieces (its quiet function aside), v2 and v3 only their edited
        # one, reusing the other 5 from the version before; b.py, one piece, is walked whole
        assert (stats["pieces_walked"], stats["pieces_reused"], stats["pieces_quiet"], stats["files_whole"]) == (
            6 + 1 + 1, 5 + 5, 3, 1)


def test_a_pass_stores_the_pieces_of_each_files_newest_version(tmp_path):
    """The pieces of a file's older versions are not stored; a later release reuses the newest's."""
    v2 = MODULE.replace("cannot start", "cannot start now")
    v3 = v2.replace('raise KeyError(f"{PREFIX}: no {name}")', 'raise KeyError(f"{PREFIX}: no such {name}")')
    v4 = v3.replace("cannot start now", "cannot start yet")
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": MODULE}, "v2": {"vllm/a.py": v2},
                                        "v3": {"vllm/a.py": v3}, "v4": {"vllm/a.py": v4}})
    newest = set(scan_file(v3.encode(), lambda keys: {}).keys)
    older = {key for text in (MODULE, v2) for key in scan_file(text.encode(), lambda keys: {}).keys} - newest
    assert len(newest) == 6 and len(older) == 2  # the two edited pieces of v1 and v2
    for workers in (1, 2):
        cache_dir = tmp_path / f"c{workers}"
        with BlobCache(cache_dir / "analysis.sqlite") as cache:
            revisions = [resolve(str(repo), rev, cache_dir) for rev in ("v1", "v2", "v3")]
            scan_revisions("vllm", revisions, cache, workers)
            keys = {key for (key,) in cache.db.execute("SELECT key FROM piece")}
            variants = {key for (key,) in cache.db.execute("SELECT key FROM piece_variant")}
            assert keys == variants == newest
            assert cache.db.execute("SELECT COUNT(*) FROM analysis").fetchone()[0] == 3  # every version's analysis
            before = cache.stats.as_dict()
            later = scan_with(cache, repo, "v4", cache_dir, workers)
            after = cache.stats.as_dict()
        assert (after["pieces_walked"] - before["pieces_walked"], after["pieces_reused"] - before["pieces_reused"]) == (1, 5)
        assert later == scan(repo, "v4", tmp_path / f"cold{workers}")


def test_a_file_name_that_is_not_utf8_is_skipped_and_said(tmp_path):
    bad = "vllm/a\udcff<b>.py"  # the byte 0xff, as git's bytes read with surrogateescape
    repo = tagged_repo(tmp_path / "r", {"v1": {bad: "raise ValueError('hidden')\n", "vllm/ok.py": LIMIT}})
    catalog = scan(repo, "v1", tmp_path / "cache")
    assert [e["template"] for e in catalog["errors"]] == ["n ({n}) exceeds the limit ({limit})"]
    assert catalog["stats"]["skipped"] == [{"path": "vllm/a\ufffd<b>.py", "reason": "the file name is not UTF-8; its errors are left out"}]
    json.dumps(catalog, ensure_ascii=False).encode("utf-8")  # writable as UTF-8


def test_a_raise_takes_its_class_message_and_keeps_its_id(tmp_path):
    raising = "from vllm.exc import DeadError\n\ndef run():\n    raise DeadError()\n"
    exc = ('class DeadError(Exception):\n    def __init__(self):\n'
           '        super().__init__("EngineCore encountered an issue.")\n')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/run.py": raising}, "v2": {"vllm/exc.py": exc}})
    before, after = (scan(repo, tag, tmp_path / "cache")["errors"] for tag in ("v1", "v2"))
    assert before[0]["template"] == "" and after[0]["template"] == "EngineCore encountered an issue."
    assert after[0]["id"] == before[0]["id"]  # published ids never change
    assert after[0]["sites"][0]["message_from"] == "vllm/exc.py:3"
    assert len(after) == 1  # the class's message is no error of its own


def test_a_raise_of_another_modules_constant_takes_its_text_and_keeps_its_id(tmp_path):
    raising = ("from vllm.utils import STR_LORA, STRS\n\ndef check(lora, pp):\n    if lora:\n"
               "        raise NotImplementedError(STR_LORA)\n    if pp:\n        raise NotImplementedError(STRS[\n"
               "            'STR_PP'])\n")
    constants = ('STR_LORA = ("LoRA is not currently "\n            "supported with encoder/decoder models.")\n'
                 'STRS = {"STR_LORA": STR_LORA, "STR_PP": "Pipeline parallelism is not supported."}\n'
                 'STR_ELSEWHERE = "a constant no raise names"\n\ndef f():\n    raise ValueError("x")\n')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/check.py": raising}, "v2": {"vllm/utils.py": constants}})
    before, after = (scan(repo, tag, tmp_path / "cache")["errors"] for tag in ("v1", "v2"))
    # two raises of one function whose messages are only names: one error, as before
    [error] = [e for e in after if e["sites"][0]["path"] == "vllm/check.py"]
    assert [e["id"] for e in before] == [error["id"]]  # published ids never change
    lora, pp = error["sites"]
    assert error["template"] == lora["template"] == "LoRA is not currently supported with encoder/decoder models."
    assert pp["template"] == "Pipeline parallelism is not supported."
    assert (lora["message_from"], lora["message_name"]) == ("vllm/utils.py:1", "STR_LORA")
    assert (pp["message_from"], pp["message_name"]) == ("vllm/utils.py:3", "STRS['STR_PP']")
    assert sorted(e["template"] for e in after if e["sites"][0]["path"] == "vllm/utils.py") == ["x"]  # constants are no errors


def test_a_constant_two_modules_define_otherwise_is_left_as_named(tmp_path):
    raising = "from vllm.a import MSG\n\ndef run():\n    raise ValueError(MSG)\n"
    files = {"vllm/run.py": raising, "vllm/a.py": 'MSG = "the first text"\nraise_it = 1\n',
             "vllm/b.py": 'MSG = "another text"\nraise_it = 1\n'}
    repo = tagged_repo(tmp_path / "r", {"v1": files})
    [error] = scan(repo, "v1", tmp_path / "cache")["errors"]
    assert error["template"] == "{MSG}" and "message_from" not in error["sites"][0]


def test_a_log_of_a_starred_tuple_is_shown_filled_and_keeps_its_id(tmp_path):
    code = ('def f(args):\n    logger.warning("%s %s during inference: %s%s. This causes a latency spike", *args)\n')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": code}})
    [error] = scan(repo, "v1", tmp_path / "cache")["errors"]
    assert error["template"] == "{args[0]} {args[1]} during inference: {args[2]}{args[3]}. This causes a latency spike"
    # the id published before the conversions were filled (v0.26's JIT-monitor warning's)
    assert error["id"] == error_id("vllm", "<log>", "{} %s during inference: %s%s. This causes a latency spike")


def test_a_raise_of_a_percent_tuple_is_shown_filled_and_keeps_its_id(tmp_path):
    code = ('def f(args):\n    raise RuntimeError("%s %s during inference: %s%s. This causes a latency spike" % args)\n')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": code}})
    [error] = scan(repo, "v1", tmp_path / "cache")["errors"]
    assert error["template"] == "{args[0]} {args[1]} during inference: {args[2]}{args[3]}. This causes a latency spike"
    # the id published before the tuple spread (v0.33's JIT-monitor RuntimeError's)
    assert error["id"] == error_id("vllm", "RuntimeError", "{} {} during inference: {}{}. This causes a latency spike")


def test_logs_and_responses_are_errors_with_ids_of_their_own(tmp_path):
    code = ('def f(self):\n    logger.warning("n exceeds the limit")\n'
            '    raise ValueError("n exceeds the limit")\n'
            '    return self.create_error_response("n exceeds the limit")\n')
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": code}})
    catalog = scan(repo, "v1", tmp_path / "cache")
    kinds = {e["kind"]: e for e in catalog["errors"]}
    assert sorted(kinds) == ["log", "raise", "response"]
    assert len({e["id"] for e in catalog["errors"]}) == 3
    assert kinds["response"]["sites"][0]["status"] == 400
    assert (catalog["stats"]["logs"], catalog["stats"]["responses"], catalog["stats"]["raises"]) == (1, 1, 1)


def test_a_raise_of_what_a_function_makes_takes_its_type_and_text_and_keeps_its_id(tmp_path):
    maker = ('def ENGINE_DEAD_ERROR(error=None):\n    if error is None:\n'
             '        return MQEngineDeadError("Engine loop is not running.")\n'
             '    return MQEngineDeadError(f"Engine loop is not running: {repr(error)}.")\n')
    raising = ("from vllm.mq import ENGINE_DEAD_ERROR\n\nclass Client:\n"
               "    def _format_exception(self, e):\n        return EngineDeadError(suppress_context=True) if self.dead else e\n\n"
               "    def check(self):\n        raise ENGINE_DEAD_ERROR(self._errored_with)\n\n"
               "    def get(self, outputs):\n        raise self._format_exception(outputs)\n")
    exc = 'class EngineDeadError(Exception):\n    def __init__(self, suppress_context=False):\n        super().__init__("EngineCore encountered an issue.")\n'
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/client.py": raising},
                                        "v2": {"vllm/mq.py": maker, "vllm/exc.py": exc}})
    before, after = (scan(repo, tag, tmp_path / "cache")["errors"] for tag in ("v1", "v2"))
    assert sorted(e["id"] for e in before) == sorted(e["id"] for e in after)  # published ids never change
    made = {e["exception"]: e for e in after}
    assert sorted(made) == ["EngineDeadError", "MQEngineDeadError"]  # no function's maker is an error of its own
    dead = made["MQEngineDeadError"]
    assert dead["template"] == "Engine loop is not running." and dead["sites"][0]["variants"] == ["Engine loop is not running: {repr(error)}."]
    assert (dead["sites"][0]["message_from"], dead["sites"][0]["message_name"]) == ("vllm/mq.py:3", "ENGINE_DEAD_ERROR()")
    # the method returns the class, whose own message it takes
    assert made["EngineDeadError"]["template"] == "EngineCore encountered an issue."
    assert made["EngineDeadError"]["sites"][0]["message_name"] == "Client._format_exception()"


def test_a_message_that_shows_reasons_gets_those_the_functions_it_calls_give(tmp_path):
    # the reasons live in functions that raise nothing (pieces a scan could pass over) in other files
    backend = ("class AttentionBackend:\n    @classmethod\n    def validate_configuration(cls, config):\n"
               "        invalid_reasons = []\n        if config.sinks:\n"
               "            invalid_reasons.append(\"sink setting not supported\")\n"
               "        invalid_reasons.append(f\"head_size {config.head_size} not supported\")\n"
               "        return invalid_reasons\n\n\ndef helper():\n    raise ValueError(\"x\")\n")
    kernels = ("class Exllama:\n    @classmethod\n    def can_implement(cls, c):\n        if c.group_size % 2:\n"
               "            return False, f\"Group size ({c.group_size}) does not evenly divide the input features\"\n"
               "        return True, None\n")
    platform = ("def get_attn_backend_cls(backend, config):\n"
                "    invalid_reasons = backend.validate_configuration(config)\n    if invalid_reasons:\n"
                "        raise ValueError(f\"Selected backend {backend} is not valid for this configuration. \"\n"
                "                         f\"Reason: {invalid_reasons}\")\n\n\n"
                "def choose_kernel(kernels, config):\n    failure_reasons = []\n    for kernel in kernels:\n"
                "        ok, failure_reason = kernel.can_implement(config)\n"
                "        failure_reasons.append(f\"{kernel.__name__} cannot implement due to: {failure_reason}\")\n"
                "    raise ValueError(\"Failed to find a kernel. Reasons: \\n\" + \"\\n\".join(failure_reasons))\n")
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/platforms/cuda.py": platform},
                                        "v2": {"vllm/attention/backend.py": backend, "vllm/kernels/exllama.py": kernels}})
    before, after = (by_template(scan(repo, tag, tmp_path / "cache")) for tag in ("v1", "v2"))
    selected = after["Selected backend {backend} is not valid for this configuration. Reason: {invalid_reasons}"]
    [site] = selected["sites"]
    assert site["reasons"] == ["sink setting not supported", "head_size {config.head_size} not supported"]
    assert "reasons_from" not in site  # read at assembly only
    # where the message words each reason it is given, it shows them so worded, and none bare
    chosen = after['Failed to find a kernel. Reasons: \n{"\\n".join(failure_reasons)}']
    assert chosen["sites"][0]["reasons"] == [
        "{kernel.__name__} cannot implement due to: Group size ({c.group_size}) does not evenly divide the input features"]
    # the reasons are no errors of their own, and the ids are those the messages had without them
    assert {e["id"] for e in before.values()} == {e["id"] for t, e in after.items() if t != "x"}
    assert "reasons" not in before[selected["template"]]["sites"][0]
