"""dicecall: camera dice reader and roll verifier for casino dice games."""

__version__ = "0.1.0"
