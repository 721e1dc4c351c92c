"""Scheduled catalog sync as a governed job: for each due workflow of this template that runs
as the token, report started (a lease on the occurrence; 409 if another worker has it),
follow the product change feed from the checkpoint, and report succeeded or failed. Run it
from cron or a loop; it only runs what is due. Python 3.8+, standard library only."""
import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ["GATEHOUSE_BASE_URL"] + "/gatehouse/v1"
TOKEN = os.environ["GATEHOUSE_TOKEN"]
WORKER = os.environ.get("GATEHOUSE_WORKER_ID") or f"{socket.gethostname()}-{os.getpid()}"


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers={
        "Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as res:
            return json.load(res)
    except urllib.error.HTTPError as err:
        error = json.load(err).get("error", {})
        raise ApiError(err.code, f"{method} {path}: {err.code} {error.get('code')} {error.get('message')}")


def report(body):
    return call("POST", "/workflows/run-report", {"workerId": WORKER, **body})["data"]


def sync_products():
    checkpoints = call("GET", "/sync-state/lag?resourceType=products")["data"]["checkpoints"]
    cursor = checkpoints[0]["cursor"] if checkpoints else None
    kept, dropped, changes = set(), set(), 0
    while True:
        query = "cursor=" + urllib.parse.quote(cursor) if cursor else "types=products&limit=100"
        page = call("GET", "/changes?" + query)
        # ...apply each change to your copy here: upsert the snapshot, or drop the record when it
        # is null (deleted, or outside what this credential may read now)...
        for c in page["data"]:
            (kept if c["snapshot"] is not None else dropped).add(c["resourceId"])
            changes += 1
        cursor = page["pagination"]["nextCursor"]
        call("POST", "/sync-state/checkpoint", {"resourceType": "products", "cursor": cursor})
        if not page["pagination"]["hasMore"]:
            return {"changes": changes, "products": len(kept), "dropped": len(dropped - kept)}


only = os.environ.get("GATEHOUSE_WORKFLOW_ID")
due = [w for w in call("GET", "/workflows?dueOnly=true&templateKey=scheduled-catalog-sync")["data"] if not only or w["id"] == only]
if not due:
    print("no workflow is due")
for workflow in due:
    try:
        run = report({"workflowId": workflow["id"], "status": "started"})
    except ApiError as err:
        if err.status != 409:
            raise SystemExit(str(err))
        print(f"workflow {workflow['name']}: taken by another worker")
        continue
    try:
        result = sync_products()
    except ApiError as err:
        report({"workflowId": workflow["id"], "runId": run["id"], "status": "failed", "summary": str(err)[:2000]})
        raise SystemExit(str(err))
    summary = f"applied {result['changes']} changes to {result['products']} products, dropped {result['dropped']}"
    done = report({"workflowId": workflow["id"], "runId": run["id"], "status": "succeeded", "summary": summary, "metadata": result})
    print(f"workflow {workflow['name']}: run {done['id']} {done['status']}: {summary}")
