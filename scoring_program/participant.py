"""The participant's material of a bundle (never imported while scoring): the Data page and the starting kit's
README, filled from templates with the figures of the reference data the bundle carries.

Templates live in competitions/<slug>/templates/ (data.md, kit_README.md). They use three forms:

    {{name}}                        a figure of the reference (figures() says which: images, classes, ...)
    {{#sample}} ... {{/sample}}     kept only for the repository's synthetic sample (reference_data/<slug>)
    {{^sample}} ... {{/sample}}     kept only for an organizer's own data

A section tag alone on its line takes its line break with it. An unknown name is an error (KeyError), so a
template cannot ship a literal {{...}}.

The committed competitions/<slug>/pages/data.md and starting_kit/<slug>/README.md are the sample's rendering
(python -m scoring_program.bundle --sync-pages rewrites them; tests/test_kit.py checks they are in step).
"""
from __future__ import annotations

import os
import re

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE_NAMES = ("data.md", "kit_README.md")
# where the sample's rendering is committed, per template
COMMITTED = {"data.md": ("competitions", "{slug}", "pages", "data.md"),
             "kit_README.md": ("starting_kit", "{slug}", "README.md")}
# the per-class leaderboard columns: their key prefix names the class
CLASS_PREFIXES = ("AP_", "IoU_", "hit_rate_", "jaccard_")

_STANDALONE = re.compile(r"(?m)^(\{\{[#^/]\w+\}\})[ \t]*\n")
_SECTION = re.compile(r"\{\{([#^])(\w+)\}\}(.*?)\{\{/\2\}\}", re.S)
_NAME = re.compile(r"\{\{(\w+)\}\}")


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


def _plural(n, word, words=None):
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def _names(names, limit=20):
    """'a, b and c', or the first few and a count of the rest."""
    names = list(names)
    if not names:
        return "none"
    if len(names) > limit:
        return "%s, ... (%d in all)" % (", ".join(names[:limit]), len(names))
    if len(names) == 1:
        return names[0]
    return "%s and %s" % (", ".join(names[:-1]), names[-1])


def as_text(values):
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]


def _keys_images(keys):
    """'<image id> <object index>' keys -> the number of distinct images."""
    return len(set(k.split()[0] for k in as_text(keys)))


def _class_figures(columns, word, words=None):
    classes = [k.key[len(p):] for k in columns for p in CLASS_PREFIXES if k.key.startswith(p)]
    return {"classes": _names(classes), "num_classes": _plural(len(classes), word, words)}


def figures(slug, reference, columns):
    """{name: text} describing the reference for the participant: how much there is to predict (images,
    persons, sequences, videos, ...) and which classes are scored (the leaderboard's per-class columns, i.e. the
    classes the reference has positives for)."""
    data = reference.data
    out = {"slug": slug, "set_name": reference.set_name or "test"}
    if slug in ("voc2011-classification", "chalearn-lap2015-cultural-event"):
        ids = set()
        for entry in data:
            ids.update(as_text(entry[-2] if slug.startswith("chalearn") else entry[0]))
        out["images"] = _plural(len(ids), "image")
        out.update(_class_figures(columns, *(("event",) if slug.startswith("chalearn") else ("class", "classes"))))
    elif slug == "voc2011-detection":
        out["images"] = _plural(len(data.ids), "image")
        out["objects"] = _plural(int(np.count_nonzero(data.cls >= 0)), "object")
        out.update(_class_figures(columns, "class", "classes"))
    elif slug == "voc2011-segmentation":
        out["images"] = _plural(len(data), "image")
        out.update(_class_figures([k for k in columns if k.key != "IoU_background"], "class", "classes"))
    elif slug == "voc2011-layout":
        out["images"] = _plural(_keys_images(data.keys), "image")
        out["persons"] = _plural(int(data.npersons), "person")
    elif slug == "voc2011-action":
        keys = data[0][0]
        out["images"] = _plural(_keys_images(keys), "image")
        out["persons"] = _plural(len(keys), "person")
        out.update(_class_figures(columns, "action"))
    elif slug == "chalearn-lap2014-pose":
        names = [n for n, _ in data.names]
        heights = sorted(set(h for _, h in data.sizes))
        out["panoramas"] = _plural(len(names), "panorama")
        out["sequences"] = _plural(len(set(n.split("_")[0] for n in names)), "sequence")
        out["frames"] = _plural(len(set(n.rsplit("_", 1)[0] for n in names)), "frame")
        out["height"] = " or ".join(str(h) for h in heights)
        out.update(_class_figures(columns, "limb"))
    elif slug == "chalearn-lap2014-action":
        out["sequences"] = _plural(len(data), "sequence")
        out.update(_class_figures(columns, "action"))
    elif slug == "kinetics-tps":
        out["videos"] = _plural(len(data.videos), "video")
        out["frames"] = _plural(len(data.frame_name), "frame")
        out["humans"] = _plural(len(data.human_frame), "human")
        classes = sorted(set(data.classes))
        out["classes"] = _names(classes)
        out["num_classes"] = _plural(len(classes), "action class", "action classes")
    elif slug == "action-tubes":
        videos, gt = data
        classes = as_text(videos.classes.tolist())
        out["videos"] = _plural(int(videos.ids.size), "video")
        out["tubes"] = _plural(int(gt.tube_video.size), "ground-truth tube")
        out["classes"] = _names(classes)
        out["num_classes"] = _plural(len(classes), "class", "classes")
    else:
        raise KeyError("no participant figures for %s" % slug)
    return out


def template(slug, name):
    with open(os.path.join(ROOT, "competitions", slug, "templates", name), encoding="utf-8") as f:
        return f.read()


def pages(slug, reference, columns, sample):
    """{template name: rendered text} for one reference: the Data page and the kit's README."""
    values = figures(slug, reference, columns)
    return {name: render(template(slug, name), values, {"sample": sample}) for name in TEMPLATE_NAMES}


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
