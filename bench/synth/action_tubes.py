"""Synthetic spatio-temporal action detection data: ref/videos.csv, ref/gt_tubes.csv; submissions
frame_detections.csv and tubes.csv. The sample is J-HMDB-like (one GT tube per video, so AUC is defined);
the bench is UCF101-24-like (910 videos of ~180 frames, several actors in some, 1,000,000 frame detections,
50,000 tubes)."""
import csv
import os

import numpy as np

from .common import Malformed, fresh_dir, write_text

JHMDB = ("brush_hair", "catch", "clap")
UCF24 = ("Basketball", "BasketballDunk", "Biking", "CliffDiving", "CricketBowling", "Diving", "Fencing",
         "FloorGymnastics", "GolfSwing", "HorseRiding", "IceDancing", "LongJump", "PoleVault", "RopeClimbing",
         "SalsaSpin", "SkateBoarding", "Skiing", "Skijet", "SoccerJuggling", "Surfing", "TennisSwing",
         "TrampolineJumping", "VolleyballSpiking", "WalkingWithDog")


def make_reference(classes, per_class, frames, seed, max_actors=1, full=True, group=1):
    """videos: list of (id, class index, num_frames); gt: list of (video index, tube id, class, frames (L,),
    boxes (L, 4)). The video ids are v_<class>_gGG_cCC, groups of 4 clips numbered from `group` (parts made with
    disjoint group ranges share no video)."""
    rng = np.random.RandomState(seed)
    videos, gt = [], []
    for c, name in enumerate(classes):
        for k in range(per_class):
            nf = int(rng.randint(frames[0], frames[1] + 1))
            vid = "%s/v_%s_g%02d_c%02d" % (name, name, k // 4 + group, k % 4 + 1)
            videos.append((vid, c, nf))
            nact = 1 if max_actors == 1 else int(rng.randint(1, max_actors + 1))
            for a in range(nact):
                if full:
                    f0, f1 = 1, nf
                else:
                    f0 = int(rng.randint(1, nf // 3 + 1))
                    f1 = int(rng.randint(max(f0 + 10, 2 * nf // 3), nf + 1))
                L = f1 - f0 + 1
                xy = np.cumsum(rng.randn(L, 2) * 1.5, axis=0) + rng.uniform(20, 180, size=2)
                wh = rng.uniform(30, 90, size=2)
                boxes = np.round(np.concatenate((xy, xy + wh), axis=1))
                gt.append((len(videos) - 1, a + 1, c, np.arange(f0, f1 + 1), boxes))
    return videos, gt


def write_reference(ref_dir, classes, videos, gt):
    write_text(os.path.join(ref_dir, "videos.csv"), "video,label,num_frames\n" + "".join(
        "%s,%s,%d\n" % (v, classes[c], nf) for v, c, nf in videos))
    rows = ["video,tube,label,frame,x1,y1,x2,y2\n"]
    for vi, t, c, fr, bx in gt:
        vid = videos[vi][0]
        rows += ["%s,%d,%s,%d,%d,%d,%d,%d\n" % ((vid, t, classes[c], f) + tuple(int(x) for x in b))
                 for f, b in zip(fr.tolist(), bx.tolist())]
    write_text(os.path.join(ref_dir, "gt_tubes.csv"), "".join(rows))


def _det_csv(path, video, frame, label, score, boxes):
    lines = ["video,frame,label,score,x1,y1,x2,y2\n"]
    lines += ["%s,%d,%s,%.6f,%.1f,%.1f,%.1f,%.1f\n" % r for r in zip(video, frame.tolist(), label, score.tolist(),
                                                                     *(boxes[:, k].tolist() for k in range(4)))]
    write_text(path, "".join(lines))


def _tube_csv(path, tubes):
    """tubes: list of (video, tube id, label, score, frames, boxes)."""
    lines = ["video,tube,label,score,frame,x1,y1,x2,y2\n"]
    for v, t, lab, s, fr, bx in tubes:
        head = "%s,%s,%s,%.6f," % (v, t, lab, s)
        lines += [head + "%d,%.1f,%.1f,%.1f,%.1f\n" % ((f,) + tuple(b)) for f, b in zip(fr.tolist(), bx.tolist())]
    write_text(path, "".join(lines))


def perfect(out, classes, videos, gt):
    """Every GT box and tube with score 1, plus a low-scored copy of each video's tube for every other class
    (the negatives of the ROC curves): every AP is 1 and every AUC is 0.5 with 6 negatives per class."""
    vid, fr, lab, sc, bx = [], [], [], [], []
    tubes = []
    for vi, t, c, f, b in gt:
        v = videos[vi][0]
        vid += [v] * f.size
        fr.append(f)
        lab += [classes[c]] * f.size
        sc.append(np.ones(f.size))
        bx.append(b)
        tubes.append((v, "t%d" % t, classes[c], 1.0, f, b))
        for o in range(len(classes)):
            if o != c:
                tubes.append((v, "n%d_%d" % (t, o), classes[o], 0.1, f, b))
    _det_csv(os.path.join(out, "frame_detections.csv"), vid, np.concatenate(fr), lab, np.concatenate(sc),
             np.concatenate(bx).astype(float))
    _tube_csv(os.path.join(out, "tubes.csv"), tubes)


def noisy(out, classes, videos, gt, seed, n_false_per_frame=1.0, tubes_per_video=6, write=True):
    """A realistic imperfect detector: jittered boxes, missed frames, false boxes of random classes, trimmed
    and duplicated tubes (the duplicates are removed by the 3D NMS), wrong-class tubes."""
    rng = np.random.RandomState(seed)
    C = len(classes)
    vid, fr, lab, sc, bx = [], [], [], [], []
    tubes = []
    for vi, t, c, f, b in gt:
        v = videos[vi][0]
        keep = rng.rand(f.size) < 0.85
        jit = b + rng.randn(*b.shape) * 6
        jit[:, 2:] = np.maximum(jit[:, 2:], jit[:, :2] + 2)
        vid += [v] * int(keep.sum())
        fr.append(f[keep])
        lab += [classes[c]] * int(keep.sum())
        sc.append(np.clip(0.5 + 0.3 * rng.randn(int(keep.sum())), 0.01, 1.0))
        bx.append(jit[keep])
        nfa = rng.poisson(n_false_per_frame * f.size)
        ff = rng.randint(1, videos[vi][2] + 1, size=nfa)
        xy = rng.uniform(0, 250, size=(nfa, 2))
        vid += [v] * nfa
        fr.append(ff)
        lab += [classes[k] for k in rng.randint(0, C, size=nfa)]
        sc.append(rng.uniform(0.01, 0.8, size=nfa))
        bx.append(np.concatenate((xy, xy + rng.uniform(20, 80, size=(nfa, 2))), axis=1))
        for k in range(tubes_per_video):
            L = f.size
            a = int(rng.randint(0, max(1, L // 4)))
            e = int(rng.randint(max(a + 1, 3 * L // 4), L + 1))
            tb = b[a:e] + rng.randn(e - a, 4) * (3 + 4 * k)
            tb[:, 2:] = np.maximum(tb[:, 2:], tb[:, :2] + 2)
            cl = c if k < tubes_per_video // 2 else int(rng.randint(0, C))
            tubes.append((v, "%d_%d" % (t, k), classes[cl], float(np.round(rng.uniform(0.05, 1.0), 3)), f[a:e], tb))
    det = (vid, np.concatenate(fr), lab, np.concatenate(sc), np.concatenate(bx))
    if write:
        _det_csv(os.path.join(out, "frame_detections.csv"), *det)
        _tube_csv(os.path.join(out, "tubes.csv"), tubes)
    return det, tubes


def write_part(ref_dir, subs, videos, gt, seed):
    """The reference and the perfect and random submissions under subs."""
    fresh_dir(ref_dir)
    write_reference(ref_dir, JHMDB, videos, gt)
    fresh_dir(subs)
    perfect(os.path.join(subs, "perfect"), JHMDB, videos, gt)
    noisy(os.path.join(subs, "random"), JHMDB, videos, gt, seed=seed, n_false_per_frame=0.5)


def make_sample(ref_dir, kit_dir):
    videos, gt = make_reference(JHMDB, 3, (28, 36), seed=4)
    subs = os.path.join(kit_dir, "submissions")
    write_part(ref_dir, subs, videos, gt, seed=5)
    bad = Malformed(kit_dir)
    case = bad.case
    v0, v1 = videos[0][0], videos[1][0]

    dh = "video,frame,label,score,x1,y1,x2,y2\n"
    good = "".join("%s,%d,brush_hair,0.5,10,10,50,60\n" % (v0, f) for f in range(1, 5))
    # x2 < x1 on line 6 (formerly malformed/inverted_box): scored as ACT scores it (it overlaps nothing), a warning
    write_text(os.path.join(subs, "inverted_box", "frame_detections.csv"),
               dh + good + "%s,5,catch,0.3,40,1,9,9\n" % v0)
    th = "video,tube,label,score,frame,x1,y1,x2,y2\n"
    tgood = "".join("%s,a,catch,0.7,%d,10,10,50,60\n" % (v1, f) for f in range(1, 5))
    fd = "frame_detections.csv"
    case("missing_column", {fd: "video,frame,label,x1,y1,x2,y2\n" + good.replace(",0.5,", ",")}, fd, 1,
         "missing score", "the header has no score column")
    case("not_a_number", {fd: dh + good + "%s,5,catch,high,1,1,9,9\n" % v0}, fd, 6,
         "expected a number for the score", "a score that is not a number")
    case("nan_score", {fd: dh + good + "%s,5,catch,nan,1,1,9,9\n" % v0}, fd, 6, "expected a finite number",
         "NaN is not a score")
    case("unknown_label", {fd: dh + good + "%s,5,jump,0.3,1,1,9,9\n" % v0}, fd, 6, "1 unknown: 'jump'",
         "a label that is not in the class set")
    case("frame_out_of_range", {fd: dh + good + "%s,999,catch,0.3,1,1,9,9\n" % v0}, fd, 6,
         "expected a frame in 1..", "a frame beyond the video's length")
    case("frame_not_integer", {fd: dh + good + "%s,2.5,catch,0.3,1,1,9,9\n" % v0}, fd, 6,
         "expected an integer for the frame", "a fractional frame number")
    case("wrong_field_count", {fd: dh + good + "%s,5,catch,0.3,1,1,9\n" % v0}, fd, 6,
         "expected 8 comma-separated fields", "a line with 7 fields")
    tc = "tubes.csv"
    case("tube_gap", {tc: th + tgood + "%s,a,catch,0.7,6,10,10,50,60\n" % v1}, tc, 6, "jumps from frame 4 to 6",
         "a tube with a missing frame")
    case("tube_repeated_frame", {tc: th + tgood + "%s,a,catch,0.7,4,10,10,50,60\n" % v1}, tc, 6,
         "repeats frame 4", "a tube with the same frame twice")
    case("tube_score_changes", {tc: th + tgood + "%s,a,catch,0.8,5,10,10,50,60\n" % v1}, tc, 6,
         "the score of the tube 'a' changes", "a tube whose rows disagree on the score")
    case("tube_label_changes", {tc: th + tgood + "%s,a,clap,0.7,5,10,10,50,60\n" % v1}, tc, 6,
         "the label of the tube 'a' changes", "a tube whose rows disagree on the label")
    case("no_files", {"readme.txt": "nothing\n"}, None, None, "expected frame_detections.csv and/or tubes.csv",
         "neither result file")
    case("duplicate_name", {"a/" + fd: dh + good, "b/" + fd: dh + good}, fd, None, "expected one file named",
         "the same file name in two folders")
    bad.write()


def make_validation(val_dir, kit_dir):
    """The validation part: 1 video per class (3), group g05 (the test part's are g01), one GT tube each;
    kit_dir/validation_submissions/perfect and random."""
    videos, gt = make_reference(JHMDB, 1, (28, 36), seed=6, group=5)
    write_part(val_dir, os.path.join(kit_dir, "validation_submissions"), videos, gt, seed=7)


def make_bench(work_dir, n_videos=910, n_det=1000000, n_tubes=50000):
    per_class = n_videos // len(UCF24) + 1
    videos, gt = make_reference(UCF24, per_class, (120, 240), seed=24, max_actors=3, full=False)
    videos = videos[:n_videos]
    gt = [g for g in gt if g[0] < n_videos]
    ref = os.path.join(work_dir, "ref")
    write_reference(ref, UCF24, videos, gt)
    nframes = sum(g[3].size for g in gt)
    det, tubes = noisy(None, UCF24, videos, gt, seed=25, write=False,
                       n_false_per_frame=max(0.0, n_det / float(nframes) / 1.0 - 0.85),
                       tubes_per_video=max(1, int(round(n_tubes / float(len(gt))))))
    vid, fr, lab, sc, bx = det
    take = np.arange(min(n_det, fr.size))
    res_f = os.path.join(work_dir, "frame-only", "res")
    _det_csv(os.path.join(res_f, "frame_detections.csv"), [vid[i] for i in take.tolist()], fr[take],
             [lab[i] for i in take.tolist()], sc[take], bx[take])
    res_t = os.path.join(work_dir, "tubes-only", "res")
    _tube_csv(os.path.join(res_t, "tubes.csv"), tubes[:n_tubes])
    inputs = {}
    for name in ("frame-only", "tubes-only"):
        os.symlink(ref, os.path.join(work_dir, name, "ref"))
        inputs[name] = os.path.join(work_dir, name)
    rows = sum(t[4].size for t in tubes[:n_tubes])
    return {"input": inputs["frame-only"], "inputs": inputs,
            "what": "%d videos, %d GT tubes, %d frame detections, %d tubes (%d rows)"
                    % (len(videos), len(gt), take.size, min(n_tubes, len(tubes)), rows)}


def strip_labels(ref_dir):
    """What a participant does not have: gt_tubes.csv removed and videos.csv's labels blanked, leaving the videos and
    their frame counts (tests/commands/test_baselines.py runs the kit's baseline on what is left)."""
    os.remove(os.path.join(ref_dir, "gt_tubes.csv"))
    path = os.path.join(ref_dir, "videos.csv")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with open(path, "w", newline="", encoding="utf-8") as f:
        f.write("video,label,num_frames\n" + "".join("%s,?,%s\n" % (r["video"], r["num_frames"]) for r in rows))
