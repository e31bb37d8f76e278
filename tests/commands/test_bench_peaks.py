"""bench.run's memory bound and its table of peaks (issue 30): a run of score.py over PEAK_RSS_LIMIT_MIB fails with
one line naming the competition, the variant, the peak and the bound; each competition's largest variant is the
one recorded, never a "(before)" run; --write-peaks replaces the competitions run and keeps the others."""
import json

from bench import run


def test_a_peak_over_the_bound_is_one_line_naming_what_and_where():
    assert run.PEAK_RSS_LIMIT_MIB == 600
    assert run.over_peak_rss("action-tubes", "tubes-only", 600.0) is None
    assert run.over_peak_rss("action-tubes", "tubes-only", 962.04) == (
        "action-tubes tubes-only: peak RSS 962.0 MiB, over the 600 MiB bound")


def test_the_largest_variant_is_recorded_and_before_runs_are_not():
    rows = [("kinetics-tps", "compact (before)", 9.0, 900.0, 0), ("kinetics-tps", "compact", 6.5, 390.0, 0),
            ("kinetics-tps", "indent=4 (before)", 11.0, 1282.0, 0), ("kinetics-tps", "indent=4", 10.18, 392.74, 0),
            ("voc2011-action", "all", 0.5, 36.0, 0)]
    sizes = {("kinetics-tps", "compact (before)"): 10, ("kinetics-tps", "compact"): 10,
             ("kinetics-tps", "indent=4 (before)"): 99, ("kinetics-tps", "indent=4"): 99, ("voc2011-action", "all"): 1}
    what = {"kinetics-tps": "5000 videos (made in 310 s)", "voc2011-action": "3375 persons"}
    table = run.peaks(rows, sizes, what)
    assert table == {"kinetics-tps": {"seconds": 10.18, "peak_rss_mib": 392.7, "input": "indent=4: 5000 videos"},
                     "voc2011-action": {"seconds": 0.5, "peak_rss_mib": 36.0, "input": "3375 persons"}}
    assert run.peaks(rows[-1:], sizes, what, "full")["voc2011-action"]["input"] == "3375 persons (report full)"
    assert "| kinetics-tps | 10.18 | 392.7 | indent=4: 5000 videos |" in run.peaks_table(table).splitlines()


def test_write_peaks_replaces_the_competitions_run_and_keeps_the_others(tmp_path):
    path = str(tmp_path / "peaks.json")
    old = {"voc2011-action": {"seconds": 9, "peak_rss_mib": 9, "input": "old"},
           "action-tubes": {"seconds": 1, "peak_rss_mib": 2, "input": "kept"}}
    with open(path, "w") as f:
        json.dump(old, f)
    run.write_peaks({"voc2011-action": {"seconds": 0.5, "peak_rss_mib": 36.0, "input": "new"}}, path)
    with open(path) as f:
        got = json.load(f)
    assert list(got) == ["voc2011-action", "action-tubes"]      # bench.synth.MODULES order
    assert got["voc2011-action"]["input"] == "new" and got["action-tubes"] == old["action-tubes"]
