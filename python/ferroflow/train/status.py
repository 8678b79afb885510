"""What `Checkpoint.restore` returns: `CheckpointLoadStatus`, whose assertions say how well the
checkpoint and the Python objects matched, and `InitializationOnlyStatus` for ``restore(None)``.
Messages are TensorFlow's. Eager execution runs restores at once, so the restore-op methods do
nothing."""

from ferroflow.train import _deferred
from ferroflow.train.trackable import children_of, is_variable

__all__ = ["CheckpointLoadStatus", "InitializationOnlyStatus"]


def python_variables(root, root_extras=()):
    """Every variable reachable from ``root``, breadth first, each once."""
    seen, found = {id(root)}, []
    queue = [root]
    for obj in queue:
        if is_variable(obj):
            found.append(obj)
        edges = children_of(obj)
        if obj is root:
            edges = [*edges, *root_extras]
        for _, child in edges:
            if id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
    return found


class CheckpointLoadStatus:
    """Checks the status of checkpoint loading (TensorFlow's class of the same name)."""

    def __init__(self, restoration, checkpoint):
        self._restoration = restoration
        self._checkpoint = checkpoint

    def _unmatched_variables(self):
        _deferred.sweep()
        root, extras = self._checkpoint._graph_root()
        restoration = self._restoration
        return [v for v in python_variables(root, extras) if not restoration.holds(v)]

    def assert_consumed(self):
        """Raises AssertionError unless every object and every checkpointed value matched."""
        self.assert_existing_objects_matched()
        graph = self._restoration.graph
        for node_id, node in enumerate(graph.nodes):
            paired = self._restoration.bound_object(node_id) is not None
            if (
                node.attributes
                and not paired
                and node_id not in self._restoration.unused_attributes
            ):
                raise AssertionError(
                    f"Unresolved object in checkpoint {graph.path_name(node_id)}: "
                    f"{graph.node_text(node_id)}"
                )
        unused = self._restoration.unused_attributes
        if unused:
            lines = [
                f"{graph.path_name(node_id)} ({text}): {names}"
                for node_id, (text, names) in unused.items()
            ]
            raise AssertionError(
                "Unused attributes in these objects (the attributes exist in the checkpoint but "
                "were not restored):\n" + "\n".join(lines)
            )
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError if a variable of the Python objects has no checkpointed value."""
        unmatched = self._unmatched_variables()
        if unmatched:
            shown = min(10, len(unmatched))
            raise AssertionError(
                f"Found {len(unmatched)} Python objects that were not bound to checkpointed "
                "values, likely due to changes in the Python program. Showing "
                f"{shown} of {len(unmatched)} unmatched objects: {unmatched[:shown]}"
            )
        return self

    def assert_nontrivial_match(self):
        """Raises AssertionError if nothing except the root object matched."""
        unmatched = self._unmatched_variables()
        if len(self._restoration.matched) <= 1:
            if unmatched:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unmatched}"
                )
            raise AssertionError(
                f"Nothing to load. No dependencies have been added to "
                f"{self._checkpoint._graph_root()[0]} yet."
            )
        return self

    def run_restore_ops(self, session=None):
        """Restores run eagerly: nothing to do."""

    def initialize_or_restore(self, session=None):
        """Restores and initializations run eagerly: nothing to do."""

    def expect_partial(self):
        """Silences the warning about unrestored values when the restoration is collected."""
        self._restoration.report.expect_partial = True
        return self


class InitializationOnlyStatus:
    """Returned by ``restore(None)``: there is nothing to restore, so assertions fail."""

    def __init__(self, checkpoint):
        self._checkpoint = checkpoint

    def _nothing_restored(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being restored.")

    def assert_consumed(self):
        self._nothing_restored()

    def assert_existing_objects_matched(self):
        self._nothing_restored()

    def assert_nontrivial_match(self):
        self._nothing_restored()

    def run_restore_ops(self, session=None):
        raise AssertionError(
            "No checkpoint specified, so no restore ops are available "
            "(save_path=None to Saver.restore)."
        )

    def initialize_or_restore(self, session=None):
        """Variables are initialized when created: nothing to do."""

    def expect_partial(self):
        return self
