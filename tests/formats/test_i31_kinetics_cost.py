"""kinetics-tps, issue 31: a prediction file of many frames, each with a container under a key the scorer ignores
({"humans": [], "x": [{}]}), is read by the byte pass itself (formats.kinetics_json._outside_ignored), not a block
at a time by json.loads: within 1.5x the time of an honest file of the same size, and within 256 MiB + 8x the
input. The arrays are those json.loads and the stdlib path give."""
import json

import numpy as np

from adversarial import MIB, assert_bounded, folder_bytes, measured
from test_adversarial_kinetics import KIN, REF, _crafted, _honest_of_size, _perfect, _write

from scoring_program.formats.kinetics_tps import flatten_predictions, read_part_predictions

SIZE = 16 * MIB


def _same_part_file(a, b):
    for field in a._fields:
        x, y = getattr(a, field), getattr(b, field)
        if hasattr(x, "codes"):
            assert x.texts == y.texts and np.array_equal(x.codes, y.codes), field
        elif isinstance(x, np.ndarray):
            assert x.shape == y.shape and np.array_equal(x, y), field
        else:
            assert x == y, field


def test_ignored_containers_are_read_by_the_pass_as_json_loads_reads_them():
    frames = {"f1": {"humans": [], "x": [{}]},
              "f2": {"humans": [{"box": [1, 2, 30, 40], "note": {"a": [1, [2]]}, "parts": {
                  "head": {"box": [[1, 2, 3, 4]], "verb": ["bend"], "extra": [{"deep": {}}]}}}],
                     "meta": {"k": [1, 2, {"z": "s"}]}, "box": [[9]]},
              "f3": {"humans": [{"box": [5, 6, 70, 80], "parts": {}, "humans": [[]]}]}}
    data = json.dumps({"v": frames}).encode("utf-8")
    _same_part_file(read_part_predictions(data, "p").part, flatten_predictions(json.loads(data.decode()), "p").part)
    data = json.dumps({"v": frames}, indent=1).encode("utf-8")
    _same_part_file(read_part_predictions(data, "p").part, flatten_predictions(json.loads(data.decode()), "p").part)


def test_many_frames_with_ignored_containers_cost_what_an_honest_file_costs(tmp_path):
    vid = _perfect()[0]
    honest = _write(tmp_path / "honest", {"pred_vid_result.json": vid,
                                          "pred_part_result.json": _honest_of_size(SIZE, True)})
    crafted = _write(tmp_path / "crafted", {"pred_vid_result.json": vid,
                                            "pred_part_result.json": _crafted("many_small_frames", SIZE)})
    size = folder_bytes(crafted) + folder_bytes(REF)
    h = measured(KIN, REF, honest, tmp_path, name="honest", timeout=120)
    assert h.returncode == 0, h
    c = measured(KIN, REF, crafted, tmp_path, name="crafted", timeout=120)
    assert c.returncode == 0, c
    print("many frames: input %d bytes, peak %.0f MiB, %.2f s, honest %.2f s, ratio %.2f"
          % (size, c.peak_rss / MIB, c.seconds, h.seconds, c.seconds / h.seconds))
    assert_bounded(c, h, size, time_ratio=1.5)
