#!/bin/sh
# Ask a running `rlmc serve` for the skill block of a task, with curl.
# Start the server first, from the repository: go run ./cmd/rlmc serve
set -eu
url=${RLMC_URL:-http://127.0.0.1:8787}
auth=""
if [ -n "${RLMC_TOKEN:-}" ]; then auth="Authorization: Bearer $RLMC_TOKEN"; fi

# The whole compile result (schema 2), as `rlmc compile --format json` prints it:
# the rejected units a rule decided about are listed, the others counted in "unlisted".
curl -sS -H "$auth" -X POST "$url/v1/compile" \
  -d '{"task": "refresh the golden files after changing the explain output"}'

# Why did a unit not load? "why" lists it whatever became of it.
curl -sS -H "$auth" -X POST "$url/v1/compile" \
  -d '{"task": "refresh the golden files after changing the explain output", "why": ["measure-performance"]}'

# A host selection that cannot be honored: HTTP 422 and the error object.
curl -sS -H "$auth" -o /dev/null -w '%{http_code}\n' -X POST "$url/v1/compile" \
  -d '{"task": "anything", "select": ["no-such-skill"]}'

# What the server serves, and whether it is ready.
curl -sS -H "$auth" "$url/v1/catalog" | head -n 5
curl -sS -H "$auth" "$url/readyz"
