"""`tf.keras.optimizers.OptimizerMap` and `MultiOptimizer`: a different optimizer for the
variables whose Keras path matches a pattern (``re.fullmatch``), a default for the others."""

import re
from collections.abc import MutableMapping

from ferroflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["MultiOptimizer", "OptimizerMap"]


class OptimizerMap(MutableMapping):
    """``{path pattern: optimizer}`` with a default; calling it on a variable gives the
    optimizer for its ``path`` (an exact key first, then the one pattern that fully matches)."""

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError(
                "default_optimizer must be a Keras Optimizer instance. "
                f"Received: {default_optimizer}"
            )
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = optimizer_map or {}

    @property
    def default_optimizer(self):
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        if matching:
            return self._optimizer_map[matching[0]]
        return self.default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(
                f"'{key}' already exists in the OptimizerMap with value "
                f"{self._optimizer_map[key]}. Please make sure to not use duplicated keys."
            )
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        if not isinstance(optimizer, Optimizer):
            raise ValueError(f"optimizer must be a Keras Optimizer instance. Received: {optimizer}")
        if isinstance(optimizer, LossScaleOptimizer):
            raise ValueError("optimizer cannot be LossScaleOptimizer.")
        if isinstance(optimizer, MultiOptimizer):
            raise ValueError("optimizer cannot be MultiOptimizer.")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        return self[variable.path]

    def get_config(self):
        from ferroflow.keras.optimizers.serialization import serialize

        return {
            "default_optimizer": serialize(self._default_optimizer),
            "optimizer_map": {key: serialize(opt) for key, opt in self._optimizer_map.items()},
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ferroflow.keras.optimizers.serialization import deserialize

        default = deserialize(config["default_optimizer"], custom_objects=custom_objects)
        mapping = {
            key: deserialize(value, custom_objects=custom_objects)
            for key, value in (config.get("optimizer_map") or {}).items()
        }
        return cls(default, mapping)


class MultiOptimizer(Optimizer):
    """Applies each gradient with the optimizer ``optimizer_map`` (an `OptimizerMap` or any
    callable from variable to optimizer) picks for its variable; its own variables (iterations,
    an unused learning rate) come first in `variables`, then each inner optimizer's."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {
        "_optimizer_map",
        "_inner_optimizers",
        "_var_to_optimizer_idx",
    }

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        self._inner_optimizers = []
        candidates = list(optimizer_map.values()) if hasattr(optimizer_map, "values") else []
        default = getattr(optimizer_map, "default_optimizer", None)
        if default is not None:
            candidates.append(default)
        for optimizer in candidates:
            if optimizer not in self._inner_optimizers:
                optimizer.loss_scale_factor = loss_scale_factor
                self._inner_optimizers.append(optimizer)

    def build(self, var_list):
        if self.built:
            return
        self._var_to_optimizer_idx = {}
        self._trainable_variables_indices = {}
        per_optimizer = [[] for _ in self._inner_optimizers]
        for i, variable in enumerate(var_list):
            optimizer = self._optimizer_map(variable)
            if not isinstance(optimizer, Optimizer):
                raise ValueError(f"Optimizer for variable {variable} is not an Optimizer instance.")
            if isinstance(optimizer, LossScaleOptimizer):
                raise ValueError("LossScaleOptimizer cannot be used inside an MultiOptimizer.")
            if isinstance(optimizer, MultiOptimizer):
                raise ValueError("MultiOptimizer cannot be used inside an MultiOptimizer.")
            if optimizer not in self._inner_optimizers:
                optimizer.loss_scale_factor = self.loss_scale_factor
                self._inner_optimizers.append(optimizer)
                per_optimizer.append([])
            index = self._inner_optimizers.index(optimizer)
            self._var_to_optimizer_idx[self._var_key(variable)] = index
            self._trainable_variables_indices[self._var_key(variable)] = i
            per_optimizer[index].append(variable)
        for optimizer, variables in zip(self._inner_optimizers, per_optimizer):
            if variables:
                optimizer.build(variables)
        super().build(var_list)

    @property
    def optimizers(self):
        return self._inner_optimizers

    @property
    def variables(self):
        variables = self._variables[:]
        for optimizer in self._inner_optimizers:
            variables.extend(optimizer.variables)
        return variables

    @property
    def learning_rate(self):
        raise AttributeError(
            "Learning rate cannot be accessed on a MultiOptimizer. Access the learning rate on "
            "the individual sub-optimizers instead."
        )

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError(
            "Learning rate cannot be set on a MultiOptimizer. Set the learning rate on the "
            "individual sub-optimizers instead."
        )

    @property
    def loss_scale_factor(self):
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self._loss_scale_factor = value
        for optimizer in self.__dict__.get("_inner_optimizers", ()):
            optimizer.loss_scale_factor = value

    @property
    def iterations(self):
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        grads = list(grads)
        if len(grads) == 0:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError(
                    "When passing `grads` without `variables`, the optimizer must already be "
                    "built on a list of variables. Call `optimizer.build(trainable_variables)` "
                    "first."
                )
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
            self.built = True
        if len(grads) != len(self._trainable_variables_indices):
            raise ValueError(
                f"Gradients must match trainable variables one-to-one. Received {len(grads)} "
                f"gradients and {len(self._trainable_variables_indices)} variables."
            )
        grouped = [[] for _ in self._inner_optimizers]
        for grad, variable in zip(grads, trainable_variables):
            grouped[self._var_to_optimizer_idx[self._var_key(variable)]].append((grad, variable))
        for optimizer, pairs in zip(self._inner_optimizers, grouped):
            if pairs:
                sub_grads, sub_vars = zip(*pairs)
                optimizer.apply(list(sub_grads), list(sub_vars))
        self._iterations.assign_add(1)

    def finalize_variable_values(self, var_list):
        grouped = [[] for _ in self._inner_optimizers]
        for variable in var_list:
            grouped[self._var_to_optimizer_idx[self._var_key(variable)]].append(variable)
        for optimizer, variables in zip(self._inner_optimizers, grouped):
            if variables:
                optimizer.finalize_variable_values(variables)

    def set_weights(self, weights):
        if not self.built:
            raise ValueError(
                "You are calling `set_weights()` on an optimizer that has not yet been built. "
                "Please call `optimizer.build(trainable_variables)` to create the optimizer "
                "weights before calling `set_weights()`."
            )
        own = len(self._variables)
        for i in range(own):
            self._variables[i].assign(weights[i])
        index = own
        for optimizer in self._inner_optimizers:
            count = len(optimizer.variables)
            if count > 0:
                optimizer.set_weights(weights[index : index + count])
                index += count

    def get_config(self):
        from ferroflow.keras._serialization import serialize_object

        return {
            "optimizer_map": serialize_object(
                self._optimizer_map, OptimizerMap, "keras.optimizers", "OptimizerMap"
            )
            if isinstance(self._optimizer_map, OptimizerMap)
            else self._optimizer_map,
            "loss_scale_factor": self.loss_scale_factor,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        mapping = config["optimizer_map"]
        if isinstance(mapping, dict):
            mapping = OptimizerMap.from_config(mapping.get("config", mapping), custom_objects)
        config["optimizer_map"] = mapping
        return cls(**config)
