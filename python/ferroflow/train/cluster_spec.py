"""`tf.train.ClusterSpec`: the jobs of a distributed cluster and the addresses of their tasks,
as TensorFlow's (built from a dict, another ClusterSpec or a `tf.train.ClusterDef`)."""

from ferroflow import _proto

__all__ = ["ClusterSpec"]


def _tasks_of(job_name, tasks):
    if isinstance(tasks, (list, tuple)):
        return dict(enumerate(tasks))
    if isinstance(tasks, dict):
        return {int(index): address for index, address in tasks.items()}
    raise TypeError(
        f"The tasks for job {job_name!r} must be a list or a dictionary from integers to strings."
    )


class ClusterSpec:
    """``{job name: [address, ...] or {task index: address}}`` with TensorFlow's accessors."""

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            self._jobs = {name: _tasks_of(name, tasks) for name, tasks in cluster.items()}
        elif isinstance(cluster, ClusterSpec):
            self._jobs = {name: dict(tasks) for name, tasks in cluster._jobs.items()}
        elif isinstance(cluster, _proto.message_class("tensorflow.ClusterDef")):
            self._jobs = {}
            for job in cluster.job:
                if job.name in self._jobs:
                    raise ValueError(f"Duplicate job name in cluster_def: {job.name}")
                self._jobs[job.name] = dict(job.tasks.items())
        else:
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of "
                "network addresses, or a `ClusterDef` protocol buffer"
            )
        for name, tasks in self._jobs.items():
            for index, address in list(tasks.items()):
                if isinstance(address, bytes):
                    tasks[index] = address = address.decode("utf-8")
                if not isinstance(address, str):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
                if index < 0:
                    raise ValueError(f"Task index must be non-negative: {index} in job {name}")

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"ClusterSpec({dict(sorted(self.as_dict().items()))!r})"

    __str__ = __repr__

    @property
    def jobs(self):
        """The job names, in the order given."""
        return list(self._jobs)

    def as_dict(self):
        """``{job: [addresses]}`` where a job's task indices are 0..n-1, else ``{job: {index:
        address}}``."""
        out = {}
        for name, tasks in self._jobs.items():
            indices = sorted(tasks)
            if indices == list(range(len(indices))):
                out[name] = [tasks[i] for i in indices]
            else:
                out[name] = {i: tasks[i] for i in indices}
        return out

    def _job(self, job_name):
        tasks = self._jobs.get(job_name)
        if tasks is None:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return tasks

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        tasks = self._job(job_name)
        if task_index not in tasks:
            raise ValueError(f"No such task index in job {job_name!r}: {task_index}")
        return tasks[task_index]

    def job_tasks(self, job_name):
        """The addresses of the job's tasks by index, None where an index has no task."""
        tasks = self._job(job_name)
        out = [None] * (max(tasks) + 1 if tasks else 0)
        for index, address in tasks.items():
            out[index] = address
        return out

    def as_cluster_def(self):
        """The cluster as a `tf.train.ClusterDef` protocol buffer (jobs sorted by name)."""
        cluster_def = _proto.message_class("tensorflow.ClusterDef")()
        for name, tasks in sorted(self._jobs.items()):
            job = cluster_def.job.add(name=name)
            for index, address in sorted(tasks.items()):
                job.tasks[index] = address
        return cluster_def
