#!/bin/sh
# Operations watch with curl: readiness verdict and open incidents. Exits 1 when the service
# is not ready or a critical incident is open.
set -eu
api="$GATEHOUSE_BASE_URL/gatehouse/v1"
auth="Authorization: Bearer $GATEHOUSE_TOKEN"
readiness=$(curl -fsS -H "$auth" "$api/readiness")
incidents=$(curl -fsS -H "$auth" "$api/incidents?status=open&limit=200")
echo "$readiness"
echo "$incidents"
case "$readiness" in *'"verdict":"not_ready"'*) exit 1 ;; esac
case "$incidents" in *'"currentSeverity":"critical"'*) exit 1 ;; esac
echo "ok"
