"""Build competition bundles (never imported while scoring).

    python -m scoring_program.bundle [SLUG ...] [--reference-data DIR] [--out dist/] [--docker-image IMAGE]
    python -m scoring_program.bundle --sync-yaml [SLUG ...]

Per slug: dist/<slug>/<slug>-codabench.zip (competition.yaml v2 as written in competitions/<slug>/, with the
leaderboard columns generated from the task's score keys) and dist/<slug>/<slug>-codalab.zip (a legacy v1.5 yaml
generated from it, HTML pages rendered from the Markdown). Both hold, at the zip root: competition.yaml (first
entry), logo, pages, scoring_program.zip (metadata, score.py and a copy of the whole scoring_program/ package),
reference_data.zip and starting_kit.zip.

The scoring image is competition.yaml's docker_image (codalab/codalab-legacy:py37, Codabench's default) unless
--docker-image names another: codalab/codalab-legacy:py312, or the project's docker/ image pushed under the
organizer's own name (docker/README.md says which to choose).
"""
from __future__ import annotations

import argparse
import datetime
import html
import io
import os
import re
import sys
import zipfile

import yaml

from .tasks import registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "scoring_program")
FIXED_TIME = (2011, 1, 1, 0, 0, 0)
LEGACY_PAGES = ("overview", "evaluation", "data", "terms")
LEGACY_PHASE_KEYS = ("description", "max_submissions", "max_submissions_per_day", "execution_time_limit")


# ------------------------------------------------------------------ zips
class ZipBuilder(object):
    """Deterministic zip in memory: fixed timestamps, sorted by the caller, files at the root."""

    def __init__(self):
        self.buf = io.BytesIO()
        self.zf = zipfile.ZipFile(self.buf, "w", zipfile.ZIP_DEFLATED)

    def add_bytes(self, name, data):
        info = zipfile.ZipInfo(name, FIXED_TIME)
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zf.writestr(info, data)

    def add_tree(self, folder, prefix=""):
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith((".pyc", ".tmp")) or f.startswith("."):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, folder).replace(os.sep, "/")
                with open(path, "rb") as fh:
                    self.add_bytes(prefix + rel, fh.read())

    def close(self):
        self.zf.close()
        return self.buf.getvalue()


def scoring_program_zip(slug):
    comp = os.path.join(ROOT, "competitions", slug)
    z = ZipBuilder()
    for name in ("metadata", "score.py"):
        with open(os.path.join(comp, name), "rb") as f:
            z.add_bytes(name, f.read())
    z.add_tree(PACKAGE, "scoring_program/")
    return z.close()


def folder_zip(folder):
    z = ZipBuilder()
    z.add_tree(folder)
    return z.close()


def starting_kit_zip(slug):
    """The participant's kit plus score.py and the package, so they can score and validate locally."""
    z = ZipBuilder()
    z.add_tree(os.path.join(ROOT, "starting_kit", slug))
    with open(os.path.join(ROOT, "competitions", slug, "score.py"), "rb") as f:
        z.add_bytes("score.py", f.read())
    z.add_tree(PACKAGE, "scoring_program/")
    return z.close()


# ------------------------------------------------------------------ yaml
def load_competition(slug):
    with open(os.path.join(ROOT, "competitions", slug, "competition.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def v2_columns(slug, ref_dir):
    keys = registry.get(slug).score_keys(ref_dir)
    return [{"title": k.label, "key": k.key, "index": i, "sorting": k.sorting, "precision": k.precision}
            for i, k in enumerate(keys)]


def codabench_yaml(slug, ref_dir, docker_image=None):
    y = load_competition(slug)
    y["leaderboards"][0]["columns"] = v2_columns(slug, ref_dir)
    if docker_image:
        y["docker_image"] = docker_image
    return y


def _as_datetime(value):
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    return datetime.datetime.strptime(str(value)[:10], "%Y-%m-%d")


def legacy_yaml(y2):
    """v1.5 yaml for legacy Codalab: only keys its models accept (Competition(**yaml) breaks on others)."""
    docker = y2.get("docker_image")
    out = {
        "title": y2["title"],
        "description": " ".join(str(y2.get("description", y2["title"])).split()),
        "image": y2["image"],
        "has_registration": False,
    }
    if docker:
        out["competition_docker_image"] = docker
    out["html"] = {p: "%s.html" % p for p in LEGACY_PAGES}
    phases = {}
    task = y2["tasks"][0]
    for n, p in enumerate(sorted(y2["phases"], key=lambda p: p.get("index", 0)), start=1):
        ph = {"phasenumber": n, "label": p["name"], "start_date": _as_datetime(p["start"])}
        for k in LEGACY_PHASE_KEYS:
            if k in p:
                ph[k] = " ".join(str(p[k]).split()) if k == "description" else p[k]
        ph["scoring_program"] = "scoring_program.zip"
        ph["reference_data"] = "reference_data.zip"
        if p.get("starting_kit"):
            ph["starting_kit"] = "starting_kit.zip"
        phases[n] = ph
    out["phases"] = phases
    lb = y2["leaderboards"][0]
    board = {"label": lb["title"], "rank": 1}
    columns = {}
    for c in lb["columns"]:
        columns[c["key"]] = {"leaderboard": board, "label": c["title"], "rank": c["index"] + 1,
                             "numeric_format": c.get("precision", 4), "sort": c.get("sorting", "desc")}
    out["leaderboard"] = {"leaderboards": {lb["key"]: board}, "columns": columns}
    assert task.get("scoring_program")
    return out


def dump_yaml(y):
    return yaml.safe_dump(y, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)


# ------------------------------------------------------------------ markdown -> html (legacy pages)
def _inline(text):
    t = html.escape(text, quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?!\w)", r"<em>\1</em>", t)
    t = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', t)
    return t


def markdown_to_html(md):
    """The small Markdown subset our pages use: headings, paragraphs, lists, code blocks, tables."""
    out, para, lst, code = [], [], None, None
    lines = md.splitlines()

    def flush():
        nonlocal para, lst
        if para:
            out.append("<p>%s</p>" % _inline(" ".join(para)))
            para = []
        if lst:
            tag, items = lst
            out.append("<%s>%s</%s>" % (tag, "".join("<li>%s</li>" % _inline(i) for i in items), tag))
            lst = None

    i = 0
    while i < len(lines):
        line = lines[i]
        if code is not None:
            if line.strip().startswith("```"):
                out.append("<pre><code>%s</code></pre>" % html.escape("\n".join(code)))
                code = None
            else:
                code.append(line)
            i += 1
            continue
        s = line.strip()
        if s.startswith("```"):
            flush()
            code = []
        elif not s:
            flush()
        elif line.startswith("    ") and not para and not lst:
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            out.append("<pre><code>%s</code></pre>" % html.escape("\n".join(block).rstrip()))
            continue
        elif re.match(r"#{1,6} ", s):
            flush()
            level = len(s) - len(s.lstrip("#"))
            out.append("<h%d>%s</h%d>" % (level, _inline(s[level:].strip()), level))
        elif s.startswith("|") and i + 1 < len(lines) and re.match(r"^\|?[\s:|-]+\|?$", lines[i + 1].strip()):
            flush()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            head, body = rows[0], rows[2:]
            out.append("<table><tr>%s</tr>%s</table>" % (
                "".join("<th>%s</th>" % _inline(c) for c in head),
                "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % _inline(c) for c in r) for r in body)))
            continue
        elif re.match(r"([-*]|\d+\.) ", s):
            if para:
                flush()
            tag = "ol" if s[0].isdigit() else "ul"
            item = re.sub(r"^([-*]|\d+\.) ", "", s)
            if lst and lst[0] == tag:
                lst[1].append(item)
            else:
                flush()
                lst = (tag, [item])
        elif lst and line.startswith(" "):
            lst[1][-1] += " " + s
        else:
            if lst:
                flush()
            para.append(s)
        i += 1
    flush()
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ build
def build(slug, out_dir, reference_data=None, docker_image=None):
    """Build both bundles for one slug; returns (codabench_zip_path, codalab_zip_path).

    docker_image: the scoring image both yamls name (default: competition.yaml's docker_image)."""
    comp = os.path.join(ROOT, "competitions", slug)
    ref_dir = reference_data or os.path.join(ROOT, "reference_data", slug)
    if not os.path.isdir(ref_dir):
        raise SystemExit("reference data folder not found: %s" % ref_dir)
    y2 = codabench_yaml(slug, ref_dir, docker_image)
    nested = {
        "scoring_program.zip": scoring_program_zip(slug),
        "reference_data.zip": folder_zip(ref_dir),
        "starting_kit.zip": starting_kit_zip(slug),
    }
    with open(os.path.join(comp, y2["image"]), "rb") as f:
        logo = f.read()
    pages = {}
    for name in sorted(os.listdir(os.path.join(comp, "pages"))):
        with open(os.path.join(comp, "pages", name), "rb") as f:
            pages[name] = f.read()
    dest = os.path.join(out_dir, slug)
    os.makedirs(dest, exist_ok=True)

    z = ZipBuilder()
    z.add_bytes("competition.yaml", dump_yaml(y2).encode("utf-8"))   # first entry: legacy reads the first .yaml
    z.add_bytes(y2["image"], logo)
    for name, data in pages.items():
        z.add_bytes("pages/" + name, data)
    for name, data in nested.items():
        z.add_bytes(name, data)
    cb = os.path.join(dest, "%s-codabench.zip" % slug)
    _write(cb, z.close())

    z = ZipBuilder()
    z.add_bytes("competition.yaml", dump_yaml(legacy_yaml(y2)).encode("utf-8"))
    z.add_bytes(y2["image"], logo)
    for p in LEGACY_PAGES:
        md = pages.get(p + ".md", b"# %s\n" % p.title().encode()).decode("utf-8")
        body = markdown_to_html(md)
        z.add_bytes("%s.html" % p, body.encode("utf-8"))
    for name, data in nested.items():
        z.add_bytes(name, data)
    cl = os.path.join(dest, "%s-codalab.zip" % slug)
    _write(cl, z.close())
    return cb, cl


def _write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def sync_yaml(slug):
    """Rewrite competitions/<slug>/competition.yaml with the columns generated from the task's score keys."""
    path = os.path.join(ROOT, "competitions", slug, "competition.yaml")
    y = codabench_yaml(slug, os.path.join(ROOT, "reference_data", slug))
    text = dump_yaml(y)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def bundle_slugs():
    return [s for s in registry.available() if os.path.isdir(os.path.join(ROOT, "competitions", s))]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m scoring_program.bundle", description=__doc__.split("\n\n")[0])
    ap.add_argument("slugs", nargs="*", help="competitions to build (default: all)")
    ap.add_argument("--reference-data", help="build with this ground-truth folder instead of the sample")
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--docker-image", metavar="IMAGE",
                    help="the scoring image both bundles name (default: competition.yaml's docker_image, "
                         "codalab/codalab-legacy:py37; see docker/README.md)")
    ap.add_argument("--sync-yaml", action="store_true",
                    help="rewrite competitions/<slug>/competition.yaml leaderboard columns from the score keys")
    a = ap.parse_args(argv)
    slugs = a.slugs or bundle_slugs()
    unknown = [s for s in slugs if s not in bundle_slugs()]
    if unknown:
        sys.stderr.write("unknown or unfinished competition(s): %s (have: %s)\n" % (unknown, bundle_slugs()))
        return 2
    if a.reference_data and len(slugs) != 1:
        sys.stderr.write("--reference-data needs exactly one competition\n")
        return 2
    for slug in slugs:
        if a.sync_yaml:
            print("synced %s" % sync_yaml(slug))
            continue
        cb, cl = build(slug, a.out, a.reference_data, a.docker_image)
        print("built %s\n      %s" % (cb, cl))
    return 0


if __name__ == "__main__":
    sys.exit(main())
