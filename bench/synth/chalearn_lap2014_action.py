"""Synthetic ChaLearn LAP 2014 Track 2 data: SeqXX_labels.csv / SeqXX_data.csv and SeqXX_prediction.csv."""
import os

import numpy as np

from .common import Malformed, fresh_dir, write_text

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


def make_sample(ref_dir, kit_dir):
    seqs = sample_sequences()
    fresh_dir(ref_dir)
    for seq, (rows, n, _) in seqs.items():
        write_sequence(ref_dir, seq, rows, n)
    subs = fresh_dir(os.path.join(kit_dir, "submissions"))
    rng = np.random.RandomState(7)
    for seq, (rows, n, actors) in seqs.items():
        perfect = rows if actors or seq != "Seq01" else [(1,) + r for r in rows]  # 4 columns vs 3: actor dropped
        write_text(os.path.join(subs, "perfect", "%s_prediction.csv" % seq), rows_text(perfect))
        if seq == "Seq04":
            continue                                   # a missing prediction file scores 0
        noisy = SEED_PRED if seq == "Seq01" else jitter(rng, rows, n)
        if seq == "Seq02":
            noisy = noisy + [(10, 5, 60)]              # an action absent from the GT: ignored
        write_text(os.path.join(subs, "random", "%s_prediction.csv" % seq), rows_text(noisy))
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
    case("three_columns_for_actor_gt", {"Seq05_prediction.csv": "6,5,51"}, "Seq05_prediction.csv", 1,
         "expected 4 columns", "no actor id although this sequence's ground truth has actors")
    case("duplicate_name", {"a/" + p1: "6,5,51", "b/" + p1: "6,5,51"}, p1, None, "expected one file named",
         "the same file in two folders")
    bad.write()


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
