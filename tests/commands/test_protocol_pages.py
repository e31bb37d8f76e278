"""One protocol text per competition: the task's Task.protocol, named rules, is the report's Protocol section and
the Evaluation page's rule paragraphs, word for word, each once and in order; the rest of the page is
competitions/<slug>/templates/evaluation.md, which spells the rules out without restating them, and the committed
pages/evaluation.md is what `--sync-pages` writes. No protocol, page or report prints a number
with float noise (0.8500000000000001)."""
import html
import os
import re

import pytest

from conftest import ROOT, competition_slugs, run_score
from scoring_program import participant
from scoring_program.bundling.reference import read_reference
from scoring_program.markdown import markdown_to_html
from scoring_program.tasks import registry
from scoring_program.tasks.base import Rule

SLUGS = competition_slugs()
FLOAT_NOISE = re.compile(r"\d\.\d*0000000\d|\d\.\d*9999999\d")
RUN = 8         # words: a run this long shared by a rule and the rest of its page is a restatement


def _sample_pages(slug):
    read = read_reference(slug, participant.sample_dir(slug))
    return participant.pages(slug, read.reference, read.columns, True)


def _rules(slug):
    return list(registry.get(slug).protocol)


def _paragraphs(page_html):
    """The texts of the page's paragraphs, unescaped, whitespace collapsed."""
    return [" ".join(html.unescape(t).split()) for t in re.findall(r"<p>(.*?)</p>", page_html, re.S)]


def _page_rules(slug, page_html):
    """The page's paragraphs that are a rule's text, in page order."""
    texts = {r.text for r in _rules(slug)}
    return [p for p in _paragraphs(page_html) if p in texts]


def _words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def _runs(words, n=RUN):
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def _report_protocol(report_html):
    """The paragraphs of the report's Protocol section, unescaped."""
    section = report_html.split("<h2>Protocol</h2>", 1)[1].split("<h2", 1)[0]
    return [html.unescape(t) for t in re.findall(r"<p>(.*?)</p>", section, re.S)]


def test_every_competition_is_checked():
    assert len(SLUGS) >= 10 and all(os.path.isfile(os.path.join(ROOT, "competitions", s, "templates", "evaluation.md"))
                                    for s in SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_protocol_is_named_rules(slug):
    rules = _rules(slug)
    assert len(rules) >= 5 and all(isinstance(r, Rule) and re.fullmatch(r"\w+", r.name) and r.text for r in rules)
    assert len({r.name for r in rules}) == len(rules) and len({r.text for r in rules}) == len(rules)


@pytest.mark.parametrize("slug", SLUGS)
def test_evaluation_page_places_every_rule_once_in_order(slug):
    """The template places each rule by name, once, in the protocol's order; the page renders each as exactly its
    text (markdown.py as the legacy bundle renders it; Codabench renders the Markdown source, whose words are the
    text with backslash escapes only)."""
    rules = _rules(slug)
    tmpl = participant.template(slug, "evaluation.md")
    placed = re.findall(r"\{\{rule:(\w+)\}\}", tmpl)
    assert placed == [r.name for r in rules] and "{{protocol}}" not in tmpl
    page = _sample_pages(slug)["evaluation.md"]
    assert _page_rules(slug, markdown_to_html(page)) == [r.text for r in rules]
    blocks = [" ".join(re.sub(r"\\(.)", r"\1", b).split()) for b in page.split("\n\n")]
    assert all(blocks.count(r.text) == 1 for r in rules)


@pytest.mark.parametrize("slug", SLUGS)
def test_evaluation_page_does_not_restate_a_rule(slug):
    """The page's own words spell the rules out; they never restate one: no run of RUN words of a rule's text
    appears anywhere else on the page (another rule, or the page's prose)."""
    rules = _rules(slug)
    page = markdown_to_html(_sample_pages(slug)["evaluation.md"])
    paragraphs = _paragraphs(page)
    rest = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    found = []
    for r in rules:
        assert r.text in paragraphs
        others = rest.replace(r.text, " | ")
        shared = _runs(_words(r.text)) & _runs(_words(others))
        found += ["%s: '%s'" % (r.name, " ".join(run)) for run in sorted(shared)[:3]]
    assert not found, found


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
    page = _page_rules(slug, markdown_to_html(_sample_pages(slug)["evaluation.md"]))
    assert report == page == [r.text for r in _rules(slug)]
    noisy = [m.group(0) for p in report for m in FLOAT_NOISE.finditer(p)]
    assert not noisy, noisy


@pytest.mark.parametrize("slug", SLUGS)
def test_no_float_noise_in_protocol_or_pages(slug):
    texts = {"Task.protocol rule %d" % i: p.text for i, p in enumerate(registry.get(slug).protocol)}
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


def test_rule_markdown_renders_each_rule_as_its_text():
    """Characters Markdown would read (emphasis, code, links, tags, a block opened by a wrapped line) come out as
    text, in markdown.py's rendering and in the Markdown's words."""
    items = ["a *b* c `d` [e](f) <id> _g_ h_i \\ j " + "x " * 50 + "- 1. # > | = + * 2) end",
             "- 1. short one with 0.5 * 2 and r_(i-1)", "# not a heading " + "y " * 60 + "# nor this"]
    md = "\n\n".join(participant.rule_markdown(i) for i in items)
    assert all(len(line) <= participant.WIDTH for line in md.splitlines())
    assert not any(re.match(r"\s*([-+*#>|=]|\d+[.)])\s", line) for line in md.splitlines())
    assert _paragraphs(markdown_to_html("# Page\n\n" + md + "\n")) == [" ".join(i.split()) for i in items]


def test_rule_markdown_keeps_every_line_within_width_before_a_block_mark():
    """A word that would open a block (here '=', a setext underline) never starts a line: the word before it goes
    down with it, so no line runs past WIDTH, wherever the mark falls."""
    for k in range(50, 64):
        text = "w " * k + "= 1 + 2"
        md = participant.rule_markdown(text)
        lines = md.splitlines()
        assert all(len(line) <= participant.WIDTH for line in lines), (k, md)
        assert not any(line.strip().startswith("=") for line in lines), (k, md)
        assert md.split() == text.split()
