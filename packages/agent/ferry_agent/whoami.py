"""python3 -m ferry_agent.whoami: asks the server which workspace a token belongs to (install.sh).

Reads SERVICE_URL and SERVICE_TOKEN from the environment (never argv: argv is visible to every
user in `ps`). GET /agents/v1/whoami registers nothing. Prints tab-separated lines for the
installer:

    workspace<TAB><name><TAB><slug><TAB><id>
    agent<TAB><name><TAB>online|offline      (one per registered agent)

Exit codes: 0 ok, 2 bad settings, 3 token refused (401/403), 4 server unreachable or bad answer.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any


def clean(value: Any) -> str:
    return " ".join(str(value if value is not None else "").split())


def main() -> int:
    url = os.environ.get("SERVICE_URL", "").strip().rstrip("/")
    token = os.environ.get("SERVICE_TOKEN", "").strip()
    if not url.startswith(("http://", "https://")) or not token:
        sys.stderr.write("SERVICE_URL (http:// or https://) and SERVICE_TOKEN are required\n")
        return 2
    req = urllib.request.Request(url + "/agents/v1/whoami", headers={
        "Authorization": "Bearer " + token, "Accept": "application/json",
        "User-Agent": "ferry-agent-installer/0.1.0"})
    try:
        with urllib.request.urlopen(req, timeout=float(os.environ.get("SERVICE_HTTP_TIMEOUT_SECONDS")
                                                        or 15)) as resp:
            body = json.loads(resp.read(1024 * 1024).decode("utf-8"))
    except urllib.error.HTTPError as e:
        message = ""
        try:
            err = json.loads(e.read(64 * 1024).decode("utf-8")).get("error") or {}
            message = "%s: %s" % (err.get("code"), err.get("message"))
        except (ValueError, AttributeError):
            pass
        if e.code in (401, 403):
            hint = ("the token is missing, unknown or revoked" if e.code == 401
                    else "the token lacks scope platform:dispatch")
            sys.stderr.write("The server refused the token (%d %s): %s.\n" % (e.code, message, hint))
            return 3
        sys.stderr.write("The server answered %d %s.\n" % (e.code, message))
        return 4
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        sys.stderr.write("Could not reach %s: %s\n" % (url, reason))
        return 4
    ws = body.get("workspace") if isinstance(body, dict) else None
    if not isinstance(ws, dict) or not ws.get("name"):
        sys.stderr.write("The server's answer has no workspace; is %s a Ferry server?\n" % url)
        return 4
    print("workspace\t%s\t%s\t%s" % (clean(ws.get("name")), clean(ws.get("slug")),
                                     clean(ws.get("id"))))
    for agent in body.get("agents") or []:
        if isinstance(agent, dict):
            print("agent\t%s\t%s" % (clean(agent.get("name")),
                                     "online" if agent.get("online") else "offline"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
