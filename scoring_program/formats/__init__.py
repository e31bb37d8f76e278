"""Parsers: path -> typed numpy arrays (+ line numbers). They raise SubmissionError / ReferenceDataError."""
