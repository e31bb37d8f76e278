"""scoring_program.markdown: the Markdown subset of our pages (the legacy bundle's HTML pages), block by block."""
import glob
import os

import pytest

from conftest import ROOT
from scoring_program.markdown import inline, markdown_to_html

# name: (Markdown, the HTML it renders to)
CASES = {
    "every_block_kind_in_one_page": (
        "# T\n\nSome `code` and **bold**.\n\n- a\n- b\n\n    x = 1\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        "<h1>T</h1>\n<p>Some <code>code</code> and <strong>bold</strong>.</p>\n<ul><li>a</li><li>b</li></ul>\n"
        "<pre><code>x = 1</code></pre>\n<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>\n"),
    "nested_list_stays_inside_its_item_and_the_numbering_goes_on": (
        "1. first\n2. second:\n   - a, which goes\n     on here;\n   - b\n3. third\n   continued\n",
        "<ol><li>first</li><li>second:<ul><li>a, which goes on here;</li><li>b</li></ul></li>"
        "<li>third continued</li></ol>\n"),
    "seven_hashes_is_text": ("####### seven", "<p>####### seven</p>\n"),
    "paragraph_lines_join_and_a_blank_line_ends_it": ("one\ntwo\n\nthree", "<p>one two</p>\n<p>three</p>\n"),
    "html_is_escaped_never_passed_through": (
        "<script>x</script> & y", "<p>&lt;script&gt;x&lt;/script&gt; &amp; y</p>\n"),
    "html_in_code_is_escaped_quotes_too": (
        "```\n<b>\"q\"</b>\n```", "<pre><code>&lt;b&gt;&quot;q&quot;&lt;/b&gt;</code></pre>\n"),
    "fenced_code_keeps_its_lines_and_markup": (
        "```python\n# not a heading\n  - not an item\n```\nafter",
        "<pre><code># not a heading\n  - not an item</code></pre>\n<p>after</p>\n"),
    "an_unclosed_fence_runs_to_the_end": ("text\n```\nkept\n", "<p>text</p>\n<pre><code>kept</code></pre>\n"),
    "indented_code_keeps_inner_blank_lines": ("    a\n\n    b\n\nc", "<pre><code>a\n\nb</code></pre>\n<p>c</p>\n"),
    "indented_line_inside_a_paragraph_continues_it": ("para\n    more", "<p>para more</p>\n"),
    "a_list_of_another_kind_starts_a_new_list_and_text_after_a_list_is_a_paragraph": (
        "- a\n1. b\nc", "<ul><li>a</li></ul>\n<ol><li>b</li></ol>\n<p>c</p>\n"),
    "a_pipe_line_without_a_rule_under_it_is_text": ("| a | b |\nnext", "<p>| a | b | next</p>\n"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_renders(name):
    md, html = CASES[name]
    assert markdown_to_html(md) == html


@pytest.mark.parametrize("level", range(1, 7))
def test_headings_one_to_six(level):
    assert markdown_to_html("#" * level + " Title *x*") == "<h%d>Title <em>x</em></h%d>\n" % (level, level)


def test_inline_emphasis_is_not_read_inside_words_and_links_keep_their_target():
    assert inline("a*b*c and *em*") == "a*b*c and <em>em</em>"
    assert inline("[site](https://x.org/a_b) **b**") == '<a href="https://x.org/a_b">site</a> <strong>b</strong>'
    assert inline("`<x>`") == "<code>&lt;x&gt;</code>"


def test_every_page_of_the_project_renders():
    pages = glob.glob(os.path.join(ROOT, "competitions", "*", "pages", "*.md"))
    assert pages
    for path in pages:
        with open(path, encoding="utf-8") as f:
            html = markdown_to_html(f.read())
        assert html.endswith("\n") and "```" not in html, path
