"""The ``apollo`` command line: thin wrappers over the library, one module per command family."""
