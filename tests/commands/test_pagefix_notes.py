"""Issue 31, item 5: `make demo` ends on its verdict: a build of the samples prints one line per competition and
writes its builder notes to OUT/<slug>/NOTES.txt; --verbose prints them as an organizer's build always does."""
import os

from scoring_program import bundle

SLUG = "kinetics-tps"


def _run(capsys, argv):
    rc = bundle.main(argv)
    cap = capsys.readouterr()
    return rc, cap.out.splitlines(), cap.err


def test_a_sample_build_folds_its_notes_into_one_line_and_a_file(tmp_path, capsys):
    notes = bundle.prepare(SLUG).notes
    rc, out, err = _run(capsys, [SLUG, "--out", str(tmp_path)])
    folder = os.path.join(str(tmp_path), SLUG)
    path = os.path.join(folder, "NOTES.txt")
    assert (rc, err) == (0, "")
    assert out == ["%s: 3 bundles built in %s, 7 notes in %s (--verbose prints them)" % (SLUG, folder, path)]
    assert len(notes) == 7
    with open(path, encoding="utf-8") as f:
        assert f.read() == "".join("note: %s\n" % n for n in notes)
    assert sorted(os.listdir(folder)) == ["NOTES.txt", "%s-codabench.zip" % SLUG, "%s-codalab.zip" % SLUG,
                                          "%s-evalai.zip" % SLUG, "%s-starting_kit.zip" % SLUG]


def test_verbose_prints_every_note_and_the_bundles(tmp_path, capsys):
    notes = bundle.prepare(SLUG).notes
    rc, out, err = _run(capsys, [SLUG, "--out", str(tmp_path), "--verbose"])
    folder = os.path.join(str(tmp_path), SLUG)
    assert (rc, err) == (0, "")
    assert out == ["note: %s" % n for n in notes] + [
        "built %s" % os.path.join(folder, "%s-codabench.zip" % SLUG),
        "      %s" % os.path.join(folder, "%s-codalab.zip" % SLUG),
        "      %s" % os.path.join(folder, "%s-evalai.zip" % SLUG)]
    assert not os.path.exists(os.path.join(folder, "NOTES.txt"))


def test_an_organizers_build_prints_its_notes(tmp_path, capsys):
    cfg = tmp_path / "organizer.yaml"
    cfg.write_text("title: Ours\n")
    rc, out, _ = _run(capsys, [SLUG, "--config", str(cfg), "--out", str(tmp_path / "o")])
    notes = bundle.prepare(SLUG, config=str(cfg)).notes
    assert rc == 0 and len(notes) == 6
    assert out[:7] == ["note: %s" % n for n in notes] + [
        "built %s" % os.path.join(str(tmp_path / "o" / SLUG), "%s-codabench.zip" % SLUG)]
    assert not os.path.exists(str(tmp_path / "o" / SLUG / "NOTES.txt"))


def test_the_demo_verdict_writes_each_score_at_its_leaderboard_precision():
    """Kinetics' leaderboard shows score with 6 decimals, top1 and mean_PSC with 4: so does make demo's verdict."""
    from scoring_program import dryrun
    assert dryrun._precisions("kinetics-tps") == {"score": 6, "top1": 4, "mean_PSC": 4}
    row = dryrun._row("kinetics-tps", [("score", 0.2655123), ("top1", 2 / 3), ("mean_PSC", 0.39764)], phase="Final",
                      precisions=dryrun._precisions("kinetics-tps"))
    assert row == "kinetics-tps                     | Final       | score 0.265512 | top1 0.6667 | mean_PSC 0.3976"
    assert dryrun._row("x", [("mAP", 0.71420214)]) == "x                                | mAP 0.7142"
