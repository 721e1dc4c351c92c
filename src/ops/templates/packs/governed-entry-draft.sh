#!/bin/sh
# Governed entry draft with curl: simulate, then request approval for a named draft of the
# entry GATEHOUSE_ENTRY_ID. A person approves it (control panel or admin API); run again with
# GATEHOUSE_APPROVAL_ID set to execute it once, with an Idempotency-Key. Never publishes.
set -eu
api="$GATEHOUSE_BASE_URL/gatehouse/v1"
auth="Authorization: Bearer $GATEHOUSE_TOKEN"
action="\"actionType\":\"entry.updateDraft\",\"payload\":{\"entryId\":$GATEHOUSE_ENTRY_ID,\"name\":\"assistant-suggestion\",\"title\":\"${GATEHOUSE_DRAFT_TITLE:-Revised title}\"}"
if [ -n "${GATEHOUSE_APPROVAL_ID:-}" ]; then
  # The same actionType and payload as the request: the approval is bound to their digest.
  curl -fsS -H "$auth" -H 'Content-Type: application/json' -H "Idempotency-Key: draft-$GATEHOUSE_APPROVAL_ID" \
    -X POST "$api/control/actions/execute" -d "{$action,\"approvalId\":\"$GATEHOUSE_APPROVAL_ID\"}"
  echo
  exit 0
fi
curl -fsS -H "$auth" -H 'Content-Type: application/json' -X POST "$api/control/policy-simulate" -d "{$action}"
echo
curl -fsS -H "$auth" -H 'Content-Type: application/json' -X POST "$api/control/approvals/request" \
  -d "{$action,\"metadata\":{\"source\":\"starter-pack\",\"agentId\":\"${GATEHOUSE_AGENT_ID:-draft-assistant}\",\"traceId\":\"$(date +%s)-$$\"}}"
echo
