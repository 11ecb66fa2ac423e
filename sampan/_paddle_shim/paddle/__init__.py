"""Found first on PYTHONPATH in the child processes of `python -m sampan`: installs sampan as
`paddle`; the import then returns sampan, whose module replaced this one in sys.modules.
Imported under any other name (e.g. by a doctest collector) it does nothing."""
if __name__ == "paddle":
    import sampan as _sampan

    _SAMPAN_SHIM = True
    _sampan.install_as_paddle()
