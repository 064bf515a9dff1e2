#!/usr/bin/env python3
"""Ask a running `rlmc serve` which skills a task needs, with the standard
library only, and print the skill block to put before the planner call.

    python3 examples/serve/client.py "refresh the golden files"
    echo "$USER_TEXT" | python3 examples/serve/client.py -
    python3 examples/serve/client.py --socket /run/rlmc.sock --select tdd "fix the bug"

The server's address comes from --url (default http://127.0.0.1:8787) or
--socket; a bearer token, when the server requires one, from $RLMC_TOKEN.
The decision and the selected skills go to standard error. A compile that
fails (a selection that cannot be honored, say) exits 1 with its error
code; an ambiguous task exits 3 naming the rivals, for the host to ask
its user and compile again with the chosen one in --select.

select and deny are trusted host input, like rlmc compile's --select: take
them from the host's own UI, never from model output.
"""

import argparse
import http.client
import json
import os
import socket
import sys
import urllib.parse


class RlmcError(Exception):
    """A compile the server refused: status is the HTTP status, error the
    contract's error object (stage, code, unit, reason, message)."""

    def __init__(self, status, error):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.status = status
        self.error = error


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self._path)
        self.sock = sock


def compile_skills(task, select=(), deny=(), budget=None, tokenizer=None,
                   why=(), all_rejected=False,
                   url="http://127.0.0.1:8787", socket_path=None,
                   token=None, timeout=5.0):
    """POST /v1/compile and return the compile result (schema 2) as a dict.
    Its "rejected" lists the units a rule decided about, the near misses and
    the units named in why; "unlisted" counts the others (all_rejected lists
    them all). Raises RlmcError when the server answers with an error
    object."""
    request = {"task": task}
    if select:
        request["select"] = list(select)
    if deny:
        request["deny"] = list(deny)
    if budget:
        request["budget"] = budget
    if tokenizer:
        request["tokenizer"] = tokenizer
    if why:
        request["why"] = list(why)
    if all_rejected:
        request["all_rejected"] = True
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if socket_path:
        conn = _UnixConnection(socket_path, timeout)
    else:
        u = urllib.parse.urlsplit(url)
        conn_class = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        conn = conn_class(u.hostname, u.port, timeout=timeout)
    try:
        conn.request("POST", "/v1/compile", json.dumps(request).encode("utf-8"), headers)
        resp = conn.getresponse()
        doc = json.loads(resp.read())
    finally:
        conn.close()
    if "error" in doc:
        raise RlmcError(resp.status, doc["error"])
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("task", nargs="+", help="the task, or - to read standard input")
    ap.add_argument("--select", action="append", default=[], help="select a skill (trusted host input)")
    ap.add_argument("--deny", action="append", default=[], help="deny a skill")
    ap.add_argument("--budget", type=int, help="token ceiling of the skill block")
    ap.add_argument("--url", default=os.environ.get("RLMC_URL", "http://127.0.0.1:8787"))
    ap.add_argument("--socket", help="a unix socket instead of --url")
    args = ap.parse_args()
    task = sys.stdin.read() if args.task == ["-"] else " ".join(args.task)
    try:
        res = compile_skills(task, args.select, args.deny, args.budget, url=args.url,
                             socket_path=args.socket, token=os.environ.get("RLMC_TOKEN"))
    except RlmcError as e:
        print(f"rlmc: {e} (HTTP {e.status})", file=sys.stderr)
        return 1
    except OSError as e:
        # No server there (refused, a socket path that does not exist,
        # a timeout): one line, not a traceback.
        where = args.socket or args.url
        print(f"rlmc: cannot reach rlmc serve at {where}: {e}", file=sys.stderr)
        return 1
    names = [s["name"] for s in res["selected"]]
    print(f"rlmc decided {res['decision']}, selected [{' '.join(names)}]", file=sys.stderr)  # as the Go planner example prints it
    sys.stdout.write(res["prompt"])
    if res["decision"] == "ambiguous":
        print(f"rlmc: too close to call: {res['ambiguous']}; ask the user and pass the choice with --select", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
