"""What the participant is told about the build's track and phases: the values and sections of the `build:` names
in the templates (the track's comp alone in a `track:` build, each phase's set and result-file names), each phase's
description, the fact sheet and title of a track build, and the auto-migrations the phases' sets forbid.

Templates (competitions/<slug>/templates/) use, besides participant.py's forms:

    {{build:comp}}                   the comp whose file names the kit shows: the track's, else the odd comp
    {{build:other_comp}}             the even comp (only inside {{^build:track}}: a build of both tracks)
    {{build:comps}}                  'comp3' in a track build, else 'comp3/comp4'
    {{build:comp_option}}            ' --comp=4' when the track is the even comp (the baseline writes the odd one)
    {{build:track_option}}           ' --track comp3' in a track build: validate refuses the other comp's files
    {{build:phases}}                 a Markdown list: each phase, its set and its result-file names (phase.md)
    {{#build:track}} ... {{/build:track}}   kept in a track build only ({{^build:track}}: in a build of both)
    {{#build:odd}} ... {{/build:odd}}       kept when the build ranks the odd comp (a build of both, or its track)
    {{#build:even}} ... {{/build:even}}     kept when the build ranks the even comp

templates/phase.md is one line of Markdown: a phase's set and result-file names, with {{set_name}} that phase's set
(the VOC competitions: 'val', 'test') and {{set_phrase}} its words in a competition without sets ('the validation',
'the test': the sample's parts, else "this phase's": it knows no more of an organizer's reference); it makes
{{build:phases}} and, with its backticks dropped, the description of each phase whose description is not the
organizer's own ("Results on " + it + "."). participant.render leaves `build:` names alone (its names have no ':'
but 'rule:'), so these are filled here first (render).

In a track build the protocol's paragraphs (Task.protocol, shared with the report) speak of both comps; the pages
show them with the other comp's clause left out (track_protocol).
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from .. import participant
from ..tasks import registry
from . import ROOT, BundleError, competition_path

_BUILD = re.compile(r"\{\{([#^/]?)build:(\w+)\}\}")
PHASE_TEMPLATE = "phase.md"


class PhaseSet(NamedTuple):
    """A phase as the participant sees it: its name and the set it scores: the image set (the VOC competitions),
    else the sample's part ('validation', 'test'; sample_part), None for an organizer's own reference."""
    name: str
    set_name: Optional[str]


def comps_of(slug: str) -> Tuple[int, ...]:
    """The competition's comps (VOC: the odd comp, own training data only, and the even comp, any data), else ()."""
    return tuple(getattr(registry.get(slug), "comps", None) or ())


def render(text: str, values: Dict[str, str], flags: Dict[str, bool]) -> str:
    """participant.render with the `build:` names too (values and flags keyed 'build_<name>')."""
    return participant.render(_BUILD.sub(lambda m: "{{%sbuild_%s}}" % m.groups(), text), values, flags)


def track_values(slug: str, track: Optional[str]) -> Tuple[Dict[str, str], Dict[str, bool]]:
    """The values and flags of the track's `build:` names (module docstring)."""
    comps = comps_of(slug)
    own = int(track[4:]) if track else (comps[0] if comps else None)
    values = {"build_comp": "comp%d" % own if own else "",
              "build_other_comp": "comp%d" % comps[1] if comps and not track else "",
              "build_comps": track if track else "/".join("comp%d" % c for c in comps),
              "build_comp_option": " --comp=%d" % own if track and comps and own != comps[0] else "",
              "build_track_option": " --track %s" % track if track else ""}
    flags = {"build_track": bool(track),
             "build_odd": bool(comps) and (not track or own == comps[0]),
             "build_even": bool(comps) and (not track or own == comps[1])}
    return values, flags


_BOTH_CLAUSES = re.compile(r"\((comp\d+): ([^;()]*); (comp\d+): ([^()]*)\)")
_OR_OTHER = re.compile(r"\b(comp\d+)(_\S*?) \(or (comp\d+)(_\S*?)\)")
_PAIR = re.compile(r"\b(comp\d+)/(comp\d+)\b")


def track_text(text: str, track: Optional[str]) -> str:
    """A protocol paragraph as a track build shows it: '(comp3: VOC training data only; comp4: any training data)'
    keeps the track's clause, 'comp5_<set>_cls (or comp6_<set>_cls)' and 'comp7/comp8' the track's name; without a
    track, the text unchanged."""
    if not track:
        return text

    def clause(m):
        return "(%s: %s)" % ((m.group(1), m.group(2)) if m.group(1) == track else (m.group(3), m.group(4)))

    text = _BOTH_CLAUSES.sub(clause, text)
    text = _OR_OTHER.sub(lambda m: track + (m.group(2) if m.group(1) == track else m.group(4)), text)
    return _PAIR.sub(lambda m: track if track in m.groups() else m.group(0), text)


def track_protocol(protocol: Sequence, track: Optional[str]) -> list:
    """The protocol's rules (Task.protocol) with each text as the track build shows it (track_text)."""
    return [r._replace(text=track_text(r.text, track)) for r in protocol]


SET_PHRASES = {"validation": "the validation", "test": "the test"}
OWN_PHRASE = "this phase's"


def sample_part(ref_dir: Optional[str]) -> Optional[str]:
    """'validation' or 'test' when ref_dir is a competition's part of the repository's sample (validation_data/<slug>,
    reference_data/<slug>), else None (an organizer's own reference: its part is theirs to name)."""
    if ref_dir is None:
        return "test"
    parent = os.path.dirname(os.path.realpath(ref_dir))
    for part, folder in (("validation", "validation_data"), ("test", "reference_data")):
        if parent == os.path.realpath(os.path.join(ROOT, folder)):
            return part
    return None


def phase_template(slug: str) -> Optional[str]:
    """templates/phase.md, without its final line break, or None when the competition has none."""
    path = competition_path(slug, "templates", PHASE_TEMPLATE)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\n")


def phase_markdown(slug: str, set_name: Optional[str], track: Optional[str]) -> Optional[str]:
    """A phase's set and result-file names in Markdown (templates/phase.md), or None without the template (or, in
    a competition with sets, without the phase's set). set_name: PhaseSet.set_name."""
    text = phase_template(slug)
    if text is None or (set_name is None and getattr(registry.get(slug), "has_sets", False)):
        return None
    values, flags = track_values(slug, track)
    values["set_name"] = set_name or ""
    values["set_phrase"] = SET_PHRASES.get(set_name, OWN_PHRASE)
    return render(text, values, flags)


def phase_description(slug: str, set_name: Optional[str], track: Optional[str]) -> Optional[str]:
    """The description of a phase that scores set_name (PhaseSet.set_name): 'Results on the val set (one
    comp3_det_val_<class>.txt file per class, or comp4_...).', or without sets 'Results on the validation sequences
    (one SeqXX_prediction.csv per sequence).'; None when the competition has no phase.md."""
    line = phase_markdown(slug, set_name, track)
    return None if line is None else "Results on %s." % line.replace("`", "")


def build_values(slug: str, track: Optional[str], phases: Sequence[PhaseSet]) -> Tuple[Dict[str, str],
                                                                                      Dict[str, bool]]:
    """Every `build:` value and flag of the templates: the track's, and {{build:phases}}."""
    values, flags = track_values(slug, track)
    lines = []
    for p in phases:
        line = phase_markdown(slug, p.set_name, track)
        if line is not None:
            lines.append("- **%s**: %s" % (p.name, line))
    values["build_phases"] = "\n".join(lines)
    return values, flags


def track_title(title: str, slug: str, track: str) -> str:
    """The competition's own title of a track build: '(comp3/comp4)' becomes '(comp3)'."""
    comps = comps_of(slug)
    return title.replace("(%s)" % "/".join("comp%d" % c for c in comps), "(%s)" % track)


def track_fact_sheet(sheet: Dict[str, dict], slug: str, track: str) -> Tuple[Dict[str, dict], List[str]]:
    """The fact sheet of a track build: a select question's choices that name another comp ('any data (comp4)')
    are left out, and a question left with one choice (the track answers it) is left out too; a note for each."""
    others = ["comp%d" % c for c in comps_of(slug) if "comp%d" % c != track]
    names_other = re.compile(r"\b(%s)\b" % "|".join(others)) if others else None
    out, notes = {}, []
    for key, q in sheet.items():
        choices = q.get("selection")
        if names_other is None or q.get("type") != "select" or not isinstance(choices, list):
            out[key] = q
            continue
        kept = [c for c in choices if not names_other.search(str(c))]
        if len(kept) == len(choices):
            out[key] = q
        elif len(kept) > 1:
            out[key] = dict(q, selection=kept)
            notes.append("track %s: fact sheet question %s offers %s only (the choices naming %s left out)"
                         % (track, key, ", ".join(map(repr, kept)), " or ".join(others)))
        else:
            notes.append("track %s: fact sheet question %s left out: its only choice left is the track's own (%s)"
                         % (track, key, ", ".join(map(repr, kept)) or "none"))
    return out, notes


def check_migrations(slug: str, phases: Sequence[dict], truths: Sequence, of_phase: Sequence[int]) -> List[str]:
    """Auto-migration across sets is refused: Codabench re-runs the previous phase's leaderboard entries on the
    next phase's task, and a VOC result file names its set (comp3_det_val_car.txt), which the next phase's scorer
    refuses when it scores another set: every migrated entry would fail (BundleError, one line). Between two
    ground truths of other items, a warning line: a migrated entry's items are not all the next phase's. phases:
    the v2 phases in order; truths: reference.GroundTruth by index; of_phase: each phase's truth index."""
    warnings = []
    task = registry.get(slug)
    for i in range(1, len(phases)):
        if not phases[i].get("auto_migrate_to_this_phase"):
            continue
        before, here = truths[of_phase[i - 1]], truths[of_phase[i]]
        if before.index == here.index:
            continue
        a, b = before.read.reference.set_name, here.read.reference.set_name
        if a is not None and b is not None and a != b:
            raise BundleError("phase %r: auto_migrate_to_this_phase: phase %r scores the %r set and %r the %r set: "
                              "a migrated entry's result files name %r, which %r refuses, so every migrated entry "
                              "would fail; remove auto_migrate_to_this_phase (participants submit again), or score "
                              "both phases on one set"
                              % (phases[i]["name"], phases[i - 1]["name"], a, phases[i]["name"], b, a,
                                 phases[i]["name"]))
        old = set(task.item_ids(before.read.reference))
        new = set(task.item_ids(here.read.reference))
        if not old <= new:
            warnings.append("phase %r: auto_migrate_to_this_phase: %d of the %d items of phase %r are not items of "
                            "%r: a migrated entry predicts items that phase does not score (the scorer refuses "
                            "unknown ids in most competitions)"
                            % (phases[i]["name"], len(old - new), len(old), phases[i - 1]["name"], phases[i]["name"]))
    return warnings
