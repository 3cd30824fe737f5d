#!/usr/bin/env python3
"""A small TTL cache in front of `gh issue view N --json FIELDS`.

A resolver reads the same issue several times in one run (preflight, planning, acceptance check,
closing report). The first read pays for one gh call; reads within the TTL are served from a state
directory. Anything that edits the issue drops its entries with --invalidate, or reads once with
--refresh.

    gi-issue.py N [--fields F1,F2] [--ttl SECONDS] [--state-dir DIR] [--refresh]
    gi-issue.py N --invalidate [--state-dir DIR]

A read prints one JSON line (keys sorted):
    {"cached":true|false,"fields":[sorted fields],"issue":{gh payload},"number":N}
--invalidate prints {"dropped":K,"invalidated":N}.

Cache entries are keyed by issue number and the sorted field set, so a read of `number,title` never
answers a read that needs `body`. The state directory is --state-dir, else $GI_ISSUE_STATE_DIR, else
.gitissue/cache under the working directory. An entry records when it was fetched; it is served
while 0 <= age < TTL (a clock that went backwards is a miss). --ttl 0 neither reads nor writes the
cache. A corrupt entry is a miss, and a cache that cannot be written is not an error.

Exit codes: 0 printed; 2 usage; 3 invalid input (issue number, field list, negative TTL);
4 cannot complete (gh missing or failed, payload not a JSON object). Needs gi-gh.py beside it.
Standard library only.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path


def _load_gi_gh():
    path = Path(__file__).with_name("gi-gh.py")
    spec = importlib.util.spec_from_file_location("gi_gh", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gi_gh = _load_gi_gh()

DEFAULT_TTL_S = 300
DEFAULT_FIELDS = "body,labels,number,state,title"
FIELD_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


class InvalidInput(Exception):
    """Exit 3."""


class CannotComplete(Exception):
    """Exit 4."""


def parse_fields(raw: str) -> list[str]:
    fields = sorted({f.strip() for f in raw.split(",") if f.strip()})
    if not fields:
        raise InvalidInput("--fields names no field")
    bad = [f for f in fields if not FIELD_RE.match(f)]
    if bad:
        raise InvalidInput(f"not a gh field name: {bad[0]!r}")
    return fields


def state_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("GI_ISSUE_STATE_DIR")
    return Path(env) if env else Path.cwd() / ".gitissue" / "cache"


def entry_path(root: Path, number: int, fields: list[str]) -> Path:
    return root / f"issue-{number}--{'-'.join(fields)}.json"


def read_entry(path: Path, ttl: int, now: float) -> dict | None:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("issue"), dict):
        return None
    fetched = entry.get("fetched_at")
    if not isinstance(fetched, (int, float)) or isinstance(fetched, bool):
        return None
    age = now - fetched
    return entry["issue"] if 0 <= age < ttl else None


def write_entry(path: Path, issue: dict, now: float) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({"fetched_at": now, "issue": issue}, handle, sort_keys=True)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        return


def fetch(number: int, fields: list[str]) -> dict:
    try:
        result = gi_gh.run_gh(["issue", "view", str(number), "--json", ",".join(fields)])
    except gi_gh.GhUnavailable as exc:
        raise CannotComplete(str(exc)) from exc
    if result.code != 0:
        raise CannotComplete(f"gh issue view {number} failed: {result.last_error_line()}")
    try:
        payload = json.loads(result.stdout)
    except ValueError as exc:
        raise CannotComplete(f"gh issue view {number} printed unparsable JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise CannotComplete(f"gh issue view {number} did not print a JSON object")
    return payload


def invalidate(root: Path, number: int) -> int:
    dropped = 0
    for path in sorted(root.glob(f"issue-{number}--*.json")):
        try:
            path.unlink()
            dropped += 1
        except OSError:
            continue
    return dropped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gi-issue.py", description="TTL-cached gh issue view.")
    parser.add_argument("number", help="issue number")
    parser.add_argument(
        "--fields", default=DEFAULT_FIELDS, help=f"gh --json fields (default {DEFAULT_FIELDS})"
    )
    parser.add_argument(
        "--ttl", type=int, default=DEFAULT_TTL_S, metavar="S", help="seconds an entry is served"
    )
    parser.add_argument("--state-dir", metavar="DIR", help="cache directory")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--refresh", action="store_true", help="skip the cache for this read, then store it")
    mode.add_argument("--invalidate", action="store_true", help="drop this issue's entries; no gh call")
    args = parser.parse_args(argv)
    try:
        if not re.fullmatch(r"[0-9]+", args.number) or int(args.number) < 1:
            raise InvalidInput(f"issue must be a positive number, got {args.number!r}")
        number = int(args.number)
        if args.ttl < 0:
            raise InvalidInput("--ttl must be >= 0")
        root = state_dir(args.state_dir)
        if args.invalidate:
            dropped = invalidate(root, number)
            result = {"dropped": dropped, "invalidated": number}
            print(json.dumps(result, separators=(",", ":"), sort_keys=True))
            return 0
        fields = parse_fields(args.fields)
        path = entry_path(root, number, fields)
        now = time.time()
        issue = None if args.refresh or args.ttl == 0 else read_entry(path, args.ttl, now)
        cached = issue is not None
        if issue is None:
            issue = fetch(number, fields)
            if args.ttl > 0:
                write_entry(path, issue, now)
    except InvalidInput as exc:
        sys.stderr.write(f"✗ gi-issue: {exc}\n")
        return 3
    except CannotComplete as exc:
        sys.stderr.write(f"⚠ gi-issue: {exc}\n")
        return 4
    out = {"cached": cached, "fields": fields, "issue": issue, "number": number}
    print(json.dumps(out, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
