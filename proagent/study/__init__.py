"""Human studies kept as study folders: the format (`format`), an untrusted reader (`read`), the
paper's tables and tests (`tables`, `stats`), the report's files (`report`, `plots`) and a
generator of synthetic studies (`synth`). See docs/human_study.md."""
