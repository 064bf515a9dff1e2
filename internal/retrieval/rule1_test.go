package retrieval

// The tests in this file are the specification of rule 1 (evidence): each
// row is a claim of docs/how-a-compile-decides.md (rule 1 and "How
// negation (rule 5) reads the task") or of a doc comment in this package.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rlmc-dev/rlmc/internal/pulse"
	"github.com/rlmc-dev/rlmc/ir"
)

// unit is an indexable unit for tests.
func unit(name, desc string, aliases ...string) *ir.Unit {
	return &ir.Unit{Name: name, Description: desc, Aliases: aliases, Status: ir.StatusOK, Invocation: ir.InvocationAutomatic}
}

// trigger returns u with a trigger of kind and value at the default weight.
func trigger(u *ir.Unit, kind ir.TriggerKind, value string, weight int) *ir.Unit {
	u.Triggers = append(u.Triggers, ir.Trigger{Kind: kind, Value: value, Weight: weight})
	return u
}

// never is a stop function that never stops.
func never() bool { return false }

// testIndex indexes units as a catalog the loader would build.
func testIndex(units ...*ir.Unit) *Index {
	return Build(ir.NewCatalog(nil, units, nil), nil)
}

func TestWords(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{name: "case folded", text: "Deploy The SERVICE", want: "deploy the service"},
		{name: "hack is not hacker", text: "read Hacker News", want: "read hacker news"},
		{name: "digits stay in the word", text: "unit9 unit99", want: "unit9 unit99"},
		{name: "hyphen is a boundary", text: "code-review", want: "code review"},
		{name: "slash and dollar invoke by name", text: "/tdd or $tdd", want: "tdd or tdd"},
		{name: "apostrophe inside a word is dropped", text: "don't", want: "dont"},
		{name: "apostrophe at the end is a boundary", text: "tests' x", want: "tests x"},
		{name: "apostrophe before a digit is a boundary", text: "rock'9", want: "rock 9"},
		{name: "kelvin sign folds to k", text: "\u212aelvin", want: "kelvin"},
		{name: "accented letters fold", text: "\u00c9COLE", want: "\u00e9cole"},
		{name: "combining mark stays in the word", text: "cafe\u0301 bar", want: "cafe\u0301 bar"},
		// Chinese, Japanese and Korean are read by script (cjk.go).
		{name: "a run of Han gives its pairs", text: "查询天气", want: "查询 询天 天气"},
		{name: "one Han character is a word", text: "写 code", want: "写 code"},
		{name: "a change of script ends a word", text: "帮我优化ClickHouse查询", want: "优化 clickhouse 查询"},
		{name: "Han grammar ends a run", text: "查询的性能", want: "查询 性能"},
		{name: "a character left beside grammar is no word", text: "我们是否", want: ""},
		{name: "a measure word and a preposition are grammar", text: "发个消息，在准备", want: "消息 准备"},
		{name: "hiragana is no word", text: "データベースのクエリを最適化して", want: "データベース クエリ 最適 適化"},
		{name: "katakana with its prolonged sound mark", text: "サーバー", want: "サーバー"},
		{name: "Hangul word whole", text: "쿼리를 최적화해줘", want: "쿼리를 최적화해줘"},
		{name: "Hangul against Latin", text: "SQL쿼리", want: "sql 쿼리"},
		{name: "full-width Latin is Latin", text: "优化ＣｌｉｃｋＨｏｕｓｅ２４", want: "优化 clickhouse24"},
		{name: "punctuation only", text: "... -- !!", want: ""},
		{name: "empty", text: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Words(tt.text), " "); got != tt.want {
				t.Errorf("Words(%q): got %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestFold(t *testing.T) {
	tests := []struct {
		name   string
		r      rune
		want   rune
		reason string
	}{
		{name: "ascii upper", r: 'K', want: 'k'},
		{name: "ascii lower", r: 'k', want: 'k'},
		{name: "kelvin sign", r: '\u212a', want: 'k'},
		{name: "long s", r: '\u017f', want: 's'},
		{name: "capital sigma", r: '\u03a3', want: '\u03c2'},
		{name: "small sigma", r: '\u03c3', want: '\u03c2'},
		{name: "final sigma", r: '\u03c2', want: '\u03c2'},
		{name: "sharp s stays", r: '\u00df', want: '\u00df'},
		{name: "capital sharp s", r: '\u1e9e', want: '\u00df'},
		{name: "ohm sign", r: '\u2126', want: '\u03c9'},
		{name: "digit", r: '7', want: '7'},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fold(tt.r); got != tt.want {
				t.Errorf("fold(%U): got %U; want %U", tt.r, got, tt.want)
			}
		})
	}
}

func TestStem(t *testing.T) {
	tests := []struct {
		name, word, want string
	}{
		{name: "hacker stays hacker", word: "hacker", want: "hacker"},
		// A Hangul word loses a particle or a request's ending, then its
		// own, and keeps two syllables.
		{name: "Hangul object marker", word: "쿼리를", want: "쿼리"},
		{name: "Hangul do it for me", word: "최적화해줘", want: "최적화"},
		{name: "Hangul longest ending", word: "서버에서는", want: "서버"},
		{name: "Hangul two syllables kept", word: "속도", want: "속도"},
		{name: "Hangul particle, then the word's own ending", word: "게이트웨이를", want: Stem("게이트웨이")},
		{name: "Hangul without ending", word: "데이터베이스", want: "데이터베이스"},
		{name: "plural s", word: "tests", want: "test"},
		{name: "ing", word: "testing", want: "test"},
		{name: "ing undoubles", word: "stopping", want: "stop"},
		{name: "ed undoubles", word: "stopped", want: "stop"},
		{name: "ll is kept", word: "calling", want: "call"},
		{name: "ies", word: "libraries", want: "librari"},
		{name: "final y after a consonant", word: "library", want: "librari"},
		{name: "final y after a vowel", word: "deploys", want: "deploy"},
		{name: "final y with no vowel before it", word: "sky", want: "sky"},
		{name: "short ies is a plural s", word: "ties", want: "tie"},
		{name: "sses", word: "classes", want: "class"},
		{name: "xes", word: "boxes", want: "box"},
		{name: "ches", word: "matches", want: "match"},
		{name: "shes", word: "pushes", want: "push"},
		{name: "ss stays", word: "class", want: "class"},
		{name: "us stays", word: "status", want: "status"},
		{name: "is stays", word: "basis", want: "basis"},
		{name: "a noun in sis", word: "analysis", want: "analys"},
		{name: "eed stays", word: "feed", want: "feed"},
		{name: "short ing stays", word: "sing", want: "sing"},
		{name: "three letters stay", word: "bus", want: "bus"},
		{name: "no ending", word: "deploy", want: "deploy"},
		{name: "news is not new", word: "news", want: "news"},
		{name: "invariant ies", word: "series", want: "series"},
		{name: "invariant ies 2", word: "species", want: "species"},
		{name: "a science in ics", word: "physics", want: "physics"},
		{name: "a singular in as", word: "alias", want: "alias"},
		{name: "paste is not past", word: "paste", want: "paste"},
		{name: "pasting is paste", word: "pasting", want: "paste"},
		{name: "pasted is paste", word: "pasted", want: "paste"},
		{name: "past stays", word: "past", want: "past"},
		{name: "ranging is range", word: "ranging", want: "range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stem(tt.word); got != tt.want {
				t.Errorf("Stem(%q): got %q; want %q", tt.word, got, tt.want)
			}
		})
	}
}

// TestStemFamilies checks that a word's inflections share one stem, with
// or without a silent e, and that words a final e tells apart stay apart.
func TestStemFamilies(t *testing.T) {
	same := [][]string{
		{"analyze", "analyzes", "analyzed", "analyzing"},
		{"summarize", "summarizes", "summarized", "summarizing"},
		{"create", "creates", "created", "creating"},
		{"write", "writes", "writing"},
		{"make", "makes", "making"},
		{"merge", "merges", "merged", "merging"},
		{"change", "changes", "changed", "changing"},
		{"code", "codes", "coded", "coding"},
		{"release", "releases", "released", "releasing"},
		{"hope", "hopes", "hoped", "hoping"},
		{"review", "reviews", "reviewed", "reviewing"},
		{"stop", "stops", "stopped", "stopping"},
		{"debug", "debugs", "debugged", "debugging"},
		{"fix", "fixes", "fixed", "fixing"},
		{"issue", "issues"},
		{"note", "notes"},
		{"state", "states"},
		{"bias", "biases"},
		{"alias", "aliases"},
		{"canvas", "canvases"},
		{"lens", "lenses"},
		{"metric", "metrics"},
		{"statistic", "statistics"},
		{"view", "views"},
		{"query", "queries", "queried", "querying"},
		{"copy", "copies", "copied", "copying"},
		{"policy", "policies"},
		{"movie", "movies"},
		{"calorie", "calories"},
		{"analysis", "analyses", "analyse"},
		{"diagnosis", "diagnoses", "diagnose"},
		{"hypothesis", "hypotheses", "hypothesise"},
		{"synthesis", "syntheses", "synthesise", "synthesised", "synthesising"},
		{"emphasis", "emphasise"},
		{"try", "tries", "tried"},
		{"dry", "dries", "dried"},
		{"study", "studies", "studied"},
		// Clipped forms meet the words they clip.
		{"deps", "dependencies", "dependency", "dep"},
		{"desc", "description"},
		{"repo", "repos", "repository", "repositories"},
		{"env", "environment"},
		{"db", "database", "databases"},
		{"perf", "performance"},
		{"k8s", "kubernetes"},
		{"gh", "github"},
		{"creds", "credentials", "credential"},
		{"cert", "certs", "certificate", "certificates"},
		// The nouns of verbs in -ize and -ate, and the -ise spellings.
		{"visualize", "visualizer", "visualizers", "visualization", "visualise", "visualisation", "visualizing"},
		{"optimize", "optimizer", "optimization", "optimizations", "optimise", "optimiser", "optimisation"},
		{"authorize", "authorization", "authorise", "authorisation"},
		{"analyze", "analyzer", "analyzers"},
		{"migrate", "migration", "migrations", "migrator", "migrating"},
		{"generate", "generator", "generators", "generation"},
		{"validate", "validator", "validation"},
		{"create", "creator", "creation"},
		{"translate", "translator", "translation"},
		{"automate", "automation"},
		{"integrate", "integration"},
		// The nouns in -sion of verbs in -de.
		{"decide", "decided", "decides", "deciding", "decision", "decisions"},
		{"conclude", "concluded", "conclusion", "conclusions"},
		{"include", "including", "inclusion"},
		{"exclude", "excluded", "exclusion", "exclusions"},
		{"divide", "division"},
		{"explode", "explosion"},
		{"invade", "invasion"},
		// A verb in -ize made of a noun in -er is that noun.
		{"container", "containers", "containerize", "containerized", "containerizing", "containerise", "containerization", "containerizer"},
		{"docker", "dockerize", "dockerized", "dockerise"},
		{"parameter", "parameterize", "parameterized"},
		// An adverb in -ly is its adjective.
		{"local", "locally"},
		{"manual", "manually"},
		{"recursive", "recursively"},
		{"successful", "successfully"},
		{"secure", "securely"},
		{"asynchronous", "asynchronously"},
		{"seamless", "seamlessly"},
		{"reliable", "reliably"},
		{"temporary", "temporarily"},
		{"week", "weekly"},
		{"night", "nightly"},
	}
	for _, family := range same {
		for _, w := range family[1:] {
			if a, b := Stem(family[0]), Stem(w); a != b {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q; want one stem", family[0], a, w, b)
			}
		}
	}
	apart := [][2]string{{"note", "not"}, {"state", "stats"}, {"hope", "hop"}, {"hoping", "hopping"}, {"site", "sit"}, {"file", "fil"}, {"rate", "rat"},
		{"news", "new"}, {"paste", "past"}, {"pasting", "past"}, {"range", "rang"}, {"sky", "ski"}, {"skies", "ski"}, {"spies", "spi"}, {"basis", "base"}, {"series", "sery"}, {"species", "specy"}, {"physics", "physic"},
		// Nouns in -ation and -ator too short to be a verb's, and nouns
		// of verbs that are other words.
		{"station", "stat"}, {"stations", "state"}, {"nation", "nat"}, {"ration", "rate"}, {"production", "product"}, {"documentation", "document"},
		{"analysis", "analyze"},
		{"provision", "provide"}, {"provisioning", "provided"}, {"vision", "vid"}, {"version", "verd"},
		// Verbs in -ize of nouns that do not end in -er.
		{"organize", "organ"},
		// Nouns in -ly and short -ly words are no adverbs.
		{"wholly", "whol"}, {"chilly", "chil"},
		{"supply", "sup"}, {"family", "fam"}, {"assembly", "assemble"}, {"anomaly", "anomal"}, {"early", "ear"}, {"apply", "app"}, {"daily", "day"}, {"authorize", "author"}, {"normalize", "normal"}, {"categorize", "category"}}
	for _, p := range apart {
		if Stem(p[0]) == Stem(p[1]) {
			t.Errorf("Stem(%q) = Stem(%q) = %q; want them apart", p[0], p[1], Stem(p[0]))
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{name: "stop words dropped", text: "please help me deploy the service", want: "deploy servic"},
		{name: "stems", text: "Running tests", want: "run test"},
		{name: "negation cues are stop words", text: "don't use tdd, avoid deploy, without review", want: "tdd deploy review"},
		{name: "inflected stop word", text: "I wanted to", want: ""},
		{name: "only stop words", text: "can you", want: ""},
		{name: "of the", text: "of the", want: ""},
		{name: "contractions of stop words", text: "I'm sure you're right; I've seen that's it", want: "sure right seen"},
		{name: "degree, frequency and time adverbs", text: "it is really much slower now and often fails already", want: "slower fail"},
		{name: "sentence adverbs, with -ly folded or not", text: "it currently fails and probably always did, basically", want: "fail"},
		{name: "thing words", text: "something is off with the way things deploy", want: "deploy"},
		{name: "wh-ever words and indefinite pronouns", text: "deploy whatever anyone merges, wherever", want: "deploy merg"},
		{name: "indefinite pronouns stay", text: "review someone else's change", want: "review someon els chang"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Terms(tt.text), " "); got != tt.want {
				t.Errorf("Terms(%q): got %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestHasContent(t *testing.T) {
	tests := []struct {
		name, text string
		want       bool
	}{
		{name: "i want", text: "i want", want: false},
		{name: "of the", text: "of the", want: false},
		{name: "can you", text: "can you", want: false},
		{name: "i wanted to", text: "i wanted to", want: false},
		{name: "a content word", text: "code review", want: true},
		{name: "one content word among stop words", text: "help me with the css", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hasContent(tt.text); got != tt.want {
				t.Errorf("hasContent(%q): got %v; want %v", tt.text, got, tt.want)
			}
		})
	}
}

func negationIndex() *Index {
	return testIndex(
		unit("deploy", "Deploy the service."),
		unit("code-review", "Review code changes."),
		unit("code-review-bot", "Run the review bot."),
		unit("tdd", "Test-driven development.", "red green"),
	)
}

// TestNegation is rule 5 as docs/how-a-compile-decides.md states it: the cues, the apostrophe
// forms, the longest name, lists, clause ends and articles.
func TestNegation(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task, want string
	}{
		{name: "do not use", task: "do not use tdd", want: "tdd"},
		{name: "don't use", task: "don't use tdd", want: "tdd"},
		{name: "dont use", task: "dont use tdd", want: "tdd"},
		{name: "not use", task: "please not use tdd", want: "tdd"},
		{name: "never use", task: "never use tdd", want: "tdd"},
		{name: "avoid", task: "avoid tdd", want: "tdd"},
		{name: "without", task: "fix it without tdd", want: "tdd"},
		// A gerund of a one-word name after a refuser refuses no unit:
		// its word is masked (TestRefusedWordsMasked).
		{name: "without a gerund", task: "review the diff without deploying", want: ""},
		{name: "no", task: "no tdd please", want: "tdd"},
		{name: "neither", task: "neither tdd", want: "tdd"},
		{name: "don't include", task: "write the commit message and don't include the tdd notes", want: "tdd"},
		{name: "do not load", task: "do not load tdd", want: "tdd"},
		{name: "never run", task: "never run deploy", want: "deploy"},
		{name: "skip", task: "fix it, skip tdd", want: "tdd"},
		{name: "exclude", task: "review it, exclude deploy", want: "deploy"},
		{name: "except", task: "any skill except deploy", want: "deploy"},
		{name: "don't need", task: "I don't need tdd here", want: "tdd"},
		{name: "no need for", task: "fix it, no need for tdd", want: "tdd"},
		{name: "wanting is no cue", task: "I don't want the tdd notes to be long", want: ""},
		// What a red team found read as no refusal.
		{name: "a bare not with a gerund", task: "write the function, not using tdd", want: "tdd"},
		{name: "a bare not with a means", task: "write the function, not with tdd", want: "tdd"},
		{name: "a bare not via", task: "ship it, but not via deploy", want: "deploy"},
		{name: "not using inside a clause", task: "why is the build not using deploy?", want: ""},
		{name: "not with inside a clause", task: "this does not work with tdd", want: ""},
		{name: "other than", task: "use any skill other than tdd", want: "tdd"},
		{name: "anything but", task: "anything but deploy, please", want: "deploy"},
		{name: "nothing but asks", task: "use nothing but tdd", want: ""},
		{name: "forget", task: "forget tdd, just write the code", want: "tdd"},
		{name: "forget about", task: "forget about the deploy skill", want: "deploy"},
		// "no" after a verb of having states what is missing.
		{name: "has no", task: "write one: the repo has no tdd at all right now", want: ""},
		{name: "there's no", task: "there's no tdd yet, set it up", want: ""},
		{name: "no after a comma", task: "write the service, no tdd", want: "tdd"},
		{name: "don't forget asks", task: "don't forget tdd", want: ""},
		{name: "forget a noun the name modifies", task: "forget the tdd notes", want: ""},
		{name: "instead of, then the choice", task: "instead of tdd use deploy", want: "tdd"},
		// What a second red team found refused wrongly.
		{name: "a bare not conceded", task: "The app starts fine locally, not with deploy though; can you debug it?", want: ""},
		{name: "other than opening a question", task: "Other than tdd, which test styles does this repo support?", want: ""},
		{name: "other than inside a clause", task: "pick any approach other than tdd", want: "tdd"},
		// A polite request is a refusal, however it is framed with "if".
		{name: "prefer if you don't", task: "I'd prefer if you don't use tdd here, just write the function", want: "tdd"},
		{name: "if you don't, that would be great", task: "If you don't use tdd for this, that would be great.", want: "tdd"},
		{name: "fine if you don't", task: "It's fine if you don't use deploy, I'll do it myself", want: "deploy"},
		{name: "if possible, don't use", task: "if possible, don't use tdd", want: "tdd"},
		{name: "cue is case-folded", task: "AVOID TDD", want: "tdd"},
		{name: "alias", task: "avoid red green", want: "tdd"},
		{name: "slash name", task: "avoid /tdd", want: "tdd"},
		{name: "dollar name", task: "never use $tdd", want: "tdd"},
		{name: "apostrophe U+2019", task: "don\u2019t use tdd", want: "tdd"},
		{name: "apostrophe U+2018", task: "don\u2018t use tdd", want: "tdd"},
		{name: "apostrophe U+02BC", task: "don\u02bct use tdd", want: "tdd"},
		{name: "apostrophe U+02B9", task: "don\u02b9t use tdd", want: "tdd"},
		{name: "apostrophe U+2032", task: "don\u2032t use tdd", want: "tdd"},
		{name: "apostrophe U+00B4", task: "don\u00b4t use tdd", want: "tdd"},
		{name: "apostrophe backtick", task: "don`t use tdd", want: "tdd"},
		{name: "apostrophe U+FF07", task: "don\uff07t use tdd", want: "tdd"},
		{name: "longest name wins", task: "do not use code-review-bot", want: "code-review-bot"},
		{name: "shorter name when the longer is not there", task: "do not use code-review today", want: "code-review"},
		{name: "X or Y", task: "fix the login bug. Don't use deploy or code-review.", want: "code-review deploy"},
		{name: "X, Y and Z", task: "avoid deploy, tdd and code-review", want: "code-review deploy tdd"},
		{name: "comma or", task: "avoid deploy, code-review, or tdd today", want: "code-review deploy tdd"},
		{name: "and/or", task: "don't use deploy and/or tdd", want: "deploy tdd"},
		{name: "X nor Y", task: "never use deploy nor code-review", want: "code-review deploy"},
		{name: "neither X nor Y", task: "use neither deploy nor the tdd skill", want: "deploy tdd"},
		{name: "longest name in a list", task: "no deploy or code-review-bot", want: "code-review-bot deploy"},
		{name: "alias in a list", task: "without deploy or red green", want: "deploy tdd"},
		{name: "slash lists", task: "avoid deploy/tdd", want: "deploy tdd"},
		{name: "ampersand lists", task: "avoid deploy & tdd", want: "deploy tdd"},
		{name: "quotes continue the clause", task: "don't use `deploy` or \u201ctdd\u201d", want: "deploy tdd"},
		{name: "emphasis continues the clause", task: "avoid **deploy** or _tdd_", want: "deploy tdd"},
		{name: "dash continues the clause", task: "avoid deploy - or tdd", want: "deploy tdd"},
		{name: "em dash continues the clause", task: "avoid deploy \u2014 or tdd", want: "deploy tdd"},
		{name: "en dash continues the clause", task: "avoid deploy\u2013or tdd", want: "deploy tdd"},
		{name: "one newline continues the clause", task: "avoid deploy\nor tdd", want: "deploy tdd"},
		{name: "blank line ends the clause", task: "avoid deploy\n\nor tdd", want: "deploy"},
		{name: "full stop ends the list", task: "Don't use deploy. Code-review the change", want: "deploy"},
		{name: "question mark ends the list", task: "avoid deploy? or tdd", want: "deploy"},
		{name: "exclamation mark ends the list", task: "avoid deploy! or tdd", want: "deploy"},
		{name: "colon ends the list", task: "avoid deploy: or tdd", want: "deploy"},
		{name: "semicolon ends the list", task: "do not use tdd; deploy it", want: "tdd"},
		{name: "bracket ends the list", task: "avoid deploy (or tdd)", want: "deploy"},
		{name: "cue in another clause", task: "Is it done? No. tdd is what I want", want: ""},
		{name: "full stop between cue and name", task: "avoid. tdd", want: ""},
		{name: "no connector, no list", task: "avoid deploy tdd style", want: "deploy"},
		{name: "a word that is no name ends the list", task: "no deploy or even tdd", want: "deploy"},
		{name: "article", task: "don't use the tdd skill", want: "tdd"},
		{name: "articles in the list", task: "don't use the deploy or the tdd", want: "deploy tdd"},
		{name: "either", task: "don't use either deploy or tdd", want: "deploy tdd"},
		{name: "two articles", task: "avoid any the tdd", want: "tdd"},
		{name: "three articles are too many", task: "avoid the the the tdd", want: ""},
		{name: "cue then nothing", task: "do not use", want: ""},
		{name: "name not after a cue", task: "use tdd", want: ""},
		{name: "name is whole words", task: "avoid tdds", want: ""},
		// Quantifiers, gerunds, intensifiers, interjections, colons and
		// wrapped names: the forms an audit found still selecting the
		// skill they refuse (issue 23, item 9).
		{name: "any of", task: "do not use any of tdd, deploy", want: "deploy tdd"},
		{name: "either of", task: "don't use either of deploy or tdd", want: "deploy tdd"},
		{name: "any of the", task: "avoid any of the deploy or tdd skills", want: "deploy tdd"},
		{name: "avoid using", task: "avoid using tdd", want: "tdd"},
		// A skill noun before the name, as after it (a red team's forms).
		{name: "the skill before the name", task: "do not use the skill tdd", want: "tdd"},
		{name: "skill before the name", task: "do not use skill tdd.", want: "tdd"},
		{name: "avoid the skill", task: "avoid the skill tdd", want: "tdd"},
		{name: "without the skill", task: "fix it without the skill tdd", want: "tdd"},
		{name: "the skills before a list", task: "do not use the skills tdd or deploy", want: "deploy tdd"},
		{name: "the tool before the name", task: "don't use the tool deploy", want: "deploy"},
		{name: "a skill noun before no name", task: "don't use the skill, use tdd", want: ""},
		{name: "refrain from using", task: "please refrain from using deploy", want: "deploy"},
		{name: "stay away from", task: "stay away from deploy", want: "deploy"},
		{name: "stop using", task: "stop using tdd", want: "tdd"},
		{name: "without using", task: "fix it without using tdd", want: "tdd"},
		{name: "without invoking a list", task: "ship it without invoking deploy or tdd", want: "deploy tdd"},
		{name: "skip running", task: "skip running deploy", want: "deploy"},
		{name: "except for", task: "any skill except for deploy", want: "deploy"},
		{name: "no need to use", task: "no need to use tdd", want: "tdd"},
		{name: "don't need to run", task: "you don't need to run deploy", want: "deploy"},
		{name: "don't want to use", task: "I don't want to use tdd", want: "tdd"},
		{name: "never ever use", task: "never ever use tdd", want: "tdd"},
		{name: "don't even load", task: "please don't even load deploy", want: "deploy"},
		{name: "do not really use", task: "do not really use tdd", want: "tdd"},
		{name: "interjection", task: "Do not, under any circumstances, use deploy", want: "deploy"},
		{name: "never, ever,", task: "never, ever, use tdd", want: "tdd"},
		{name: "colon after the cue", task: "exclude: deploy", want: "deploy"},
		{name: "colon then a list", task: "do not use: deploy, tdd", want: "deploy tdd"},
		{name: "colon after any of", task: "don't use any of: tdd, deploy", want: "deploy tdd"},
		{name: "parenthesised name", task: "don't use (deploy)", want: "deploy"},
		{name: "bracketed name", task: "don't use [deploy]", want: "deploy"},
		{name: "braced name", task: "don't use {deploy}", want: "deploy"},
		{name: "at name", task: "don't use @deploy", want: "deploy"},
		{name: "backticked name", task: "don't use `deploy`", want: "deploy"},
		{name: "single-quoted name", task: "don't use 'deploy'", want: "deploy"},
		{name: "bracket and backticks", task: "don't use (`deploy`)", want: "deploy"},
		{name: "at name in a list", task: "never use @deploy or @tdd", want: "deploy tdd"},
		{name: "parenthesised list", task: "don't use (deploy or tdd)", want: "deploy tdd"},
		{name: "each name bracketed", task: "avoid [deploy], [tdd]", want: "deploy tdd"},
		{name: "bracketed names joined", task: "avoid (deploy) or (tdd)", want: "deploy tdd"},
		{name: "positive then negative", task: "use tdd, don't use deploy", want: "deploy"},
		// Contracted modals read as their "not", a bridge may take an
		// object, and a modal opens a postfix refusal (a red team's
		// forms, every one selecting the skill it refused).
		{name: "shouldn't use", task: "you shouldn't use tdd", want: "tdd"},
		{name: "mustn't use", task: "you mustn't use tdd", want: "tdd"},
		{name: "can't use", task: "you can't use tdd", want: "tdd"},
		{name: "cannot use", task: "you cannot use tdd", want: "tdd"},
		{name: "won't need", task: "you won't need deploy", want: "deploy"},
		{name: "needn't run", task: "you needn't run deploy", want: "deploy"},
		{name: "don't want you to use", task: "I don't want you to use deploy", want: "deploy"},
		{name: "don't need them to run", task: "I don't need them to run deploy or tdd", want: "deploy tdd"},
		{name: "Y should not be used", task: "deploy should not be used here", want: "deploy"},
		{name: "Y shouldn't be used", task: "deploy shouldn't be used", want: "deploy"},
		{name: "Y must not be loaded", task: "tdd and deploy must not be loaded", want: "deploy tdd"},
		{name: "Y is not to be used", task: "tdd is not to be used", want: "tdd"},
		// What stays no negation.
		{name: "didn't run tells what went wrong", task: "why didn't CI run deploy?", want: ""},
		{name: "couldn't load tells what went wrong", task: "it couldn't load tdd", want: ""},
		{name: "can't ship without", task: "you can't ship without tdd", want: ""},
		{name: "Y can't be skipped", task: "tdd can't be skipped", want: ""},
		{name: "Y can't be run tells what went wrong", task: "deploy can't be run because the lock is held, help me", want: ""},
		{name: "Y won't be loaded tells what went wrong", task: "tdd won't be loaded by the hook", want: ""},
		{name: "Y should be used", task: "tdd should be used", want: ""},
		{name: "want you to use", task: "I want you to use tdd", want: ""},
		{name: "want with an object is no cue", task: "I don't want the tdd skill to be slow", want: ""},
		{name: "just is no intensifier", task: "don't just use tdd, run deploy too", want: ""},
		{name: "cue words across a sentence end", task: "Ready or not. Use tdd", want: ""},
		{name: "bare not takes no interjection", task: "If not, then, use tdd", want: ""},
		{name: "an interjection needs its closing comma", task: "do not, use tdd", want: ""},
		{name: "no worry", task: "do not worry, use tdd", want: ""},
		{name: "never mind", task: "never mind, use tdd", want: ""},
		{name: "no need to worry", task: "no need to worry, use tdd", want: ""},
		{name: "no colon after a bare no", task: "No: tdd is what I want", want: ""},
		{name: "full stop after the gerund", task: "avoid using. tdd", want: ""},
		{name: "closing bracket without an opening one", task: "avoid deploy) or tdd", want: "deploy"},
		{name: "bracket before a connector", task: "avoid (deploy) (or tdd)", want: "deploy"},
		// Double negation: a refuser in the scope of a negator in its
		// clause refuses nothing (a red team's forms).
		{name: "can't ship without", task: "we can't ship without tdd, use tdd and deploy to production", want: ""},
		{name: "never ... without", task: "never deploy to production without tdd", want: ""},
		{name: "don't ... without", task: "don't deploy without tdd", want: ""},
		{name: "I never ... without", task: "I never write code without tdd", want: ""},
		{name: "don't skip", task: "don't skip tdd", want: ""},
		{name: "cannot avoid", task: "we cannot avoid tdd here", want: ""},
		{name: "won't ... except", task: "I won't touch anything except tdd", want: ""},
		{name: "never stop using", task: "never stop using tdd", want: ""},
		{name: "don't leave out", task: "don't leave out tdd", want: ""},
		{name: "nothing ships without", task: "nothing ships without tdd", want: ""},
		{name: "use nothing except", task: "use nothing except tdd", want: ""},
		{name: "don't avoid", task: "don't avoid tdd", want: ""},
		{name: "don't ignore", task: "don't ignore tdd", want: ""},
		{name: "double negation through an interjection", task: "Do not, under any circumstances, skip tdd", want: ""},
		{name: "don't use ... without", task: "don't use deploy without tdd", want: "deploy"},
		{name: "don't want anything except", task: "I don't want any skill except tdd", want: ""},
		{name: "a comma ends the scope", task: "don't deploy, skip tdd", want: "tdd"},
		{name: "but ends the scope", task: "don't deploy but skip tdd", want: "tdd"},
		{name: "a full stop ends the scope", task: "Don't panic. Skip tdd", want: "tdd"},
		{name: "a far refuser is out of scope", task: "do not touch any of the files in the old legacy folder and skip tdd", want: "tdd"},
		{name: "negative concord refuses", task: "I don't want no tdd", want: "tdd"},
		// Postfix refusals.
		{name: "X, not Y", task: "use tdd, not deploy", want: "deploy"},
		{name: "(not Y)", task: "write tests first (not tdd)", want: "tdd"},
		{name: "bare not", task: "not tdd", want: "tdd"},
		{name: "but not Y", task: "use tdd but not deploy", want: "deploy"},
		{name: "not Y or Z", task: "use tdd, not deploy or code-review", want: "code-review deploy"},
		{name: "not Y, then a clause", task: "not tdd, deploy to production", want: "tdd"},
		{name: "Y is not needed", task: "tdd is not needed here, write tests first", want: "tdd"},
		{name: "Y isn't required", task: "tdd isn't required", want: "tdd"},
		{name: "the Y skill is unnecessary", task: "the tdd skill is unnecessary", want: "tdd"},
		{name: "Y and Z are not needed", task: "tdd and deploy are not needed", want: "deploy tdd"},
		{name: "Y is no longer needed", task: "tdd is no longer needed", want: "tdd"},
		{name: "Y is not really needed", task: "deploy is not really needed", want: "deploy"},
		{name: "postfix names start a clause", task: "use deploy, and tdd is not needed", want: "tdd"},
		// A name after a bare comma that a word goes on from opens a
		// clause of its own; one that ends the clause is listed.
		{name: "comma then a clause", task: "avoid tdd, deploy to production", want: "tdd"},
		{name: "comma then a last name", task: "avoid tdd, deploy", want: "deploy tdd"},
		{name: "don't want X, then a clause", task: "I don't want tdd, deploy to production", want: "tdd"},
		// New refusers.
		{name: "instead of", task: "instead of tdd, deploy to production", want: "tdd"},
		{name: "rather than", task: "rather than tdd, deploy to production", want: "tdd"},
		{name: "Y instead of X", task: "use deploy instead of tdd", want: "tdd"},
		{name: "instead of using", task: "instead of using tdd, run deploy", want: "tdd"},
		{name: "leave out", task: "leave out tdd", want: "tdd"},
		{name: "ignore", task: "ignore the tdd skill", want: "tdd"},
		{name: "don't bother with", task: "don't bother with tdd", want: "tdd"},
		{name: "don't want X", task: "I don't want tdd", want: "tdd"},
		{name: "do not want X or Y here", task: "I do not want tdd or deploy here", want: "deploy tdd"},
		// What stays no negation among the new forms.
		{name: "not only", task: "not only tdd but also deploy", want: ""},
		{name: "a question with not", task: "is tdd not the right one?", want: ""},
		{name: "or not", task: "whether or not tdd applies, deploy", want: ""},
		{name: "not before a modified noun", task: "not deploy-related, fix the tests", want: ""},
		{name: "is Y not needed?", task: "is tdd not needed?", want: ""},
		{name: "Y is not slow", task: "tdd is not slow", want: ""},
		{name: "Y is needed, not optional", task: "tdd is needed, not optional", want: ""},
		{name: "postfix names in a clause", task: "use deploy tdd is not needed", want: ""},
		{name: "no, use", task: "no, use tdd", want: ""},
		{name: "a comma after the cue ends it", task: "No, tdd is what I want", want: ""},
		{name: "ignore something else", task: "ignore the failing lint, use tdd", want: ""},
		{name: "ignore a noun the name modifies", task: "ignore the tdd warnings", want: ""},
		{name: "instead of no name", task: "instead of guessing, use tdd", want: ""},
		{name: "instead of a noun the name modifies", task: "instead of the deploy script, use tdd", want: ""},
		{name: "don't want X to be", task: "I don't want tdd to be slow", want: ""},
		{name: "don't want the X skill to be", task: "I don't want the tdd skill to be slow", want: ""},
		// What a skill makes, after its name, in what the user does not
		// want (a refusal set: "I don't want a changelog entry for this
		// one" loaded the changelog skill).
		{name: "don't want an X entry", task: "write the commit message; I don't want a tdd entry for this one", want: "tdd"},
		{name: "don't want an X run", task: "I do not want a deploy run today", want: "deploy"},
		{name: "don't want the X check to", task: "I don't want the tdd check to fail", want: ""},
		{name: "ignore the X file", task: "ignore the tdd file", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			got := make([]string, 0)
			for _, n := range q.Negations() {
				got = append(got, n.Unit)
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("negated in %q: got %q; want %q", tt.task, strings.Join(got, " "), tt.want)
			}
		})
	}
}

// TestNegationSaid checks the words quoted for a negation: as the task
// wrote them, on one line, and bounded.
func TestNegationSaid(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task, unit, want string
	}{
		{name: "cue and name", task: "please don't use tdd today", unit: "tdd", want: "don't use tdd"},
		{name: "list up to the name", task: "avoid deploy or the tdd", unit: "tdd", want: "avoid deploy or the tdd"},
		{name: "long list elided", task: "avoid deploy, code-review, deploy, code-review, deploy, code-review, deploy or tdd", unit: "tdd", want: "avoid \u2026 or tdd"},
		{name: "interjection quoted", task: "Do not, under any circumstances, use deploy", unit: "deploy", want: "Do not, under any circumstances, use deploy"},
		{name: "not negated", task: "avoid deploy", unit: "tdd", want: ""},
		{name: "postfix", task: "well, the tdd skill is not needed", unit: "tdd", want: "the tdd skill is not needed"},
		{name: "want", task: "I don't want tdd", unit: "tdd", want: "don't want tdd"},
		// As the task wrote it: capitals, apostrophes, punctuation.
		{name: "as written", task: "Please DON’T use TDD here", unit: "tdd", want: "DON’T use TDD"},
		{name: "postfix as written", task: "well, The TDD skill isn’t needed", unit: "tdd", want: "The TDD skill isn’t needed"},
		// A quote is one line: line breaks, tabs and long gaps between
		// words are one space.
		{name: "line break", task: "please don't\r\nuse tdd", unit: "tdd", want: "don't use tdd"},
		{name: "tabs", task: "avoid\t\ttdd", unit: "tdd", want: "avoid tdd"},
		{name: "long gap", task: "avoid" + strings.Repeat(" ", 100000) + "tdd", unit: "tdd", want: "avoid tdd"},
		{name: "short marks kept", task: "avoid deploy, or the tdd", unit: "tdd", want: "avoid deploy, or the tdd"},
		{name: "bare not", task: "use deploy (not tdd)", unit: "tdd", want: "not tdd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ix.Analyze(tt.task, nil).Negated(tt.unit); got != tt.want {
				t.Errorf("Negated(%q) in %q: got %q; want %q", tt.unit, tt.task, got, tt.want)
			}
		})
	}
}

// TestNegatedWordsAreNoEvidence: "the words of a negated name are masked
// before scoring: they are evidence for no unit, so "don't use
// code-review-bot" is no request for code-review".
func TestNegatedWordsAreNoEvidence(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task, unit string
		want             float64
	}{
		{name: "the longer name's words", task: "don't use code-review-bot", unit: "code-review", want: 0},
		{name: "the negated unit's own name", task: "avoid tdd", unit: "tdd", want: 0},
		{name: "the words outside the negation count", task: "avoid tdd; deploy", unit: "deploy", want: 9.0},
		{name: "a clause that refuses asks for nothing", task: "Do not deploy. Review the code.", unit: "deploy", want: 0},
		{name: "never opens a refusal", task: "never deploy on fridays; run tdd", unit: "deploy", want: 0},
		{name: "without opens a refusal", task: "without deploying anything, run tdd", unit: "deploy", want: 0},
		{name: "a refusal ends with its clause", task: "don't touch tdd, then deploy", unit: "deploy", want: 9.0},
		{name: "a fact keeps its words", task: "the deploy fails when I don't pin it", unit: "deploy", want: 9.0},
		{name: "a negation that asks keeps its words", task: "don't forget to deploy", unit: "deploy", want: 9.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			scores, _ := ix.score(q, never)
			got := scores[ix.ids[tt.unit]]
			if (tt.want == 0) != (got == 0) || (tt.want > 0 && got < CandidateFloor) {
				t.Errorf("score of %s for %q: got %.3f; want %v", tt.unit, tt.task, got, tt.want)
			}
		})
	}
}

// evidenceIndex holds one unit per kind of evidence the rule 1 table
// lists.
func evidenceIndex() *Index {
	review := unit("code-review", "Review code changes for bugs.", "peer check")
	trigger(review, ir.TriggerPhrase, "run the linters", ir.DefaultTriggerWeight)
	trigger(review, ir.TriggerPhrase, "audit pull requests", 200)
	trigger(review, ir.TriggerKeyword, "lint", ir.DefaultTriggerWeight)
	trigger(review, ir.TriggerObject, "pull request", ir.DefaultTriggerWeight)
	trigger(review, ir.TriggerVerb, "inspect", ir.DefaultTriggerWeight)
	review.NegativeTriggers = []string{"draft only"}
	styles := trigger(unit("css-tips", "Tips for css layout."), ir.TriggerObject, "stylesheet", ir.DefaultTriggerWeight)
	stop := unit("chatty", "Talk about anything.", "of the")
	return testIndex(review, styles, stop, unit("deploy", "Deploy the service."))
}

// TestEvidence is the rule 1 table of docs/how-a-compile-decides.md: what each kind of match adds,
// each once per unit.
func TestEvidence(t *testing.T) {
	ix := evidenceIndex()
	tests := []struct {
		name, task, unit, field string
		terms                   string
		want                    float64 // 0: no such evidence
	}{
		{name: "whole name", task: "a code review please", unit: "code-review", field: "name phrase", terms: "code review", want: 6},
		{name: "name once however often", task: "code review, code review", unit: "code-review", field: "name phrase", terms: "code review", want: 6},
		{name: "alias", task: "a peer check", unit: "code-review", field: "alias phrase", terms: "peer check", want: 5},
		// code-review weights "audit pull requests" 200 and "run the
		// linters" 100: its strongest trigger weighs as the default (+3),
		// the other half of it.
		{name: "multi-word trigger", task: "run the linters", unit: "code-review", field: "trigger phrase", terms: "run linter", want: 1.5},
		{name: "strongest trigger weighs as the default", task: "audit pull requests", unit: "code-review", field: "trigger phrase", terms: "audit pull request", want: 3},
		{name: "one-word trigger is no phrase", task: "lint", unit: "code-review", field: "trigger phrase"},
		{name: "bigram", task: "changes for bugs", unit: "code-review", field: "bigram", terms: "chang bug", want: 1.5},
		{name: "no bigram across a sentence end", task: "see the changes. Bugs are fine", unit: "code-review", field: "bigram"},
		{name: "no bigram across a comma", task: "the changes, bugs", unit: "code-review", field: "bigram"},
		{name: "object", task: "look at this pull request", unit: "code-review", field: "object", terms: "pull request", want: 0.75},
		{name: "action", task: "inspect it", unit: "code-review", field: "action", terms: "inspect", want: 0.375},
		{name: "object mismatch", task: "review the stylesheet code", unit: "code-review", field: "object mismatch", terms: "stylesheet", want: -6},
		{name: "no mismatch without evidence", task: "the stylesheet", unit: "code-review", field: "object mismatch"},
		{name: "not_when", task: "code review, draft only", unit: "code-review", field: "not_when", terms: "draft", want: -6},
		{name: "stop-word alias is no evidence", task: "one of the best", unit: "chatty", field: "alias phrase"},
		{name: "masked name is no phrase", task: "do not use code-review, look at bugs", unit: "code-review", field: "name phrase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			var got []Evidence
			for _, e := range ix.evidence(q, ix.ids[tt.unit], never) {
				if e.Field == tt.field && (tt.want == 0 || strings.Join(e.Terms, " ") == tt.terms) {
					got = append(got, e)
				}
			}
			switch {
			case tt.want == 0 && len(got) > 0:
				t.Errorf("%s evidence for %s in %q: got %v; want none", tt.field, tt.unit, tt.task, got)
			case tt.want == 0:
			case len(got) != 1:
				t.Errorf("%s evidence for %s in %q: got %v; want one", tt.field, tt.unit, tt.task, got)
			case strings.Join(got[0].Terms, " ") != tt.terms || math.Abs(got[0].Weight-tt.want) > 1e-9:
				t.Errorf("%s evidence for %s in %q: got %q %+g; want %q %+g", tt.field, tt.unit, tt.task, strings.Join(got[0].Terms, " "), got[0].Weight, tt.terms, tt.want)
			}
		})
	}
}

// TestWholeWords: words are compared whole, so "hack" never matches
// "Hacker News" and "unit9" never matches "unit99"; a name or alias is
// matched as whole words too.
func TestWholeWords(t *testing.T) {
	ix := testIndex(unit("hack", "Hack."), unit("unit9", "Unit9."), unit("tdd", "Test-driven development."))
	tests := []struct {
		name, task, unit string
		want             bool // some evidence
	}{
		{name: "hack in Hacker News", task: "read Hacker News", unit: "hack", want: false},
		{name: "hack itself", task: "hack on it", unit: "hack", want: true},
		{name: "unit9 in unit99", task: "open unit99", unit: "unit9", want: false},
		{name: "unit9 itself", task: "open unit9", unit: "unit9", want: true},
		{name: "name inside a word", task: "run tddx", unit: "tdd", want: false},
		{name: "a plural is the same word", task: "run tdds", unit: "tdd", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scores, _ := ix.score(ix.Analyze(tt.task, nil), never)
			if got := scores[ix.ids[tt.unit]] != 0; got != tt.want {
				t.Errorf("evidence for %s in %q: got %v; want %v", tt.unit, tt.task, got, tt.want)
			}
		})
	}
}

// TestNameDeclaresObjects: "a unit's name and aliases declare objects too:
// when they contain a word some unit declares as an object, the unit is
// about that object, so frontend-build is not a mismatch for a task about
// the frontend".
func TestNameDeclaresObjects(t *testing.T) {
	build := unit("frontend-build", "Build the web bundle.")
	ui := trigger(unit("ui-review", "Review user interfaces."), ir.TriggerObject, "frontend", ir.DefaultTriggerWeight)
	styles := trigger(unit("css-tips", "Tips for css layout."), ir.TriggerObject, "css", ir.DefaultTriggerWeight)
	aliased := trigger(unit("web-pack", "Build and bundle web assets.", "frontend bundler"), ir.TriggerObject, "assets", ir.DefaultTriggerWeight)
	ix := testIndex(build, ui, styles, aliased)
	tests := []struct {
		name, task, unit, want string // want: the object evidence's field, or ""
	}{
		{name: "name declares the object", task: "build the frontend bundle", unit: "frontend-build", want: "object"},
		{name: "alias declares the object", task: "build the frontend bundle", unit: "web-pack", want: "object"},
		{name: "another object is a mismatch", task: "build the css bundle", unit: "frontend-build", want: "object mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			for _, e := range ix.evidence(ix.Analyze(tt.task, nil), ix.ids[tt.unit], never) {
				if strings.HasPrefix(e.Field, "object") {
					got = e.Field
				}
			}
			if got != tt.want {
				t.Errorf("object evidence for %s in %q: got %q; want %q", tt.unit, tt.task, got, tt.want)
			}
		})
	}
}

// TestAliasSpellingAnotherName: an alias that spells another unit's name is
// ignored, as evidence and as a name to negate.
func TestAliasSpellingAnotherName(t *testing.T) {
	ix := testIndex(unit("deploy", "Ship it."), unit("rollout", "Roll out.", "deploy"))
	q := ix.Analyze("deploy please", nil)
	for _, e := range ix.evidence(q, ix.ids["rollout"], never) {
		if e.Field == "alias phrase" {
			t.Errorf("rollout: got alias evidence %v; want none, the alias is deploy's name", e)
		}
	}
	if got := ix.Analyze("avoid deploy", nil).Negated("rollout"); got != "" {
		t.Errorf("rollout negated by %q; want not negated", got)
	}
}

// TestScoreIsEvidence checks that a unit's score is the sum of its
// evidence: the explanation accounts for every point.
func TestScoreIsEvidence(t *testing.T) {
	ix := evidenceIndex()
	for _, task := range []string{
		"a code review of the pull request, run the linters",
		"review the stylesheet code, draft only",
		"inspect changes for bugs with a peer check",
		"deploy the service",
	} {
		q := ix.Analyze(task, nil)
		scores, _ := ix.score(q, never)
		for id, u := range ix.units {
			var sum float64
			for _, e := range ix.evidence(q, int32(id), never) {
				sum += e.Weight
			}
			if math.Abs(sum-scores[id]) > 1e-9 {
				t.Errorf("%s in %q: got evidence summing to %.6f; want the score %.6f", u.Name, task, sum, scores[id])
			}
		}
	}
}

func TestIDF(t *testing.T) {
	tests := []struct {
		name   string
		n, cjk int // units, and those with a CJK term
		term   string
		df     int
		want   float64
		claim  string
	}{
		{name: "small catalog counts as 30", n: 3, term: "test", df: 1, want: 3.028522096376982},
		{name: "30 units", n: 30, term: "test", df: 1, want: 3.028522096376982},
		{name: "rarer in a larger catalog", n: 100, term: "test", df: 1, want: 4.209655408733095},
		{name: "in every unit", n: 30, term: "test", df: 30, want: 0.016260520871780326},
		{name: "ten of a thousand", n: 1000, term: "test", df: 10, want: 4.557379522151743},
		// A CJK term is counted among the units with such terms.
		{name: "a CJK term among its own", n: 1000, cjk: 30, term: "测试", df: 10, want: 1.082611947321669},
		{name: "an English term beside them", n: 1000, cjk: 30, term: "test", df: 10, want: 4.557379522151743},
		{name: "a CJK term in a catalog without", n: 1000, term: "测试", df: 10, want: 4.557379522151743},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := &Index{units: make([]*ir.Unit, tt.n), cjkUnits: tt.cjk}
			if got := ix.idf(tt.term, tt.df); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("idf(%q, %d) of %d units, %d with CJK terms: got %.15f; want %.15f", tt.term, tt.df, tt.n, tt.cjk, got, tt.want)
			}
		})
	}
}

func TestSaturate(t *testing.T) {
	avg := [numFields]float64{1, 1, 1, 1, 1, 1, 1}
	at := func(f field, v float32) [numFields]float32 {
		var a [numFields]float32
		a[f] = v
		return a
	}
	ones := [numFields]float32{1, 1, 1, 1, 1, 1, 1}
	tests := []struct {
		name     string
		tf, lens [numFields]float32
		want     float64
	}{
		{name: "nothing", tf: [numFields]float32{}, lens: ones, want: 0},
		{name: "name at average length", tf: [numFields]float32{1, 0, 0, 1}, lens: ones, want: 4.0 / 6},
		// A name word the description, when_to_use and triggers never
		// use weighs as a description word: the fields disagree on it.
		{name: "name alone weighs as a description word", tf: at(fieldName, 1), lens: ones, want: 1.0 / 3},
		{name: "a trigger agrees with the name", tf: [numFields]float32{1, 0, 1}, lens: ones, want: 5.0 / 7},
		{name: "description at average length", tf: at(fieldDescription, 1), lens: ones, want: 1.0 / 3},
		{name: "lead weighs least", tf: at(fieldLead, 1), lens: ones, want: 0.2 / 2.2},
		{name: "a long name weighs less", tf: [numFields]float32{1, 0, 0, 1}, lens: [numFields]float32{2, 1, 1, 1, 1, 1, 1}, want: (3/1.3 + 1) / (2 + 3/1.3 + 1)},
		{name: "short heading weighs more", tf: at(fieldHeading, 1), lens: [numFields]float32{1, 1, 1, 1, 1, 0, 1}, want: 2.0 / 4},
		{name: "fields add before saturating", tf: [numFields]float32{1, 0, 0, 1}, lens: ones, want: 4.0 / 6},
		{name: "frequency saturates", tf: [numFields]float32{100, 0, 0, 1}, lens: ones, want: 301.0 / 303},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := saturate(tt.tf, tt.lens, avg); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("saturate: got %.9f; want %.9f", got, tt.want)
			}
		})
	}
}

func ev(w float64, terms ...string) Evidence { return Evidence{Field: "test", Terms: terms, Weight: w} }

func TestResidual(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []Evidence
		named   bool     // the task states b's name
		passing []string // the terms an instruction alone says in passing (Query.passingTerms)
		want    float64
	}{
		{name: "nothing covered", b: []Evidence{ev(2, "x"), ev(1, "y")}, want: 3},
		{name: "all covered", a: []Evidence{ev(1, "x"), ev(1, "y")}, b: []Evidence{ev(2, "x"), ev(1, "y")}, want: 0},
		{name: "part covered", a: []Evidence{ev(1, "x")}, b: []Evidence{ev(2, "x"), ev(1, "y")}, want: 1},
		{name: "a phrase counts whole when one term is uncovered", a: []Evidence{ev(1, "x")}, b: []Evidence{ev(6, "x", "y")}, want: 6},
		{name: "negative evidence of a covers nothing", a: []Evidence{ev(-6, "x")}, b: []Evidence{ev(2, "x")}, want: 2},
		{name: "negative evidence of b adds nothing", b: []Evidence{ev(-6, "z"), ev(2, "x")}, want: 2},
		{name: "evidence resting on no term adds nothing", b: []Evidence{ev(2)}, want: 0},
		{name: "a stated name's word covered in passing is its own", a: []Evidence{ev(0.5, "x")}, b: []Evidence{{Field: "name phrase", Terms: []string{"x"}, Weight: 3}}, named: true, want: 3},
		{name: "a stated name's word covered as much is not", a: []Evidence{ev(1, "x")}, b: []Evidence{{Field: "name", Terms: []string{"x"}, Weight: 1.5}}, named: true, want: 0},
		{name: "a name's word covered in passing, the name not stated", a: []Evidence{ev(0.5, "x")}, b: []Evidence{{Field: "name phrase", Terms: []string{"x"}, Weight: 3}}, want: 0},
		{name: "a word covered in passing, in an instruction alone", a: []Evidence{ev(0.5, "x")}, b: []Evidence{ev(2, "x")}, passing: []string{"x"}, want: 2},
		{name: "the same beside pasted material", a: []Evidence{ev(0.5, "x")}, b: []Evidence{ev(2, "x")}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := residual(tt.a, tt.b, tt.named, set(tt.passing)); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("residual: got %g; want %g", got, tt.want)
			}
		})
	}
}

func TestIsRedundant(t *testing.T) {
	a := []Evidence{ev(3, "x"), ev(1, "y")}
	tests := []struct {
		name  string
		b     []Evidence
		score float64
		want  bool
	}{
		{name: "all covered", b: []Evidence{ev(3, "x")}, score: 3, want: true},
		{name: "under a quarter uncovered", b: []Evidence{ev(4, "x"), ev(0.9, "z")}, score: 4.9, want: true},
		{name: "a quarter uncovered is not redundant", b: []Evidence{ev(3, "x"), ev(1, "z")}, score: 4, want: false},
		{name: "mostly uncovered", b: []Evidence{ev(5, "z")}, score: 5, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := isRedundant(a, tt.b, false, nil, tt.score); got != tt.want {
				t.Errorf("isRedundant: got %v; want %v", got, tt.want)
			}
		})
	}
}

func TestBreadth(t *testing.T) {
	tests := []struct {
		name string
		ev   []Evidence
		want int
	}{
		{name: "none", want: 0},
		{name: "distinct terms", ev: []Evidence{ev(1, "x"), ev(1, "y")}, want: 2},
		{name: "a term counts once", ev: []Evidence{ev(1, "x"), ev(6, "x", "y"), ev(1.5, "x", "y")}, want: 2},
		{name: "negative evidence counts nothing", ev: []Evidence{ev(1, "x"), ev(-6, "z")}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := breadth(tt.ev); got != tt.want {
				t.Errorf("breadth: got %d; want %d", got, tt.want)
			}
		})
	}
}

func TestOwnWords(t *testing.T) {
	field := func(f string, w float64) Evidence { return Evidence{Field: f, Terms: []string{"x"}, Weight: w} }
	cands := []Candidate{
		{Name: "trigger-field", Origin: OriginLexical}, {Name: "trigger-phrase", Origin: OriginLexical},
		{Name: "description", Origin: OriginLexical}, {Name: "negative", Origin: OriginLexical},
		{Name: "host", Origin: OriginExplicit}, {Name: "lookalike", Origin: OriginLexical},
	}
	evs := map[string][]Evidence{
		"trigger-field":  {field("description", 1), field("name+trigger+description", 1)},
		"trigger-phrase": {field("trigger phrase", 3)},
		"description":    {field("description+lead", 2), field("name phrase", 1)},
		"negative":       {field("not_when", -6)},
		"host":           {field("trigger", 1)},
		"lookalike":      {field("triggers", 1), field("bigram", 1.5)},
	}
	got := slices.Sorted(maps.Keys(ownWords(cands, evs)))
	if want := []string{"trigger-field", "trigger-phrase"}; !slices.Equal(got, want) {
		t.Errorf("got %v; want %v", got, want)
	}
}

func TestRelate(t *testing.T) {
	a := trigger(unit("polish-prose", "Improve the quality of text."), ir.TriggerObject, "text", ir.DefaultTriggerWeight)
	b := trigger(unit("tighten-prose", "Improve the clarity of text."), ir.TriggerObject, "text", ir.DefaultTriggerWeight)
	c := trigger(unit("css-tips", "Tips for css layout."), ir.TriggerObject, "css", ir.DefaultTriggerWeight)
	ix := testIndex(a, b, c)
	q := ix.Analyze("improve my text quality and clarity, and the css layout", nil)
	scores, _ := ix.score(q, never)
	var cands []Candidate
	evs := map[string][]Evidence{}
	for _, n := range []string{"polish-prose", "tighten-prose", "css-tips"} {
		id := ix.ids[n]
		cands = append(cands, Candidate{Name: n, Origin: OriginLexical, Score: scores[id]})
		evs[n] = ix.evidence(q, id, never)
	}
	redundant, same, width := ix.relate(q, cands, evs, nil, q.passingTerms())
	pairs := func(m map[[2]string]bool) string {
		var out []string
		for _, p := range slices.SortedFunc(maps.Keys(m), func(x, y [2]string) int { return strings.Compare(x[0]+" "+x[1], y[0]+" "+y[1]) }) {
			out = append(out, p[0]+">"+p[1])
		}
		return strings.Join(out, " ")
	}
	if got, want := pairs(same), "polish-prose>tighten-prose tighten-prose>polish-prose"; got != want {
		t.Errorf("same object: got %q; want %q", got, want)
	}
	// Beside polish-prose, tighten-prose adds only "clarity" (1.01 of
	// 4.11, under a quarter), and the other way round.
	if got, want := pairs(redundant), "polish-prose>tighten-prose tighten-prose>polish-prose"; got != want {
		t.Errorf("redundant: got %q; want %q", got, want)
	}
	if got, want := fmt.Sprint(width["polish-prose"], width["css-tips"]), "3 2"; got != want {
		t.Errorf("breadth of polish-prose and css-tips: got %s; want %s", got, want)
	}
}

// TestNamePhraseByInformativeness: a whole-name match counts by how
// informative the name's words are in this catalog and in the task: a
// name that is one word many units use earns a share of the name bonus, a
// rare word or a name of several words all of it, unless the task holds
// much more than the name. A flat bonus let a common-word name
// ("Holidays" among a dozen holiday tools) outrank the unit the task
// describes.
func TestNamePhraseByInformativeness(t *testing.T) {
	units := []*ir.Unit{
		unit("holidays", "Historical data regarding holidays"),
		unit("public-calendar", "Public holidays for more than ninety countries"),
		unit("zebra", "Facts about striped animals"),
		unit("savanna-guide", "Savanna wildlife: the weight, height, diet and range of grazing herds"),
	}
	for i := range 12 {
		units = append(units, unit(fmt.Sprintf("other-%d", i), "Holidays and observances of region "+fmt.Sprint(i)))
	}
	ix := testIndex(units...)
	phrase := func(task, name string) float64 {
		for _, e := range ix.evidence(ix.Analyze(task, nil), ix.ids[name], never) {
			if e.Field == "name phrase" {
				return e.Weight
			}
		}
		return 0
	}
	tests := []struct {
		name, task, unit string
		full             bool
	}{
		{name: "common one-word name earns a share", task: "holidays in China", unit: "holidays"},
		{name: "rare one-word name earns it all", task: "tell me about the zebra", unit: "zebra", full: true},
		{name: "name of several words earns it all", task: "the public calendar", unit: "public-calendar", full: true},
		// Its term match counts the word; a flat bonus on top let a
		// one-word name mentioned in passing outrank the unit the task
		// describes.
		{name: "rare name among many task words earns a share", task: "list the striped animals of the savanna by weight, height, diet and range, zebra included", unit: "zebra"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := phrase(tt.task, tt.unit)
			if tt.full && math.Abs(got-bonusName) > 1e-9 {
				t.Errorf("name phrase of %s in %q: got %+g; want %+g", tt.unit, tt.task, got, bonusName)
			}
			if !tt.full && (got <= 0 || got > bonusName*0.75) {
				t.Errorf("name phrase of %s in %q: got %+g; want above 0 and at most %+g", tt.unit, tt.task, got, bonusName*0.75)
			}
		})
	}
}

// TestQuotedPhrases: a phrase a unit quotes in its description or
// when_to_use is a trigger phrase, matched whole; one that many units of
// the catalog quote is boilerplate and no trigger for any of them.
func TestQuotedPhrases(t *testing.T) {
	units := []*ir.Unit{
		unit("bug-hunt", `Diagnosis loop for hard bugs. Use when the user says "debug this" or 'trace it'. Say "ship it now" to start.`),
	}
	for i := range 4 {
		units = append(units, unit(fmt.Sprintf("other-%d", i), `Other work. Say "ship it now" to start.`))
	}
	ix := testIndex(units...)
	phrase := func(task string) bool {
		for _, e := range ix.evidence(ix.Analyze(task, nil), ix.ids["bug-hunt"], never) {
			if e.Field == "trigger phrase" {
				return true
			}
		}
		return false
	}
	tests := []struct {
		name, task string
		want       bool
	}{
		{name: "double-quoted", task: "please debug this", want: true},
		{name: "single-quoted", task: "trace it for me", want: true},
		{name: "boilerplate many units quote", task: "ship it now"},
		{name: "not whole", task: "debug the parser"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := phrase(tt.task); got != tt.want {
				t.Errorf("trigger phrase of bug-hunt in %q: got %v; want %v", tt.task, got, tt.want)
			}
		})
	}
}

// TestQuotedPhraseWordsApart: the words of a "Use when" clause count as
// triggers one by one, except those of a phrase of several words it
// quotes, which is matched whole: apart, its words are description words
// ("rank the issues by how bad they are" beside "my SEO is bad"). A
// quoted single word is its own phrase, and a trigger.
func TestQuotedPhraseWordsApart(t *testing.T) {
	ix := testIndex(
		unit("seo-check", `Audit a site's search presence. Also use when the user mentions "my SEO is bad", 'churn' or crawl errors.`),
		unit("other", "Unrelated work on invoices."),
	)
	fields := func(task string) map[string]string {
		out := map[string]string{}
		for _, e := range ix.evidence(ix.Analyze(task, nil), ix.ids["seo-check"], never) {
			out[strings.Join(e.Terms, " ")] = e.Field
		}
		return out
	}
	tests := []struct{ name, task, term, want string }{
		{name: "a word of a quoted phrase, apart", task: "how bad is it", term: "bad", want: "description"},
		{name: "a quoted single word", task: "churn numbers", term: "churn", want: "trigger+description"},
		{name: "a word of the clause, unquoted", task: "crawl the site", term: "crawl", want: "trigger+description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fields(tt.task)[tt.term]; got != tt.want {
				t.Errorf("field of %q in %q: got %q; want %q", tt.term, tt.task, got, tt.want)
			}
		})
	}
	const text = `says "my SEO is bad", 'churn' or "lost rankings".`
	if got := withoutPhrases(text, quotedSpans(text)); got != `says                , 'churn' or                .` {
		t.Errorf("withoutPhrases: got %q", got)
	}
}

func TestQuoted(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{name: "double and slash", text: `Use when the user says "diagnose"/"debug this".`, want: "diagnose|debug this"},
		{name: "curly", text: "mentions \u201cdesign it twice\u201d", want: "design it twice"},
		{name: "single", text: "uses any 'grill' trigger phrases", want: "grill"},
		{name: "apostrophes are no quotes", text: "don't use it, it's the user's", want: ""},
		{name: "too long is prose", text: `"one two three four five six seven"`, want: ""},
		{name: "unclosed", text: `say "debug this`, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Quoted(tt.text), "|"); got != tt.want {
				t.Errorf("Quoted(%q): got %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestClauseBests: a task of several clauses puts before the policy the
// unit each clause asks for, though units picking up words across the
// whole task outscore it and fill the CandidateCap best.
func TestClauseBests(t *testing.T) {
	units := []*ir.Unit{
		unit("weather-report", "Weather forecast report for a city."),
		unit("flight-booking", "Book a flight ticket with seat selection."),
	}
	for i := range 5 {
		units = append(units, unit(fmt.Sprintf("archive-%d", i), fmt.Sprintf("Archive %d of weather forecast reports by city, flight tickets and seats.", i)))
	}
	ix := testIndex(units...)
	cands := func(task string) []string {
		pr, err := ix.Retrieve(context.Background(), ix.Analyze(task, nil), Request{}, &fakeJudge{}, pulse.New(context.Background()))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range pr.Candidates {
			out = append(out, c.Name)
		}
		return out
	}
	tests := []struct {
		name, task string
		want       bool
	}{
		{name: "own clause", task: "get the weather forecast report for the city, then book a flight ticket and pick a seat", want: true},
		{name: "one clause", task: "get the weather forecast report for the city flight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cands(tt.task)
			if slices.Contains(got, "flight-booking") != tt.want {
				t.Errorf("candidates of %q: got %v; want flight-booking among them: %v", tt.task, got, tt.want)
			}
		})
	}
}

// TestClauseBoundaries: where a task's clauses end, as the parts of a
// request rule 10 reads apart. A "+" or "&" between blanks joins two
// requests as "and" does; one inside a word ("C++", "R&D") does not.
func TestClauseBoundaries(t *testing.T) {
	ix := testIndex(unit("skeleton-states", "Skeleton loading states."), unit("data-fetching", "Data fetching with queries."))
	tests := []struct {
		name, task, a, b string
		apart            bool
	}{
		{name: "and", task: "skeleton states and data fetching", a: "skeleton", b: "fetch", apart: true},
		{name: "plus sign", task: "skeleton states + data fetching", a: "skeleton", b: "fetch", apart: true},
		{name: "ampersand", task: "skeleton states & data fetching", a: "skeleton", b: "fetch", apart: true},
		{name: "comma", task: "skeleton states, data fetching", a: "skeleton", b: "fetch", apart: true},
		{name: "one clause", task: "skeleton states for data fetching", a: "skeleton", b: "fetch"},
		{name: "plus inside a word", task: "c++ skeleton states for data fetching", a: "skeleton", b: "fetch"},
		{name: "plus against a word", task: "skeleton states +data fetching", a: "skeleton", b: "fetch"},
		{name: "ampersand inside a word", task: "r&d skeleton states for data fetching", a: "skeleton", b: "fetch"},
		{name: "full-width comma", task: "skeleton states，data fetching", a: "skeleton", b: "fetch", apart: true},
		{name: "ideographic full stop", task: "skeleton states。data fetching", a: "skeleton", b: "fetch", apart: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := ix.Analyze(tt.task, nil).clauses()
			if cl[tt.a] == 0 || cl[tt.b] == 0 {
				t.Fatalf("clauses of %q: got %v; want %q and %q in some clause", tt.task, cl, tt.a, tt.b)
			}
			if got := cl[tt.a]&cl[tt.b] == 0; got != tt.apart {
				t.Errorf("clauses of %q: %q and %q apart: got %v; want %v", tt.task, tt.a, tt.b, got, tt.apart)
			}
		})
	}
}

// TestMarkedClauses: the clauses of a sentence that opens with a word
// saying a further request begins there ("Also ...", "Separately, ...")
// and asks for something after it are marked, to the sentence's end;
// such a sentence that states ("Also, the logs come from nginx"), "then"
// inside a sentence, or a sentence that opens otherwise marks nothing.
func TestMarkedClauses(t *testing.T) {
	ix := testIndex(unit("skeleton-states", "Skeleton loading states."), unit("data-fetching", "Data fetching with queries."))
	tests := []struct {
		name, task, term string
		marked           bool
	}{
		{name: "also", task: "Add skeleton states. Also fix the data fetching.", term: "fetch", marked: true},
		{name: "separately, a statement, then a dash", task: "Add skeleton states. Separately, the data fetching is slow \u2014 fix it.", term: "fetch", marked: true},
		{name: "also, a statement", task: "Add skeleton states. Also, the data fetching runs in a worker.", term: "fetch"},
		{name: "plus, a statement", task: "Add skeleton states. Plus it does the data fetching already.", term: "fetch"},
		{name: "the first request", task: "Add skeleton states. Also fix the data fetching.", term: "skeleton"},
		{name: "then inside a sentence", task: "Add skeleton states, then fix the data fetching.", term: "fetch"},
		{name: "a sentence that opens otherwise", task: "Add skeleton states. The data fetching is slow.", term: "fetch"},
		{name: "on a new line", task: "Add skeleton states\nplus data fetching for the list", term: "fetch", marked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			if got := q.clauses()[tt.term]&q.markedClauses(q.clauseNumbers()) != 0; got != tt.marked {
				t.Errorf("%q: the clause of %q marked: got %v; want %v", tt.task, tt.term, got, tt.marked)
			}
		})
	}
}

// TestNameAcronymSpelledOut: a name word the description spells out by
// its initials is a word the description uses, so it keeps the name's
// weight (the fields agree on it); initials that start or end on a stop
// word, or a name word the description neither uses nor spells, do not.
func TestNameAcronymSpelledOut(t *testing.T) {
	ix := testIndex(
		unit("run-sem", "Run a search engine marketing campaign."),
		unit("create-paas-instance", "Create an instance on a platform as a service."),
		unit("count-ad-clicks", "Count the clicks a digital campaign got."),
		unit("chart-vr", "Chart the sales figures."),
	)
	tests := []struct {
		name, task, unit, term, want string
	}{
		{name: "initials of description words", task: "start an sem push", unit: "run-sem", term: "sem", want: "name+description"},
		{name: "stop words inside the spelled words", task: "a paas instance", unit: "create-paas-instance", term: "paa", want: "name+description"},
		{name: "initials starting on a stop word", task: "the ad", unit: "count-ad-clicks", term: "ad", want: "name"},
		{name: "a word the description never spells", task: "a vr chart", unit: "chart-vr", term: "vr", want: "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			got := ""
			for _, e := range ix.evidence(q, ix.ids[tt.unit], never) {
				if strings.Join(e.Terms, " ") == tt.term && isFieldEvidence(e.Field) {
					got = e.Field
				}
			}
			if got != tt.want {
				t.Errorf("field of %q for %s: got %q; want %q", tt.term, tt.unit, got, tt.want)
			}
		})
	}
}

func TestSpells(t *testing.T) {
	tests := []struct {
		name, word, text string
		want             bool
	}{
		{name: "initials", word: "sem", text: "Run a search engine marketing campaign.", want: true},
		{name: "stop word inside", word: "paas", text: "a platform as a service", want: true},
		{name: "first word a stop word", word: "ad", text: "a digital campaign", want: false},
		{name: "last word a stop word", word: "mo", text: "memes on demand", want: false},
		{name: "not consecutive", word: "sem", text: "search the engine for marketing", want: false},
		{name: "one letter", word: "a", text: "apples", want: false},
		{name: "digits", word: "b2b", text: "business 2 business", want: false},
		{name: "stop word", word: "as", text: "always sunny", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spells(tt.word, Words(tt.text)); got != tt.want {
				t.Errorf("spells(%q, %q): got %v; want %v", tt.word, tt.text, got, tt.want)
			}
		})
	}
}

// TestAskingClauses: a term is in an asking clause when its sentence asks
// (a leading "also" or "then" aside) and so does its clause, read on its
// own; "and" joins two nouns as often as two requests, so it ends none.
func TestAskingClauses(t *testing.T) {
	ix := testIndex(unit("load-testing", "Load tests for APIs."), unit("cpu-profiling", "Profile hot code."))
	tests := []struct {
		name, task, term string
		asks             bool
	}{
		{name: "and then", task: "load test the checkout api and then profile whatever is hot", term: "profil", asks: true},
		{name: "also, a sentence", task: "load test the checkout api. Also profile whatever is hot", term: "profil", asks: true},
		{name: "a stating clause", task: "load test the checkout api, the profiling is already done", term: "profil"},
		{name: "a stating sentence", task: "Load test the checkout api. The profiling showed nothing hot.", term: "profil"},
		{name: "also, a statement", task: "load test the checkout api. Also, the profiling showed nothing hot", term: "profil"},
		{name: "the ask", task: "load test the checkout api, the profiling is already done", term: "checkout", asks: true},
		{name: "a number opens no command", task: "Load test the checkout api. Two of the endpoints already have profiles.", term: "profil"},
		{name: "a digit opens no command", task: "Load test the checkout api. 3 endpoints already have profiles.", term: "profil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			if got := q.askingClauses()[tt.term] != 0; got != tt.asks {
				t.Errorf("%q: %q in an asking clause: got %v; want %v", tt.task, tt.term, got, tt.asks)
			}
		})
	}
}

// TestNegationSaidBounded: a quote is at most maxWrittenBytes and an
// ellipsis, however long the words and gaps of the task: an 840 KB task
// with a negated list whose words were 120,000 tabs apart made a 5.7 MB
// result.
func TestNegationSaidBounded(t *testing.T) {
	ix := negationIndex()
	gap := strings.Repeat("\t", 120000)
	for _, task := range []string{
		"avoid" + gap + "deploy" + gap + "or" + gap + "tdd",
		"avoid " + strings.Repeat("deploy, ", 2000) + "or tdd",
	} {
		got := ix.Analyze(task, nil).Negated("tdd")
		if got == "" || len(got) > maxWrittenBytes+2*len("\u2026 ")+len("avoid") {
			t.Errorf("quote of a %d-byte task: %d bytes (%.40q); want a quote of at most about %d", len(task), len(got), got, maxWrittenBytes)
		}
	}
	// A word longer than the bound is cut between characters.
	q := ix.Analyze(strings.Repeat("é", 300)+" tdd", nil)
	if got := q.written(0, 2); len(got) > maxWrittenBytes+len("…") || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("written of a 600-byte word: %d bytes, valid %v (%.20q); want at most %d, valid, ending in an ellipsis", len(got), utf8.ValidString(got), got, maxWrittenBytes)
	}
}
