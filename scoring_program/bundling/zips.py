"""Deterministic zips (fixed timestamps, entries in the caller's order, files at the root): the nested
scoring_program.zip and starting_kit.zip, the Codabench and legacy bundles' layout, and writing every platform's
bundle (Plan, write).

The Codabench and legacy bundles hold, at the zip root: competition.yaml (first entry: legacy Codalab reads the first
.yaml), the logo, the pages, then the nested zips: scoring_program.zip (metadata, score.py and a copy of the whole
scoring_program/ package), the reference data zip(s) and starting_kit.zip. EvalAI's layout is evalai.py's.
"""
from __future__ import annotations

import io
import os
import shutil
import zipfile
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..report.result import FULL, LEVEL_FILE
from ..tasks import registry
from . import ROOT, BundleError, competition_path

if TYPE_CHECKING:
    from ..tasks.base import Reference

PACKAGE = os.path.join(ROOT, "scoring_program")
DIST = os.path.join(ROOT, "dist")
FIXED_TIME = (2011, 1, 1, 0, 0, 0)
KIT_REQUIREMENTS = b"numpy>=1.17.2\nPillow>=6.1.0\n"   # the oldest the scorer runs on (runtime.py's bounds)
KIT_SAMPLE_INPUT = "sample_input"


class ZipBuilder(object):
    """Deterministic zip in memory: fixed timestamps, sorted by the caller, files at the root."""

    def __init__(self) -> None:
        self.buf = io.BytesIO()
        self.zf = zipfile.ZipFile(self.buf, "w", zipfile.ZIP_DEFLATED)

    def add_bytes(self, name: str, data: bytes) -> None:
        info = zipfile.ZipInfo(name, FIXED_TIME)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zf.writestr(info, data)

    def add_file(self, name: str, path: str) -> None:
        with open(path, "rb") as f:
            self.add_bytes(name, f.read())

    def add_reference(self, reference: Reference, prefix: str = "") -> None:
        """The files a reference loader read (Reference.files, '/'-separated, relative to its root), sorted."""
        for rel in sorted(set(reference.files)):
            self.add_file(prefix + rel, os.path.join(reference.root, *rel.split("/")))

    def add_tree(self, folder: str, prefix: str = "") -> None:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith((".pyc", ".tmp")) or f.startswith("."):
                    continue
                path = os.path.join(dirpath, f)
                self.add_file(prefix + os.path.relpath(path, folder).replace(os.sep, "/"), path)

    def close(self) -> bytes:
        self.zf.close()
        return self.buf.getvalue()


def scoring_program_zip(slug: str) -> bytes:
    """metadata (the worker's command), score.py and the whole scoring_program/ package."""
    z = ZipBuilder()
    for name in ("metadata", "score.py"):
        z.add_file(name, competition_path(slug, name))
    z.add_tree(PACKAGE, "scoring_program/")
    return z.close()


def kit_extras(slug: str, reference: Reference) -> Dict[str, bytes]:
    """Files the sample kit's README commands need beside the sample reference: {kit path: bytes}, from the task's
    kit_extras hook ({file name under sample_input/: bytes})."""
    return {KIT_SAMPLE_INPUT + "/" + name: data for name, data in registry.get(slug).kit_extras(reference).items()}


def starting_kit_zip(slug: str, readme: str, sample_reference: Optional[Reference] = None) -> bytes:
    """The participant's kit: README.md (rendered for this bundle's reference), requirements.txt, baseline.py,
    score.py and the package, so they can score and validate locally from the kit's root. With the repository's
    sample (sample_reference: its Reference), also the sample submissions (of the test and the validation part),
    the malformed examples and the sample ground truth as sample_input/ref/; never with an organizer's data,
    against which they would not score as the README says."""
    kit = os.path.join(ROOT, "starting_kit", slug)
    z = ZipBuilder()
    z.add_bytes("README.md", readme.encode("utf-8"))
    z.add_bytes("requirements.txt", KIT_REQUIREMENTS)
    z.add_file("baseline.py", os.path.join(kit, "baseline.py"))
    z.add_file("score.py", competition_path(slug, "score.py"))
    z.add_tree(PACKAGE, "scoring_program/")
    if sample_reference is not None:
        for folder in ("submissions", "validation_submissions", "malformed"):
            if os.path.isdir(os.path.join(kit, folder)):
                z.add_tree(os.path.join(kit, folder), folder + "/")
        z.add_reference(sample_reference, "%s/ref/" % KIT_SAMPLE_INPUT)
        z.add_bytes("%s/ref/%s" % (KIT_SAMPLE_INPUT, LEVEL_FILE), (FULL + "\n").encode("ascii"))  # public sample data
        for name, data in sorted(kit_extras(slug, sample_reference).items()):
            z.add_bytes(name, data)
    return z.close()


def bundle_zip(competition_yaml: str, logo_name: str, logo: bytes, pages: Sequence[Tuple[str, bytes]],
               nested: Sequence[Tuple[str, bytes]]) -> bytes:
    """One bundle: competition.yaml first (legacy Codalab reads the first .yaml), the logo, the pages ([(entry name,
    bytes)]) and the nested zips, in that order."""
    z = ZipBuilder()
    z.add_bytes("competition.yaml", competition_yaml.encode("utf-8"))
    z.add_bytes(logo_name, logo)
    for name, data in list(pages) + list(nested):
        z.add_bytes(name, data)
    return z.close()


FLAVORS = ("codabench", "codalab", "evalai")     # OUT/<slug>/<slug>-<flavor>.zip, in this order


class Plan(NamedTuple):
    """One competition's bundles, in memory, and what the organizer should read before uploading them."""
    slug: str
    bundles: Dict[str, object]  # {flavor: description.PlatformBundle}, FLAVORS order
    warnings: List[str]     # one line each: the reference data (names, classes without positives)
    notes: List[str]        # one line each: dropped columns, what a platform's yaml cannot say, ...
    truths: Sequence = ()   # reference.GroundTruth: those with a private part write private_part/ (bundling.private)
    track: Optional[str] = None

    @property
    def codabench(self) -> bytes:
        return self.bundles["codabench"].data

    @property
    def codalab(self) -> bytes:
        return self.bundles["codalab"].data

    @property
    def evalai(self) -> bytes:
        return self.bundles["evalai"].data


def in_dist(path: str) -> bool:
    """True for the project's dist/ folder and anything inside it (make bundles rewrites it)."""
    real, dist = os.path.realpath(path), os.path.realpath(DIST)
    return real == dist or real.startswith(dist + os.sep)


def bundle_paths(slug: str, out_dir: str) -> Tuple[str, ...]:
    """OUT/<slug>/<slug>-<flavor>.zip for each of FLAVORS."""
    return tuple(os.path.join(out_dir, slug, "%s-%s.zip" % (slug, flavor)) for flavor in FLAVORS)


def apart_paths(plan: Plan, out_dir: str) -> List[Tuple[str, bytes]]:
    """[(path, bytes)] of the files a platform's bundle keeps beside it, never inside (OUT/<slug>/...)."""
    return [(os.path.join(out_dir, plan.slug, *rel.split("/")), data)
            for b in plan.bundles.values() for rel, data in sorted(b.apart.items())]


def write(plan: Plan, out_dir: str) -> Tuple[str, ...]:
    """Write the bundles (FLAVORS order) and the files kept beside them under out_dir/<slug>/; outside dist/, an
    existing file is never replaced (BundleError before anything is written). Returns the bundles' paths."""
    paths = bundle_paths(plan.slug, out_dir)
    apart = apart_paths(plan, out_dir)
    if in_dist(out_dir):            # make bundles rewrites dist/, the files beside the bundles too
        for folder in sorted(set(os.path.dirname(p) for p, _ in apart)):
            if os.path.dirname(folder) != os.path.join(out_dir, plan.slug):
                continue
            shutil.rmtree(folder, ignore_errors=True)
    else:
        from .private import check_free
        check_free(plan.slug, out_dir, plan.truths)     # first: an earlier build's private part is named as such
        existing = [p for p in list(paths) + [p for p, _ in apart] if os.path.lexists(p)]
        if existing:
            raise BundleError("%s already exists: remove it first, or choose another --out (nothing was written)"
                              % existing[0])
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise BundleError("--out %s is a file, not a folder" % out_dir)
    from .private import check_free, private_dirs, write_private
    if in_dist(out_dir):                # make bundles rewrites dist/, its private parts too
        for _, dest, _ in private_dirs(plan.slug, out_dir, plan.truths):
            shutil.rmtree(dest, ignore_errors=True)
    check_free(plan.slug, out_dir, plan.truths)
    os.makedirs(os.path.dirname(paths[0]), exist_ok=True)
    for phase, dest, truth in private_dirs(plan.slug, out_dir, plan.truths):
        write_private(plan.slug, phase, dest, truth, plan.track)
    for path, data in apart:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _write(path, data)
    for path, flavor in zip(paths, FLAVORS):
        _write(path, plan.bundles[flavor].data)
    return paths


def _write(path: str, data: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
