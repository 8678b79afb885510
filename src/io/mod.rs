//! File formats of `tf.io`: TFRecord files, `tf.train.Example` parsing and serialized tensors
//! (`TensorProto`), all TensorFlow's wire formats through the prost messages in `crate::proto`.

pub mod example;
pub mod tensor_proto;
pub mod tfrecord;
