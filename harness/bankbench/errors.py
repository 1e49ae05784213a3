"""Errors meant for the user: printed as one line with exit code 1, never as a traceback.

See harness/README.md."""


class UserError(Exception):
    """Something the user can fix: a missing tool, a bad option, a failed check."""
