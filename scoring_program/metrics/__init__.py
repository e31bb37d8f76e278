"""Pure numpy metrics: arrays in, numbers out. No files, no printing, no globals."""
