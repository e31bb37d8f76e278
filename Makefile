# Everything runs in a local virtualenv made from the pinned requirements (the Dockerfile uses the same file).
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: venv bundles demo test compat bench samples sync-yaml clean

$(STAMP): docker/requirements.txt tests/requirements.txt
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r docker/requirements.txt -r tests/requirements.txt
	touch $(STAMP)

venv: $(STAMP)

# the SAMPLE bundles, rewritten in dist/ every time; an organizer's own bundles (--reference-data, --config) go to
# a folder of their own: python -m scoring_program.bundle SLUG --reference-data DIR [--set NAME] --out OUT
bundles: venv
	$(VPY) -m scoring_program.bundle --out dist

# build every bundle, dry-run each competition's sample submission through the worker emulation, one row each
# (the dry run never builds a bundle itself: a missing one is an error naming the build command)
demo: bundles
	$(VPY) -m scoring_program.dryrun --demo --dist dist

test: venv
	$(VPY) -m pytest -q tests

# every sample and the tests on the platform's legacy stacks (docker/stacks/), compared with the pinned stack;
# needs Python 3.7, 3.9 and 3.12 on this machine (pyenv versions)
compat: venv
	$(VPY) -m bench.compat

# STACK=legacy-py37 (or another of docker/stacks/) times the scorer under that stack instead of the pinned one
bench: venv
	$(VPY) -m bench.run $(if $(STACK),--stack $(STACK))

# regenerate the committed synthetic samples (reference_data/, starting_kit/*/submissions|malformed, logos) and the
# README's picture of rescore's ranking page (bench/ranking-example.png; needs chromium, skipped without)
samples: venv
	$(VPY) -m bench.synth
	$(VPY) -m scoring_program.bundle --sync-yaml
	$(VPY) -m scoring_program.bundle --sync-pages
	$(VPY) -m bench.ranking_example

sync-yaml: venv
	$(VPY) -m scoring_program.bundle --sync-yaml
	$(VPY) -m scoring_program.bundle --sync-pages

clean:
	rm -rf dist .pytest_cache .hypothesis
