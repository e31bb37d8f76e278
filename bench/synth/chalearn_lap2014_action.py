"""Synthetic ChaLearn LAP 2014 Track 2 data: SeqXX_labels.csv / SeqXX_data.csv and SeqXX_prediction.csv."""
import os

import numpy as np

from .common import Malformed, files_matching, fresh_dir, write_text

NACTIONS = 11

# The seed's figure (walk 0.72, fight 0.46, mean 0.59), 100 frames; end frames exclusive.
SEED_GT = [(6, 1, 41), (11, 31, 61), (11, 71, 91)]
SEED_PRED = [(6, 5, 51), (11, 31, 54)]


def rows_text(rows):
    return "\n".join(",".join(str(int(v)) for v in r) for r in rows)  # no final empty line, as the seed asks


def write_sequence(ref_dir, seq, rows, nframes):
    write_text(os.path.join(ref_dir, "%s_labels.csv" % seq), rows_text(rows) + "\n")
    write_text(os.path.join(ref_dir, "%s_data.csv" % seq), "%d,20,2000\n" % nframes)


def random_rows(rng, nframes, actors, n, actions=None):
    rows = []
    for i in range(n):
        a = int(actions[i]) if actions is not None else int(rng.randint(1, NACTIONS + 1))
        length = int(rng.randint(20, max(21, nframes // 4)))
        s = int(rng.randint(1, max(2, nframes - length)))
        row = (a, s, s + length)
        rows.append(((int(rng.randint(1, 3)),) + row) if actors else row)
    return rows


def jitter(rng, rows, nframes, shift=15):
    out = []
    for r in rows:
        head, (s, e) = r[:-2], r[-2:]
        s2 = max(1, s + int(rng.randint(-shift, shift + 1)))
        e2 = max(s2, e + int(rng.randint(-shift, shift + 1)))
        out.append(tuple(head) + (s2, min(e2, nframes + 5)))
    return out


def sample_sequences():
    rng = np.random.RandomState(2014)
    seqs = {"Seq01": (SEED_GT, 100, False)}
    acts = np.arange(1, NACTIONS + 1)
    seqs["Seq02"] = (random_rows(rng, 400, False, 4, acts[:4]), 400, False)
    seqs["Seq03"] = (random_rows(rng, 500, False, 4, acts[4:8]), 500, False)
    seqs["Seq04"] = (random_rows(rng, 300, False, 3, acts[8:11]), 300, False)
    seqs["Seq05"] = (random_rows(rng, 450, True, 5), 450, True)
    seqs["Seq06"] = (random_rows(rng, 350, True, 4), 350, True)
    return seqs


def validation_sequences():
    """The validation part: Seq07..Seq09, disjoint from the test part's Seq01..Seq06; every action has a positive
    (1-6 in Seq07, 7-11 in Seq08, which has actors)."""
    rng = np.random.RandomState(2015)
    acts = np.arange(1, NACTIONS + 1)
    return {"Seq07": (random_rows(rng, 400, False, 6, acts[:6]), 400, False),
            "Seq08": (random_rows(rng, 450, True, 5, acts[6:]), 450, True),
            "Seq09": (random_rows(rng, 300, False, 3), 300, False)}


def write_part(ref_dir, subs, seqs, perfect, noisy):
    """The reference of seqs and the submissions subs/perfect and subs/random: perfect(seq, rows, actors) and
    noisy(seq, rows, n) give each sequence's predicted rows (noisy: None for no file)."""
    fresh_dir(ref_dir)
    fresh_dir(subs)
    for seq, (rows, n, actors) in seqs.items():
        write_sequence(ref_dir, seq, rows, n)
        write_text(os.path.join(subs, "perfect", "%s_prediction.csv" % seq), rows_text(perfect(seq, rows, actors)))
        pred = noisy(seq, rows, n)
        if pred is not None:
            write_text(os.path.join(subs, "random", "%s_prediction.csv" % seq), rows_text(pred))


def make_sample(ref_dir, kit_dir):
    subs = os.path.join(kit_dir, "submissions")
    rng = np.random.RandomState(7)

    def perfect(seq, rows, actors):
        return rows if actors or seq != "Seq01" else [(1,) + r for r in rows]  # 4 columns vs 3: actor dropped

    def noisy(seq, rows, n):
        if seq == "Seq04":
            return None                                # a missing prediction file scores 0
        if seq == "Seq01":
            return SEED_PRED
        pred = jitter(rng, rows, n)
        return pred + [(10, 5, 60)] if seq == "Seq02" else pred   # an action absent from the GT: ignored

    write_part(ref_dir, subs, sample_sequences(), perfect, noisy)
    # a file for a sequence that is not in the ground truth is ignored with a warning (the original never reads
    # it): scores as Seq01 alone, the seed's example (0.59 / 6 sequences)
    write_text(os.path.join(subs, "unknown_sequence", "Seq01_prediction.csv"), rows_text(SEED_PRED))
    write_text(os.path.join(subs, "unknown_sequence", "Seq99_prediction.csv"), rows_text(SEED_PRED[:1]))
    bad = Malformed(kit_dir)
    case = bad.case

    p1 = "Seq01_prediction.csv"
    case("blank_line", {p1: "6,5,51\n\n11,31,54"}, p1, 2, "found a blank line", "an empty line between rows")
    case("trailing_blank_line", {p1: "6,5,51\n11,31,54\n\n"}, p1, 3, "found a blank line",
         "the file ends with an empty line (the seed: it should NOT)")
    case("not_an_integer", {p1: "6,5,51\n11,31.5,54"}, p1, 2, "expected an integer for the start frame",
         "a frame number with a decimal point")
    case("unknown_action", {p1: "6,5,51\n12,31,54"}, p1, 2, "expected an action id 1..11", "action id 12")
    case("missing_field", {p1: "6,5,51\n11,31"}, p1, 2, "expected 3 comma-separated fields",
         "a row with two fields after a 3-column row")
    case("five_fields", {p1: "1,6,5,51,3"}, p1, 1, "expected 3 or 4 comma-separated fields", "a row with five fields")
    case("semicolons", {p1: "6;5;51"}, p1, 1, "expected 3 or 4 comma-separated fields", "semicolon separators")
    case("unknown_actor", {p1: "3,6,5,51"}, p1, 1, "expected an actor id 1 or 2", "actor id 3")
    case("start_frame_zero", {p1: "6,0,51"}, p1, 1, "expected a start frame >= 1", "frames are 1-based")
    case("duplicate_name", {"a/" + p1: "6,5,51", "b/" + p1: "6,5,51"}, p1, None, "expected one file named",
         "the same file in two folders")
    bad.write()


def make_validation(val_dir, kit_dir):
    """validation_sequences() and kit_dir/validation_submissions/perfect and random (every interval jittered)."""
    rng = np.random.RandomState(8)
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), validation_sequences(),
               lambda seq, rows, actors: rows, lambda seq, rows, n: jitter(rng, rows, n, shift=40))


def make_bench(work_dir, nseq=1000, nframes=3000):
    rng = np.random.RandomState(1)
    inp = os.path.join(work_dir, "input")
    ref, res = os.path.join(inp, "ref"), os.path.join(inp, "res")
    os.makedirs(res)
    for i in range(nseq):
        seq = "Seq%04d" % (i + 1)
        actors = i % 3 == 2
        rows = random_rows(rng, nframes, actors, int(rng.randint(3, 12)))
        write_sequence(ref, seq, rows, nframes)
        pred = jitter(rng, rows, nframes, 60) + random_rows(rng, nframes, actors, 2)
        write_text(os.path.join(res, "%s_prediction.csv" % seq), rows_text(pred))
    return {"input": inp, "what": "%d sequences x %d frames (a third with actors)" % (nseq, nframes)}


def strip_labels(ref_dir):
    """What a participant does not have: the label files removed, leaving the sequences' data files
    (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    for path in files_matching(ref_dir, r".*_labels\.csv"):
        os.remove(path)
