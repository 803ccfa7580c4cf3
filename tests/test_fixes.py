"""generator.lookup.fixes: a curated fix command with the paste's own numbers in it."""

from __future__ import annotations

from generator.lookup.fixes import fix_with_values, paste_number, set_values

MAMBA_FIX = {"title": "Lower max_num_seqs", "command": "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --max-num-seqs 256",
             "fill": {"max_num_seqs": ["kv_cache_config.num_blocks"]}}


def test_the_paste_number_replaces_the_example_value():
    shown = fix_with_values(MAMBA_FIX, {"max_num_reqs": "256", "kv_cache_config.num_blocks": "128"})
    assert shown == {"title": "Lower max_num_seqs", "command": "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --max-num-seqs 128",
                     "example": MAMBA_FIX["command"], "from_paste": {"max_num_seqs": "128"}}


def test_without_the_value_the_fix_is_the_entry_s_own_less_its_fill():
    assert fix_with_values(MAMBA_FIX, {"max_num_reqs": "256"}) == {"title": "Lower max_num_seqs", "command": MAMBA_FIX["command"]}
    assert fix_with_values(None, {}) is None


def test_the_value_the_example_already_has_is_not_reported_as_taken():
    assert "from_paste" not in fix_with_values(MAMBA_FIX, {"kv_cache_config.num_blocks": "256"})


def test_only_a_number_goes_into_a_command():
    for hostile in ("1; rm -rf ~", "128 && curl x|sh", "$(id)", "12`id`", "١٢٨", "128'", "-1", ""):
        assert paste_number(["n"], {"n": hostile}) is None, hostile
        assert "from_paste" not in fix_with_values(MAMBA_FIX, {"kv_cache_config.num_blocks": hostile})


def test_a_sentence_that_ends_in_a_number_gives_that_number():
    sentence = "Based on the available memory, the estimated maximum model length is 76496."
    assert paste_number(["estimated_msg", "max_seq_len"], {"estimated_msg": sentence}) == "76496"
    assert paste_number(["estimated_msg", "max_seq_len"], {"estimated_msg": "", "max_seq_len": "4096"}) == "4096"
    assert paste_number(["m"], {"m": "9.34"}) == "9.34"


def test_every_way_a_command_sets_the_setting_is_filled_and_no_other():
    command = "vllm serve m --max-num-seqs 1 --max_num_seqs=2 --max-num-seqs-x 3\nLLM(model='m', max_num_seqs=4, my_max_num_seqs=5)"
    assert set_values(command, {"max_num_seqs": "9"}) == (
        "vllm serve m --max-num-seqs 9 --max_num_seqs=9 --max-num-seqs-x 3\nLLM(model='m', max_num_seqs=9, my_max_num_seqs=5)")


def test_two_settings_may_take_the_same_value():
    fix = {"title": "t", "command": "vllm serve m --max-num-batched-tokens 512 --max-num-seqs 256",
           "fill": {"max_num_batched_tokens": "self.max_num_batched_tokens", "max_num_seqs": "self.max_num_batched_tokens"}}
    shown = fix_with_values(fix, {"self.max_num_batched_tokens": "64", "self.max_num_seqs": "128"})
    assert shown["command"] == "vllm serve m --max-num-batched-tokens 64 --max-num-seqs 64"
    assert shown["from_paste"] == {"max_num_batched_tokens": "64", "max_num_seqs": "64"}
