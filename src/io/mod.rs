//! File formats of `tf.io`: TFRecord files (and `tf.data`'s SNAPPY blocks of them),
//! `tf.train.Example` parsing and serialized tensors
//! (`TensorProto`), all TensorFlow's wire formats through the prost messages in `crate::proto`.

pub mod base64;
pub mod example;
pub mod masked_crc;
pub mod snappy;
pub mod tensor_proto;
pub mod tfrecord;
