"""Keras 3's preprocessing layers: lookups and text vectorization with `adapt`, hashing,
category encoding, discretization, normalization and rescaling."""

from ferroflow.keras.layers.preprocessing.category_encoding import CategoryEncoding
from ferroflow.keras.layers.preprocessing.discretization import Discretization
from ferroflow.keras.layers.preprocessing.hashing import HashedCrossing, Hashing
from ferroflow.keras.layers.preprocessing.index_lookup import IntegerLookup, StringLookup
from ferroflow.keras.layers.preprocessing.normalization import Normalization, Rescaling
from ferroflow.keras.layers.preprocessing.text_vectorization import TextVectorization

__all__ = [
    "CategoryEncoding",
    "Discretization",
    "HashedCrossing",
    "Hashing",
    "IntegerLookup",
    "Normalization",
    "Rescaling",
    "StringLookup",
    "TextVectorization",
]
