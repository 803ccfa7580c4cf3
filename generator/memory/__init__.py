"""The memory calculator behind ``errorkb memory`` and the site's calculator (templates/assets/memory.js).

Pure, each building on the one before: ``settings`` (the flags, sizes, dtypes), ``model``
(config.json), ``kv`` (the KV cache plan), ``budget`` (what vLLM takes first, what is
left), ``findings`` (``calculate``: the errors vLLM raises, and their fixes). Reading
files: ``gpus`` (the GPU table, gpus.json), ``configs`` (config.json files) and
``site_data`` (api/memory.json).
"""
