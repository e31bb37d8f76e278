"""One adapter per competition: find files, parse, call metrics, return a Result."""
