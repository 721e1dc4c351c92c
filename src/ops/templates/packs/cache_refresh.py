"""Webhook-driven cache refresh: verify each Gatehouse webhook's signature, re-read the
changed record through the API, update the cache; deletes evict. 204 when handled, 401 for
a bad signature. Standard library only. Listens on RECEIVER_PORT (default 8787)."""
import hashlib
import hmac
import json
import os
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer

BASE = os.environ["GATEHOUSE_BASE_URL"] + "/gatehouse/v1"
TOKEN = os.environ["GATEHOUSE_TOKEN"]
SECRET = os.environ["GATEHOUSE_WEBHOOK_SECRET"].encode()
PATHS = {"entry": "entries", "product": "products", "order": "orders"}
cache = {}


def verified(headers, body):
    timestamp = headers.get("X-Gatehouse-Webhook-Timestamp", "")
    given = headers.get("X-Gatehouse-Webhook-Signature", "")
    expected = "sha256=" + hmac.new(SECRET, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    fresh = timestamp.isdigit() and abs(time.time() - int(timestamp)) < 300  # refuse replays
    return fresh and hmac.compare_digest(given, expected)


def refresh(event):
    key = f"{event['resourceType']}:{event['resourceId']}"
    if event["action"] == "deleted":
        cache.pop(key, None)
        return
    url = f"{BASE}/{PATHS[event['resourceType']]}/show?id={event['resourceId']}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Bearer " + TOKEN})) as res:
            cache[key] = json.load(res)["data"]
    except urllib.error.HTTPError as err:
        if err.code != 404:
            raise
        cache.pop(key, None)  # deleted since the event


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if not verified(self.headers, body):
            self.send_response(401)
            self.end_headers()
            return
        event = json.loads(body)
        status = 204
        if not event.get("isProbe") and event.get("resourceType") in PATHS:
            try:
                refresh(event)
                print(f"refreshed {event['resourceType']} {event['resourceId']} ({event['action']}); cache holds {len(cache)}", flush=True)
            except Exception as err:  # Gatehouse retries, then keeps it in the DLQ
                print(err, flush=True)
                status = 503
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(os.environ.get("RECEIVER_PORT", "8787"))), Receiver)
print("receiver listening", flush=True)
server.serve_forever()
