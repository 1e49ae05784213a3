"""Counts the passed or failed (not skipped) cases in a JUnit XML report.

With a filter: only cases whose parameter ids (the `-`-separated parts inside `[...]`) include
it, or whose name or class contains it when the filter is not a parameter id.
"""

import re
import sys
import xml.etree.ElementTree as ET


def matches(case: ET.Element, needle: str) -> bool:
    if not needle:
        return True
    name = case.get("name", "")
    params = re.search(r"\[(.*)\]$", name)
    if params and needle in params.group(1).split("-"):
        return True
    return needle in re.sub(r"\[.*\]$", "", name) + case.get("classname", "")


report, needle = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
cases = ET.parse(report).getroot().iter("testcase")
print(sum(1 for c in cases if c.find("skipped") is None and matches(c, needle)))
