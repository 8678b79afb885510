"""The README's main job (`make demo`, examples/basics.py) end to end: the seeds' custom loop
prints ten decreasing-overall mean squared errors, `fit` learns, every plot is a PNG and the
saved model reloads with the same predictions."""

import importlib.util
import os
import re

import pytest

pytest.importorskip("matplotlib")

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "basics.py")
PLOTS = ["basics_data.png", "basics_before.png", "basics_after.png", "basics_fit.png"]


def _load_example():
    spec = importlib.util.spec_from_file_location("basics_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_demo_trains_the_seeds_model_and_writes_its_plots(tmp_path, capsys, monkeypatch):
    basics = _load_example()
    monkeypatch.setattr(basics, "OUT", str(tmp_path))
    basics.main()
    out = capsys.readouterr().out

    errors = [float(v) for v in re.findall(r"Mean squared error: (\d+\.\d+)", out)]
    assert len(errors) == 10
    # The guide's loop goes from ~16 to ~0.9 (the noise variance is 1).
    assert errors[0] > 5 and errors[-1] < 1.2 and errors[-1] < errors[1]

    fit = re.search(r"loss (\d+\.\d+) -> (\d+\.\d+)", out)
    assert fit and float(fit.group(2)) < 1.3 < float(fit.group(1))

    for name in PLOTS + ["basics_loss.png"]:
        with open(tmp_path / name, "rb") as png:
            assert png.read(8) == b"\x89PNG\r\n\x1a\n", name
    assert "same predictions: True" in out
    assert (tmp_path / "my_model" / "saved_model.json").exists()
