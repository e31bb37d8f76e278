"""Build competition bundles (never imported while scoring).

    python -m scoring_program.bundle [SLUG ...] [--out dist]       the sample bundles (make bundles writes dist/)
    python -m scoring_program.bundle SLUG --reference-data DIR --out OUT [--set NAME] [--config organizer.yaml]
                                     [--docker-image IMAGE]         an organizer's bundle, from the real ground truth
    python -m scoring_program.bundle --sync-yaml [SLUG ...]
    python -m scoring_program.bundle --sync-pages [SLUG ...]      pages/data.md, pages/evaluation.md and the kit README

Per slug: OUT/<slug>/<slug>-codabench.zip (competition.yaml v2 as written in competitions/<slug>/, with the
leaderboard columns generated from the task's score keys), OUT/<slug>/<slug>-codalab.zip (a legacy v1.5 yaml
generated from it, HTML pages rendered from the Markdown) and OUT/<slug>/<slug>-evalai.zip (EvalAI's
challenge_config.yaml, HTML templates, evaluation_script.zip, an annotation per phase: bundling/evalai.py). The first
two hold, at the zip root: competition.yaml (first entry), logo, pages, scoring_program.zip (metadata, score.py and
a copy of the whole scoring_program/ package), reference_data.zip and starting_kit.zip. Beside the EvalAI zip:
<slug>-starting_kit.zip (EvalAI has no kit slot) and, for a phase with a private part,
evalai_annotations/<codename>.zip (its whole annotation, for EvalAI's annotation upload, never in a zip).

The reference folder is read with the competition's own reference loader (Task.load_reference, the code that
reads INPUT/ref when scoring) before anything is written: unreadable or foreign data is one line on stderr and
exit 2. reference_data.zip holds exactly the files that loader read: for the VOC competitions the chosen image
set's lists and that set's annotations or label PNGs (never JPEGImages, never another set); a folder holding
several sets (ImageSets/Main/{train,val,trainval}.txt) needs --set NAME. Class names outside the competition's
classes and classes without positives are warnings, one line each; a leaderboard column the reference can never
fill (a class without positives; action-tubes' AUC when a video has several ground-truth tubes) is dropped with a
note, and the scorer, whose score keys come from the same loader on the bundled reference, never writes it.

--config organizer.yaml sets, over competitions/<slug>/competition.yaml:
    title: ...                      (at most 100 characters: legacy Codalab's limit)
    description: ...
    docker_image: ...               (--docker-image overrides it)
    report: hidden                  (the report level, written into reference_data.zip as REPORT_LEVEL: hidden, the
                                    default, shows participants only their scores and facts about their own
                                    submission; full shows every diagnostic, for ground truth they hold)
    phases:                         (replace the competition's phases; each inherits the first phase's keys)
      - name: Development
        start: 2024-03-01           (a date, or 'YYYY-MM-DD HH:MM[:SS]'; UTC)
        end: 2024-04-30 12:00       (every phase but the last needs one; after its start, before the next start)
        max_submissions: 100
        max_submissions_per_day: 5
        execution_time_limit: 600   (seconds; Codabench's default queue caps it at 600)
        description: ...
    pages:                          (a Markdown file per page name, relative to organizer.yaml)
      overview: my_overview.md
Unknown keys are an error naming them. Legacy Codalab (v1.5) phases have only a start date: a phase runs until
the next one starts, so the legacy yaml carries each phase's start, and the last phase's end as the competition's
end_date; a gap between two phases cannot be expressed there (a note says so: the earlier phase stays open).

Nothing of the organizer's is replaced: with --reference-data or --config, --out is required and may not be the
project's dist/ (make bundles rewrites it); outside dist/ an existing bundle is never overwritten.

The scoring image is competition.yaml's docker_image (codalab/codalab-legacy:py37, Codabench's default) unless
the config or --docker-image names another: codalab/codalab-legacy:py312, or the project's docker/ image pushed
under the organizer's own name (docker/README.md says which to choose).

This module is the command: it reads the options and runs prepare (bundling/'s parts, in order) and write. The parts,
one job each, are in scoring_program/bundling/ (its __init__ lists them): one description of the competition
(bundling.description.Competition), built once, and one module per platform turning it into that platform's files.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import zipfile
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

try:
    import yaml  # noqa: F401  (bundling/ needs it: a Python without it is told so here, before importing it)
except ImportError as _e:         # bundle runs on the organizer's machine: say what to set up, no traceback
    if __name__ != "__main__":
        raise
    sys.stderr.write("local set-up problem: this Python (%s) cannot import PyYAML (%s), which building bundles "
                     "needs: run `make venv` and use .venv/bin/python\n" % (sys.executable, _e))
    sys.exit(3)

from . import participant
from .bundling import ROOT, BundleError, codabench, codalab, competition_path, evalai
from .bundling.description import Competition, bind_tasks, codabench_yaml, dump_yaml, phases_in_order, v2_columns
from .bundling.organizer import check_track, load_config, phase_notes, sample_config
from .bundling.pages import PhaseSet, bundle_pages, page_names, page_templates, participant_pages, phase_sets
from .bundling.phasing import check_migrations, phase_description, track_fact_sheet, track_title
from .bundling.reference import (check_hidden_classes, common_columns, phase_ground_truths, read_reference,
                                 reference_zips)
from .bundling.private import exposure_lines, private_dirs
from .bundling.zips import DIST, FLAVORS, Plan, in_dist, scoring_program_zip, starting_kit_zip, write
from .errors import failure
from .report.result import HIDDEN
from .tasks import registry
from .tasks.base import class_of


NOTES_FILE = "NOTES.txt"     # a sample build's notes, beside its bundles (printed with --verbose)


def prepare(slug: str, reference_data: Optional[str] = None, docker_image: Optional[str] = None,
            set_name: Optional[str] = None, config: Optional[str] = None) -> Plan:
    """Everything both bundles hold, built in memory: each phase's reference read and checked, the config merged.
    Nothing is written. reference_data: the ground-truth folder (default: the sample); config: organizer.yaml's
    path (its phases may name their own reference_data, set and report level: one task per distinct one);
    docker_image: the scoring image both yamls name (over the config's and competition.yaml's)."""
    if config is None and reference_data is None and set_name is None:
        config = sample_config(slug)
    cfg = load_config(config, page_names(slug)) if config else None
    settings = cfg or {}
    y2 = codabench_yaml(slug, [], docker_image, cfg)
    truths, of_phase = phase_ground_truths(slug, phases_in_order(y2), settings.get("phases"),
                                           reference_data or os.path.join(ROOT, "reference_data", slug), set_name,
                                           settings.get("report", HIDDEN))
    track = settings.get("track")
    drop = settings.get("drop_classes", [])
    check_hidden_classes(slug, truths, drop)
    columns, notes = common_columns(truths)
    if drop:
        left_off = [class_of(k.key) for k in columns if class_of(k.key) in drop]
        columns = [k for k in columns if class_of(k.key) not in drop]
        if left_off:        # (a class no phase can fill is already noted as dropped)
            notes.append("drop_classes: the column(s) of %s left off the leaderboard (the scorer's mean is the "
                         "original's, whatever the columns)" % ", ".join(left_off))
    if track:
        check_track(slug, track, "%s: track" % config)
        notes.append("track %s: this competition ranks %s entries only, and refuses the other comp's files with a "
                     "message naming the track; build the other track as a competition of its own (Codabench has "
                     "one leaderboard per phase)" % (track, track))
        if "title" not in settings:
            y2["title"] = track_title(y2["title"], slug, track)
        if y2.get("fact_sheet"):
            y2["fact_sheet"], sheet_notes = track_fact_sheet(y2["fact_sheet"], slug, track)
            notes += sheet_notes
    y2["leaderboards"][0]["columns"] = v2_columns(columns)
    bind_tasks(y2, truths, of_phase)
    phases = phase_sets(phases_in_order(y2), truths, of_phase)
    describe_phases(slug, phases_in_order(y2), phases, settings.get("phases"), track)
    migration_warnings = check_migrations(slug, phases_in_order(y2), truths, of_phase)
    ref_zips, warnings, reading_notes = reference_zips(slug, truths, track)
    warnings += migration_warnings
    notes += reading_notes + phase_notes(y2, truths)

    material = participant_pages(slug, truths, of_phase, columns, track, phases)
    kit = starting_kit_zip(slug, material.kit_readme, material.sample_reference)
    with open(competition_path(slug, y2["image"]), "rb") as f:
        logo = f.read()
    pages = bundle_pages(slug, material.rendered, settings.get("pages", {}))
    both = None
    if track:                   # EvalAI holds a phase per track in one challenge: its pages and kit name both
        everything = participant_pages(slug, truths, of_phase, columns, None, phases)
        both = (bundle_pages(slug, everything.rendered, settings.get("pages", {})),
                starting_kit_zip(slug, everything.kit_readme, everything.sample_reference))
    competition = Competition(slug, y2, columns, pages, (y2["image"], logo), scoring_program_zip(slug), ref_zips,
                              kit, truths, of_phase, track, both)
    platforms = {"codabench": codabench, "codalab": codalab, "evalai": evalai}
    bundles = OrderedDict((flavor, platforms[flavor].bundle(competition)) for flavor in FLAVORS)
    for b in bundles.values():
        notes += b.notes
    return Plan(slug, bundles, warnings, notes, truths, track)


def describe_phases(slug: str, phases: List[dict], sets: List[PhaseSet], config_phases: Optional[List[dict]],
                    track: Optional[str]) -> None:
    """Each phase whose description is not the organizer's own (organizer.yaml's phase description) gets the one
    that names its set and result-file names (phasing.phase_description), when the competition has phase.md: an
    inherited 'Results on the test set' never describes a phase on another set or another track."""
    for i, (phase, seen) in enumerate(zip(phases, sets)):
        own = config_phases[i] if config_phases and i < len(config_phases) else {}
        text = phase_description(slug, seen.set_name, track)
        if "description" not in own and text:
            phase["description"] = text


def build(slug: str, out_dir: str, reference_data: Optional[str] = None, docker_image: Optional[str] = None,
          set_name: Optional[str] = None, config: Optional[str] = None) -> Tuple[str, ...]:
    """Build every platform's bundle for one slug; returns their paths (codabench, codalab, evalai). Raises
    BundleError."""
    return write(prepare(slug, reference_data, docker_image, set_name, config), out_dir)


def sync_yaml(slug: str) -> str:
    """Rewrite competitions/<slug>/competition.yaml with the columns generated from the task's score keys."""
    path = competition_path(slug, "competition.yaml")
    columns = read_reference(slug, os.path.join(ROOT, "reference_data", slug)).columns
    text = dump_yaml(codabench_yaml(slug, columns))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def sample_pages(slug: str) -> Dict[str, str]:
    """{template name: text} of the sample bundle (make bundles: competitions/<slug>/organizer.yaml's phases):
    its Data and Evaluation pages, its kit README and the static pages rendered from a template (the VOC
    Overview)."""
    plan = prepare(slug)
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        out = {name: z.read("pages/" + name).decode("utf-8")
               for name in ("data.md", "evaluation.md") + tuple(page_templates(slug))}
        with zipfile.ZipFile(io.BytesIO(z.read("starting_kit.zip"))) as kit:
            out["kit_README.md"] = kit.read("README.md").decode("utf-8")
    return out


def sync_pages(slug: str) -> List[str]:
    """Rewrite competitions/<slug>/pages/data.md, pages/evaluation.md and starting_kit/<slug>/README.md as the
    sample bundle renders them (competitions/<slug>/templates/, the task's protocol, the sample's phases); returns
    the paths written."""
    return participant.sync_pages(slug, sample_pages(slug))


def bundle_slugs() -> List[str]:
    return [s for s in registry.available() if os.path.isdir(os.path.join(ROOT, "competitions", s))]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m scoring_program.bundle", description=__doc__.split("\n\n")[0])
    ap.add_argument("slugs", nargs="*", help="competitions to build (default: all)")
    ap.add_argument("--reference-data", metavar="DIR",
                    help="build with this ground-truth folder instead of the sample (needs --out)")
    ap.add_argument("--set", dest="set_name", metavar="NAME",
                    help="the image set to bundle when DIR holds several (VOC: train, val, ...)")
    ap.add_argument("--config", metavar="ORGANIZER_YAML",
                    help="title, description, docker_image, phases and pages over competition.yaml")
    ap.add_argument("--out", metavar="OUT",
                    help="where OUT/<slug>/<slug>-{codabench,codalab,evalai}.zip go (default: dist/, only for the "
                         "samples)")
    ap.add_argument("--docker-image", metavar="IMAGE",
                    help="the scoring image the Codabench and legacy bundles name (default: the config's, else "
                         "competition.yaml's "
                         "docker_image, codalab/codalab-legacy:py37; see docker/README.md)")
    ap.add_argument("--verbose", action="store_true",
                    help="print every builder note (default for a build of the samples: one line per competition, "
                         "the notes in OUT/<slug>/NOTES.txt; an organizer's build always prints them)")
    ap.add_argument("--sync-yaml", action="store_true",
                    help="rewrite competitions/<slug>/competition.yaml leaderboard columns from the score keys")
    ap.add_argument("--sync-pages", action="store_true",
                    help="rewrite competitions/<slug>/pages/data.md, pages/evaluation.md and "
                         "starting_kit/<slug>/README.md from the templates, the task's protocol and the sample "
                         "reference data")
    a = ap.parse_args(argv)
    slugs = a.slugs or bundle_slugs()
    unknown = [s for s in slugs if s not in bundle_slugs()]
    if unknown:
        sys.stderr.write("unknown or unfinished competition(s): %s (have: %s)\n" % (unknown, bundle_slugs()))
        return 2
    organizer = [opt for opt, v in (("--reference-data", a.reference_data), ("--config", a.config),
                                    ("--set", a.set_name)) if v]
    if organizer:
        problem = None
        if len(slugs) != 1:
            problem = "%s needs exactly one competition" % organizer[0]
        elif a.sync_yaml or a.sync_pages:
            problem = "--sync-%s uses the sample reference data only (not %s)" % ("yaml" if a.sync_yaml else "pages",
                                                                                   organizer[0])
        elif a.set_name and not a.reference_data:
            problem = "--set needs --reference-data (the sample holds one set)"
        elif not a.out:
            problem = ("%s needs --out OUT: a folder of your own (not dist/, which make bundles rewrites)"
                       % organizer[0])
        elif in_dist(a.out):
            problem = ("--out %s is the project's dist/ folder, which make bundles rewrites: choose a folder of "
                       "your own" % a.out)
        if problem:
            sys.stderr.write("error: %s\n" % problem)
            return 2
    out = a.out or DIST
    for slug in slugs:
        if a.sync_yaml or a.sync_pages:
            if a.sync_yaml:
                print("synced %s" % sync_yaml(slug))
            if a.sync_pages:
                for path in sync_pages(slug):
                    print("synced %s" % path)
            continue
        try:
            plan = prepare(slug, a.reference_data, a.docker_image, a.set_name, a.config)
            for w in plan.warnings:
                sys.stderr.write("warning: %s\n" % w)
            # a build of the samples (make bundles, make demo) folds its notes into one line per competition, so
            # that what follows (make demo's verdict) is read; an organizer's build prints its own notes
            fold = not organizer and not a.verbose
            if not fold:
                for n in plan.notes:
                    print("note: %s" % n)
            paths = write(plan, out)
            if fold:
                notes_path = os.path.join(os.path.dirname(paths[0]), NOTES_FILE)
                with open(notes_path, "w", encoding="utf-8") as f:
                    f.write("".join("note: %s\n" % n for n in plan.notes))
                print("%s: %d bundles built in %s, %d notes in %s (--verbose prints them)"
                      % (slug, len(paths), os.path.dirname(paths[0]), len(plan.notes), notes_path))
            else:
                print("built " + "\n      ".join(paths))
        except BundleError as e:
            stop = failure(e, "the bundle builder")
            sys.stderr.write(stop.text())
            return stop.code
        for phase, dest, truth in private_dirs(slug, out, plan.truths):
            print("private part of phase %r: %d of %d items, their labels in no zip: written to %s (keep it on "
                  "this machine; rescore --private reads it)" % (phase, len(truth.private_ids), truth.n_items, dest))
        if a.reference_data or a.config:        # an organizer's build: what the platform shows of it
            for line in exposure_lines(plan.truths):
                print("exposure: %s" % line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
