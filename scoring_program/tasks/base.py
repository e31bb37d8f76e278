"""The interface every competition adapter implements."""
from __future__ import annotations


def no_progress(done, total, what=""):
    return None


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
