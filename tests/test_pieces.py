"""A file walked piece by piece gives what the whole-file walk gives, and reuses what it can."""

from __future__ import annotations

import textwrap

import pytest

from generator.scan.incremental import FileResult, Stored, scan_file
from generator.scan.pieces import Piece, quiet_function, split
from generator.scan.walker import scan_source


class Store:
    """Pieces kept in memory, as the cache keeps them."""

    def __init__(self):
        self.pieces: dict[str, Stored] = {}

    def lookup(self, keys: list[str]) -> dict[str, Stored]:
        return {k: self.pieces[k] for k in keys if k in self.pieces}

    def learn(self, result: FileResult) -> FileResult:
        for key, found in result.outlines.items():
            self.pieces.setdefault(key, Stored(found, []))
        for key, variant in result.variants:
            self.pieces[key].variants.append(variant)
        return result


def scanned(code: str, store: Store | None = None) -> FileResult:
    """The piece-by-piece scan of ``code``, checked against the whole-file scan."""
    data = textwrap.dedent(code).encode()
    store = store or Store()
    result = store.learn(scan_file(data, store.lookup))
    assert result.scan.to_json() == scan_source(data).to_json()
    return result


# --- cutting ---------------------------------------------------------------------------


def test_cuts_before_defs_classes_and_members_with_their_decorators_and_comments():
    code = textwrap.dedent('''\
        import os

        # about f
        @cache
        @other(
            x=1,
        )
        def f():
            pass
        X = 1

        class A(Base):
            """Doc."""

            # about m
            @property
            def m(self):
                pass

            async def n(self):
                pass
        async def g(): pass
    ''')
    pieces = split(code)
    assert [(p.kind, p.first_line, p.text.split("\n")[0]) for p in pieces] == [
        ("module", 1, "import os"),
        ("module", 3, "# about f"),
        ("header", 12, "class A(Base):"),
        ("member", 15, "    # about m"),
        ("member", 20, "    async def n(self):"),
        ("module", 22, "async def g(): pass"),
    ]
    assert "".join(p.text for p in pieces) == code


def test_no_cut_after_a_backslash_nor_in_a_file_with_carriage_returns():
    assert len(split("x = 1 + \\\ndef f(): pass\n")) == 1
    assert split("def f():\r\n    pass\r\ndef g(): pass\r\n") == []


def test_prose_at_the_start_of_a_line_cuts_nothing():
    """A docstring line that starts with "async", "def" or "class" and reads as prose is no
    def or class: a cut there would not parse, and the whole file would be walked."""
    code = textwrap.dedent('''\
        class Config:
            window: int = 1
            """Records loads. Migrations are only done in
            async EPLB, and are off by default; the
            class of models that use it, and the
            def ault value, are listed below."""

            def check(self):
                if self.window < 1:
                    raise ValueError(f"window ({self.window}) must be positive")
        """
        class of the module: a module docstring after the class
        """
    ''')
    pieces = split(code)
    assert [(p.kind, p.first_line) for p in pieces] == [("header", 1), ("member", 8)]  # the tail with the member
    assert scanned(code).stats["whole"] == 0


# --- the same sites as the whole-file walk ------------------------------------------


SAME = {
    "messages that module functions return (one quiet, one defined twice)": '''
        def quiet(bits):
            return False, f"no {bits} bits"
        def twice():
            return "first"
        def twice():
            return "second"
        def f(bits):
            ok, msg = quiet(bits)
            why = twice()
            if not ok:
                raise ValueError(msg)
            raise RuntimeError(why)
    ''',
    "module constants used across pieces": '''
        PREFIX = "engine"
        def f(x):
            raise ValueError(PREFIX + f" got {x}")
        LATER = f"{PREFIX} later"
        def g():
            raise ValueError(LATER)
        ''',
    "class constants in the header, members and another class": '''
        class A:
            NAME = "a"
            def f(self):
                raise ValueError(f"{self.NAME} {self.KIND} {B.OTHER}")
            KIND: Final = "kind"
            def g(self):
                assert self.NAME, self.KIND
        class B:
            OTHER = "b"
        ''',
    "a nested class registered in one piece and read in the next": '''
        def f():
            class Config:
                MSG = "bad config"
            raise ValueError(Config.MSG)
        def g():
            raise ValueError(Config.MSG)
        ''',
    "module-level names and an exception variable across pieces": '''
        msg = "at import"
        err = RuntimeError("made early")
        def f():
            pass
        if msg:
            msg += " time"
            raise ValueError(msg)
        def g():
            pass
        raise err
        ''',
    "class-level names across members": '''
        class A:
            text = "x"
            def f(self):
                pass
            text += "y"
            assert text, text
            def g(self):
                raise ValueError(text)
        X = "tail"
        raise ValueError(X)
        ''',
    "a raise on the def line under comments": '''
        import os
        # why f is not there
        # (and more)
        def f(): raise NotImplementedError("f")
        class A:
            # why m
            def m(self): raise NotImplementedError
        ''',
    "a def inside a string: walked whole": '''
        x = """
        def f():
            raise ValueError("in a string")
        """
        def g():
            raise ValueError("real")
        ''',
    "a comment between decorator and def": '''
        @dec
        # comment
        def f():
            raise ValueError("x")
        def g():
            raise ValueError("y")
        ''',
    "module code between members: walked whole": '''
        class A:
            def f(self):
                raise ValueError("f")
        X = 1
            def g(self):
                raise ValueError("g")
        ''',
    "a member after the class's body ended": '''
        class A:
            x = 1
        if TYPE_CHECKING:
            def f():
                raise ValueError("f")
        def g():
            raise ValueError("g")
        ''',
    "a file that does not parse": '''
        def f():
            raise ValueError("x")
        def g(:
            raise ValueError("y")
        ''',
    "nested classes shadowed by a top-level one": '''
        def f():
            class A:
                M = "inner"
            raise ValueError(A.M)
        class A:
            M = "outer"
        def g():
            class C:
                M = "c"
        def h():
            class C:
                M = "second c"
            raise ValueError(C.M)
        ''',
    "quiet functions between the pieces that raise": '''
        NAME = "x"
        def quiet(a):
            """Doc with a ) and a ' in it."""
            return {"k": [a]}  # a comment's ( counts for nothing
        def loud():
            raise ValueError(f"{NAME} {quiet}")
        class A:
            @property
            def size(self):
                return 1
            def loud(self):
                raise KeyError(NAME)
        ''',
    "a quiet function rebinding a name a message reads": '''
        label = "first"
        def label():
            return 2
        def f():
            raise ValueError(label)
        ''',
    "a function defined twice shares its exception variables": '''
        def f():
            err = ValueError("from the first f")
        def f():
            raise err
        ''',
    "a method defined twice shares its exception variables": '''
        class A:
            @property
            def x(self):
                err = ValueError("from the getter")
            @x.setter
            def x(self, value):
                raise err
        ''',
    "methods of one name in several classes": '''
        class A:
            def __init__(self):
                self.name = "a"
            def check(self):
                raise ValueError("a")
        class B:
            def __init__(self):
                self.name = "b"
            def check(self):
                raise ValueError("b")
        def __init__():
            pass
        ''',
    "a cut inside a string that a quiet-looking piece leaves open: walked whole": '''
        def f():
            text = """
        def g():
            return 1
            """
            raise ValueError(text)
        ''',
}


@pytest.mark.parametrize("name", SAME)
def test_pieces_give_the_whole_file_walk(name):
    whole = "walked whole" in name or "does not parse" in name
    assert scanned(SAME[name]).stats["whole"] == int(whole)


QUIET = {
    "def f(x):\n    return x\n": "f",
    "# above\n@cache(\n  size=1)\nasync def g():\n    s = \"\"\"a\n  \"\"\"\n": "g",
    "def f():\n    return 'a\\\\' + \"(\"\n": "f",
    "def f():\n    raise ValueError\n": None,  # a site
    "def f():\n    if x: raise ValueError\n": None,
    "def f():\n    assert(x)\n": None,
    "def f():\n    \"\"\"Raises nothing; what it raises is raised elsewhere.\"\"\"\n": "f",  # words, no statements
    "def f():\n    class C:\n        pass\n": None,  # a nested class registers its constants
    "def f():\n    pass\nX = 1\n": None,  # module-level code after it
    "def f():\n    s = \"\"\"open\n": None,  # a string left open
    "def f():\n    s = \"\"\"open\"\n": None,
    "def f():\n    x = (1,\n": None,  # a bracket left open
    "def f():\n\treturn 1\n": None,  # tabs
    "X = 1\n": None,
}


@pytest.mark.parametrize("text", QUIET)
def test_a_quiet_function_is_known_by_its_text(text):
    assert quiet_function(Piece("module", text, 1)) == QUIET[text]


def test_a_quiet_member_has_no_code_at_its_level_after_its_def():
    assert quiet_function(Piece("member", "    @property\n    def f(self):\n        return 1\n", 3)) == "f"
    assert quiet_function(Piece("member", "    def f(self):\n        return 1\n    x = 2\n", 3)) is None
    assert quiet_function(Piece("member", "    def f(self):\n        return 1\nX = 2\n", 3)) is None
    assert quiet_function(Piece("member", "    @classmethod\n    def f(cls):\n        return cls()\n", 3)) == "f"


def test_quiet_functions_are_neither_parsed_nor_stored():
    result = scanned(SAME["quiet functions between the pieces that raise"])
    assert result.stats["quiet"] == 2 and result.stats["whole"] == 0
    assert result.stats["parsed"] == len(result.outlines) == 4  # the module piece, loud, A's header, A.loud
    # a name another def shares: walked
    assert scanned(SAME["a function defined twice shares its exception variables"]).stats["quiet"] == 0
    assert scanned(SAME["a method defined twice shares its exception variables"]).stats["quiet"] == 0
    # A.__init__ and B.__init__ are names of their own; the module's __init__ is counted
    # against every def of the file (a count that only errs towards walking)
    assert scanned(SAME["methods of one name in several classes"]).stats["quiet"] == 2


# Each pair: a file, then the same file with what one piece reads from another changed.
# The second is scanned with the pieces of the first stored, and must still give the
# whole-file walk's sites.
EDITS = {
    "a module constant": (
        'X = "one"\ndef f():\n    raise ValueError(X)\n',
        'X = "two"\ndef f():\n    raise ValueError(X)\n',
    ),
    "a class constant in another member": (
        'class A:\n    def f(self):\n        raise ValueError(self.M)\n    def g(self):\n        pass\n    M = "one"\n',
        'class A:\n    def f(self):\n        raise ValueError(self.M)\n    def g(self):\n        pass\n    M = "two"\n',
    ),
    "a nested class in an earlier piece": (
        'def f():\n    class C:\n        M = "one"\ndef g():\n    raise ValueError(C.M)\n',
        'def f():\n    class C:\n        M = "two"\ndef g():\n    raise ValueError(C.M)\n',
    ),
    "a top-level class that a nested one no longer shadows": (
        'class C:\n    M = "top"\ndef f():\n    class C:\n        M = "nested"\ndef g():\n    raise ValueError(C.M)\n',
        'class D:\n    M = "top"\ndef f():\n    class C:\n        M = "nested"\ndef g():\n    raise ValueError(C.M)\n',
    ),
    "an exception variable at module level": (
        'err = ValueError("one")\ndef f():\n    pass\nraise err\n',
        'err = ValueError("two")\ndef f():\n    pass\nraise err\n',
    ),
    "module-level names": (
        'msg = "one"\ndef f():\n    pass\nraise ValueError(msg)\n',
        'msg = "two"\ndef f():\n    pass\nraise ValueError(msg)\n',
    ),
    "class-level names": (
        'class A:\n    msg = "one"\n    def f(self):\n        pass\n    assert msg, msg\n',
        'class A:\n    msg = "two"\n    def f(self):\n        pass\n    assert msg, msg\n',
    ),
    "the strings a module function returns": (
        'def r():\n    return False, "one"\ndef f():\n    ok, m = r()\n    raise ValueError(m)\n',
        'def r():\n    return False, "two"\ndef f():\n    ok, m = r()\n    raise ValueError(m)\n',
    ),
    "the class of a member": (
        'class A:\n    def f(self):\n        raise ValueError(self.M)\n    M = "m"\n',
        'class B:\n    def f(self):\n        raise ValueError(self.M)\n    M = "m"\n',
    ),
}


@pytest.mark.parametrize("name", EDITS)
def test_a_stored_piece_is_not_reused_where_what_it_read_changed(name):
    before, after = EDITS[name]
    store = Store()
    scanned(before, store)
    second = scanned(after, store)
    assert second.stats["whole"] == 0
    assert second.stats["walked"] > len(second.outlines)  # a piece not edited is walked again
    assert second.scan.to_json() != scanned(before).scan.to_json()


# --- reuse -----------------------------------------------------------------------------

BASE = '''
    LIMIT = "the limit"
    def f(n):
        if n > 10:
            raise ValueError(f"{n} is over {LIMIT}")
    def g(n):
        raise KeyError("g")
    class A:
        def m(self):
            raise TypeError("m")
        def n(self):
            raise TypeError(LIMIT)
'''


def test_an_edited_function_is_the_only_piece_walked_again():
    store = Store()
    first = scanned(BASE, store)
    assert first.stats["walked"] == len(split(textwrap.dedent(BASE)))
    edited = scanned(BASE.replace('raise KeyError("g")', 'raise KeyError("g, reworded")'), store)
    assert edited.stats == {"reused": 5, "walked": 1, "parsed": 1, "quiet": 0, "whole": 0}
    moved = scanned("\n\n# a new first line\n" + textwrap.dedent(BASE), store)
    assert moved.stats["walked"] == 1  # the first piece; the others only move down
    assert [s.line for s in moved.scan.sites] == [s.line + 3 for s in first.scan.sites]


def test_a_changed_constant_walks_again_the_pieces_that_read_it():
    store = Store()
    scanned(BASE, store)
    changed = scanned(BASE.replace('LIMIT = "the limit"', 'LIMIT = "the new limit"'), store)
    # the first piece (it holds LIMIT) is new; f and A.n read LIMIT, and are parsed again
    # to be walked again; g, A's header and A.m do not read it
    assert changed.stats == {"reused": 3, "walked": 3, "parsed": 3, "quiet": 0, "whole": 0}
    assert "{n} is over the new limit" in [s.template for s in changed.scan.sites]


def test_a_method_in_another_class_is_walked_for_that_class():
    store = Store()
    scanned(BASE, store)
    renamed = scanned(BASE.replace("class A:", "class B:"), store)
    assert renamed.stats["walked"] == 3  # the header and both members
    assert {s.function for s in renamed.scan.sites} >= {"B.m", "B.n"}


def test_loud_finds_what_its_regular_expression_finds():
    import random
    import re

    from generator.scan.pieces import _loud

    pattern = re.compile(r"\b(?:raise|assert)\b|\n[ \t]*class\b")
    words = ["raise", "assert", "class", " ", "\n", "\t", "_", "a", "é", "1", "(", "@", "\n  ", "#"]
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
        assert _loud(text) == bool(pattern.search(text)), repr(text)


@pytest.mark.slow
@pytest.mark.parametrize("rev", ["v0.4.1", "v0.33.0"])
def test_corpus_files_give_the_whole_file_walk(corpus_bundle, session_cache, rev):
    """Real files, quiet functions and all: a sample of a corpus release, walked piece by
    piece (with an empty store, and again with the pieces it stored), gives what the
    whole-file walk gives."""
    from generator.scan.sources import BlobReader, python_files, resolve

    revision = resolve(str(corpus_bundle), rev, session_cache)
    files = python_files(revision)[::6]
    quiet = 0
    with BlobReader(revision.repo_path) as reader:
        for path, blob in files:
            data = reader.read(blob)
            store = Store()
            first = store.learn(scan_file(data, store.lookup))
            again = scan_file(data, store.lookup)
            whole = scan_source(data).to_json()
            assert first.scan.to_json() == whole, path
            assert again.scan.to_json() == whole and again.stats["walked"] == 0, path
            quiet += first.stats["quiet"]
    assert quiet > 100 * (rev == "v0.33.0")  # the sample has quiet functions to pass over
