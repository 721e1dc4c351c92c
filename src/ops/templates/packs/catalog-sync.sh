#!/bin/sh
# Catalog sync with checkpoints, with curl only: follow the product change feed from the last
# checkpoint (on the first run, from the feed's position now: take it before your full copy),
# one page at a time, and checkpoint each page's nextCursor.
set -eu
api="$GATEHOUSE_BASE_URL/gatehouse/v1"
auth="Authorization: Bearer $GATEHOUSE_TOKEN"
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }

# The saved position (empty on the first run).
cursor=$(curl -fsS -H "$auth" "$api/sync-state/lag?resourceType=products" | field cursor)
# First run: the position to follow from. Copy /products?status=all after taking it.
after=$(curl -fsS -H "$auth" "$api/changes/position" | sed -n 's/.*"position":\([0-9]*\).*/\1/p')
pages=0
while :; do
  if [ -n "$cursor" ]; then page=$(curl -fsS -H "$auth" "$api/changes?cursor=$cursor")
  else page=$(curl -fsS -H "$auth" "$api/changes?types=products&limit=100&after=$after"); fi
  pages=$((pages + 1))
  # ...apply $page's data[] to your copy here...
  cursor=$(printf '%s' "$page" | field nextCursor)
  curl -fsS -H "$auth" -H 'Content-Type: application/json' -X POST "$api/sync-state/checkpoint" \
    -d "{\"resourceType\":\"products\",\"cursor\":\"$cursor\"}" > /dev/null
  case "$page" in *'"hasMore":true'*) ;; *) break ;; esac
done
echo "followed $pages page(s); checkpoint saved"
curl -fsS -H "$auth" "$api/sync-state/lag?resourceType=products"
echo
