"""Operations watch: readiness, open incidents and risky credentials in one look. Exits 1
when the service is not ready or a critical incident is open. Standard library only."""
import json
import os
import sys
import urllib.request

BASE = os.environ["GATEHOUSE_BASE_URL"] + "/gatehouse/v1"
TOKEN = os.environ["GATEHOUSE_TOKEN"]


def get(path):
    req = urllib.request.Request(BASE + path, headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(req) as res:
        return json.load(res)["data"]


readiness = get("/readiness")
incidents = get("/incidents?status=open&limit=200")
risky = [c for c in get("/lifecycle")["credentials"] if c["risk"] in ("high", "critical")]
print("readiness:", readiness["verdict"])
for c in readiness["checks"]:
    if c["status"] != "ok":
        print(f"  {c['status']} {c['name']}: {c['message']}")
print("open incidents:", len(incidents))
for i in incidents:
    print(f"  {i['currentSeverity']} {i['category']} since {i['openedAt']}: {i['recommendedAction']}")
print("credentials at high or critical risk:", len(risky))
for c in risky:
    print(f"  {c['risk']} {c['credentialId']} ({c['label']}): {c['recommendedAction']}")
if readiness["verdict"] == "not_ready" or any(i["currentSeverity"] == "critical" for i in incidents):
    sys.exit(1)
