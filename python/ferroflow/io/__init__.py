"""`tf.io`: the image codecs (the same functions as under `tf.image`), files (`gfile`,
`read_file`...), decoders and TFRecords."""

from ferroflow.image import codecs as _codecs
from ferroflow.io import gfile  # noqa: F401 - io-files

# tf.image's JPEG-quality augmentations are not in tf.io.
__all__ = [n for n in _codecs.__all__ if "quality" not in n]
globals().update({n: getattr(_codecs, n) for n in __all__})
