package retrieval

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAnalyzeInPieces checks that splitting a long task in pieces, to look
// at the deadline between them, finds the same words as one scan, and that
// every word's span holds it.
func TestAnalyzeInPieces(t *testing.T) {
	ix := negationIndex()
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("aZé\u0301ß'\u2019`\u02bc \t\n.,-K\u212a9")
	var b strings.Builder
	for b.Len() < 5*scanPiece {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	task := b.String()
	q := ix.Analyze(task, nil)
	if want := Words(task); !slices.Equal(q.words, want) {
		t.Fatalf("got %d words; want %d, as Words finds them", len(q.words), len(want))
	}
	for i, sp := range q.spans {
		if got := Words(task[sp.start:sp.end]); len(got) != 1 || got[0] != q.words[i] {
			t.Fatalf("word %d: span %v holds %q; want %q", i, sp, got, q.words[i])
		}
	}
}

// FuzzAnalyze reads arbitrary tasks: analysis, negation, scoring and
// evidence must not panic, every word's span must hold the word, and every
// unit's evidence must add up to its score.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"don't use deploy or code-review.", "avoid tdd, deploy and/or code review bot", "no. tdd", "neither `tdd` nor \u201cdeploy\u201d", "don\u02bct use code-review-bot;",
		"别用 deploy 或 tdd，帮我部署", "tddやdeployは使わないで", "tdd는 쓰지 말고, 배포해 줘", "不要跳过tdd的步骤",
		"Write the update from the notes below: shipped tdd, blocked on deploy.", "Summarize my notes:\n- tdd\n- deploy\n\nThen mail it.", "Turn our deploy notes into a tdd plan.", "it has no tdd at all", "tests for the tdd page, then the tdd", "deploy it, keeping tdd and keep deploy. Keep",
		"Translate this into German: 'Deploy the tdd.'", "fails with ‘tdd’ then 'deploy.", "go over the tdd. Go through deploy, what could go wrong",
		"Write a reply that declines but keeps tdd", "keep tdd and deploy untouched", "and retain deploy logs for 90 days", "it rolls back deploy",
		"/deploy staging, but no deploy to prod", " $tdd the parser; then deploy", "/deploy\n```\nlog\n```", "/deploy。然后 tdd", "/tdd",
		"review it but please just really don't", "but", "without deploying", "never merge without deploying tdd", "don't deploy, why?", "Don't deploy it, and can you", "you shouldn't", "let's not"} {
		f.Add(s)
	}
	ix := negationIndex()
	f.Fuzz(func(t *testing.T, task string) {
		q := ix.AnalyzeWith(task, AnalyzeOptions{Commands: true}, nil)
		end := int32(0)
		for i, sp := range q.spans {
			if sp.start < end {
				t.Fatalf("word %d: span %v overlaps the one before, which ends at %d", i, sp, end)
			}
			end = sp.end
			if w := q.words[i]; utf8.RuneCountInString(w) == 2 && scriptOf([]rune(w)[0]) == scriptHan {
				// A pair of Han characters spans its first character,
				// the last pair of a run both (appendHan).
				if !strings.HasPrefix(task[sp.start:], w) || int(sp.end) > int(sp.start)+len(w) {
					t.Fatalf("word %d: span %v of %q; want within the pair", i, sp, w)
				}
				continue
			}
			if got := Words(task[sp.start:sp.end]); len(got) != 1 || got[0] != q.words[i] {
				t.Fatalf("word %d: span %v holds %q; want %q", i, sp, got, q.words[i])
			}
		}
		q.Negations()
		for _, r := range q.Refusals() {
			if len(r) > maxWrittenBytes+len(" \u2026") {
				t.Fatalf("refusal %q: over %d bytes", r, maxWrittenBytes)
			}
		}
		if v, ok := q.Command(); ok && (!strings.Contains(task, v.Said) || !strings.Contains(task[strings.Index(task, v.Said)+len(v.Said):], v.Args)) {
			t.Fatalf("command %+v: not in the task, its arguments after its name", v)
		}
		for _, st := range q.stems {
			q.fromSource(Evidence{Terms: []string{st}})
			q.onlyModifier(st)
		}
		scores, _ := ix.score(q, never)
		for id := range ix.units {
			var sum float64
			for _, e := range ix.evidence(q, int32(id), never) {
				sum += e.Weight
			}
			if d := sum - scores[id]; d > 1e-9 || d < -1e-9 {
				t.Fatalf("unit %d: evidence sums to %g; want the score %g", id, sum, scores[id])
			}
		}
	})
}

// TestJoinedWords: two task words the catalog writes as one word are that
// word ("Chuck Norris" for "chucknorris"), unless a stop word, a clause
// break or a negation stands in the way.
func TestJoinedWords(t *testing.T) {
	ix := testIndex(
		unit("chucknorris-io", "Random jokes from the chucknorris archive."),
		unit("wifi-scan", "List wifi networks nearby."),
		unit("weather", "Forecasts for a city."),
	)
	tests := []struct {
		name, task, term string
		want             bool
	}{
		{name: "two words", task: "a Chuck Norris joke", term: "chucknorris", want: true},
		{name: "hyphen", task: "is the Wi-Fi up", term: "wifi", want: true},
		{name: "clause break", task: "chuck, norris", term: "chucknorris"},
		{name: "unknown to the catalog", task: "chuck berry", term: "chuckberry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			if _, got := slices.BinarySearch(q.uniqueTerms, tt.term); got != tt.want {
				t.Errorf("%q holds %q: got %v; want %v", tt.task, tt.term, got, tt.want)
			}
		})
	}
}

// TestQuotedValueMasked: words between double quotation marks are a value
// the task passes, evidence for no unit, unless the quoted span is a
// unit's whole name or every content word of the task is quoted.
func TestQuotedValueMasked(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task string
		want       string // the task's stems, masked ones as "_"
	}{
		{name: "straight quotes", task: `review the "linter config" draft`, want: "review the _ _ draft"},
		{name: "curly quotes", task: "review the \u201clinter config\u201d draft", want: "review the _ _ draft"},
		{name: "each pair", task: `tag "alpha" and "beta" builds`, want: "tag _ and _ build"},
		{name: "an unpaired mark quotes nothing", task: `find the "Immigration Act.`, want: "find the immigrat act"},
		{name: "a unit's whole name", task: `run "code-review" now`, want: "run code review now"},
		{name: "the whole task quoted", task: `"Can you review the linter config?"`, want: "can you review the linter config"},
		{name: "the instruction quoted whole below a paste", task: "```\nFROM alpine\n```\n\"review the linter config\"", want: "from alpin review the linter config"},
		{name: "negated name stays masked", task: `don't use deploy, tag "alpha" builds`, want: "_ _ _ tag _ build"},
		{name: "a sentence in single quotes to translate", task: "translate into German: 'The linter config is done.'", want: "translat into german _ _ _ _ _"},
		{name: "a sentence in curly single quotes to translate", task: "translate into German: \u2018The linter config is done.\u2019", want: "translat into german _ _ _ _ _"},
		{name: "a quoted error is what the task is about", task: "the build fails with 'linter config is broken.'", want: "the build fail with linter config is broken"},
		{name: "a relayed instruction", task: "my lead said: 'review the linter config.'", want: "my lead said review the linter config"},
		{name: "a term in single quotes", task: "translate the 'monthly active customers' label", want: "translat the month activ customer label"},
		{name: "apostrophes quote nothing", task: "translate the users' linter config, it's done.", want: "translat the user linter config its done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maskedStems(ix, tt.task); got != tt.want {
				t.Errorf("stems of %q: got %q; want %q", tt.task, got, tt.want)
			}
		})
	}
}

// TestVerbGoMasked: the verb "go" is evidence for no unit; the language
// Go stays evidence.
func TestVerbGoMasked(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task string
		want       string // the task's stems, masked ones as "_"
	}{
		{name: "before a particle", task: "first go over this change", want: "first _ over this chang"},
		{name: "at a sentence's start", task: "Go through the review.", want: "_ through the review"},
		{name: "after a modal", task: "what could go wrong", want: "what could _ wrong"},
		{name: "the language in a sentence", task: "review our Go service", want: "review our go servic"},
		{name: "the language before a preposition", task: "write it in Go for speed", want: "write it in go for speed"},
		{name: "a command", task: "run go vet on it", want: "run go vet on it"},
		{name: "the language after to", task: "port the service from python to go", want: "port the servic from python to go"},
		{name: "the language first in a list", task: "Go and Rust services", want: "go and rust servic"},
		{name: "the language before a preposition at the start", task: "Go on Lambda starts slowly", want: "go on lambda start slowli"},
		{name: "a command before a particle", task: "go get fails with a checksum mismatch", want: "go get fail with a checksum mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maskedStems(ix, tt.task); got != tt.want {
				t.Errorf("stems of %q: got %q; want %q", tt.task, got, tt.want)
			}
		})
	}
}

// maskedStems is the stems of task as ix analyses it, a masked word (one
// that is evidence for no unit) as "_".
func maskedStems(ix *Index, task string) string {
	q := ix.Analyze(task, nil)
	got := make([]string, len(q.stems))
	for i, s := range q.stems {
		if got[i] = s; s == "" {
			got[i] = "_"
		}
	}
	return strings.Join(got, " ")
}

// TestRefusedWordsMasked: the object of a cue that turns a thing away
// ("instead of", "rather than", a bare "not", "never use") is evidence for
// no unit when it names none: "deploy with systemd instead of kubernetes"
// routed the Kubernetes skill on the word refused. "without", "no" and
// "avoid" name a thing to avoid as often as one refused ("without
// downtime"), and keep their words.
func TestRefusedWordsMasked(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task string
		want       string // the task's stems, masked ones as "_"
	}{
		{name: "instead of", task: "deploy with systemd instead of kubernetes", want: "deploy with systemd instead of _"},
		{name: "rather than, after an article", task: "deploy with systemd rather than a kubernetes cluster", want: "deploy with systemd rather than a _ _"},
		{name: "a bare not", task: "review the diff for security, not style", want: "review the diff for securiti not _"},
		{name: "shouldn't use", task: "deploy it, we shouldn't use kubernetes", want: "deploy it _ _ _ _"},
		{name: "an object that goes on is no object", task: "use polars instead of pandas to analyze it", want: "use polar instead of _ to analyz it"},
		{name: "too long an object", task: "use a queue instead of polling the orders database every minute", want: "use a queue instead of poll the order databas everi minut"},
		{name: "without keeps its words", task: "deploy without downtime", want: "deploy without downtim"},
		{name: "avoid keeps its words", task: "review the orders service and avoid slow queries", want: "review the order servic and avoid slow queri"},
		{name: "a comma right after the cue", task: "review it, not, deploy", want: "review it not deploy"},
		{name: "not only", task: "not only review but also deploy", want: "not onli review but also deploy"},
		// A refusal after "but" or "yet" opens a clause of its own.
		{name: "but don't", task: "review the diff but don't deploy", want: "review the diff but _ _"},
		{name: "but do not", task: "review the diff but do not deploy", want: "review the diff but _ _ _"},
		{name: "yet never", task: "review the diff yet never deploy it", want: "review the diff yet _ _ _"},
		{name: "but please don't", task: "review the diff but please don't deploy", want: "review the diff but pleas _ _"},
		// A negation that states or asks keeps its words.
		{name: "but never and a verb in -s", task: "the build passes but never deploys to staging", want: "the build pass but never deploy to stage"},
		{name: "but don't know", task: "I read the docs but don't know how to deploy", want: "i read the doc but dont know how to deploy"},
		{name: "a question", task: "don't you think we should deploy today?", want: "dont you think we should deploy today"},
		{name: "without a doubt", task: "Without a doubt we need to deploy today", want: "without a doubt we need to deploy today"},
		{name: "a question after", task: "tests are green yet never deploy, why?", want: "test are green yet never deploy why"},
		{name: "a worry", task: "I don't want to lose data, so back it up first", want: "i dont want to lose data so back it up first"},
		// A gerund of a one-word name after a refuser is masked.
		{name: "without a gerund of a name", task: "review the diff without deploying", want: "review the diff without _"},
		{name: "avoid a gerund of a name", task: "review the diff, avoid deploying it", want: "review the diff avoid _ it"},
		{name: "a subordinate clause", task: "Do not break the public API while you refactor the auth module", want: "_ _ _ _ _ _ while you refactor the auth modul"},
		{name: "you shouldn't", task: "review the diff but you shouldn't deploy it", want: "review the diff but _ _ _ _"},
		{name: "we must not", task: "review the diff, we must not deploy it", want: "review the diff _ _ _ _ _"},
		{name: "let's not", task: "review the diff but let's not deploy it", want: "review the diff but _ _ _ _"},
		{name: "for now", task: "review the diff but for now don't deploy", want: "review the diff but for now _ _"},
		{name: "no need to", task: "review the diff, no need to deploy it", want: "review the diff _ _ _ _ _"},
		{name: "there's no need to", task: "review the diff but there's no need to deploy", want: "review the diff but _ _ _ _ _"},
		{name: "no need to, then what you do", task: "No need to ask before you deploy to staging", want: "_ _ _ _ befor you deploy to stage"},
		{name: "we can't states", task: "review the diff, we can't deploy it yet", want: "review the diff we cant deploy it yet"},
		{name: "three leads after but", task: "review it but please just really don't deploy", want: "review it but pleas just real _ _"},
		{name: "a plain verb in -ed", task: "fix the loader. Don't embed the files", want: "fix the loader _ _ _ _"},
		{name: "a question of its own after", task: "Don't deploy it, and can you explain this error?", want: "_ _ _ and can you explain this error"},
		{name: "without and no gerund", task: "Without string escaping, deploy it", want: "without str escap deploy it"},
		{name: "a noun in -ing after until", task: "don't merge until everything passes", want: "_ _ _ _ _"},
		{name: "a refused gerund negated", task: "never merge without deploying", want: "never merg without deploy"},
		{name: "don't skip a gerund", task: "don't skip deploying", want: "dont skip deploy"},
		{name: "a concession", task: "it starts fine locally, not with tdd notes though", want: "it start fine local not with tdd note though"},
		{name: "a clause of what happens meanwhile", task: "don't deploy until the backup finishes", want: "_ _ _ _ _ _"},
		{name: "a double negation still", task: "don't merge unless it passes", want: "dont merg unless it pass"},
		{name: "a plural after no", task: "review the code, no deploys please", want: "review the code no _ pleas"},
		{name: "a plural after a stated no", task: "the repo has no deploys yet", want: "the repositori has no deploy yet"},
		{name: "a gerund after no", task: "review the code, no deploying for now", want: "review the code no _ for now"},
		{name: "I'd rather not", task: "review the code but I'd rather not deploy", want: "review the code but _ _ _ _"},
		{name: "we would rather not", task: "review the code, we would rather not deploy", want: "review the code _ _ _ _ _"},
		{name: "hold off on", task: "review the code but hold off on the deploy notes", want: "review the code but _ _ _ _ _ _"},
		{name: "a plural before a verb of being", task: "no deploys were made this week", want: "no deploy were made this week"},
		{name: "a gerund of no name", task: "fix it without cloning the vec", want: "fix it without clone the vec"},
		{name: "a gerund after no refuser", task: "review the deploying script", want: "review the deploy script"},
		// "without" and a gerund name a way to avoid as often as an
		// act refused ("fix the borrow error without cloning the vec").
		{name: "without a gerund keeps its words", task: "fix the borrow error without cloning the vec", want: "fix the borrow error without clone the vec"},
		{name: "a wish about a thing", task: "I don't want the deploy notes to be long", want: "i dont want the deploy note to be long"},
		{name: "but don't forget", task: "review the diff but don't forget to deploy", want: "review the diff but dont forget to deploy"},
		{name: "but as a fact", task: "it builds but the deploy fails", want: "it build but the deploy fail"},
		// An object a unit's name does not end refuses no unit, and is
		// still turned away.
		{name: "a name that does not end the object", task: "run the tests but not a tdd session", want: "run the test but not a _ _"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := maskedStems(ix, tt.task); got != tt.want {
				t.Errorf("stems of %q: got %q; want %q", tt.task, got, tt.want)
			}
		})
	}
}

// TestRefusals: the clauses an imperative negation opens are said back
// as the task writes them, for the explanation.
func TestRefusals(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task string
		want       []string
	}{
		{name: "after but", task: "review the diff but don't deploy it", want: []string{"don't deploy it"}},
		{name: "a whole task", task: "Don't deploy to production.", want: []string{"Don't deploy to production"}},
		{name: "a double negation is none", task: "Never deploy on Fridays; do not skip tdd either.", want: []string{"Never deploy on Fridays"}},
		{name: "two", task: "Never deploy on Fridays; do not touch the schema.", want: []string{"Never deploy on Fridays", "do not touch the schema"}},
		{name: "a refused gerund", task: "review the diff without deploying", want: []string{"without deploying"}},
		{name: "cut after twelve words", task: "don't " + strings.Repeat(" ", 500000) + "deploy it one two three four five six seven eight nine ten eleven", want: []string{"don't deploy it one two three four five six seven eight nine \u2026"}},
		{name: "none", task: "review the diff", want: nil},
		// A dash set apart by blanks ends a clause as a full stop does
		// (a fresh task set: "staging db got corrupted again - don't
		// restore anything" kept the restore skill's words).
		{name: "after a spaced dash", task: "the db got corrupted again - don't deploy anything, just review the diff", want: []string{"don't deploy anything"}},
		{name: "after two dashes", task: "the db got corrupted again -- don't deploy anything", want: []string{"don't deploy anything"}},
		{name: "after an em dash", task: "the db got corrupted again—don't deploy anything", want: []string{"don't deploy anything"}},
		{name: "a hyphen joins", task: "the on-call don't deploy anything", want: nil},
		// Where a refusal ends (a red team of the dashes): a dash, a
		// line's end, a closing quote; not an en dash in a range.
		{name: "ends at a dash", task: "don't deploy - review the diff instead", want: []string{"don't deploy"}},
		{name: "ends at a line's end", task: "todo:\n- don't deploy\n- review the diff", want: []string{"don't deploy"}},
		{name: "ends at a closing quote", task: `the ticket "Deploy - don't panic" says to review the diff`, want: []string{"don't panic"}},
		{name: "runs over a range", task: "never run the 2\u20133 am deploy; review the diff", want: []string{"never run the 2\u20133 am deploy"}},
		{name: "runs over a spaced range", task: "never deploy from 2 - 4 am or review then", want: []string{"never deploy from 2 - 4 am or review"}},
		{name: "runs on to an or", task: "don't deploy - or review - until QA signs off", want: []string{"don't deploy - or review"}},
		{name: "after an en dash", task: "review the auth module\u2013don't deploy anything", want: []string{"don't deploy anything"}},
		// An order reported (a red team's task: "the on-call engineer
		// says don't roll back, deploy the fix" loaded the rollback).
		{name: "after says", task: "the on-call engineer says don't deploy, review the diff", want: []string{"don't deploy"}},
		{name: "after said", task: "QA said never deploy on Fridays", want: []string{"never deploy on Fridays"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			if got := q.Refusals(); !slices.Equal(got, tt.want) {
				t.Errorf("Refusals(%q): got %q; want %q", tt.task, got, tt.want)
			}
		})
	}
}
