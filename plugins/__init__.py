"""Built-in TrajScope plugins: importers and detectors.

They are declared in ``trajscope.toml`` and registered through the ``trajscope.plugins``
entry point, exactly like third-party plugins.
"""
