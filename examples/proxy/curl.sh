#!/bin/sh
# Send completions through a running `rlmc proxy` with curl. Start the fake
# upstream and the proxy first, from the repository:
#   go run ./examples/proxy/upstream &
#   go run ./cmd/rlmc proxy --upstream http://127.0.0.1:9000 --root .agents/skills &
set -eu
url=${RLMC_PROXY:-http://127.0.0.1:8788}

# OpenAI Chat Completions: the skill block is attached to the user message
# it was compiled from (--placement system: in front of the system message).
curl -sS -D - -o /dev/null "$url/v1/chat/completions" \
  -H "Authorization: Bearer ${OPENAI_API_KEY:-sk-fake}" -H "Content-Type: application/json" \
  -d '{"model": "gpt-4.1", "messages": [
        {"role": "system", "content": "You are a careful engineer."},
        {"role": "user", "content": "refresh the golden files after changing the explain output"}]}' \
  | grep -i '^HTTP/\|^x-rlmc'

# Anthropic Messages, with the skills switched off for this call: the
# upstream receives the bytes sent.
curl -sS -D - -o /dev/null "$url/v1/messages" \
  -H "x-api-key: ${ANTHROPIC_API_KEY:-ak-fake}" -H "anthropic-version: 2023-06-01" -H "X-Rlmc-Skip: 1" \
  -d '{"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": "Be brief.",
       "messages": [{"role": "user", "content": "refresh the golden files"}]}' \
  | grep -i '^HTTP/\|^x-rlmc'

# A host selection that cannot be honored: HTTP 422 and the error in
# OpenAI's shape (rlmc's code in "code" and "rlmc_code"); the upstream is
# not called.
curl -sS -w '\n%{http_code}\n' "$url/v1/responses" -H "X-Rlmc-Select: no-such-skill" \
  -d '{"model": "gpt-4.1", "input": "anything"}'
