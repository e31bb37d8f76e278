"""Scoring programs for ten human-centric computer-vision challenges (Codabench / legacy Codalab).

Layers (imports run one way): metrics -> numpy; formats -> errors; tasks -> formats, metrics, report.result;
report -> result; cli -> tasks, report, errors. Only cli (and the command-line entry points) print.
The scoring path must run on Python 3.7+ with only numpy and Pillow installed (cv2 optional, yaml not needed).
"""
__version__ = "0.1.0"
