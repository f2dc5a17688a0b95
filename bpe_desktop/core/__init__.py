"""The Qt-free core of BPE Desktop: training, models, model files, encoding.

Nothing here imports Qt (a test enforces it), so the CLI, scripts and the GUI's
worker threads all use the same API::

    from bpe_desktop.core import Corpus, TrainConfig, train, save_model, load_model

    result = train(Corpus.from_files(["corpus.txt"]), TrainConfig(vocab_size=8000))
    save_model(result.model, "model.json")
    tok = load_model("model.json").tokenizer()
    tok.encode_as_pieces("lowest")      # ['low', 'est</w>']
"""

from bpe_desktop.core.config import (
    BOUNDARIES,
    NORMALIZATIONS,
    PRESETS,
    PRETOKENIZERS,
    TIE_BREAKS,
    SpecialToken,
    TrainConfig,
)
from bpe_desktop.core.errors import (
    BpeError,
    ConfigError,
    CorpusError,
    EncodeError,
    EngineError,
    ExportError,
    ModelFileError,
    TrainingCancelled,
)
from bpe_desktop.core._native import lower_engine_threads
from bpe_desktop.core.memory import MemoryEstimate, estimate_training_memory
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge, TokenInfo
from bpe_desktop.core.model_file import load_model, save_model
from bpe_desktop.core.tokenizer import Encoding, MergeStep, Tokenizer
from bpe_desktop.core.training import (
    CancelToken,
    Corpus,
    Progress,
    TrainResult,
    WordSegmentation,
    train,
)

__all__ = [
    "BOUNDARIES", "NORMALIZATIONS", "PRESETS", "PRETOKENIZERS", "TIE_BREAKS",
    "BPEModel", "BpeError", "CancelToken", "ConfigError", "Corpus", "CorpusError",
    "CorpusFile", "CorpusInfo", "EncodeError", "Encoding", "EngineError", "ExportError",
    "Merge", "MemoryEstimate", "MergeStep", "ModelFileError", "Progress", "SpecialToken",
    "TokenInfo",
    "Tokenizer", "TrainConfig", "TrainResult", "TrainingCancelled", "WordSegmentation",
    "estimate_training_memory", "load_model", "lower_engine_threads", "save_model", "train",
]
