"""Ruby: RSpec, minitest, Rails and Ruby's own exceptions.

* RSpec: an example marked ``(FAILED - 1)`` in the documentation format, each
  ``Failure/Error:`` with its ``expected:``/``got:`` lines and the spec's own frame, and the
  ``rspec ./spec/x_spec.rb:15 # ...`` lines that rerun the failures.
* minitest: a test reported ``= F`` (or ``= E``), each ``1) Failure:`` with its location,
  message and ``Expected``/``Actual``.
* Rails: an exception logged as ``ActionView::Template::Error (undefined method ...)`` or
  ``ActiveRecord::RecordNotFound (Couldn't find ...)`` with its first frame under ``app/``
  (for a template, with the line of the logged excerpt that frame points at), and
  ``Completed 500 Internal Server Error`` with the ``Started GET "/path"`` line of its
  request. ``rails test`` reports each failure as it happens, under a bare ``Failure:`` or
  ``Error:``, and ends it with ``rails test test/x_test.rb:12``: that line, with the test,
  its location and the message above it.
* Ruby: ``app.rb:3:in 'f': undefined method 'x' for nil (NoMethodError)``.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="rspec-failed-example", rank=1,
            keywords=("(FAILED - ",),
            regex=r"\(FAILED - \d+\)\s*$",
        ),
        SalientPattern(
            name="rspec-failure", rank=1,
            keywords=("Failure/Error:",),
        ),
        SalientPattern(
            name="rspec-rerun", rank=1,
            keywords=("rspec ./",),
            regex=r"^rspec \./\S+:\d+ # ",
        ),
        SalientPattern(
            name="minitest-failed", rank=1,
            keywords=("#test_",),
            regex=r"^\S+#\S+ = [\d.]+ s = [FE]\s*$",
        ),
        SalientPattern(
            name="minitest-failure", rank=1,
            keywords=("Failure:", "Error:"),
            regex=r"^\s*\d+\) (?:Failure|Error):\s*$",
        ),
        SalientPattern(
            name="rails-exception", rank=1,
            keywords=("Error (", "Exception (", "NotFound (", "Invalid ("),
            regex=r"^\s*(?:[A-Z]\w*::)*\w*(?:Error|Exception|NotFound|Invalid) \(",
        ),
        SalientPattern(
            name="rails-500", rank=1,
            keywords=("Completed 5",),
            regex=r"^\s*Completed 5\d\d ",
        ),
        SalientPattern(
            name="rails-test-rerun", rank=1,
            keywords=("rails test ",),
            # "rails test test/integration/invoices_test.rb:820", under each failure.
            regex=r"^rails test \S+:\d+\s*$",
        ),
        SalientPattern(
            name="ruby-exception", rank=1,
            keywords=("Error)", "Exception)"),
            regex=r":\d+:in .*\((?:[A-Z]\w*::)*[A-Z]\w*(?:Error|Exception)\)\s*$",
        ),
    )


_RSPEC_TAKE = r"^\s+(?:expected|got|Diff):|^\s+# \./\S+:\d+"


def rspec_details(lines: UnitLines) -> list[int]:
    """Under ``Failure/Error:``: expected, got, and the spec's own frame."""
    taken = []
    for i, line in enumerate(lines.below, 1):
        if re.match(r"^\s+\d+\) \S", line):
            break
        if re.match(_RSPEC_TAKE, line):
            taken.append(i)
            if line.lstrip().startswith("# "):
                break
    return taken[:4]


def minitest_details(lines: UnitLines) -> list[int]:
    """Under ``1) Failure:``: the test and its location, the message, Expected and Actual."""
    taken = []
    for i, line in enumerate(lines.below, 1):
        if not line.strip() or re.match(r"^\s*\d+\) (?:Failure|Error):", line):
            break
        taken.append(i)
    return taken[:5]


_APP_FRAME = r"^\s*(?:\./)?app/\S+:(\d+)(?::in |\s*$)"


def rails_frame(lines: UnitLines) -> list[int]:
    """Under a Rails exception: the first frame in the application's own code
    (``app/models/x.rb:12:in 'f'``, or a template's ``app/views/x/show.html.erb:2``) and, for
    a template, the line of the excerpt logged above the frame that it points at
    (``    2: <p><%= @invoice.customer.name %></p>``)."""
    for i, line in enumerate(lines.below, 1):
        frame = re.match(_APP_FRAME, line)
        if frame is None:
            continue
        excerpt = rf"^\s+{frame.group(1)}: "
        for j, above in enumerate(lines.below[:i - 1], 1):
            if re.match(excerpt, above):
                return [j, i]
        return [i]
    return []


def rails_request(lines: UnitLines) -> list[int]:
    """Above a request's ``Completed 500``: the ``Started GET "/path"`` line that says which
    request failed."""
    for i, line in enumerate(lines.above, 1):
        if re.match(r'^Started [A-Z]+ "', line):
            return [-i]
        if re.match(r"^Completed \d{3} ", line):
            break
    return []


def rails_test_details(lines: UnitLines) -> list[int]:
    """Above ``rails test file:line``: the failure Rails reported just before it, from below
    its ``Failure:`` or ``Error:`` header: the test and its location, then the message (an
    error's exception and first frame)."""
    for i, line in enumerate(lines.above, 1):
        if re.match(r"^(?:Failure|Error):\s*$", line):
            return [-j for j in range(i - 1, 0, -1) if lines.above[j - 1].strip()][:4]
        if re.match(r"^rails test \S+:\d+\s*$", line):
            break
    return []


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="rspec-details", patterns=("rspec-failure",), below=12,
                    choose=rspec_details),
        SalientUnit(name="minitest-details", patterns=("minitest-failure",), below=6,
                    choose=minitest_details),
        SalientUnit(name="rails-app-frame", patterns=("rails-exception",), below=24,
                    choose=rails_frame),
        SalientUnit(name="rails-request", patterns=("rails-500",), above=40,
                    choose=rails_request),
        SalientUnit(name="rails-test-details", patterns=("rails-test-rerun",), above=16,
                    choose=rails_test_details),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
