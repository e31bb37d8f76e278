"""The participant's material: the Data page and the kit README made from the bundled reference's figures, the
committed copies equal to the sample's rendering, and every command of each sample kit's README run from the
unzipped kit's root."""
import io
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import competition_slugs
from scoring_program import bundle, participant

SLUGS = competition_slugs()


def _sample_pages(slug):
    """The sample bundle's Data and Evaluation pages and kit README (its phases: competitions/<slug>/organizer.yaml)."""
    return bundle.sample_pages(slug)


def readme_commands(text):
    """The lines of fenced or indented code blocks that start with python/python3 -> [(command, exit status)]; a
    trailing '# exit status N' comment gives the documented status (default 0)."""
    commands, fenced = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            continue
        s = line.strip()
        if re.match(r"python3? ", s):
            m = re.search(r"#\s*exit status (\d+)", s)
            commands.append((s, int(m.group(1)) if m else 0))
    return commands


def _python3_shim(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python3", "python"):
        shim = bin_dir / name          # a script, not a symlink: a symlinked venv python loses its venv
        shim.write_text("#!/bin/sh\nexec '%s' \"$@\"\n" % sys.executable)
        shim.chmod(0o755)
    return str(bin_dir)


def run_commands(commands, kit, tmp_path, timeout=300):
    """Run each (command, documented exit status) from the kit's root, `python3` being this test's interpreter."""
    env = dict(os.environ, PATH=_python3_shim(tmp_path) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PYTHONPATH", None)
    for command, status in commands:
        proc = subprocess.run(command, shell=True, cwd=str(kit), env=env, capture_output=True, text=True,
                              timeout=timeout)
        assert proc.returncode == status, (command, proc.stdout, proc.stderr)


@pytest.mark.parametrize("slug", SLUGS)
def test_committed_data_page_and_kit_readme_are_the_sample_rendering(slug):
    for name, text in _sample_pages(slug).items():
        with open(participant.committed_path(slug, name), encoding="utf-8") as f:
            assert f.read() == text, ("%s is not the sample's rendering of competitions/%s/templates/%s: run "
                                      "python -m scoring_program.bundle --sync-pages %s" % (
                                          participant.committed_path(slug, name), slug, name, slug))


@pytest.mark.parametrize("slug", SLUGS)
def test_every_command_of_the_sample_kit_readme_runs_from_the_kit_root(slug, tmp_path):
    plan = bundle.prepare(slug)
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        kit_bytes = z.read("starting_kit.zip")
        data_page = z.read("pages/data.md").decode("utf-8")
    assert data_page == _sample_pages(slug)["data.md"]
    kit = tmp_path / "kit"
    with zipfile.ZipFile(io.BytesIO(kit_bytes)) as z:
        names = z.namelist()
        z.extractall(str(kit))
    assert {"README.md", "requirements.txt", "baseline.py", "score.py", "scoring_program/cli.py"} <= set(names)
    with open(str(kit / "requirements.txt")) as f:
        assert f.read().split() == ["numpy>=1.17.2", "Pillow>=6.1.0"]
    assert any(n.startswith("submissions/") for n in names) and any(n.startswith("malformed/") for n in names)
    with open(str(kit / "README.md"), encoding="utf-8") as f:
        readme = f.read()
    commands = readme_commands(readme)
    assert any(c.startswith("python3 score.py ") for c, _ in commands)
    assert any(" scoring_program.validate " in c for c, _ in commands)
    run_commands(commands, kit, tmp_path)
    assert os.path.isfile(str(kit / "sample_output" / "scores.txt"))


def test_organizer_data_gets_its_own_figures_and_no_sample_material(tmp_path):
    """A copy of the sample outside reference_data/ is the organizer's data: the same figures, none of the
    sample's text, no sample submissions or malformed examples or sample ground truth in the kit."""
    slug = "voc2011-detection"
    ref = tmp_path / "VOC2011"
    shutil.copytree(participant.sample_dir(slug), str(ref))
    os.remove(str(ref / "Annotations" / ("%s.xml" % sorted(os.listdir(str(ref / "Annotations")))[0][:-4])))
    with open(str(ref / "ImageSets" / "Main" / "test.txt")) as f:
        ids = f.read().split()
    with open(str(ref / "ImageSets" / "Main" / "test.txt"), "w") as f:
        f.write("".join(i + "\n" for i in ids[1:]))
    os.rename(str(ref / "ImageSets" / "Main" / "test.txt"), str(ref / "ImageSets" / "Main" / "val.txt"))
    plan = bundle.prepare(slug, str(ref))
    with zipfile.ZipFile(io.BytesIO(plan.codabench)) as z:
        data_page = z.read("pages/data.md").decode("utf-8")
        kit = zipfile.ZipFile(io.BytesIO(z.read("starting_kit.zip")))
    assert "%d images of the `val` set" % (len(ids) - 1) in data_page
    assert "synthetic" not in data_page and "sample" not in data_page
    names = kit.namelist()
    assert not [n for n in names if n.startswith(("submissions/", "malformed/", "sample_input/"))]
    assert {"README.md", "requirements.txt", "baseline.py", "score.py"} <= set(names)
    readme = kit.read("README.md").decode("utf-8")
    assert "synthetic" not in readme and "sample_input" not in readme and "submissions/perfect" not in readme
    assert "ImageSets/Main/val.txt" in readme
    for command, _ in readme_commands(readme):
        assert command.startswith("python3 ")


def test_template_sections_and_unknown_names():
    text = "a {{n}}\n{{#sample}}\nsample only\n{{/sample}}\n{{^sample}}\nreal only\n{{/sample}}\nend\n"
    assert participant.render(text, {"n": "3 images"}, {"sample": True}) == "a 3 images\nsample only\nend\n"
    assert participant.render(text, {"n": "1 image"}, {"sample": False}) == "a 1 image\nreal only\nend\n"
    with pytest.raises(KeyError):
        participant.render("{{missing}}", {}, {})
