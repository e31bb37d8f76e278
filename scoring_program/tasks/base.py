"""The interface every competition adapter implements."""
from __future__ import annotations

import time
from contextlib import contextmanager


def no_progress(done, total, what=""):
    return None


class Stopwatch(object):
    """Seconds per named phase, summed over its visits, in order of first visit (for Result.timings).

        clock = Stopwatch()
        with clock("metric"):
            ...
        res.timings = clock.phases()
    """

    def __init__(self):
        self._seconds = {}

    @contextmanager
    def __call__(self, phase):
        start = time.perf_counter()
        try:
            yield
        finally:
            self._seconds[phase] = self._seconds.get(phase, 0.0) + time.perf_counter() - start

    def phases(self):
        return list(self._seconds.items())


class Task(object):
    slug = ""
    title = ""

    def score_keys(self, ref_dir=None):
        """The one table of leaderboard columns == scores.txt keys (first is the ranking column).

        ref_dir is given when the columns depend on the reference data (fixed when the bundle is built).
        """
        raise NotImplementedError

    def score(self, ref_dir, submission, progress=no_progress):
        """ref_dir: INPUT/ref; submission: formats.files.Submission. Returns report.Result."""
        raise NotImplementedError

    def validate(self, submission, ids=None):
        """Check names and syntax without the reference data; raise SubmissionError on the first fault.

        ids: optional numpy "S" array of the ids the participant expects to be evaluated on (validate --ids).
        Returns a list of notes (one line each) for the participant.
        """
        raise NotImplementedError
