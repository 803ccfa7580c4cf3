"""The memory calculator (templates/assets/memory.js) in headless Chromium, against generator/memory/.

The site is built from the corpus (see tests/test_browser.py for the server and browser);
on a memory error's page ``window.errorkbMemory`` must return exactly what
``generator.memory.findings.calculate(...).to_json()`` returns: for the shared vectors of
tests/data/memory_vectors.json, and for settings drawn at random (fixed seed) over every
bundled model, GPU and flag.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from generator.memory.configs import bundled_models
from generator.memory.findings import HEADS_NOT_DIVISIBLE, KV_CACHE_TOO_SMALL, MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS, NO_MEMORY_FOR_CACHE, calculate
from generator.memory.gpus import gpu_memory_bytes, load_gpus
from generator.memory.settings import GIB, MemoryInputError, ServeSettings
from generator.memory.site_data import site_data
from test_browser import browser, served_site, site_url  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parents[1]
VECTORS = json.loads((ROOT / "tests" / "data" / "memory_vectors.json").read_text(encoding="utf-8"))
MODELS = bundled_models(ROOT / "models")
CALCULATE = """
const [cases, done] = arguments;
window.errorkbMemory.load()
  .then(() => done({found: cases.map(([config, settings]) => window.errorkbMemory.tryCalculate(config, settings))}),
        (error) => done({error: String(error && error.stack || error)}));
"""


def python_result(config, settings: dict) -> dict:
    try:
        return calculate(config, ServeSettings(**settings)).to_json()
    except MemoryInputError as exc:
        return {"error": str(exc)}


def config_of(vector: dict):
    return vector["config"] if "config" in vector else MODELS[vector["model"]]


@pytest.fixture(scope="module")
def calculator_page(browser, site_url):  # noqa: F811 - the imported fixtures
    browser.get(f"{site_url}errors/{KV_CACHE_TOO_SMALL}/")
    ready = browser.execute_async_script(
        "const done = arguments[0]; window.errorkbMemory.load().then(() => done(null), (e) => done(String(e)));"
    )
    assert ready is None, ready
    return browser


def js_calculate(driver, cases: list) -> list:
    answer = driver.execute_async_script(CALCULATE, cases)
    assert "error" not in answer, answer["error"]
    return answer["found"]


def differences(cases: list, found: list) -> list:
    differ = []
    for (config, settings), js in zip(cases, found):
        py = python_result(config, settings)
        if js != py:
            differ.append({"settings": settings, "model": config.get("model_type") if isinstance(config, dict) else config,
                           "js": js, "python": py})
    return differ


def test_vectors_as_python(calculator_page):
    cases = [(config_of(v), v["settings"]) for v in VECTORS]
    differ = differences(cases, js_calculate(calculator_page, cases))
    assert not differ, json.dumps(differ[:2], indent=1)[:6000]


def test_vectors_expectations_in_the_browser(calculator_page):
    found = js_calculate(calculator_page, [(config_of(v), v["settings"]) for v in VECTORS])
    for vector, js in zip(VECTORS, found):
        if "input_error" in vector["expect"]:
            assert js == {"error": vector["expect"]["input_error"]}, vector["name"]
        else:
            assert [e["id"] for e in js["errors"]] == vector["expect"]["errors"], vector["name"]


def random_settings(rng: random.Random) -> dict:
    gpu = rng.choice(load_gpus())
    settings: dict = {"gpu_memory_bytes": gpu_memory_bytes(gpu), "gpu_name": gpu.name}
    if rng.random() < 0.2:
        settings = {"gpu_memory_bytes": rng.randrange(2 * GIB, 200 * GIB)}
    choices = {
        "gpu_memory_utilization": [0.05, 0.3, 0.5, 0.8, 0.85, 0.9, 0.92, 0.95, 0.98, 1],
        "max_model_len": [None, -1, 1, 17, 2048, 4096, 8192, 32768, 131072, 200000],
        "max_num_seqs": [None, 1, 8, 256, 1024, 5000],
        "max_num_batched_tokens": [None, 256, 2048, 16384],
        "kv_cache_dtype": ["auto", "fp8", "fp8_e5m2", "bfloat16"],
        "dtype": ["auto", "bfloat16", "float16", "float32"],
        "quantization": [None, "none", "fp8", "awq", "gptq", "bitsandbytes"],
        "tensor_parallel_size": [1, 1, 2, 3, 4, 8],
        "mamba_ssm_cache_dtype": ["auto", "float32"],
        "enforce_eager": [False, True],
        "enable_prefix_caching": [None, False],
        "kv_cache_memory_bytes": [None, None, None, 10 * 2**20, GIB, 7 * GIB + 12345],
        "block_size": [None, None, 32, 128],
    }
    for name, values in choices.items():
        if rng.random() < 0.5:
            settings[name] = rng.choice(values)
    return settings


def test_random_settings_as_python(calculator_page):
    """Every bundled model under random flags (a fixed seed): the same report, to the byte."""
    rng = random.Random(20251130)
    names = sorted(MODELS)
    cases = [(MODELS[rng.choice(names)], random_settings(rng)) for _ in range(400)]
    found = js_calculate(calculator_page, cases)
    assert sum("error" not in f for f in found) > 300  # mostly real reports, not input errors
    differ = differences(cases, found)
    assert not differ, json.dumps(differ[:2], indent=1)[:6000]


def test_memory_js_copies_no_python_constant():
    """memory.js reads the calculator's tables, ids and texts from api/memory.json; it holds no copy."""
    js = (ROOT / "templates" / "assets" / "memory.js").read_text(encoding="utf-8")
    constants = site_data(MODELS)["constants"]
    copied = [known["id"] for known in constants["errors"].values()]
    copied += [known["message"][:40] for known in constants["errors"].values()]
    copied += [text[:40] for text in [*constants["budget"]["reserve_sources"].values(), *constants["report_texts"].values()]]
    copied += [str(tier["max_num_batched_tokens"]) for tier in constants["budget"]["batch_limit_tiers"]]
    copied += ["fp8_e4m3", "granitemoehybrid", "deepseek_v2", "n_positions", "longrope", "compressed-tensors", "H100-80GB"]
    assert [text for text in copied if text in js] == []


# --- the page --------------------------------------------------------------------------------------------


def test_calculator_only_on_memory_error_pages(browser, site_url):  # noqa: F811
    from selenium.webdriver.common.by import By

    for error_id in (KV_CACHE_TOO_SMALL, NO_MEMORY_FOR_CACHE, MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS):
        browser.get(f"{site_url}errors/{error_id}/")
        assert browser.find_elements(By.ID, "errorkb-memory-form"), error_id
    browser.get(f"{site_url}errors/{HEADS_NOT_DIVISIBLE}/")
    assert not browser.find_elements(By.ID, "errorkb-memory-form")


def _submit(browser, site_url, model: str, gpu: str, config: str = "", **fields):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    browser.get(f"{site_url}errors/{NO_MEMORY_FOR_CACHE}/")
    form = browser.find_element(By.ID, "errorkb-memory-form")
    WebDriverWait(browser, 30).until(lambda d: form.get_attribute("data-errorkb-loaded") == "1")
    Select(form.find_element(By.NAME, "model")).select_by_value(model)
    if config:
        form.find_element(By.NAME, "config").send_keys(config)
    Select(form.find_element(By.NAME, "gpu")).select_by_value(gpu)
    for name, value in fields.items():
        form.find_element(By.NAME, name).send_keys(value)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    results = browser.find_element(By.ID, "errorkb-memory-results")
    WebDriverWait(browser, 30).until(lambda d: results.text.strip() != "")
    return results


def test_ui_shows_the_error_and_its_fix(browser, site_url):  # noqa: F811
    from selenium.webdriver.common.by import By

    results = _submit(browser, site_url, "qwen2.5-32b", "RTX-4090")
    assert "KV cache per token" in results.text and "262,144 bytes" in results.text
    link = results.find_element(By.CSS_SELECTOR, ".errorkb-memory-error a")
    assert link.get_attribute("href") == f"{site_url}errors/{NO_MEMORY_FOR_CACHE}/"
    assert "--tensor-parallel-size 4" in results.text


def test_ui_pasted_config(browser, site_url):  # noqa: F811
    config = json.dumps(MODELS["gemma-2-2b"])
    results = _submit(browser, site_url, "paste", "L4", config=config, max_model_len="4096")
    assert "26 layers (26 attention, 13 sliding-window)" in results.text
    assert "No known error" in results.text


@pytest.mark.parametrize(("config", "expected"), [
    ("{not json", "The pasted config.json is not valid JSON"),
    ('{"model_type": "t5"}', "model_type 't5' is not modelled"),
    ('<img src=x onerror="window.pwned=1">', "not valid JSON"),
])
def test_ui_bad_paste_is_one_message(browser, site_url, config, expected):  # noqa: F811
    from selenium.webdriver.common.by import By

    results = _submit(browser, site_url, "paste", "L4", config=config)
    assert expected in results.text
    assert not results.find_elements(By.CSS_SELECTOR, "img, script")
    assert browser.execute_script("return typeof window.pwned;") == "undefined"


# --- the calculator as a person uses it ------------------------------------------------------------


def _open(browser, site_url, error_id: str):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{site_url}errors/{error_id}/")
    form = browser.find_element(By.ID, "errorkb-memory-form")
    WebDriverWait(browser, 30).until(lambda d: form.get_attribute("data-errorkb-loaded") == "1")
    results = browser.find_element(By.ID, "errorkb-memory-results")
    WebDriverWait(browser, 30).until(lambda d: results.text.strip() != "")
    return form, results


def _results_change(browser, results, before: str) -> str:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(lambda d: results.text != before)
    return results.text


def _results_settle(browser, results, done) -> str:
    """Typing fires an input event per key, so the results pass through each partial value
    ("200G" is not a size yet); wait for the state the whole value gives, not the first change."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        WebDriverWait(browser, 30).until(lambda d: done(results.text))
    except TimeoutException:
        pytest.fail(f"the results never reached the expected state; they read:\n{results.text}")
    return results.text


@pytest.mark.parametrize("error_id", [KV_CACHE_TOO_SMALL, NO_MEMORY_FOR_CACHE, MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS])
def test_each_page_opens_on_an_example_of_its_own_error(browser, site_url, error_id):  # noqa: F811
    """Without a click, the calculator shows a model with a KV cache (never BERT) that meets
    the page's error."""
    from selenium.webdriver.common.by import By

    form, results = _open(browser, site_url, error_id)
    assert form.find_element(By.NAME, "model").get_attribute("value") != "bert-base-uncased"
    links = [a.get_attribute("href") for a in results.find_elements(By.CSS_SELECTOR, ".errorkb-memory-error a")]
    assert f"{site_url}errors/{error_id}/" in links, results.text


def test_fields_show_for_their_choice_and_are_read(browser, site_url):  # noqa: F811
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.common.by import By

    form, results = _open(browser, site_url, NO_MEMORY_FOR_CACHE)
    paste = form.find_element(By.NAME, "config")
    memory = form.find_element(By.NAME, "gpu_memory")
    assert not paste.is_displayed() and not memory.is_displayed()
    Select(form.find_element(By.NAME, "gpu")).select_by_value("custom")
    assert memory.is_displayed()
    memory.send_keys("200GiB")  # read: vLLM's share is 0.92 of it
    text = _results_settle(browser, results, lambda text: "184.00 GiB" in text)
    assert "No known error" in text
    Select(form.find_element(By.NAME, "model")).select_by_value("paste")
    assert paste.is_displayed()


def test_a_bad_value_is_refused_at_its_field(browser, site_url):  # noqa: F811
    from selenium.webdriver.common.by import By

    form, results = _open(browser, site_url, KV_CACHE_TOO_SMALL)
    field = form.find_element(By.NAME, "max_model_len")
    field.send_keys("abc")
    label = field.find_element(By.XPATH, "..")
    _results_settle(browser, results, lambda text: "abc" in label.text)
    message = label.find_element(By.CSS_SELECTOR, ".errorkb-field-error").text
    assert "--max-model-len must be a whole number" in message and "abc" in message
    assert field.get_attribute("aria-invalid") == "true"
    assert "NaN" not in results.text and "No known error" not in results.text


def test_a_budget_is_never_negative(browser, site_url):  # noqa: F811
    _, results = _open(browser, site_url, NO_MEMORY_FOR_CACHE)  # qwen2.5-32b on an RTX 4090: 61 GiB of weights
    assert "the model does not fit" in results.text
    assert "-40" not in results.text and "−40" not in results.text


def test_results_follow_the_typing(browser, site_url):  # noqa: F811
    from selenium.webdriver.common.by import By

    form, results = _open(browser, site_url, MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS)  # 2048 sequences: too many blocks
    seqs = form.find_element(By.NAME, "max_num_seqs")
    seqs.clear()
    before = results.text
    seqs.send_keys("64")  # no button pressed
    text = _results_change(browser, results, before)
    assert f"errors/{MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS}" not in " ".join(
        a.get_attribute("href") for a in results.find_elements(By.CSS_SELECTOR, ".errorkb-memory-error a")), text


def test_the_chart_draws_the_tables_figures(browser, site_url):  # noqa: F811
    """One stacked bar: a part per reserve, the KV cache and what is left free, each as wide
    as its bytes, with the table's figures in its legend."""
    from selenium.webdriver.common.by import By

    _, results = _open(browser, site_url, KV_CACHE_TOO_SMALL)
    parts = browser.execute_script(
        "return Array.from(document.querySelectorAll('.errorkb-memory-chart rect[data-bytes]'))"
        ".map((r) => [r.dataset.part, Number(r.dataset.bytes), Number(r.getAttribute('width'))])")
    names = [name for name, _, _ in parts]
    assert names[:2] == ["model weights", "activation peak"] and "KV cache" in names and names[-1] == "free"
    scales = [width / size for _, size, width in parts if size > 1 << 28]
    assert max(scales) / min(scales) < 1.001, parts  # every part drawn at one scale (widths kept to 0.01)
    legend = results.find_element(By.CSS_SELECTOR, ".errorkb-memory-chart figcaption").text
    table = results.find_element(By.CSS_SELECTOR, ".errorkb-memory-table").text
    weights = next(line for line in table.splitlines() if line.startswith("− model weights")).split()[3]
    assert f"model weights {weights} GiB" in legend


def test_the_numbers_of_a_pasted_error_fill_the_fields(browser, site_url):  # noqa: F811
    """A real log's numbers (vllm-project/vllm#16118): its --max-model-len lands in the field,
    said in a line, and the results follow."""
    from selenium.webdriver.common.by import By

    form, results = _open(browser, site_url, KV_CACHE_TOO_SMALL)
    before = results.text
    form.find_element(By.NAME, "error_paste").send_keys(
        "ERROR 04-05 01:12:55 [core.py:390] ValueError: To serve at least one request with the models's max seq len "
        "(1048576), (24.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.97 GiB).")
    _results_change(browser, results, before)
    field = form.find_element(By.NAME, "max_model_len")
    _results_settle(browser, results, lambda text: field.get_attribute("value") == "1048576")
    assert "Read from your error: --max-model-len 1048576" in browser.find_element(By.CSS_SELECTOR, ".errorkb-memory-from-paste").text
    paste = form.find_element(By.NAME, "error_paste")
    paste.clear()
    paste.send_keys("ValueError: Free memory on device cuda:0 (22.76/24.0 GiB) on startup is less than desired GPU memory "
                    "utilization (0.97, 23.28 GiB).")
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda d: form.find_element(By.NAME, "gpu").get_attribute("value") == "custom")
    assert form.find_element(By.NAME, "gpu_memory").get_attribute("value") == "24.0GiB"
    assert form.find_element(By.NAME, "gpu_memory_utilization").get_attribute("value") == "0.97"
