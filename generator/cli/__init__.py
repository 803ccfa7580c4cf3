"""The ``errorkb`` command line (``main.py``), one file per command."""
