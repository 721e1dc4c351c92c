#!/bin/sh
# Scheduled catalog sync as a governed job, with curl only: take the workflow
# GATEHOUSE_WORKFLOW_ID (or the first due one of this template), report started (a lease on
# the occurrence; 409 if another worker has it), follow the product change feed from the
# checkpoint, then report succeeded. Run it from cron; it only runs what is due.
set -eu
api="$GATEHOUSE_BASE_URL/gatehouse/v1"
auth="Authorization: Bearer $GATEHOUSE_TOKEN"
worker="${GATEHOUSE_WORKER_ID:-$(hostname)-$$}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }
report() { curl -sS -o "$out" -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' -X POST "$api/workflows/run-report" -d "$1"; }

workflow="${GATEHOUSE_WORKFLOW_ID:-$(curl -fsS -H "$auth" "$api/workflows?dueOnly=true&templateKey=scheduled-catalog-sync&limit=1" | grep -o '"id":"wf_[^"]*"' | head -1 | field id)}"
if [ -z "$workflow" ]; then echo "no workflow is due"; exit 0; fi

status=$(report "{\"workflowId\":\"$workflow\",\"status\":\"started\",\"workerId\":\"$worker\"}")
if [ "$status" = 409 ]; then echo "workflow $workflow: not due, or taken by another worker"; exit 0; fi
[ "$status" = 200 ] || { cat "$out"; exit 1; }
run=$(sed -n 's/^{"ok":true,"data":{"id":"\([^"]*\)".*/\1/p' "$out")

cursor=$(curl -fsS -H "$auth" "$api/sync-state/lag?resourceType=products" | field cursor)
pages=0
while :; do
  if [ -n "$cursor" ]; then page=$(curl -fsS -H "$auth" "$api/changes?cursor=$cursor")
  else page=$(curl -fsS -H "$auth" "$api/changes?types=products&limit=100"); fi
  pages=$((pages + 1))
  # ...apply $page's data[] to your copy here...
  cursor=$(printf '%s' "$page" | field nextCursor)
  curl -fsS -H "$auth" -H 'Content-Type: application/json' -X POST "$api/sync-state/checkpoint" \
    -d "{\"resourceType\":\"products\",\"cursor\":\"$cursor\"}" > /dev/null
  case "$page" in *'"hasMore":true'*) ;; *) break ;; esac
done

status=$(report "{\"workflowId\":\"$workflow\",\"runId\":\"$run\",\"workerId\":\"$worker\",\"status\":\"succeeded\",\"summary\":\"followed $pages page(s) of product changes\"}")
[ "$status" = 200 ] || { cat "$out"; exit 1; }
echo "workflow $workflow: run $run succeeded: followed $pages page(s) of product changes"
