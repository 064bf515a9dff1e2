package retrieval

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/pulse"
)

// contract is a pasted document: prose, nothing in it reads as material
// line by line.
var contract = strings.Repeat("The Recipient shall hold the Discloser's confidential information in strict confidence for two years. ", 8)

// asking is a first paragraph of more than introWords words that asks.
var asking = "Could you go through the agreement below and flag anything risky for us, especially around indemnification and the liability cap, since our lawyer is away this week and we need to sign it by Friday morning?"

// request is a long request written in three paragraphs, none pasted.
var request = "Set up the release pipeline for the mobile app so that every merge to main builds a signed bundle, runs the unit and UI tests on two device profiles, and uploads the result to the internal track.\n\n" +
	"Also add a changelog step.\n\n" +
	"Finally, when the store review passes, promote the same build to production without rebuilding it, and post a summary with the version, the commit range and the test results to the release channel."

// noted is a request, a pasted log, then a labelled note of context.
var (
	notedLog     = "```\n22:41 alert OrderEventsConsumerLag > 50k\n22:44 on-call acks, lag growing 3k/min, consumers connected\n22:52 restart fulfillment-consumer, lag keeps growing\n23:05 max.poll.interval.ms exceeded, group rebalancing in a loop\n23:20 scale to 6 pods, rebalances every 40 s, lag 210k\n23:41 roll back the consumer image to the previous tag, no change\n00:10 raise max.poll.interval.ms to 15 minutes, the group settles\n00:35 lag drains back to zero, alert resolves\n```\n"
	notedRequest = "Incident notes from last night are below. I need two things: the blameless postmortem for the review on Friday, and an on-call runbook for consumer lag so that whoever is paged next time can fix it in ten minutes."
	noted        = notedRequest + "\n\n" + notedLog + "\nDashboards: grafana/d/kafka-lag, grafana/d/fulfillment. Escalation: platform on-call."
)

// wire is a request of one long paragraph, and handler a source file
// pasted below it in paragraphs, the last of them code.
var (
	wire = "Wire OpenTelemetry tracing into this checkout handler so that spans show up in Jaeger with context propagated to the downstream HTTP calls, and add Prometheus metrics for the request count and a latency histogram per route, plus the scrape config for it; keep the handler's behaviour the same and do not change its routes or its error codes in any way. It runs behind the gateway today."
	// keepClause is the constraint clause of wire (constraintClauses),
	// read beside the material pasted after it as in a typed request.
	keepClause  = "keep the handler's behaviour the same"
	handlerFunc = "func checkout(w http.ResponseWriter, r *http.Request) {\n\tresp, err := http.Post(inventoryURL+\"/reserve\", \"application/json\", body)\n\tif err != nil || resp.StatusCode != 200 {\n\t\thttp.Error(w, \"inventory unavailable\", 503)\n\t\treturn\n\t}\n\tw.WriteHeader(201)\n}\n"
	handler     = "package main\n\nimport (\n\t\"net/http\"\n)\n\n" + handlerFunc
)

func TestMaterialSpans(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string // the material, as text
	}{
		{name: "plain request", task: "Write a Dockerfile for the API and a CI workflow.", want: nil},
		{name: "two paragraphs of prose", task: "Our app is slow.\n\nCan you profile it and tell me why?", want: nil},
		{name: "fenced code", task: "What does this do?\n```\nfoo := bar()\n```\nExplain it line by line.", want: []string{"```\nfoo := bar()\n```\n"}},
		{name: "log paragraph", task: "Figure out what is going on:\n\n14:02 payments-api 5xx\n14:04 ack, looking\n14:07 pg primary at 100% CPU\n\nWrite the incident review.", want: []string{"14:02 payments-api 5xx\n14:04 ack, looking\n14:07 pg primary at 100% CPU\n"}},
		{name: "config paragraph", task: "services:\n  api:\n    build: ./api\n    ports: [\"8000:8000\"]\n\nWrite a production Dockerfile for ./api.", want: []string{"services:\n  api:\n    build: ./api\n    ports: [\"8000:8000\"]\n"}},
		{name: "quoted mail", task: "Got this:\n\n> Hi, can we meet on Friday?\n> Best, Kayla\n\nReply no thanks.", want: []string{"> Hi, can we meet on Friday?\n> Best, Kayla\n"}},
		{name: "a key: value line in prose is prose", task: "Context: we ship on Friday and the release notes are not written yet.\n\nDraft them.", want: nil},
		{name: "a document between an intro and the request", task: "Got this from legal:\n\n" + contract + "\n\nWhat am I agreeing to?", want: []string{contract + "\n"}},
		{name: "a document after the request", task: "Can you summarize this passage?\n\n" + contract, want: []string{contract}},
		{name: "a document before the request", task: contract + "\n\nWhat am I agreeing to, in plain English?", want: []string{contract + "\n"}},
		{name: "a short task is all instruction", task: "Got this from legal:\n\nThe Recipient shall hold it in confidence.\n\nWhat am I agreeing to?", want: nil},
		{name: "a request in paragraphs of its own", task: request, want: nil},
		{name: "a long first paragraph that asks", task: asking + "\n\n" + contract + "\n\nThanks!", want: []string{contract + "\n"}},
		{name: "inline code is no fence", task: "Quick question.\n```pdftotext report.pdf``` works fine locally.\n\nNow extract the tables from the PDF.", want: nil},
		{name: "a crontab", task: "# m h dom mon dow command\n*/15 * * * 1-5 /opt/jobs/sync.sh >> /var/log/sync.log 2>&1\n0 2 * * * /opt/jobs/backup_db.sh --email ops@acme.io\n\nWhat does this crontab do?", want: []string{"# m h dom mon dow command\n*/15 * * * 1-5 /opt/jobs/sync.sh >> /var/log/sync.log 2>&1\n0 2 * * * /opt/jobs/backup_db.sh --email ops@acme.io\n"}},
		{name: "a sentence naming a file and a flag is prose", task: "Run go test -race ./... on the api package and fix what fails.", want: nil},
		{name: "a build tool's output", task: "$ cargo build\n   Compiling api v0.3.0\nerror[E0308]: mismatched types\nhelp: consider borrowing here\n\nWhy does this not compile?", want: []string{"$ cargo build\n   Compiling api v0.3.0\nerror[E0308]: mismatched types\nhelp: consider borrowing here\n"}},
		{name: "a tool's lowercase diagnostics", task: "* Getting build dependencies for sdist...\nerror: Multiple top-level packages discovered in a flat-layout.\n\nFix the packaging.", want: []string{"* Getting build dependencies for sdist...\nerror: Multiple top-level packages discovered in a flat-layout.\n"}},
		// tsc underlines the code it quotes with tildes, indented as code:
		// no fence, which, never closed, made the request that follows
		// the paste material too.
		{name: "a compiler's placed diagnostics and underlines", task: "src/a.tsx:71:18 - error TS2339: Property 'dueDate' does not exist on type 'Invoice'.\n71       {row.dueDate}\n             ~~~~~~~\nsrc/b.ts:33:5 - error TS2322: Type 'string' is not assignable to type 'number'.\n33     baseURL: process.env.URL,\n       ~~~~~~~\n\nfix all of these so CI goes green", want: []string{"src/a.tsx:71:18 - error TS2339: Property 'dueDate' does not exist on type 'Invoice'.\n71       {row.dueDate}\n             ~~~~~~~\nsrc/b.ts:33:5 - error TS2322: Type 'string' is not assignable to type 'number'.\n33     baseURL: process.env.URL,\n       ~~~~~~~\n"}},
		// An underline indented less than four spaces (an error at
		// column 1) is no fence either: no line closes it.
		{name: "an underline no line closes", task: "src/app.test.ts:3:1 - error TS2582: Cannot find name 'describe'.\n\n3 describe('app', () => {\n  ~~~~~~~~\n\nFound 1 error.\n\nwrite a changelog entry for this", want: []string{"src/app.test.ts:3:1 - error TS2582: Cannot find name 'describe'.\n", "3 describe('app', () => {\n  ~~~~~~~~\n"}},
		{name: "a block in a list item closed deeper", task: "- first I ran:\n  ```\n  kubectl apply -f deploy.yaml\n      ```\n- then the pods crashlooped\n\nwrite the incident review for the outage", want: []string{"  ```\n  kubectl apply -f deploy.yaml\n      ```\n"}},
		{name: "diagnostics placed in files", task: "app.py:40: error: Incompatible types in assignment\nC:\\src\\App.cs(10,4): error CS1002: ; expected\nnode_modules/@types/x/index.d.ts:3:1 - error TS2300: Duplicate identifier\nlib/süß.py:1:1: E401 multiple imports on one line\n\nWhy does none of this build?", want: []string{"app.py:40: error: Incompatible types in assignment\nC:\\src\\App.cs(10,4): error CS1002: ; expected\nnode_modules/@types/x/index.d.ts:3:1 - error TS2300: Duplicate identifier\nlib/süß.py:1:1: E401 multiple imports on one line\n"}},
		{name: "requests that point at lines are the request", task: "Two things.\nsrc/App.tsx:12:5 extract this into a React component with its own hooks\nsrc/api.ts:40:1 write a jest test for this function", want: nil},
		{name: "a request after a placed line is the request", task: "tests/test_api.py:88: the assertion here is brittle, rewrite it with a pytest fixture", want: nil},
		{name: "a sentence about importing is prose", task: "import the customers from the old CRM into Salesforce\n\nand keep their owners", want: nil},
		{name: "a host and port at a line's start is prose", task: "example.com:8080 is down since the deploy.\n\nFind out why.", want: nil},
		{name: "npm's errors", task: "npm ERR! code ERESOLVE\nnpm ERR! Could not resolve dependency\n\nHow do I fix this install?", want: []string{"npm ERR! code ERESOLVE\nnpm ERR! Could not resolve dependency\n"}},
		{name: "a sentence that starts with a word like note is prose", task: "Note that the build fails on Windows only.\n\nFix it.", want: nil},
		// A request, the paste, then a labelled note of context: the note
		// weighs as a document's words, the request as the instruction.
		{name: "a labelled note after the paste", task: noted, want: []string{notedLog, "Dashboards: grafana/d/kafka-lag, grafana/d/fulfillment. Escalation: platform on-call."}},
		// A last paragraph that asks is the instruction, labelled or not,
		// and so is a long first one above what is mostly material (a
		// log): a pasted document is prose, and the user's own request
		// above a paste was weighed as a document's words.
		{name: "a labelled note that asks is the instruction", task: strings.Replace(noted, "Escalation: platform on-call.", "Which of these lags matter?", 1), want: []string{notedLog}},
		{name: "a request above a paste, then thanks", task: notedRequest + "\n" + notedLog + "\nThanks, no rush on this one.", want: []string{notedLog}},
		{name: "a shell script", task: "Harden this:\n\n#!/bin/bash\nmkdir $TARGET\ncd $TARGET\ngzip appdb.sql\nrm -rf $(ls -t | tail -n +8)\n\nIt deleted the wrong folder.",
			want: []string{"#!/bin/bash\nmkdir $TARGET\ncd $TARGET\ngzip appdb.sql\nrm -rf $(ls -t | tail -n +8)\n"}},
		{name: "a source file's opening lines", task: "Add tracing to this handler.\n\npackage main\n\nimport (\n\t\"net/http\"\n)\n\nvar paymentsURL = os.Getenv(\"PAYMENTS_URL\")\n",
			want: []string{"package main\n", "import (\n\t\"net/http\"\n)\n", "var paymentsURL = os.Getenv(\"PAYMENTS_URL\")\n"}},
		// A long request above a pasted file ends with the file: the file
		// is material, and the request, not its last paragraph, is the
		// instruction (the request weighed as a document's words, and
		// nothing as material: no paragraph was left to be the
		// instruction but the file's last one).
		{name: "a long request above a file in paragraphs", task: wire + "\n\n" + handler, want: []string{keepClause, " It runs behind the gateway today.", "package main\n", "import (\n\t\"net/http\"\n)\n", handlerFunc}},
		{name: "a long request and a short snippet", task: wire + " " + asking + "\n\n```\nx := 1\n```\n", want: []string{keepClause, " It runs behind the gateway today.", "```\nx := 1\n```\n"}},
		// Prose, not code: the second paragraph is context the request
		// states after it (contextSentences), at a document's weight.
		{name: "prose that starts like code is prose", task: "import the orders CSV into the warehouse, then let me know.\n\nIt costs $5 a run; from there import nothing else.", want: []string{"It costs $5 a run;"}},
		// A request that states context after what it asks: the stating
		// sentences are material; a statement before the ask is the
		// problem the request is about, and a question, a need, an
		// enumerated request or a first-person sentence is none.
		{name: "context after the request", task: "Create a Mongoose schema for orders. The orders arrive from Shopify webhooks.", want: []string{" The orders arrive from Shopify webhooks."}},
		{name: "done already, before the ask", task: "Two of the services already have Helm charts. Write a systemd unit for the third one.", want: []string{"Two of the services already have Helm charts."}},
		{name: "a number states", task: "Write the LogQL query for 5xx errors. 3 of the dashboards were moved to Grafonnet last sprint.", want: []string{" 3 of the dashboards were moved to Grafonnet last sprint."}},
		{name: "she states", task: "Write a birthday card for my sister. She likes dancing and her favorite food is potatoes in any form.", want: []string{" She likes dancing and her favorite food is potatoes in any form."}},
		{name: "two sentences of context", task: "Write React Testing Library tests for the SearchBox. It debounces input. Our design system is Tailwind.", want: []string{" It debounces input.", " Our design system is Tailwind."}},
		{name: "the problem before the request", task: "Our Redux store has 60 slices. Show me how to migrate one feature to a query cache.", want: nil},
		{name: "a need stated", task: "Add retries to the API client. We need a circuit breaker too.", want: nil},
		{name: "a question after the request", task: "Add retries to the API client. Is a circuit breaker worth it?", want: nil},
		{name: "an enumerated request", task: "Help me with two problems. The first one is to calculate the integral of x^2.", want: nil},
		{name: "no sentence asks", task: "In a park there is a fountain. A circular fountain has a radius of 3 meters.", want: nil},
		{name: "an ask with nothing to say", task: "Fix it. The login page is broken on Safari.", want: nil},
		{name: "an ask for a look", task: "Please take a look. Our workflows check out the fork's code with a write token.", want: nil},
		{name: "a further request stated", task: "Add Stripe checkout. The webhook events also have to be documented in our OpenAPI spec.", want: nil},
		{name: "a further part stated", task: "Draft the launch plan. The announcement email sequence is part of this too.", want: nil},
		// Around pasted material too, read without it: a log line is
		// neither an ask nor a statement.
		{name: "context beside a paste", task: "Add a NOT NULL column to shipments. Our Spring service runs Flyway on startup:\n\n```sql\nALTER TABLE shipments ADD COLUMN carrier_id bigint NOT NULL;\n```\n",
			want: []string{" Our Spring service runs Flyway on startup:\n", "```sql\nALTER TABLE shipments ADD COLUMN carrier_id bigint NOT NULL;\n```\n"}},
		{name: "a log's lines do not ask", task: "2025-03-12T09:14:01Z INFO Deploying container to the service\n2025-03-12T09:16:02Z WARN Received SIGTERM, shutting down\n\nIt runs fine locally with docker. What's wrong?",
			want: []string{"2025-03-12T09:14:01Z INFO Deploying container to the service\n2025-03-12T09:16:02Z WARN Received SIGTERM, shutting down\n"}},
		{name: "pull requests announced", task: "Write the changelog entry for 2.4.0 from these merged PRs:\n- #812 add a retention flag to the Kafka admin command\n- #815 fix the consumer group rebalance storm",
			want: []string{"\n- #812 add a retention flag to the Kafka admin command\n- #815 fix the consumer group rebalance storm"}},
		{name: "a gerund opens no ask", task: "Getting this after bumping a dependency:\n\n```\nERROR: no such package\n```\n\nWe build with Bazel using bzlmod.",
			want: []string{"```\nERROR: no such package\n```\n"}},
		{name: "next sprint says when", task: "Pull out the themes with supporting quotes. The PM will turn this into a PRD next sprint.", want: []string{" The PM will turn this into a PRD next sprint."}},
		{name: "next says what else", task: "Draft the launch plan. The announcement email sequence is next.", want: nil},
		{name: "context in a contraction", task: "Turn our response-time CSV into a Plotly histogram. We\u2019ll paste the chart into a PowerPoint deck later.", want: []string{" We\u2019ll paste the chart into a PowerPoint deck later."}},
		{name: "a part already done", task: "Handle the orders/create Shopify webhook and verify the HMAC. We store orders with Mongoose, but that part is already done.", want: []string{" We store orders with Mongoose, but that part is already done."}},
		{name: "context after a semicolon", task: "Write a multi-stage Dockerfile for our Next.js app; the build already happens in our GitHub Actions workflow.", want: []string{" the build already happens in our GitHub Actions workflow."}},
		{name: "an opener, then the request", task: "Please help me with our networking gear. A core switch port keeps flapping every few minutes and the counters show CRC errors. It is a Cisco Catalyst 9300 running IOS-XE.", want: nil},
		{name: "a fence inside a longer one", task: "Tidy this README:\n\n````\nRun it:\n```sh\nmake\n```\nThen deploy the whole service to production by hand.\n````\n\nKeep the headings.",
			want: []string{"````\nRun it:\n```sh\nmake\n```\nThen deploy the whole service to production by hand.\n````\n"}},
		{name: "a closing fence is only marks", task: "Look at this, please.\n\n```\nx := 1\n``` not a fence\n```\n\nWhy?", want: []string{"```\nx := 1\n``` not a fence\n```\n"}},
		{name: "a request right above a file", task: "write a changelog entry for this change\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n",
			want: []string{"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n"}},
		{name: "SQL", task: "Explain this:\n\nCREATE TABLE customers (\n  id SERIAL PRIMARY KEY,\n  email TEXT NOT NULL\n);\nSELECT email FROM customers WHERE id = 1;",
			want: []string{"CREATE TABLE customers (\n  id SERIAL PRIMARY KEY,\n  email TEXT NOT NULL\n);\nSELECT email FROM customers WHERE id = 1;"}},
		{name: "SQL's words in prose are prose", task: "Select the best option, then update the docs.\n\nFrom there, create table stakes for the launch.", want: nil},
		{name: "a file mentioned to attach it", task: "write a changelog entry for @db/schema.sql, please", want: []string{"@db/schema.sql,"}},
		{name: "a package scope, a handle and an address are the user's", task: "upgrade @angular/core, ask @ravi or bob@example.com", want: nil},
		{name: "a CSV row", task: "Forecast this:\n\n2024-03-01,plant-7,412.6\nsite,kwh,peak", want: []string{"2024-03-01,plant-7,412.6\nsite,kwh,peak"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range materialSpans(tt.task, pastedFiles(tt.task), nil) {
				got = append(got, tt.task[s.start:s.end])
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q; want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("got %q; want %q", got, tt.want)
				}
			}
		})
	}
}

func TestSymbolic(t *testing.T) {
	tests := []struct {
		name, line string
		want       bool
	}{
		{name: "a crontab line", line: "*/15 * * * 1-5 /opt/jobs/sync_inventory.sh >> /var/log/sync.log 2>&1", want: true},
		{name: "a table of figures", line: "P1  CMP-101  0.1  97.2  12%", want: true},
		{name: "a sentence", line: "Write a plain-English explanation of when each line runs (server is in UTC).", want: false},
		{name: "a sentence with a path and a flag", line: "Run go test -race ./... and fix what fails.", want: false},
		{name: "an apostrophe and a hyphen", line: "It's a read-only mount, isn't it?", want: false},
		{name: "two tokens are too few to tell", line: "2>&1 /opt", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := symbolic(tt.line); got != tt.want {
				t.Errorf("symbolic(%q): got %v; want %v", tt.line, got, tt.want)
			}
		})
	}
}

// TestMaterialWeighsLess: a word found only in pasted material weighs
// MaterialWeight of the same word in the instruction, and its evidence
// says so; a task that is all material is its own instruction, and one
// whose instruction no unit's words are in is not.
func TestMaterialWeighsLess(t *testing.T) {
	ix := testIndex(unit("nginx-config", "Tune nginx proxy settings"), unit("incident-review", "Write an incident review"))
	score := func(task, name string) (float64, string) {
		for _, e := range ix.evidence(ix.Analyze(task, nil), ix.ids[name], never) {
			if e.Terms[0] == "nginx" {
				return e.Weight, e.Source
			}
		}
		return 0, ""
	}
	inInstruction, src := score("tune the nginx proxy", "nginx-config")
	if src != "" {
		t.Errorf("instruction evidence: got source %q; want none", src)
	}
	pasted, src := score("Write the incident review for this:\n\n```\nupstream nginx timed out\n```\n", "nginx-config")
	if src != SourceMaterial {
		t.Errorf("pasted evidence: got source %q; want %q", src, SourceMaterial)
	}
	if pasted >= inInstruction {
		t.Errorf("got pasted weight %.3f, instruction %.3f; want the pasted one lower", pasted, inInstruction)
	}
	_, src = score("```\nupstream nginx timed out\n```\n", "nginx-config")
	if src != "" {
		t.Errorf("all material: got source %q; want none (the paste is the task)", src)
	}
	// An instruction none of whose words the catalog knows is still the
	// instruction: the paste weighs as material, as beside "review".
	if _, src = score("what does this do?\n\n```\nupstream nginx timed out\n```\n", "nginx-config"); src != SourceMaterial {
		t.Errorf("instruction of words no unit uses: got source %q; want %q", src, SourceMaterial)
	}
}

// TestPassingTerms: the terms a second unit may claim where another
// mentions them in passing are those of an instruction alone, outside the
// sentences that state (Query.passingTerms).
func TestPassingTerms(t *testing.T) {
	ix := testIndex(unit("state", "Manage React state with Redux"), unit("fetching", "Cache API responses"))
	tests := []struct {
		name, task string
		want       []string // some terms passing
		not        []string // some terms not
	}{
		{name: "an instruction alone", task: "Migrate the Redux store and cache the API responses.", want: []string{"migrat", "redux", "cach", "api"}},
		{name: "the problem stated before the ask", task: "Our Redux store caches API responses. Show me how to migrate them.", want: []string{"show", "migrat"}, not: []string{"redux", "cach", "api"}},
		{name: "context stated after the ask", task: "Migrate the Redux store. It caches API responses.", not: []string{"migrat", "cach"}},
		{name: "pasted material", task: "Migrate this:\n\n```\nconst store = createStore(reducer)\n```\n", not: []string{"migrat", "store"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ix.Analyze(tt.task, nil).passingTerms()
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("%q: got no %q among %v; want it", tt.task, w, got)
				}
			}
			for _, w := range tt.not {
				if got[w] {
					t.Errorf("%q: got %q among %v; want it not", tt.task, w, got)
				}
			}
		})
	}
}

// TestJoinedWordInMaterial: a term the catalog writes as one word and the
// task as two ("team_id" for "teamid") weighs where the task wrote it: in
// pasted code it is material, as its two words are.
func TestJoinedWordInMaterial(t *testing.T) {
	ix := testIndex(unit("team-settings", "Edit the teamid of an account"), unit("incident-review", "Write an incident review"))
	source := func(task string) (string, bool) {
		for _, e := range ix.evidence(ix.Analyze(task, nil), ix.ids["team-settings"], never) {
			if e.Terms[0] == "teamid" {
				return e.Source, true
			}
		}
		return "", false
	}
	if src, ok := source("Write the incident review for this:\n\n```\nSELECT * FROM reports WHERE team_id = 1\n```\n"); !ok || src != SourceMaterial {
		t.Errorf("pasted: got source %q (found %v); want %q", src, ok, SourceMaterial)
	}
	if src, ok := source("change the team id of the account\n\n```\nSELECT * FROM reports\n```\n"); !ok || src != "" {
		t.Errorf("in the instruction: got source %q (found %v); want none", src, ok)
	}
	// Written in the paste first and in the instruction after: the
	// instruction's.
	if src, ok := source("```\nSELECT * FROM reports WHERE team_id = 1\n```\n\nchange the team id of this account"); !ok || src != "" {
		t.Errorf("in the paste, then the instruction: got source %q (found %v); want none", src, ok)
	}
}

// TestMaterialWeights: a candidate's material weight is the sum of its
// positive evidence from pasted material, and a candidate with none is
// absent (Problem.Material, rule 10's material/3).
func TestMaterialWeights(t *testing.T) {
	cands := []Candidate{{Name: "a", Origin: OriginLexical}, {Name: "b", Origin: OriginLexical}, {Name: "c", Origin: OriginExplicit}}
	ev := map[string][]Evidence{
		"a": {{Weight: 1.5}, {Weight: 0.25, Source: SourceMaterial}, {Weight: 0.5, Source: SourceMaterial}, {Weight: -0.5, Source: SourceMaterial}},
		"b": {{Weight: 2}},
		"c": {{Weight: 1, Source: SourceMaterial}},
	}
	got := materialWeights(cands, ev)
	if len(got) != 1 || got["a"] != 0.75 {
		t.Errorf("got %v; want map[a:0.75]", got)
	}
	if got := materialWeights(cands[1:], ev); got != nil {
		t.Errorf("no material: got %v; want nil", got)
	}
}

func TestAnnouncedNotes(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string // the announced material, as text
	}{
		{"notes below", "Write the update from the notes below: shipped SSO, blocked on review. Keep it short.", []string{" shipped SSO, blocked on review"}},
		{"this email", "Reply to this email: we cannot make Friday.", []string{" we cannot make Friday"}},
		{"a list to the paragraph's end", "Summarize my notes:\n- shipped SSO\n- started billing\n\nThen draft the mail.", []string{"\n- shipped SSO\n- started billing"}},
		{"the request's parts", "Do the following: write a Dockerfile, add CI.", nil},
		{"a labelled start", "Notes: shipped SSO. Write the update.", nil},
		{"parts of a request", "Two audits before the release: the auth code and the payments code.", nil},
		{"nothing after the colon", "Summarize the notes below:", nil},
		{"a label after the request", "Help me write my self-review. Highlights: I led the Redis migration.", []string{" I led the Redis migration"}},
		{"a label first", "Highlights: I led the Redis migration. Write my self-review.", nil},
		{"another label", "Write the tests. Bonus: add a Dockerfile.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range announcedNotes(tt.task) {
				got = append(got, tt.task[m.start:m.end])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("announcedNotes(%q) (-want +got):\n%s", tt.task, diff)
			}
		})
	}
}

func TestConversionSources(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string // the sources, as text
	}{
		{"turn into", "Turn our latest blog post into a LinkedIn post.", []string{"our latest blog post"}},
		{"convert to", "convert this folder of PDFs to Markdown, then summarize it", []string{"this folder of PDFs"}},
		{"two", "Turn the notes into slides and convert the CSV into a chart.", []string{"the notes", "the CSV"}},
		{"no conversion", "Write a LinkedIn post about our blog.", nil},
		{"turn alone", "Turn on caching for the API.", nil},
		{"a phrasal verb", "Turn off debug logging to cut costs.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range conversionSources(tt.task) {
				got = append(got, tt.task[m.start:m.end])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("conversionSources(%q) (-want +got):\n%s", tt.task, diff)
			}
		})
	}
}

func TestFromSource(t *testing.T) {
	ix := negationIndex()
	q := ix.Analyze("Turn our latest blog post into a LinkedIn post.", nil)
	tests := []struct {
		name  string
		words []string
		want  bool
	}{
		{"a word of the source alone", []string{"blog"}, true},
		{"a phrase of the source", []string{"blog", "post"}, true},
		{"a word said again outside it", []string{"post"}, false},
		{"a word of the result", []string{"linkedin"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Evidence
			for _, w := range tt.words {
				e.Terms = append(e.Terms, Stem(w))
			}
			if got := q.fromSource(e); got != tt.want {
				t.Errorf("fromSource(%v): got %v; want %v", tt.words, got, tt.want)
			}
		})
	}
}

func TestOnlyModifier(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task, word string
		want             bool
	}{
		{"after a determiner, before a noun", "generate tests for the signup page", "signup", true},
		{"a possessive", "tighten the wording on our pricing page", "pricing", true},
		{"said as the thing", "help with signup", "signup", false},
		{"last word", "rework the signup", "signup", false},
		{"no determiner", "signup page tests", "signup", false},
		{"once as the thing", "fix the signup page and the signup", "signup", false},
		{"before a stop word", "the signup is slow", "signup", false},
		{"before no artifact", "improve my chess strategies", "chess", false},
		{"not said", "write the tests", "signup", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ix.Analyze(tt.task, nil).onlyModifier(Stem(tt.word)); got != tt.want {
				t.Errorf("onlyModifier(%q) in %q: got %v; want %v", tt.word, tt.task, got, tt.want)
			}
		})
	}
}

func TestCSVLines(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"service,march_usd,april_usd", true},
		{"Amazon EC2,41210.55,43870.12", true},
		{"AWS Secrets Manager,42.80,61.20", true},
		{"We use Redis, Postgres, and Kafka.", false},
		{"apples, pears, plums", false},
	}
	for _, tt := range tests {
		if got := structuredLine(tt.line); got != tt.want {
			t.Errorf("structuredLine(%q): got %v; want %v", tt.line, got, tt.want)
		}
	}
}

func TestConstraintClauses(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string // the constraint clauses, as text
	}{
		{"after a comma", "Translate the emails into Spanish, keeping the friendly tone.", []string{"keeping the friendly tone"}},
		{"a sentence of its own, up to the next request", "Translate it. Keep the markdown formatting and convert the units.", []string{"Keep the markdown formatting"}},
		{"after and", "Upgrade to React 18 and keep the tests green", []string{"keep the tests green"}},
		{"the request itself", "Keep our dependencies up to date", nil},
		{"inside a word", "Fix the housekeeping job", nil},
		{"inside a clause", "Why does the cache keep growing?", nil},
		{"the request after a statement", "Our deps are ancient. Keep them up to date with Dependabot.", nil},
		{"what the text to write keeps", "Write me a short reply that says no thanks but keeps the door open.", []string{"keeps the door open"}},
		{"a problem that keeps on", "The app starts but keeps crashing on Android.", nil},
		{"a problem the service has", "The signup service works but retains deleted users' data.", nil},
		{"after an invalid byte", "\x9c Fix it. Keep the tone", []string{"Keep the tone"}},
		{"a retention period", "Set up S3 lifecycle rules and retain application logs for one year.", nil},
		{"a list of what stays", "Bump the base image, but keep the Docker build and the Helm chart untouched.", []string{"keep the Docker build and the Helm chart untouched"}},
		{"after also", "Instrument the service with spans. also keep the log fields as they are", []string{"keep the log fields as they are"}},
		{"what to ignore", "Review this PR for leaks; ignore the flaky test failing in CI, it's known", []string{"ignore the flaky test failing in CI"}},
		{"what to skip", "Review the PR for injection, skip the style nits about the repositories", []string{"skip the style nits about the repositories"}},
		{"what to leave as it is", "Add latency histograms, also leave the alert rules untouched, on-call owns them", []string{"leave the alert rules untouched"}},
		{"leave asks for something", "Review the PR and leave comments on the risky parts", nil},
		{"what to ask before", "build the combobox, then ask me before running an audit on the whole site", []string{"ask me before running an audit on the whole site"}},
		{"do not touch", "Fix the build, but don't touch the Helm values", []string{"don't touch the Helm values"}},
		{"skip inside a clause", "Why did CI skip the integration tests?", nil},
		{"let me know asks", "Find job openings and let me know about discounts", nil},
		{"what to ask others", "draft the tutorial, then ask the team to review the flags in it", []string{"ask the team to review the flags in it"}},
		{"what a text mentions", "write my standup update, also mention the queue outage as a blocker", []string{"mention the queue outage as a blocker"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range constraintClauses(tt.task) {
				got = append(got, tt.task[m.start:m.end])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("constraintClauses(%q) (-want +got):\n%s", tt.task, diff)
			}
		})
	}
}

// TestPastimeTopics: the topic of a joke, a pun or a poem the task asks
// for weighs TopicWeight; the pastime's own word, and a pastime named
// rather than asked for, do not.
func TestPastimeTopics(t *testing.T) {
	tests := []struct {
		name, task string
		want       []string
	}{
		{"a joke", "tell me a joke about kubernetes", []string{"about kubernetes"}},
		{"a limerick, to the clause's end", "Write a limerick about regular expressions for the team's channel. Keep it short", []string{"about regular expressions for the team's channel"}},
		{"a few words between", "write a short poem for the team about on-call", []string{"about on-call"}},
		{"on", "a haiku on flaky tests", []string{"on flaky tests"}},
		{"too far", "write a joke for the new hires in the platform team about kubernetes", nil},
		{"another clause", "tell me a joke, then write about kubernetes", nil},
		{"a user story", "write a user story about checkout", nil},
		{"a thing named", "The joke bot on our Kafka cluster keeps reprocessing the same messages", nil},
		{"a thing in a game", "Make the riddle on the Godot door scene emit a signal", nil},
		{"me jokes", "give me jokes about helm", []string{"about helm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range pastimeTopics(tt.task) {
				got = append(got, tt.task[m.start:m.end])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pastimeTopics(%q) (-want +got):\n%s", tt.task, diff)
			}
		})
	}
}

// FuzzWholeLineChecks holds structuredLine's Go checks to the patterns
// they replaced, their specification: an alternative of the structured
// pattern that had to reach the end of a line ran its matcher over all of
// it.
func FuzzWholeLineChecks(f *testing.F) {
	specs := []struct {
		name  string
		check func(string) bool
		re    *regexp.Regexp
	}{
		{"shellVariable", shellVariable, regexp.MustCompile(`^.*\$(?:\{?[A-Za-z_]\w*|\()`)},
		{"listLine", listLine, regexp.MustCompile(`^\s{2,}\S.*[,(]$`)},
		{"csvLine", csvLine, regexp.MustCompile(`^[^,]*[^,\s](?:,[^,\s][^,]*){2,}$`)},
	}
	for _, s := range []string{"", "echo $HOME", "cost is $5", "${x}", "${1}", "$(date)", "a\n$x", "  foo(", "  foo,", "\t\tbar,", "  ,", "   x", "  x\ny,", "  \n  x,", " \v,",
		"Amazon EC2,41210.55,43870.12", "a, b, c", "a,b", "a,b,c", "a,,c,d", ",a,b", "a ,b,c", "a,b,c,", "a,b,\nc", "x\ny,z,w", "\u00e9,\u00e8,\u00ea"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, sp := range specs {
			if got, want := sp.check(s), sp.re.MatchString(s); got != want {
				t.Errorf("%s(%q): got %v; want %v", sp.name, s, got, want)
			}
		}
	})
}

// TestParagraphsStop: reading a pasted megabyte's lines looks at the
// deadline as it goes (it took 100 ms and more between two looks): with
// its context done, it reads no more than a pulse's few steps of them.
func TestParagraphsStop(t *testing.T) {
	task := "what does this log say?\n\n" + strings.Repeat("2024-05-01 12:00:01 INFO worker started\n", 10000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	paras := paragraphs(task, nil, pulse.New(ctx))
	read := 0
	for _, p := range paras {
		read = max(read, int(p.end))
	}
	if read >= len(task)/10 {
		t.Errorf("got %d of %d bytes read with the context done; want a few lines", read, len(task))
	}
	if whole := paragraphs(task, nil, nil); len(whole) == 0 || int(whole[len(whole)-1].end) != len(task) {
		t.Errorf("without a pulse: got %v; want every line read", whole)
	}
	// Long lines: fifteen of 64 KiB are fewer steps than a pulse takes
	// between two looks at the context, and were all read.
	long := "summarize this\n\n" + strings.Repeat("let x: "+strings.Repeat("word ", 64<<10/5)+"\n", 15)
	paras = paragraphs(long, nil, pulse.New(ctx))
	read = 0
	for _, p := range paras {
		read = max(read, int(p.end))
	}
	if read >= len(long)/4 {
		t.Errorf("long lines: got %d of %d bytes read with the context done; want at most a piece", read, len(long))
	}
}

// TestPointedDocumentEnd: a short request that points at what follows
// leaves the last paragraph to the pasted document when it reads as a
// section of it, not when it is more of the request.
func TestPointedDocumentEnd(t *testing.T) {
	article := "Acme raised its prices in March, and the sales team has had a hard quarter since. Customers on the old plan were moved to the new tiers without notice, and support tickets doubled in two weeks.\n\n" +
		"The new tiers bundle reporting with seats, which small teams do not need. Several of them wrote that they would leave at renewal, and two already did, citing the bundle and the notice.\n\n"
	tests := []struct {
		name, last string
		document   bool
	}{
		{name: "a section with a heading", last: "Method\n1. Heat the oil in a large pot over medium heat, add the onion, carrot and celery and cook them for ten minutes until soft, stirring now and then.\n2. Add the garlic and the lentils, pour in the stock and simmer for half an hour.", document: true},
		{name: "a list", last: "- follow up with the two customers who left and ask what would bring them back\n- draft the notice template for the next change and send it to legal for a review", document: true},
		{name: "more of the request", last: "Focus on the parts about pricing and write it for a non-technical audience in three bullet points, keeping the names of the customers out of it entirely."},
		{name: "speaking to the assistant", last: "- keep it short and tell me which of the points the sales team should hear first, and which can wait for the quarterly review next month"},
		{name: "a few words", last: "- keep it short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := "summarize this for the team\n\n" + article + tt.last
			paras := paragraphs(task, nil, nil)
			document(task, paras)
			if got := paras[len(paras)-1].document; got != tt.document {
				t.Errorf("last paragraph a document's: got %v; want %v", got, tt.document)
			}
		})
	}
}
