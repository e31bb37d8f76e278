"""Codabench (competition.yaml v2): the description's spec is already v2-shaped (the competition's source is
written in that form), so the bundle is the spec as yaml, the logo, the Markdown pages and the nested zips."""
from __future__ import annotations

from .description import Competition, PlatformBundle, dump_yaml
from .zips import bundle_zip


def bundle(c: Competition) -> PlatformBundle:
    data = bundle_zip(dump_yaml(c.spec), c.logo[0], c.logo[1], [("pages/" + n, d) for n, d in c.pages.items()],
                      c.nested())
    return PlatformBundle(data, [], {})
