"""One protocol text per competition: the task's Task.protocol is the report's Protocol section and the Evaluation
page's "The protocol in short", word for word; the rest of the page is competitions/<slug>/templates/evaluation.md,
and the committed pages/evaluation.md is what `--sync-pages` writes. No protocol, page or report prints a number
with float noise (0.8500000000000001)."""
import html
import os
import re

import pytest

from conftest import ROOT, competition_slugs, run_score
from scoring_program import participant
from scoring_program.build.reference import read_reference
from scoring_program.markdown import markdown_to_html
from scoring_program.tasks import registry

SLUGS = competition_slugs()
FLOAT_NOISE = re.compile(r"\d\.\d*0000000\d|\d\.\d*9999999\d")
HEADING = "<h2>The protocol in short</h2>"


def _sample_pages(slug):
    read = read_reference(slug, participant.sample_dir(slug))
    return participant.pages(slug, read.reference, read.columns, True)


def _page_items(page_html):
    """The texts of the list under "The protocol in short", unescaped."""
    after = page_html.split(HEADING, 1)[1]
    block = after[after.index("<ul>"):after.index("</ul>")]
    return [html.unescape(t) for t in re.findall(r"<li>(.*?)</li>", block)]


def _report_protocol(report_html):
    """The paragraphs of the report's Protocol section, unescaped."""
    section = report_html.split("<h2>Protocol</h2>", 1)[1].split("<h2", 1)[0]
    return [html.unescape(t) for t in re.findall(r"<p>(.*?)</p>", section, re.S)]


def test_every_competition_is_checked():
    assert len(SLUGS) >= 10 and all(os.path.isfile(os.path.join(ROOT, "competitions", s, "templates", "evaluation.md"))
                                    for s in SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_evaluation_page_shows_the_task_protocol_word_for_word(slug):
    protocol = list(registry.get(slug).protocol)
    assert len(protocol) >= 5
    page = _sample_pages(slug)["evaluation.md"]
    assert page.count("## The protocol in short") == 1
    # rendered as the legacy bundle renders it: each item exactly its text (no emphasis, code, link or tag eaten)
    assert _page_items(markdown_to_html(page)) == protocol
    # and the Markdown source is one "- " item per paragraph, the words with backslash escapes only (Codabench
    # renders the source itself)
    source = page.split("## The protocol in short", 1)[1].split("\n- ", 1)[1].split("\n\n", 1)[0]
    assert [" ".join(re.sub(r"\\(.)", r"\1", i).split()) for i in source.split("\n- ")] == protocol


@pytest.mark.parametrize("slug", SLUGS)
def test_committed_evaluation_page_is_what_sync_pages_writes(slug):
    with open(participant.committed_path(slug, "evaluation.md"), encoding="utf-8") as f:
        committed = f.read()
    assert committed == _sample_pages(slug)["evaluation.md"], (
        "competitions/%s/pages/evaluation.md is not the rendering of templates/evaluation.md and the task's "
        "protocol: run python -m scoring_program.bundle --sync-pages %s" % (slug, slug))


@pytest.mark.parametrize("slug", SLUGS)
def test_report_protocol_is_the_evaluation_page_protocol(slug, tmp_path):
    kit = os.path.join(ROOT, "starting_kit", slug)
    submission = os.path.join(kit, "submissions", sorted(os.listdir(os.path.join(kit, "submissions")))[0])
    proc, out = run_score(slug, participant.sample_dir(slug), submission, tmp_path, level=None)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(str(out), "detailed_results.html"), encoding="utf-8") as f:
        report = _report_protocol(f.read())
    page = _page_items(markdown_to_html(_sample_pages(slug)["evaluation.md"]))
    assert report == page and len(report) >= 5
    noisy = [m.group(0) for p in report for m in FLOAT_NOISE.finditer(p)]
    assert not noisy, noisy


@pytest.mark.parametrize("slug", SLUGS)
def test_no_float_noise_in_protocol_or_pages(slug):
    texts = {"Task.protocol item %d" % i: p for i, p in enumerate(registry.get(slug).protocol)}
    for folder in ("pages", "templates"):
        for name in sorted(os.listdir(os.path.join(ROOT, "competitions", slug, folder))):
            with open(os.path.join(ROOT, "competitions", slug, folder, name), encoding="utf-8") as f:
                texts["%s/%s" % (folder, name)] = f.read()
    with open(os.path.join(ROOT, "starting_kit", slug, "README.md"), encoding="utf-8") as f:
        texts["kit README"] = f.read()
    noisy = ["%s: %s" % (where, m.group(0)) for where, text in texts.items() for m in FLOAT_NOISE.finditer(text)]
    assert not noisy, noisy


def test_the_float_noise_pattern():
    for noisy in ("0.5 + 0.05 x 7 = 0.8500000000000001", "scores 0.9998999999999062, not 1"):
        assert FLOAT_NOISE.search(noisy)
    for fine in ("0.85", "0.9999", "1e-13", "2^63-1", "found '99999999999999999999'", "version 1.17.2"):
        assert not FLOAT_NOISE.search(fine), fine


def test_protocol_markdown_renders_each_item_as_its_text():
    """Characters Markdown would read (emphasis, code, links, tags, a block opened by a wrapped line) come out as
    text, in markdown.py's rendering and in the Markdown's words."""
    items = ["a *b* c `d` [e](f) <id> _g_ h_i \\ j " + "x " * 50 + "- 1. # > | = + * 2) end",
             "short one with 0.5 * 2 and r_(i-1)"]
    md = participant.protocol_markdown(items)
    assert all(len(line) <= participant.WIDTH for line in md.splitlines())
    assert not any(re.match(r"\s*([-+*#>|=]|\d+[.)])\s", line) for line in md.splitlines()[1:]
                   if not line.startswith("- "))
    rendered = markdown_to_html("## The protocol in short\n\n" + md + "\n")
    assert _page_items(rendered) == [" ".join(i.split()) for i in items]
