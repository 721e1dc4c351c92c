#!/bin/sh
# Governed entry draft with curl: simulate, then request approval for a named draft of the
# entry GATEHOUSE_ENTRY_ID. A person approves it in the control panel; then
# POST /control/actions/execute with an Idempotency-Key executes it. Never publishes.
set -eu
api="$GATEHOUSE_BASE_URL/gatehouse/v1"
auth="Authorization: Bearer $GATEHOUSE_TOKEN"
action="\"actionType\":\"entry.updateDraft\",\"payload\":{\"entryId\":$GATEHOUSE_ENTRY_ID,\"name\":\"assistant-suggestion\",\"title\":\"${GATEHOUSE_DRAFT_TITLE:-Revised title}\"}"
curl -fsS -H "$auth" -H 'Content-Type: application/json' -X POST "$api/control/policy-simulate" -d "{$action}"
echo
curl -fsS -H "$auth" -H 'Content-Type: application/json' -X POST "$api/control/approvals/request" \
  -d "{$action,\"metadata\":{\"source\":\"starter-pack\",\"agentId\":\"${GATEHOUSE_AGENT_ID:-draft-assistant}\",\"traceId\":\"$(date +%s)-$$\"}}"
echo
