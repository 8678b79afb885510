"""`tf.keras.layers`: the base `Layer` and Keras 3's core, normalisation, regularisation,
reshaping, merging, convolution and pooling layers."""

from ferroflow.keras.layers.activation import Activation
from ferroflow.keras.layers.activation_layers import ELU, Identity, LeakyReLU, ReLU, Softmax
from ferroflow.keras.layers.attention import AdditiveAttention, Attention
from ferroflow.keras.layers.audio_preprocessing import MelSpectrogram, STFTSpectrogram
from ferroflow.keras.layers.batch_normalization import BatchNormalization
from ferroflow.keras.layers.conv import Conv1D, Conv2D
from ferroflow.keras.layers.cropping import Cropping1D, Cropping2D, Cropping3D
from ferroflow.keras.layers.dense import Dense
from ferroflow.keras.layers.dropout import Dropout
from ferroflow.keras.layers.einsum_dense import EinsumDense
from ferroflow.keras.layers.embedding import Embedding
from ferroflow.keras.layers.flatten import Flatten
from ferroflow.keras.layers.grouped_query_attention import GroupQueryAttention
from ferroflow.keras.layers.image_preprocessing import (
    AutoContrast,
    CenterCrop,
    Equalization,
    RandomBrightness,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomGrayscale,
    RandomHue,
    RandomInvert,
    RandomPosterization,
    RandomRotation,
    RandomSaturation,
    RandomSharpness,
    RandomTranslation,
    RandomZoom,
    Resizing,
    Solarization,
)
from ferroflow.keras.layers.input_layer import Input, InputLayer
from ferroflow.keras.layers.input_spec import InputSpec
from ferroflow.keras.layers.lambda_layer import Lambda
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.layers.layer_normalization import LayerNormalization
from ferroflow.keras.layers.masking import Masking
from ferroflow.keras.layers.masking import Masking
from ferroflow.keras.layers.merging import Add, Concatenate, add, concatenate
from ferroflow.keras.layers.merging_elementwise import (
    Average,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    average,
    maximum,
    minimum,
    multiply,
    subtract,
)
from ferroflow.keras.layers.multi_head_attention import MultiHeadAttention
from ferroflow.keras.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from ferroflow.keras.layers.preprocessing import (
    CategoryEncoding,
    Discretization,
    HashedCrossing,
    Hashing,
    IntegerLookup,
    Normalization,
    Rescaling,
    StringLookup,
    TextVectorization,
)
from ferroflow.keras.layers.repeat_permute import Permute, RepeatVector
from ferroflow.keras.layers.reshape import Reshape
from ferroflow.keras.layers.reversible_embedding import ReversibleEmbedding
from ferroflow.keras.layers.rnn import (
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    ConvLSTM1D,
    ConvLSTM2D,
    ConvLSTM3D,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
    TimeDistributed,
)
from ferroflow.keras.layers.unit_normalization import ActivityRegularization, UnitNormalization
from ferroflow.keras.layers.up_sampling import UpSampling1D, UpSampling2D, UpSampling3D
from ferroflow.keras.layers.zero_padding import ZeroPadding1D, ZeroPadding2D, ZeroPadding3D

__all__ = [
    "Activation",
    "ActivityRegularization",
    "Add",
    "AdditiveAttention",
    "Attention",
    "AutoContrast",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "BatchNormalization",
    "Bidirectional",
    "CategoryEncoding",
    "CenterCrop",
    "Concatenate",
    "Conv1D",
    "Conv2D",
    "ConvLSTM1D",
    "ConvLSTM2D",
    "ConvLSTM3D",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "Dense",
    "Discretization",
    "Dropout",
    "ELU",
    "EinsumDense",
    "Embedding",
    "Equalization",
    "Flatten",
    "GRU",
    "GRUCell",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GroupQueryAttention",
    "HashedCrossing",
    "Hashing",
    "Identity",
    "Input",
    "InputLayer",
    "InputSpec",
    "IntegerLookup",
    "LSTM",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "Masking",
    "MaxPooling1D",
    "MaxPooling2D",
    "Maximum",
    "MelSpectrogram",
    "Minimum",
    "MultiHeadAttention",
    "Multiply",
    "Normalization",
    "Permute",
    "RNN",
    "RandomBrightness",
    "RandomColorDegeneration",
    "RandomColorJitter",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomGrayscale",
    "RandomHue",
    "RandomInvert",
    "RandomPosterization",
    "RandomRotation",
    "RandomSaturation",
    "RandomSharpness",
    "RandomTranslation",
    "RandomZoom",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "Resizing",
    "ReversibleEmbedding",
    "STFTSpectrogram",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "Solarization",
    "StackedRNNCells",
    "StringLookup",
    "Subtract",
    "TextVectorization",
    "TimeDistributed",
    "UnitNormalization",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "add",
    "average",
    "concatenate",
    "maximum",
    "minimum",
    "multiply",
    "subtract",
]
