#!/usr/bin/env python3
"""Run the GitHub CLI the way every gi-* helper does: one place that finds `gh`, runs it without a
shell, bounds it with a timeout and turns "could not run" into one exception type.

Library use (the file name has a hyphen, so load it by path):

    spec = importlib.util.spec_from_file_location("gi_gh", Path(__file__).with_name("gi-gh.py"))
    gi_gh = importlib.util.module_from_spec(spec); spec.loader.exec_module(gi_gh)
    result = gi_gh.run_gh(["issue", "view", "7", "--json", "number,title"])

Command-line use: `gi-gh.py ARGS...` runs `gh ARGS...` and exits with gh's code; data commands
(`issue view/list`, `pr view/list`, `pr checks`) are refused without `--json FIELDS` (exit 3),
because a caller that reads gh's TTY table output breaks the first time gh changes it.

Exit codes (command line): gh's own on a run, 2 usage, 3 data command without --json, 4 gh missing
or timed out. Standard library only.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

DEFAULT_TIMEOUT_S = 60
DATA_COMMANDS = {("issue", "view"), ("issue", "list"), ("pr", "view"), ("pr", "list"), ("pr", "checks")}


class GhUnavailable(Exception):
    """gh could not be started or did not finish in time."""


class GhResult:
    """What one gh invocation returned."""

    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    def last_error_line(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else f"exit {self.code}"


def has_json_flag(args: list[str]) -> bool:
    """True when args carry `--json FIELDS` or `--json=FIELDS`."""
    for i, token in enumerate(args):
        if token == "--json" and i + 1 < len(args):
            return True
        if token.startswith("--json=") and len(token) > len("--json="):
            return True
    return False


def is_data_command(args: list[str]) -> bool:
    return tuple(args[:2]) in DATA_COMMANDS


def run_gh(args: list[str], timeout: float = DEFAULT_TIMEOUT_S) -> GhResult:
    """Runs `gh ARGS` (the first gh on PATH) and returns its exit code and text output."""
    gh = shutil.which("gh")
    if gh is None:
        raise GhUnavailable("gh is not on PATH")
    try:
        proc = subprocess.run(
            [gh, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GhUnavailable(f"gh {' '.join(args[:2])} timed out after {timeout:g} s") from exc
    except OSError as exc:
        raise GhUnavailable(f"cannot run gh: {exc.strerror or exc}") from exc
    decode = lambda b: b.decode("utf-8", errors="replace")  # noqa: E731
    return GhResult(proc.returncode, decode(proc.stdout), decode(proc.stderr))


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: gi-gh.py GH_ARGS...   (data commands need --json FIELDS)\n")
        return 0 if argv else 2
    if is_data_command(argv) and not has_json_flag(argv):
        sys.stderr.write(f"✗ gi-gh: gh {' '.join(argv[:2])} needs --json FIELDS\n")
        return 3
    try:
        result = run_gh(argv)
    except GhUnavailable as exc:
        sys.stderr.write(f"⚠ gi-gh: {exc}\n")
        return 4
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
