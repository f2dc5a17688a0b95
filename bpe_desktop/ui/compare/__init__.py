"""The Compare panel (Ctrl+5): tokenizers side by side; and the BPE-dropout samples box."""

from bpe_desktop.ui.codec.dropout_box import DropoutSamplesBox
from bpe_desktop.ui.compare.panel import ComparePanel

__all__ = ["ComparePanel", "DropoutSamplesBox"]
