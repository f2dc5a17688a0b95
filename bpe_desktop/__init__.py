"""BPE Desktop: train, inspect, compare and export byte-pair-encoding tokenizers."""

__version__ = "0.1.0"
