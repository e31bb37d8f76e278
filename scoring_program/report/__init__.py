"""Result -> scores.txt, scores.json (atomic) and detailed_results.html (inline SVG plots)."""
from .result import Result, Table, Plot, Series, ScoreKey  # noqa: F401
