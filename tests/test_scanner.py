"""The scanner on tiny source strings: one test per message form and guard form."""

from conftest import scan, site


# --- message forms ---------------------------------------------------------------


def test_plain_literal():
    assert site('raise ValueError("bad value")').template == "bad value"


def test_implicitly_concatenated_literals():
    assert site('raise ValueError("bad " "value")').template == "bad value"


def test_fstring_with_format_spec_and_conversion():
    s = site('raise ValueError(f"got {x!r} of {y:.2f} and {z!s:>{w}}")')
    assert s.template == "got {x!r} of {y:.2f} and {z!s:>{w}}"
    assert s.placeholders == ["x", "y", "z"]


def test_fstring_self_documenting_expression():
    assert site('raise ValueError(f"{n=}")').template == "n={n!r}"


def test_fstring_and_literal_concatenated_across_lines():
    s = site(
        """
        raise ValueError(
            f"max_num_seqs ({max_num_reqs}) exceeds "  # a comment between parts
            "blocks ({n}). "
            f"lower it to {kv.num_blocks}"
        )
        """
    )
    assert s.template == "max_num_seqs ({max_num_reqs}) exceeds blocks ({{n}}). lower it to {kv.num_blocks}"


def test_escape_sequences_and_literal_braces_in_fstrings():
    s = site(r'raise ValueError(f"a\tb {{literal}} {x}\n")')
    assert s.template == "a\tb {{literal}} {x}\n"


def test_plus_concatenation():
    assert site('raise ValueError("a " + str(n) + " b")').template == "a {str(n)} b"


def test_str_format_positional_auto_and_keyword():
    assert site('raise ValueError("{} and {1} and {k:>3}".format(a, b, k=c.d))').template == "{a} and {b} and {c.d:>3}"


def test_percent_formatting_with_tuple_dict_and_single_value():
    assert site('raise ValueError("%s has %d items (%.1f%%)" % (name, n, pct))').template == (
        "{name} has {n} items ({pct:.1f}%)"
    )
    assert site('raise ValueError("%(a)s=%(b)r" % {"a": x, "b": y})').template == "{x}={y!r}"
    assert site('raise ValueError("bad %r" % value)').template == "bad {value!r}"


def test_local_variable_and_augmented_assignment():
    s = site(
        """
        def f(x):
            msg = f"bad {x}."
            msg += " Try again."
            raise ValueError(msg)
        """
    )
    assert s.template == "bad {x}. Try again."


def test_assignments_in_branches_give_variants():
    s = site(
        """
        def f(a):
            if a:
                msg = "first"
            else:
                msg = "second"
            raise ValueError(msg)
        """
    )
    assert (s.template, s.variants) == ("first", ["second"])


def test_branch_that_raises_does_not_reach_later_raise():
    sites = scan(
        """
        def f(a):
            msg = "one"
            if a:
                msg = "two"
                raise KeyError(msg)
            raise ValueError(msg)
        """
    ).sites
    assert [(s.exception, s.template, s.variants) for s in sites] == [("KeyError", "two", []), ("ValueError", "one", [])]


def test_module_and_class_constants():
    sites = scan(
        """
        HINT = "set --max-model-len"
        class C:
            MSG = "too long"
            def m(self):
                raise ValueError(self.MSG + "; " + HINT)
        """
    ).sites
    assert [(s.kind, s.exception) for s in sites] == [("constant", "HINT"), ("raise", "ValueError")]
    assert sites[1].template == "too long; set --max-model-len"


def test_dataclass_field_default_is_not_a_constant():
    s = site(
        """
        @dataclass
        class Params:
            param_name: str = "max_tokens"
            LIMIT: ClassVar[str] = "the limit"
            def check(self):
                raise ValueError(f"{self.param_name} is above {self.LIMIT}")
        """
    )
    assert s.template == "{self.param_name} is above the limit"


def test_constant_inside_fstring_is_inlined():
    s = site(
        """
        FLAG = "--enforce-eager"
        def f(x):
            raise ValueError(f"use {FLAG} for {x}")
        """
    )
    assert s.template == "use --enforce-eager for {x}"


def test_parameter_shadows_module_constant():
    s = site(
        """
        msg = "module level"
        def f(msg):
            raise ValueError(msg)
        """
    )
    assert s.template == "{msg}"


def test_unresolvable_parts_become_placeholders_with_their_source():
    assert site('raise ValueError(build_message(a, b))').template == "{build_message(a, b)}"
    assert site('raise ValueError("x: " + ", ".join(names))').template == 'x: {", ".join(names)}'


def test_http_status_is_not_the_message():
    assert site('raise HTTPException(400, "bad request")').template == "bad request"
    assert site('raise HTTPException(status_code=400, detail=f"no {x}")').template == "no {x}"


def test_exception_variable_assigned_then_raised():
    s = site(
        """
        def f():
            err = ValueError("late")
            raise err
        """
    )
    assert (s.exception, s.template) == ("ValueError", "late")


def test_a_message_that_a_function_of_the_file_returns():
    """``ok, msg = _check(...)`` then ``raise ValueError(msg)``: the strings ``_check`` returns at
    that place of its tuples are the message's other forms. The template stays the name, so the
    error's id is the one it had before the scanner read them."""
    s = site(
        """
        def _check(bits, size):
            if bits not in (4, 8):
                return False, f"Marlin does not support weight_bits = {bits}."
            if size is None:
                return (False, "Marlin does not support group_size = None.")
            return True, None

        def verify(bits, size):
            ok, msg = _check(bits, size)
            if not ok:
                raise ValueError(msg)
        """
    )
    assert s.template == "{msg}"
    assert s.variants == ["Marlin does not support weight_bits = {bits}.", "Marlin does not support group_size = None."]
    # a string returned whole; its own names are holes, not the module's constants of that name
    s = site('NAME = "x"\ndef why(NAME):\n    return f"no {NAME} here"\ndef f():\n    reason = why(1)\n    raise RuntimeError(reason)\n')
    assert (s.template, s.variants) == ("{reason}", ["no {NAME} here"])
    # a function the file does not define, or one that returns no string, adds nothing
    assert site("from x import why\ndef f():\n    reason = why()\n    raise RuntimeError(reason)\n").variants == []
    assert site("def why():\n    return 3\ndef f():\n    reason = why()\n    raise RuntimeError(reason)\n").variants == []



def test_a_message_that_is_a_call_to_a_function_of_the_file():
    """``raise ValueError(_unsupported(backend, reason))``: what the helper returns (a nested
    helper too, and through a name it assigns once) are the message's other forms; the template
    stays the call, so the id does not change."""
    s = site(
        """
        def select(backend, reason):
            def _unsupported(backend, reason):
                base = f"MoE backend '{backend.value}' does not support the deployment configuration"
                return f"{base} since {reason}." if reason else f"{base}."

            def _return_or_raise(backend):
                raise ValueError(_unsupported(backend, reason))
        """
    )
    assert s.template == "{_unsupported(backend, reason)}"
    assert s.variants == [
        "MoE backend '{backend.value}' does not support the deployment configuration since {reason}.",
        "MoE backend '{backend.value}' does not support the deployment configuration.",
    ]
    # a name assigned twice stays a hole; a call to a parameter, or to what the file does not define, adds nothing
    assert site("def why(x):\n    m = 'a'\n    m = 'b'\n    return f'{m} no {x}'\ndef f():\n    raise E(why(1))\n").variants == [
        "{m} no {x}"]
    assert site("def f(why):\n    raise ValueError(why(1))\n").variants == []
    assert site("from x import why\ndef f():\n    raise ValueError(why(1))\n").variants == []


def test_an_assert_whose_message_is_an_exception_reports_its_text():
    """``assert is_cpu(), RuntimeError("...")`` fails with AssertionError: ... (the exception's
    text): that text is the other form of a template that stays the constructor call."""
    s = site('def f():\n    assert is_cpu(), RuntimeError(\n        "Torch SDPA backend is only used for the CPU device.")\n')
    assert s.template == '{RuntimeError("Torch SDPA backend is only used for the CPU device.")}'
    assert s.variants == ["Torch SDPA backend is only used for the CPU device."]
    assert site("def f():\n    assert ok, ValueError(f'bad {x}')\n").variants == ["bad {x}"]


# --- what is and is not a site -------------------------------------------------------


def test_raise_without_message():
    s = site("def f():\n    raise NotImplementedError")
    assert (s.exception, s.template, s.function) == ("NotImplementedError", None, "f")
    assert site("raise errors.Timeout()").exception == "errors.Timeout"


def test_reraises_are_counted_not_sites():
    result = scan(
        """
        try:
            pass
        except ValueError as e:
            log(e)
            raise
        except KeyError as e:
            raise e
        except OSError as e:
            raise RuntimeError("wrapped") from e
        """
    )
    assert result.reraises == 2
    assert [(s.template, s.cause) for s in result.sites] == [("wrapped", "e")]


def test_assert_with_message_is_a_site_and_without_is_not():
    result = scan('assert x > 0, f"x must be positive, got {x}"\nassert y\n')
    assert len(result.sites) == 1
    s = result.sites[0]
    assert (s.kind, s.exception, s.template, s.guard) == ("assert", "AssertionError", "x must be positive, got {x}", ["not (x > 0)"])


def test_line_is_the_keyword_line_and_end_line_the_last():
    s = site("\n\nraise ValueError(\n    'a'\n)\n")
    assert (s.line, s.end_line) == (3, 5)


def test_function_names_are_qualified():
    sites = scan(
        """
        class A:
            def m(self):
                def inner():
                    raise ValueError("i")
                raise ValueError("m")
        raise ValueError("top")
        """
    ).sites
    assert [s.function for s in sites] == ["A.m.inner", "A.m", "<module>"]


# --- guards, comments, excerpts ----------------------------------------------------------


def test_guards_outermost_first_with_else_negated():
    s = site(
        """
        def f(a, b, c):
            if a:
                if not b:
                    pass
                elif c > 1:
                    pass
                else:
                    raise ValueError("x")
        """
    )
    assert s.guard == ["a", "b", "not (c > 1)"]


def test_guard_of_except_while_and_match():
    sites = scan(
        """
        def f(x):
            while x.busy():
                try:
                    go()
                except (KeyError, IndexError) as e:
                    raise RuntimeError("lost") from e
            match x:
                case {"kind": k} if k > 2:
                    raise ValueError("kind")
        """
    ).sites
    assert sites[0].guard == ["x.busy()", "except (KeyError, IndexError) as e"]
    assert sites[1].guard == ['case {"kind": k} if k > 2']


def test_multiline_guard_is_joined_without_comments():
    s = site(
        """
        if (
            a is not None  # why
            and b > c
        ):
            raise ValueError("x")
        """
    )
    assert s.guard == ["a is not None and b > c"]


def test_comment_above_the_raise_or_else_above_the_guard():
    sites = scan(
        """
        def f(a):
            # The limit protects the cache.
            # See issue 1.
            if a > 3:
                raise ValueError("first")
            if a < 0:
                # negative makes no sense
                raise ValueError("second")
        """
    ).sites
    assert sites[0].comment == "The limit protects the cache.\nSee issue 1."
    assert sites[1].comment == "negative makes no sense"


def test_excerpt_holds_the_guard_and_the_raise():
    s = site(
        """
        def f(a):
            if (
                a > 3
            ):
                raise ValueError(
                    "first"
                )
        """
    )
    assert s.excerpt == 'if (\n    a > 3\n):\n    raise ValueError(\n        "first"\n    )'
    assert s.excerpt_line == 3


def test_excerpt_marks_a_long_gap():
    s = site("if a:\n" + "    x = 1\n" * 10 + "    raise ValueError('far')\n")
    assert s.excerpt == "if a:\n    ...\n    raise ValueError('far')"


# --- files that cannot be scanned ----------------------------------------------------------


def test_syntax_error_is_skipped_with_reason():
    from generator.scan.walker import scan_source

    result = scan_source(b"def f(:\n    raise ValueError('x')\n")
    assert result.sites == [] and "does not parse" in result.skipped and "line 1" in result.skipped


def test_nul_bytes_bad_encoding_and_huge_files_are_skipped():
    from generator.scan.walker import MAX_FILE_BYTES, scan_source

    assert "NUL" in scan_source(b"raise ValueError('a')\x00\n").skipped
    assert "decoded" in scan_source(b"# -*- coding: utf-8 -*-\nraise ValueError('\xff\xfe')\n").skipped
    huge = b"raise ValueError('x')\n" + b"#" * MAX_FILE_BYTES
    assert "larger than" in scan_source(huge).skipped


def test_latin1_coding_cookie_is_honoured():
    from generator.scan.walker import scan_source

    result = scan_source("# -*- coding: latin-1 -*-\nraise ValueError('caf\xe9')\n".encode("latin-1"))
    assert result.sites[0].template == "caf\xe9"


# --- what vLLM reports without raising ----------------------------------------------------


def test_log_call_with_percent_arguments():
    s = site('logger.warning("Error in applying chat template from request: %s (%d%%)", e, n)')
    assert (s.kind, s.exception) == ("log", "WARNING")
    assert s.template == "Error in applying chat template from request: {e} ({n}%)"
    assert s.placeholders == ["e", "n"]


def test_log_call_with_a_starred_tuple_spreads_it_over_the_conversions():
    s = site('logger.warning("%s %s during inference: %s%s.", *args)')
    assert s.template == "{args[0]} {args[1]} during inference: {args[2]}{args[3]}."
    assert s.placeholders == ["args[0]", "args[1]", "args[2]", "args[3]"]
    # what the published id hashes: the form the scanner first read (README, "Error ids")
    assert s.id_template == "{*args} %s during inference: %s%s."
    assert site('logger.warning("%s failed: %s", name, e)').id_template is None


def test_a_percent_of_one_name_with_several_conversions_spreads_it():
    """``message % args`` with two conversions or more: ``args`` must be a tuple."""
    s = site('raise RuntimeError("%s %s during inference: %s%s." % args)')
    assert s.template == "{args[0]} {args[1]} during inference: {args[2]}{args[3]}."
    assert s.placeholders == ["args[0]", "args[1]", "args[2]", "args[3]"]
    # what the published id hashes: the form the scanner first read (README, "Error ids")
    assert s.id_template == "{args} {...} during inference: {...}{...}."
    # one conversion: a name there may be a string or a tuple of one, so it stays whole
    one = site('raise RuntimeError("bad value: %s" % value)')
    assert one.template == "bad value: {value}" and one.id_template is None
    assert site('raise RuntimeError("%s and %s" % (a, b))').id_template is None


def test_log_levels_and_what_is_no_log():
    found = scan(
        """
        def f(e):
            logger.exception("EngineCore failed to start.")
            logger.warning_once(f"Using {backend} backend.")
            self.logger.critical("fatal: %s", e)
            logger.info("Not a warning")
            logger.error(e)  # nothing of its own to say
            logging.warning("the root logger is not vLLM's")
        """
    ).sites
    assert [(s.exception, s.template) for s in found] == [
        ("ERROR", "EngineCore failed to start."),
        ("WARNING", "Using {backend} backend."),
        ("CRITICAL", "fatal: {e}"),
    ]


def test_error_responses_returned_or_yielded():
    found = scan(
        """
        async def create(self, request, e):
            if request.tool_choice == "auto":
                return self.create_error_response(
                    '"auto" tool choice requires '
                    "--enable-auto-tool-choice and --tool-call-parser to be set")
            yield self.create_error_response("No output", err_type="InternalServerError",
                                             status_code=HTTPStatus.INTERNAL_SERVER_ERROR)
            err = ErrorResponse(error=ErrorInfo(message=f"model {name} not found", type="NotFoundError", code=404))
            return error_response or self.create_error_response(
                message=f"The model `{request.model}` does not exist. Valid aliases: {names}.",
                err_type="NotFoundError", status_code=HTTPStatus.NOT_FOUND)
            return self.create_error_response(e)  # the exception's own text: nothing here
        """
    ).sites
    assert [(s.kind, s.exception, s.status, s.template) for s in found] == [
        ("response", "BadRequestError", 400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
        ("response", "InternalServerError", 500, "No output"),
        ("response", "NotFoundError", 404, "model {name} not found"),
        ("response", "NotFoundError", 404, "The model `{request.model}` does not exist. Valid aliases: {names}."),
    ]
    assert found[0].guard == ['request.tool_choice == "auto"']


def test_an_exception_class_sets_its_own_message():
    found = scan(
        """
        class EngineDeadError(Exception):
            MESSAGE = "EngineCore encountered an issue. See stack trace (above) for the root cause."
            def __init__(self, *args, **kwargs):
                super().__init__(self.MESSAGE, *args, **kwargs)

        class LoRAAdapterNotFoundError(Exception):
            def __init__(self, lora_name, lora_path):
                self.message = f"Loading lora {lora_name} failed: No adapter found for {lora_path}"

        class Helper:  # not an exception: its __init__ sets no message
            def __init__(self):
                super().__init__("hello there")
        """
    ).sites
    assert [(s.kind, s.exception, s.template) for s in found] == [
        ("message", "EngineDeadError", "EngineCore encountered an issue. See stack trace (above) for the root cause."),
        ("message", "LoRAAdapterNotFoundError", "Loading lora {lora_name} failed: No adapter found for {lora_path}"),
    ]


def test_module_string_constants_are_kept_for_other_files():
    sites = scan(
        """
        STR_SWA = ("Sliding window attention for encoder/decoder models "
                   "is not currently supported.")
        STRS = {"STR_SWA": STR_SWA, "N": 3, "STR_PP": "Pipeline parallelism is not supported."}
        lower_case = "not a constant by its name"
        PORT = 8000
        class C:
            MSG = "a class constant stays the class's"
        def f():
            LOCAL = "a function's name"
            raise ValueError(LOCAL)
        """
    ).sites
    assert [(s.kind, s.exception, s.template) for s in sites] == [
        ("constant", "STR_SWA", "Sliding window attention for encoder/decoder models is not currently supported."),
        ("constant", "STRS['STR_SWA']", "Sliding window attention for encoder/decoder models is not currently supported."),
        ("constant", "STRS['STR_PP']", "Pipeline parallelism is not supported."),
        ("raise", "ValueError", "a function's name"),
    ]
    # a file that reports nothing itself is not parsed (README, "Commands"): its constants are unread
    assert scan('STR_SWA = "Sliding window attention is not supported."\n').sites == []


def test_reasons_a_function_gives_are_kept_for_messages_elsewhere():
    sites = scan(
        """
        class Backend:
            @classmethod
            def validate_configuration(cls, head_size, dtype):
                invalid_reasons = []
                if head_size > 256:
                    invalid_reasons.append("head_size not supported")
                invalid_reasons.append(f"dtype {dtype} not supported")
                invalid_reasons.append(some_call())
                return invalid_reasons

        def can_implement(c):
            if c.group_size % 2:
                return False, f"Group size ({c.group_size}) does not divide the input features"
            return True, None

        def done(x):
            others.append("not a list of reasons")
            return False, x.y
        """
    ).sites
    assert [(s.kind, s.exception, s.template, s.function) for s in sites] == [
        ("reason", "validate_configuration", "head_size not supported", "Backend.validate_configuration"),
        ("reason", "validate_configuration", "dtype {dtype} not supported", "Backend.validate_configuration"),
        ("reason", "can_implement", "Group size ({c.group_size}) does not divide the input features", "can_implement"),
    ]


def test_a_message_that_shows_reasons_names_the_functions_they_may_come_from():
    sites = scan(
        """
        def get_backend(backend, config):
            invalid_reasons = backend.validate_configuration(config)
            if invalid_reasons:
                raise ValueError(f"Selected backend {backend} is not valid. Reason: {invalid_reasons}")

        def pick(kernels):
            reasons = []
            for kernel in kernels:
                ok, why = kernel.can_implement()
                reasons.append(f"{kernel} cannot implement due to: {why}")
            logger.warning("no kernel: %s", "; ".join(reasons))
            raise ValueError(f"no kernel for {kernels}")
        """
    ).sites
    raised, logged, plain = [s for s in sites if s.kind != "reason"]
    # its own function's name first (its own reasons), then what that function calls
    assert raised.reasons_from == ["get_backend", "ValueError", "validate_configuration"]
    assert logged.reasons_from == ["pick", "ValueError", "append", "can_implement", "join", "warning"]
    assert plain.reasons_from == []  # its message shows no reasons
