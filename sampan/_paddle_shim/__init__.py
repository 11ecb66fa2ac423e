"""Not imported as a package: `python -m sampan` puts this folder first on PYTHONPATH so that a
child interpreter's first `import paddle` finds `paddle/` here and becomes sampan."""
