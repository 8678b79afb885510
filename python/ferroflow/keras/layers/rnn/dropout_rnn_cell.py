"""Keras 3's `DropoutRNNCell` mixin: a cell's input and recurrent dropout masks, drawn once
per layer call (before the time loop) and reused at every step. The masks come from the cell's
``seed_generator`` as Keras's do, so a seeded cell drops Keras's very units."""

from ferroflow.array_ops import ones_like
from ferroflow.keras.random import dropout as _dropout

__all__ = ["DropoutRNNCell"]


class DropoutRNNCell:
    """Dropout masks for RNN cells with ``dropout``, ``recurrent_dropout`` and
    ``seed_generator`` attributes; a cell that sets ``dropout_mask_count`` gets that many masks
    (one per gate)."""

    def _create_dropout_mask(self, step_input, rate):
        ones = ones_like(step_input)
        count = getattr(self, "dropout_mask_count", None)
        if count is None:
            return _dropout(ones, rate=rate, seed=self.seed_generator)
        return [_dropout(ones, rate=rate, seed=self.seed_generator) for _ in range(count)]

    def get_dropout_mask(self, step_input):
        """The input dropout mask of this call, made on first use (None without dropout)."""
        if getattr(self, "_dropout_mask", None) is None and self.dropout > 0:
            self._dropout_mask = self._create_dropout_mask(step_input, self.dropout)
        return getattr(self, "_dropout_mask", None)

    def get_recurrent_dropout_mask(self, step_input):
        """The recurrent-state dropout mask of this call (None without recurrent dropout)."""
        if getattr(self, "_recurrent_dropout_mask", None) is None and self.recurrent_dropout > 0:
            self._recurrent_dropout_mask = self._create_dropout_mask(
                step_input, self.recurrent_dropout
            )
        return getattr(self, "_recurrent_dropout_mask", None)

    def reset_dropout_mask(self):
        self._dropout_mask = None

    def reset_recurrent_dropout_mask(self):
        self._recurrent_dropout_mask = None
