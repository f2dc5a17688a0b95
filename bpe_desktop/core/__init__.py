"""The Qt-free core of BPE Desktop: training, models, model files, encoding.

Nothing here imports Qt (a test enforces it), so the CLI, scripts and the GUI's
worker threads all use the same API::

    from bpe_desktop.core import Corpus, TrainConfig, train, save_model, load_model

    result = train(Corpus.from_files(["corpus.txt"]), TrainConfig(vocab_size=8000))
    save_model(result.model, "model.json")
    tok = load_model("model.json").tokenizer()
    tok.encode_as_pieces("lowest")      # ['low', 'est</w>']
"""

import importlib

#: Each public name and the module that defines it; imported when first asked for, so
#: that a program using one part (the command line encoding a line, a test importing an
#: error class) does not pay for the rest.
_SOURCES = {
    "config": ("BOUNDARIES", "NORMALIZATIONS", "PRESETS", "PRETOKENIZERS", "TIE_BREAKS",
               "SpecialToken", "TrainConfig"),
    "errors": ("BpeError", "ConfigError", "CorpusError", "EncodeError", "EngineError",
               "ExportError", "ModelFileError", "TrainingCancelled"),
    "_native": ("lower_engine_threads",),
    "memory": ("MemoryEstimate", "estimate_training_memory"),
    "model": ("BPEModel", "CorpusFile", "CorpusInfo", "Merge", "TokenInfo"),
    "model_file": ("load_model", "save_model"),
    "tokenizer": ("Encoding", "MergeStep", "Tokenizer"),
    "training": ("CancelToken", "Corpus", "Progress", "TrainResult", "WordSegmentation",
                 "train"),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE_OF))


__all__ = sorted(_MODULE_OF)
