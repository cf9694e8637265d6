#!/usr/bin/env bash
# `make demo`: mem end to end on a scratch git repository, printing each step.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
fixture="$here/tests/fixtures/claude-code/session.jsonl"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/mem-demo.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "A scratch repository"
cd "$scratch"
run git init -q -b main
git remote add origin git@github.com:acme/shop.git
mkdir -p tests && printf 'PORT = 5433\n' > tests/conftest.py
git add tests && git -c user.name=demo -c user.email=demo@example.invalid commit -qm init
echo "in $scratch, remote git@github.com:acme/shop.git"

step "mem init: create .memory/ from the template"
run mem init
run ls -A .memory

step "mem hooks install: wire Claude Code's hooks into .claude/settings.json"
run mem hooks install
run mem hooks install

step "mem capture: replay a recorded Claude Code session (a failing test, a .env read, a fix)"
while IFS= read -r line; do printf '%s' "$line" | mem capture; done < "$fixture"
echo "replayed $(wc -l < "$fixture") hook events"
run mem stats --json
echo "the .env secrets in the session, searched for under .memory/:"
if grep -rq -e 's3cr3t-Passw0rd' -e 'sk_live_51Hx7' .memory; then echo "LEAKED"; exit 1; else echo "  none found: masked before anything touched the disk"; fi
echo "one captured observation:"
head -n 2 .memory/local/buffer/abc123.jsonl | tail -n 1 | cut -c1-400

step "mem checkpoint: at the end of the turn (Stop hook), ask the model once to record what the rules found"
stop_event=$(grep '"hook_event_name":"Stop"' "$fixture")
printf '%s' "$stop_event" | mem checkpoint | python3 -c 'import json,sys; d=json.load(sys.stdin); print("decision:", d["decision"]); print(d["reason"])'
echo "the same Stop again prints: '$(printf '%s' "$stop_event" | mem checkpoint)' (each candidate is asked about once)"
echo "(the model would now run the 'mem add --candidate ...' line above, or dismiss it)"

step "mem compact: the session's observations become one verified pitfall"
run mem compact --session abc123
run mem list
pitfall=$(mem list --json --kind pitfall | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
run cat ".memory/items/$pitfall.yaml"
run mem compact --session abc123

step "mem index: the Layer-1 index the SessionStart hook injects (budgeted, fenced as data)"
run mem index
mem index --format claude | python3 -c 'import json,sys; d=json.load(sys.stdin); print("valid hook JSON,", len(d["hookSpecificOutput"]["additionalContext"]), "characters")'

step "mem search / show --evidence: Layer 2 and Layer 3"
run mem search "connection refused on the test database port"
run mem show "$pitfall" --evidence
run mem log

step "mem capture from a pipe, with fail-open on garbage"
printf 'FAILED tests/test_api.py::test_login - KeyError: token\n1 failed in 0.2s\n' | run mem capture --kind test
head -c 300 /dev/urandom | mem capture; echo "random bytes: exit $?"

step "mem add / list / show: items by hand"
id=$(mem add --kind pitfall --title "Order tests need Postgres on 5433" \
  --body $'conftest pinned 5432 but the test server listens on 5433.\nSet PORT = 5433 in conftest.py.' \
  --tag db --tag tests --anchor tests/conftest.py --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
mem add --kind convention --title "We use ruff format, never black" --body "ruff format runs in CI." --tag style >/dev/null
run mem list
run mem show "$id"
run cat ".memory/items/$id.yaml"

step "mem lint: a broken file is reported with path and line; other commands skip it"
printf 'id: broken0001\nkind: [unclosed\n' > .memory/items/broken0001.yaml
run mem lint || echo "(exit $?)"
run mem list
rm .memory/items/broken0001.yaml

step "mem diff / prune --check: memory in review and CI"
git add -A && git -c user.name=demo -c user.email=demo@example.invalid commit -qm "memory"
mem add --kind env --title "Python 3.11 is required" --body "Typer and the hooks need 3.11+." --tag python --expires 2020-01-01 >/dev/null
run mem diff HEAD --format markdown
run mem prune --check || echo "(exit $?: the expired item fails the check)"

step "mem forget: a real deletion"
run mem forget "$id"
if grep -rq "Order tests need Postgres" .memory; then echo "STILL THERE"; exit 1; else echo "no file under .memory/ holds the item's text"; fi

step "done"
echo "the demo ran in a temporary repository, now removed."
