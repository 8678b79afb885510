"""`tf.io`: the image codecs (the same functions as under `tf.image`), files (`gfile`,
`read_file`...), decoders and TFRecords."""

from ferroflow.image import codecs as _codecs
from ferroflow.io import gfile  # io-files
from ferroflow.io._decode import (  # io-files
    decode_base64,
    decode_compressed,
    decode_csv,
    decode_raw,
    encode_base64,
)
from ferroflow.io._files import (  # io-files
    match_filenames_once,
    matching_files,
    read_file,
    write_file,
)
from ferroflow.io._json_example import decode_json_example
from ferroflow.io._parsing import (  # io-core
    FixedLenFeature,
    FixedLenSequenceFeature,
    RaggedFeature,
    SparseFeature,
    VarLenFeature,
    parse_example,
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
)
from ferroflow.io._proto_codec import decode_proto, encode_proto
from ferroflow.io._sparse_serialize import (  # io-files
    deserialize_many_sparse,
    serialize_many_sparse,
    serialize_sparse,
)
from ferroflow.io._tensor_proto import parse_tensor, serialize_tensor  # io-core
from ferroflow.io._tfrecord import TFRecordOptions, TFRecordWriter  # io-core
from ferroflow.io._write_graph import write_graph

# tf.image's JPEG-quality augmentations are not in tf.io.
__all__ = [n for n in _codecs.__all__ if "quality" not in n]
globals().update({n: getattr(_codecs, n) for n in __all__})
__all__ += [  # io-files
    "decode_base64",
    "decode_compressed",
    "decode_csv",
    "decode_raw",
    "deserialize_many_sparse",
    "encode_base64",
    "gfile",
    "match_filenames_once",
    "matching_files",
    "read_file",
    "serialize_many_sparse",
    "serialize_sparse",
    "write_file",
]
__all__ += [  # io-core
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "SparseFeature",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
]
__all__ += ["decode_json_example", "write_graph"]
__all__ += ["decode_proto", "encode_proto"]
