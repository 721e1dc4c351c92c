"""Governed entry draft: simulate, then request approval for a named draft of an entry; run
again with GATEHOUSE_APPROVAL_ID once approved to execute. Never publishes. Needs
PLUGIN_GATEHOUSE_WRITES_EXPERIMENTAL=true on the server. Standard library only."""
import json
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid

BASE = os.environ["GATEHOUSE_BASE_URL"] + "/gatehouse/v1"
TOKEN = os.environ["GATEHOUSE_TOKEN"]


def call(method, path, body=None, extra=None):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json", **(extra or {})}
    try:
        with urllib.request.urlopen(urllib.request.Request(BASE + path, data=data, method=method, headers=headers)) as res:
            return json.load(res)["data"]
    except urllib.error.HTTPError as err:
        error = json.load(err).get("error", {})
        raise SystemExit(f"{method} {path}: {err.code} {error.get('code')} {error.get('message')}")


entry = call("GET", "/entries/show?fields=id,title&slug=" + urllib.parse.quote(os.environ["GATEHOUSE_ENTRY_SLUG"]))
action = {"actionType": "entry.updateDraft", "payload": {
    "entryId": entry["id"], "name": "assistant-suggestion",
    "title": os.environ.get("GATEHOUSE_DRAFT_TITLE", entry["title"] + " (revised)")}}

approval_id = os.environ.get("GATEHOUSE_APPROVAL_ID")
if approval_id:
    execution = call("POST", "/control/actions/execute", {**action, "approvalId": approval_id}, {"Idempotency-Key": "draft-" + approval_id})
    print(f"execution {execution['id']}: {execution['status']}")
else:
    print("simulation:", json.dumps(call("POST", "/control/policy-simulate", action)))
    approval = call("POST", "/control/approvals/request", {**action, "metadata": {
        "source": "starter-pack", "agentId": os.environ.get("GATEHOUSE_AGENT_ID", "draft-assistant"), "traceId": str(uuid.uuid4())}})
    print(f"approval {approval['id']} is {approval['status']}; once approved, run again with GATEHOUSE_APPROVAL_ID={approval['id']}")
