"""Small helpers for the generators."""
import json
import os
import shutil


def fresh_dir(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def write_text(path, text):
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", newline="\n") as f:
        f.write(text)


def write_expected(kit_dir, expected):
    """malformed/expected.json: {case: {"file": name in the message, "line": int or null,
    "contains": text the message must contain, "why": what is wrong}}."""
    write_text(os.path.join(kit_dir, "malformed", "expected.json"), json.dumps(expected, indent=2, sort_keys=True)
               + "\n")


def copy_tree(src, dst):
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
