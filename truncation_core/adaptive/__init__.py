"""The ``adaptive`` strategy: a command's output cut where its information is.

A command prints a failure log (the errors and a summary at the end), or records (search
hits, a listing, a log of commits, a file it printed). A fixed split serves one and fails
the other: the tail keeps a build's summary and drops the search hits an agent opens next;
head and tail keep the hits and lose the summary's line. So the split is decided per output,
from what lies at its two ends, and the part left out is indexed so that any of it is one
``get_artifact`` call away.

One file per concern:

* :mod:`~truncation_core.adaptive.ends` — where the failure lines are: the tool's salient
  patterns, matched on the first and the last budget's worth of lines (what a stream keeps
  too), and the head share that follows from them.
* :mod:`~truncation_core.adaptive.cut` — the cut: head and tail at that share, the tail
  holding a floor of whole lines whatever their length, and the outline (for records, an
  index by file, directory or commit: :mod:`truncation_core.outline.records`) of the part
  left out.

docs/strategies.md describes the strategy, with real examples.
"""
