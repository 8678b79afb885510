"""The ``checkpoint`` state file of a checkpoint directory: TensorFlow's `CheckpointState`
message in protobuf text format, e.g.

    model_checkpoint_path: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-1"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_timestamps: 1700000000.5
    all_model_checkpoint_timestamps: 1700000100.25
    last_preserved_timestamp: 1699999999.0

Fields at their default (empty, 0) are left out, as protobuf writes them."""

from ferroflow.train import _text_format

__all__ = ["CheckpointState"]

_STRING_FIELDS = frozenset(("model_checkpoint_path", "all_model_checkpoint_paths"))
_FLOAT_FIELDS = frozenset(("all_model_checkpoint_timestamps", "last_preserved_timestamp"))
_REPEATED = frozenset(("all_model_checkpoint_paths", "all_model_checkpoint_timestamps"))


class CheckpointState:
    """Which checkpoints a directory holds, newest last, and when they were written."""

    def __init__(
        self,
        model_checkpoint_path="",
        all_model_checkpoint_paths=(),
        all_model_checkpoint_timestamps=(),
        last_preserved_timestamp=0.0,
    ):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = [float(t) for t in all_model_checkpoint_timestamps]
        self.last_preserved_timestamp = float(last_preserved_timestamp or 0.0)

    @classmethod
    def from_text(cls, text):
        """Parses the file's text; raises `_text_format.ParseError` for anything else."""
        state = cls()
        for name, value in _text_format.parse_fields(text, _STRING_FIELDS, _FLOAT_FIELDS):
            if name in _REPEATED:
                getattr(state, name).append(value)
            else:
                setattr(state, name, value)  # a repeated singular field: the last one wins
        return state

    def to_text(self):
        lines = []
        if self.model_checkpoint_path:
            lines.append(f"model_checkpoint_path: {_text_format.quote(self.model_checkpoint_path)}")
        for path in self.all_model_checkpoint_paths:
            lines.append(f"all_model_checkpoint_paths: {_text_format.quote(path)}")
        for stamp in self.all_model_checkpoint_timestamps:
            lines.append(f"all_model_checkpoint_timestamps: {_text_format.format_float(stamp)}")
        if self.last_preserved_timestamp:
            stamp = _text_format.format_float(self.last_preserved_timestamp)
            lines.append(f"last_preserved_timestamp: {stamp}")
        return "".join(line + "\n" for line in lines)

    def __str__(self):
        return self.to_text()

    __repr__ = __str__

    def __eq__(self, other):
        if not isinstance(other, CheckpointState):
            return NotImplemented
        return vars(self) == vars(other)

    __hash__ = None
