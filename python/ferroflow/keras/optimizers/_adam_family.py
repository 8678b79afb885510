"""The constructor and config shared by Adam's relatives (`Adamax`, `Nadam`, `Lamb`): a learning
rate, ``beta_1``, ``beta_2`` and ``epsilon`` over the base optimizer's options."""

from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["AdamFamily"]


class AdamFamily(Optimizer):
    """Stores ``beta_1``, ``beta_2`` and ``epsilon`` and puts them in the config."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
