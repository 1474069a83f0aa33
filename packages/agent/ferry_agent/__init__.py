"""Ferry local agent: connects one checkout to one workspace (see PROTOCOL.md)."""

__version__ = "0.1.0"
