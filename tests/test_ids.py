from generator.scan.ids import error_id, identity, normalize_template
from generator.scan.templates import Hole, render


def test_render_doubles_literal_braces_and_writes_holes():
    assert render(("a {b} ", Hole("x", "!r"), " }")) == "a {{b}} {x!r} }}"


def test_normalize_replaces_placeholders_and_collapses_whitespace():
    assert normalize_template("max ({a.b})  exceeds\n {c[0]:>4} ") == "max ({}) exceeds {}"


def test_normalize_keeps_literal_braces():
    assert normalize_template("dict {{x}} has {k}") == "dict {{x}} has {}"


def test_normalize_nested_and_quoted_braces_in_a_placeholder():
    assert normalize_template('got {x:{width}} and {d["}"]} end') == "got {} and {} end"


def test_error_id_uses_last_dotted_part_of_the_exception():
    assert error_id("vllm", "errors.Foo", "t {}") == error_id("vllm", "Foo", "t {}")


def test_error_id_is_pinned():
    # Public contract: these values must never change by accident.
    assert error_id("vllm", "ValueError", "abc {}") == "4971df31d4b0bc87"
    mamba = (
        "max_num_seqs ({}) exceeds available Mamba cache blocks ({}). Each decode sequence "
        "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower "
        "max_num_seqs to at most {} or increase gpu_memory_utilization."
    )
    assert error_id("vllm", "ValueError", mamba) == "c8f7b9d6b5fb8793"


def test_identity_of_a_raise_without_message_is_module_and_function():
    assert identity(None, "vllm/config/__init__.py", "f") == "@vllm.config:f"
    assert identity(None, "vllm/a/b.py", "C.m") == "@vllm.a.b:C.m"


def test_identity_of_a_wholly_computed_message_is_module_and_function():
    assert identity("{msg}", "vllm/a.py", "f") == "@vllm.a:f"
    assert identity("{a}: {b}", "vllm/a.py", "f") == "@vllm.a:f"
    assert identity("bad {a}", "vllm/a.py", "f") == "bad {}"
