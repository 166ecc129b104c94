"""Per-hit material and scores: drum patterns rendered with Debian's soundfonts at known hit times,
and the onset F-measure (MIREX: a found onset within +-25 ms of a true one, each matched once)."""
