"""The package's layering, checked on its source (``ast``): which stage may import which,
no import cycles, and modules that call themselves pure touch neither disk nor processes.

Each problem is printed as ``path:line: what is wrong``; a test fails once, listing all.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator"

# What each stage may import besides itself and the shared base modules. The lower
# stages (scan, history, lookup, memory) must never reach up to site, cli or repro.
BASE = {"errors", "text", "files", "config", "schemas"}
ALLOWED = {
    "scan": set(),
    "history": {"scan"},
    "vllm": {"scan"},
    "lookup": {"scan", "history"},
    "memory": set(),
    "entries": {"scan", "lookup", "vllm"},
    "repro": {"scan", "lookup", "entries", "vllm"},
    "site": {"scan", "history", "lookup", "memory", "entries", "repro", "vllm"},
    "cli": {"scan", "history", "lookup", "memory", "entries", "repro", "site", "vllm"},
}
# A module is pure when its docstring says so: "Pure" (capitalised) or "(pure)".
PURE = re.compile(r"\bPure\b|\(pure\)")
IO_MODULES = {"subprocess", "multiprocessing", "shutil", "tempfile", "sqlite3", "socket", "os", "git", "urllib.request"}
IO_METHODS = {"read_text", "write_text", "read_bytes", "write_bytes", "mkdir", "unlink", "rmdir", "iterdir", "glob",
              "rglob", "exists", "is_file", "is_dir", "touch", "stat", "resolve", "open", "system", "popen"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, tuple[Path, ast.Module]]:
    return {module_name(p): (p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(PACKAGE.rglob("*.py"))}


def imports(name: str, tree: ast.Module) -> list[tuple[int, str]]:
    """(line, imported module) for every import anywhere in the module, function-level ones too."""
    out = []
    package = name if name.endswith("__init__") else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            out.append((node.lineno, base))
            # `from generator.cli import build` imports the module generator.cli.build
            out.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return out


def stage(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "generator" else None


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_stages_import_only_the_stages_below_them():
    problems = []
    for name, (path, tree) in modules().items():
        own = stage(name)
        if own is None or own in ("__main__",):
            continue
        allowed = (BASE if own in BASE else ALLOWED[own] | BASE) | {own}  # base modules: only each other
        for line, target in imports(name, tree):
            other = stage(target)
            if other is not None and other not in allowed:
                problems.append(f"{rel(path)}:{line}: the {own} stage imports {target} ({other}); it may import {', '.join(sorted(allowed - {own}))}")
    assert not problems, "\n".join(problems)


def test_every_stage_is_known_to_the_rules():
    stages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    modules_ = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert stages == set(ALLOWED), f"stages and the rules in {rel(Path(__file__))} differ: {sorted(stages ^ set(ALLOWED))}"
    assert modules_ <= BASE, f"top-level modules not in BASE: {sorted(modules_ - BASE)}"


def test_no_import_cycles():
    found = modules()
    graph = {name: sorted({t for _, t in imports(name, tree) if t in found and t != name}) for name, (_, tree) in found.items()}
    cycles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in graph:
        if node not in state:
            visit(node)
    # A package's __init__ is imported with each of its modules: not a cycle of ours.
    cycles = [c for c in cycles if not all(part.count(".") <= 1 for part in c.split(" -> "))]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_pure_modules_touch_neither_disk_nor_processes():
    problems = []
    pure = []
    for name, (path, tree) in modules().items():
        doc = ast.get_docstring(tree) or ""
        if not PURE.search(doc):
            continue
        pure.append(name)
        for line, target in imports(name, tree):
            if target in IO_MODULES or target.split(".")[0] in IO_MODULES and target.split(".")[0] != "generator":
                problems.append(f"{rel(path)}:{line}: imports {target}, but its docstring says it is pure")
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("open", "exec", "eval", "__import__"):
                problems.append(f"{rel(path)}:{node.lineno}: calls {func.id}(), but its docstring says it is pure")
            elif isinstance(func, ast.Attribute) and func.attr in IO_METHODS:
                problems.append(f"{rel(path)}:{node.lineno}: calls .{func.attr}(), but its docstring says it is pure")
    assert len(pure) >= 8, f"only {pure} say they are pure: the rule would check nothing"
    assert not problems, "\n".join(problems)


def test_the_rules_catch_what_they_are_for(tmp_path):
    """The checks above, on a made-up module, find what they must."""
    tree = ast.parse('"""Pure."""\nimport subprocess\nfrom generator.site import pages\n\ndef f(p):\n    return p.read_text()\n')
    found = imports("generator.scan.fake", tree)
    assert (3, "generator.site.pages") in found and stage("generator.site.pages") not in ALLOWED["scan"]
    calls = [n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
    assert "read_text" in calls and "read_text" in IO_METHODS and PURE.search(ast.get_docstring(tree))


def test_no_production_code_reads_the_tests():
    problems = []
    for name, (path, tree) in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ("tests", "tests/"):
                problems.append(f"{rel(path)}:{node.lineno}: names the tests folder; production code must not read tests/")
    assert not problems, "\n".join(problems)
