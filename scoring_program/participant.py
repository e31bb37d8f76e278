"""The participant's material of a bundle (never imported while scoring): the Data page, the Evaluation page and
the starting kit's README, filled from templates with the figures of the reference data the bundle carries and the
task's protocol.

Templates live in competitions/<slug>/templates/ (data.md, evaluation.md, kit_README.md). They use three forms:

    {{name}}                        a figure of the reference (figures(): the task's Task.figures, and the
                                    slug and set_name)
    {{rule:NAME}}                   the paragraph of the task's protocol (Task.protocol) named NAME, as a
                                    Markdown paragraph that renders as exactly the report's text (rule_markdown);
                                    the Evaluation page places every rule once, in the protocol's order, and its
                                    own words around them spell the rules out without restating them
    {{#sample}} ... {{/sample}}     kept only for the repository's synthetic sample (reference_data/<slug>)
    {{^sample}} ... {{/sample}}     kept only for an organizer's own data
    {{^hidden}} ... {{/hidden}}     left out for a hidden phase's own data: a figure computed from its labels

A section tag alone on its line takes its line break with it. An unknown name is an error (KeyError), so a
template cannot ship a literal {{...}}.

The committed competitions/<slug>/pages/data.md, pages/evaluation.md and starting_kit/<slug>/README.md are the
sample's rendering (python -m scoring_program.bundle --sync-pages rewrites them; tests/commands/test_kit.py and
tests/commands/test_protocol_pages.py check they are in step).
"""
from __future__ import annotations

import os
import re
from typing import Dict, Sequence

from .tasks import registry
from .tasks.base import Rule

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE_NAMES = ("data.md", "evaluation.md", "kit_README.md")
# where the sample's rendering is committed, per template
COMMITTED = {"data.md": ("competitions", "{slug}", "pages", "data.md"),
             "evaluation.md": ("competitions", "{slug}", "pages", "evaluation.md"),
             "kit_README.md": ("starting_kit", "{slug}", "README.md"),
             "overview.md": ("competitions", "{slug}", "pages", "overview.md")}    # the VOC Overview's template

_STANDALONE = re.compile(r"(?m)^(\{\{[#^/]\w+\}\})[ \t]*\n")
_SECTION = re.compile(r"\{\{([#^])(\w+)\}\}(.*?)\{\{/\2\}\}", re.S)
_NAME = re.compile(r"\{\{(\w+|rule:\w+)\}\}")
# Markdown that a protocol item's plain text must not trigger: emphasis, code, links and raw HTML (Codabench drops
# '<id>' as an unknown tag), escaped with a backslash; '_' only at a word's edge (inside a word it is text)
_MARKDOWN_CHARS = re.compile(r"([\\`*<\[\]]|(?<!\w)_|_(?!\w))")
# a word that would open a block at the start of a line (list item, heading, quote, table row, setext rule)
_OPENS_BLOCK = re.compile(r"([-+*#>|=]|\d+[.)])")
WIDTH = 120


def sample_dir(slug):
    """The synthetic sample's test part (the sample bundle's Final phase)."""
    return os.path.join(ROOT, "reference_data", slug)


def validation_dir(slug):
    """The synthetic sample's validation part (the sample bundle's Development phase)."""
    return os.path.join(ROOT, "validation_data", slug)


def is_sample(slug, ref_dir):
    """True when ref_dir is a part of the repository's synthetic sample of slug (None means the sample)."""
    return ref_dir is None or os.path.realpath(ref_dir) in (os.path.realpath(sample_dir(slug)),
                                                            os.path.realpath(validation_dir(slug)))


def render(text, values, flags):
    """Fill a template: sections by flags ({name: bool}), then {{name}} by values ({name: str})."""
    text = _STANDALONE.sub(r"\1", text)

    def section(m):
        keep = bool(flags[m.group(2)]) == (m.group(1) == "#")
        return render(m.group(3), values, flags) if keep else ""

    text = _SECTION.sub(section, text)
    return _NAME.sub(lambda m: values[m.group(1)], text)


def figures(slug, reference, columns):
    """{name: text} describing the reference for the participant: the slug, the set, and the task's own figures
    (Task.figures: how much there is to predict, and which classes are scored, from the leaderboard's per-class
    columns)."""
    out = {"slug": slug, "set_name": reference.set_name or "test"}
    out.update(registry.get(slug).figures(reference, columns))
    return out


def rule_markdown(text: str) -> str:
    """A protocol paragraph as Markdown that renders (by markdown.py and by Codabench) as exactly its text: the
    characters Markdown would read escaped, wrapped at WIDTH, never before a word that would open a block (the
    word before goes down with it)."""
    lines, line = [], ""
    words = _MARKDOWN_CHARS.sub(r"\\\1", text).split()
    opens = _OPENS_BLOCK.match(words[0]) if words else None
    if opens:               # a paragraph's first word that would open a block: its mark escaped
        words[0] = words[0][:opens.end() - 1] + "\\" + words[0][opens.end() - 1:]
    for word in words:
        if line and len(line) + 1 + len(word) > WIDTH:
            head, _, last = line.rpartition(" ")
            if not _OPENS_BLOCK.match(word):
                lines.append(line)
                line = ""
            elif head and not _OPENS_BLOCK.match(last):
                lines.append(head)          # a word that cannot start a line takes the line's last word along
                line = last
        line += (" " if line else "") + word
    return "\n".join(lines + [line])


def rule_values(protocol: Sequence[Rule]) -> Dict[str, str]:
    """The template values of a protocol: {"rule:NAME": its paragraph's Markdown}."""
    return {"rule:" + r.name: rule_markdown(r.text) for r in protocol}


def template(slug, name):
    with open(os.path.join(ROOT, "competitions", slug, "templates", name), encoding="utf-8") as f:
        return f.read()


def pages(slug, reference, columns, sample, hidden=False, track=None, phases=None):
    """{template name: rendered text} for one reference: the Data page, the Evaluation page, the kit's README (and
    the static pages with a template: the VOC Overview), rendered as the bundle renders them (bundling.pages:
    the `build:` names of the track and phases too). hidden: the reference is a hidden phase's (not the public
    sample): the templates' {{^hidden}} sections, which state figures computed from its labels (objects, tubes,
    humans), are left out. track: a track build's comp ('comp3'), else both tracks; phases: the PhaseSets
    (bundling.phasing) that {{build:phases}} lists, by default competition.yaml's last phase on this reference."""
    from .bundling.description import load_competition, phases_in_order
    from .bundling.pages import render_pages
    from .bundling.phasing import PhaseSet, sample_part
    if phases is None:
        last = phases_in_order(load_competition(slug))[-1]["name"]
        phases = [PhaseSet(last, reference.set_name or sample_part(reference.root))]
    return render_pages(slug, reference, columns, sample, hidden, track, phases)


def committed_path(slug, name):
    return os.path.join(ROOT, *[p.format(slug=slug) for p in COMMITTED[name]])


def sync_pages(slug, rendered):
    """Write the sample's rendering over the committed copies; returns the paths written."""
    paths = []
    for name, text in sorted(rendered.items()):
        path = committed_path(slug, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(path)
    return paths
