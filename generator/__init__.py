"""errorkb: the vLLM error knowledge base."""
