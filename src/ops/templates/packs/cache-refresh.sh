#!/bin/sh
# Cache refresh with curl: re-read the record a webhook named (GATEHOUSE_RESOURCE_TYPE entry,
# product or order, and GATEHOUSE_RESOURCE_ID), then list what changed since the saved
# reconciliation cursor, which catches any delivery that never arrived.
set -eu
api="$GATEHOUSE_BASE_URL/gatehouse/v1"
auth="Authorization: Bearer $GATEHOUSE_TOKEN"
case "$GATEHOUSE_RESOURCE_TYPE" in
  entry) path=entries ;; product) path=products ;; order) path=orders ;;
  *) echo "GATEHOUSE_RESOURCE_TYPE must be entry, product or order" >&2; exit 2 ;;
esac
curl -fsS -H "$auth" "$api/$path/show?id=$GATEHOUSE_RESOURCE_ID"
echo
cursor_file=${GATEHOUSE_CURSOR_FILE:-.gatehouse-reconcile-cursor}
cursor=$(cat "$cursor_file" 2>/dev/null || true)
if [ -n "$cursor" ]; then page=$(curl -fsS -H "$auth" "$api/changes?cursor=$cursor")
else page=$(curl -fsS -H "$auth" "$api/changes?types=entries,products,orders&limit=200&fields=id"); fi
echo "$page"
printf '%s' "$page" | sed -n 's/.*"nextCursor":"\([^"]*\)".*/\1/p' > "$cursor_file"
