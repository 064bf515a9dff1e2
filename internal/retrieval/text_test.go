package retrieval

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestWordsApostrophes(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{name: "ascii", text: "don't", want: "dont"},
		{name: "right quote", text: "don\u2019t", want: "dont"},
		{name: "left quote", text: "don\u2018t", want: "dont"},
		{name: "modifier letter", text: "don\u02bct", want: "dont"},
		{name: "acute accent", text: "don\u00b4t", want: "dont"},
		{name: "backtick", text: "don`t", want: "dont"},
		{name: "fullwidth", text: "don\uff07t", want: "dont"},
		{name: "quoting a name", text: "`tdd` and \u2018tdd\u2019", want: "tdd and tdd"},
		{name: "trailing", text: "tests\u02bc x", want: "tests x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Join(Words(tt.text), " "); got != tt.want {
				t.Errorf("Words(%q): got %q; want %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestSeqMatcher compares the one-pass matcher with trying every pattern
// at every position, on random texts over a small vocabulary so that
// patterns overlap and nest.
func TestSeqMatcher(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := []string{"a", "b", "c"}
	randSeq := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = vocab[rng.IntN(len(vocab))]
		}
		return s
	}
	for round := range 200 {
		m := newSeqMatcher()
		var pats [][]string
		for i := range 1 + rng.IntN(8) {
			p := randSeq(1 + rng.IntN(4))
			pats = append(pats, p)
			m.add(p, int32(i))
		}
		m.build(nil)
		text := randSeq(rng.IntN(30))
		var got, want []string
		m.scan(text, nil, func(end int, state int32) bool {
			for _, id := range m.ends[state] {
				got = append(got, fmt.Sprint(end, ":", id))
			}
			return true
		})
		for end := range text {
			for id, p := range pats {
				if start := end + 1 - len(p); start >= 0 && slices.Equal(text[start:end+1], p) {
					want = append(want, fmt.Sprint(end, ":", id))
				}
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: patterns %v in %v: got %v; want %v", round, pats, text, got, want)
		}
		rev := newSeqMatcher()
		for id, p := range pats {
			r := slices.Clone(p)
			slices.Reverse(r)
			rev.add(r, int32(id))
		}
		rev.build(nil)
		at := rev.longestFrom(text, nil)
		for i := range text {
			n := 0
			if at[i] >= 0 {
				n = int(rev.depth[at[i]])
			}
			wantN := 0
			for _, p := range pats {
				if len(p) > wantN && len(p) <= len(text)-i && slices.Equal(text[i:i+len(p)], p) {
					wantN = len(p)
				}
			}
			if n != wantN {
				t.Fatalf("round %d: longest of %v at %d in %v: got %d words; want %d", round, pats, i, text, n, wantN)
			}
		}
	}
}

// wordsByRunes is Words as it was before its ASCII fast path: every rune
// classified and folded through package unicode. FuzzWordsFastPath holds
// the two equal.
func wordsByRunes(text string) []string {
	var words []string
	start, plain := -1, true
	var b []byte
	flush := func(end int) {
		switch {
		case start < 0:
			return
		case plain:
			words = append(words, text[start:end])
		default:
			words = append(words, string(b))
		}
		start, plain, b = -1, true, b[:0]
	}
	for i, r := range text {
		switch {
		case isApostrophe(r):
			if start < 0 || !nextIsLetter(text, i+utf8.RuneLen(r)) {
				flush(i)
				continue
			}
			if plain {
				plain = false
				b = append(b[:0], text[start:i]...)
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
			f := fold(r)
			if plain && f != r {
				plain = false
				b = append(b[:0], text[start:i]...)
			}
			if !plain {
				b = utf8.AppendRune(b, f)
			}
		default:
			flush(i)
		}
	}
	flush(len(text))
	return words
}

// wordsByScript is Words as cjk.go describes it, the slow way: the text
// cut where the script changes, each piece read by its script's rule and
// the rest by wordsByRunes.
func wordsByScript(text string) []string {
	var words []string
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		sc, j := scriptOf(r), i+n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if scriptOf(r) != sc {
				break
			}
			j += n
		}
		piece := text[i:j]
		switch sc {
		case scriptOther:
			words = append(words, wordsByRunes(piece)...)
		case scriptKatakana, scriptHangul:
			words = append(words, piece)
		case scriptHan:
			for _, run := range strings.FieldsFunc(piece, isHanGrammar) {
				rs := []rune(run)
				if len(rs) == 1 && run == piece {
					words = append(words, run)
				}
				for k := 0; k+1 < len(rs); k++ {
					words = append(words, string(rs[k:k+2]))
				}
			}
		}
		i = j
	}
	return words
}

func FuzzWordsFastPath(f *testing.F) {
	for _, s := range []string{"", "Hello, World", "don't DON'T don`t", "KELVIN \u212a k", "ÉCOLE école", "x1 Y2-z3_", "it's 'quoted' `code`", "A\u0301B", "\xff\xfeAB",
		"帮我优化ClickHouse查询", "查询的性能", "データベースのクエリを最適化して", "サーバー2台", "쿼리를 최적화해줘", "SQL쿼리", "don't数据", "数\u0301据", "𠀀𠀁 a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := Words(s), wordsByScript(s)
		if !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q; want %q", s, got, want)
		}
		var terms []string
		terms = appendTerms(append(terms, "x"), s)
		if !slices.Equal(terms[1:], Terms(s)) {
			t.Errorf("appendTerms(%q) = %q; want %q", s, terms[1:], Terms(s))
		}
		// The memo an indexing worker keeps gives the same terms, the
		// second time as the first.
		var scratch bagScratch
		for range 2 {
			if got := scratch.appendTerms(nil, s); !slices.Equal(got, Terms(s)) {
				t.Errorf("bagScratch.appendTerms(%q) = %q; want %q", s, got, Terms(s))
			}
		}
	})
}

func TestUseWhen(t *testing.T) {
	tests := []struct{ name, text, clauses, who string }{
		{name: "the user", text: "Grill a plan. Use when the user wants to stress-test their thinking.", clauses: "wants to stress test their thinking", who: "the user"},
		{name: "you", text: "Use when you need to resolve a git merge/rebase conflict.", clauses: "need to resolve a git merge rebase conflict", who: "you"},
		{name: "words between", text: "Use this skill when deploying. Not otherwise.", clauses: "deploying"},
		{name: "one per sentence", text: "Use when builds are slow; use whenever tests fail", clauses: "builds are slow|tests fail"},
		{name: "no clause", text: "Used by many. When in doubt, ask.", clauses: ""},
		{name: "file name is no sentence end", text: "Use when package.json breaks.", clauses: "package json breaks"},
		{name: "do not use when", text: "Do not use when the user wants a quick fix.", clauses: ""},
		{name: "full-width letters", text: "Ｕｓｅ ｗｈｅｎ deploying.", clauses: "deploying"},
		{name: "no use at all", text: "Deploy the service. When in doubt, ask.", clauses: ""},
		{name: "don't use this skill when", text: "Review code. Don't use this skill when the diff is generated; use when people wrote it.", clauses: "people wrote it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, who := UseWhen(tt.text)
			if got := strings.Join(cs, "|"); got != tt.clauses {
				t.Errorf("clauses: got %q; want %q", got, tt.clauses)
			}
			if got := strings.Join(who, " "); got != tt.who {
				t.Errorf("addressees: got %q; want %q", got, tt.who)
			}
		})
	}
}

// TestSaysWhenNot: a phrase quoted in a sentence that says when a unit
// is not wanted names a task it must not answer; a negation without a cue
// after it ("does not know") says no such thing.
func TestSaysWhenNot(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"do not trigger when", `Improve prompts. DO NOT TRIGGER when the user says "optimize this code".`, true},
		{"not for", `Draw charts, not for "spreadsheet formulas".`, true},
		{"never use on", `Never use on "production data".`, true},
		{"a later positive sentence", `Not for tables. Use when the user says "plot this".`, false},
		{"positive", `Use when the user says "debug this".`, false},
		{"a negation without a cue", `Use when the user does not know "where to start".`, false},
		{"use when, not when", `Use when they say "fix it", not when they say "rewrite it".`, true},
		{"a negation inside a quoted phrase", `Use when the user mentions "users sign up but don't use the product," "time to value".`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := []rune(tc.text)
			spans := quotedSpans(tc.text)
			if len(spans) == 0 {
				t.Fatal("no quoted phrase")
			}
			last := spans[len(spans)-1]
			if got := saysWhenNot(rs, last.from); got != tc.want {
				t.Errorf("%q: got %v; want %v", last.text, got, tc.want)
			}
		})
	}
}

// TestTermsSkipNumbers: a number in a task is a value it passes, not what
// it is about: "a weightage of 16.5" is no evidence for "pm2-5-level".
func TestTermsSkipNumbers(t *testing.T) {
	if got, want := strings.Join(Terms("assign a weightage of 16.5 to pm2 in 2002"), " "), "assign weightag pm2"; got != want {
		t.Errorf("Terms: got %q; want %q", got, want)
	}
}

// TestTermsSkipContractions: a negated or pronoun contraction is a
// function word, like the words it contracts ("it isn't converting" is
// about converting, and a skill quoting "this page isn't converting" has
// no evidence in "isn't").
func TestTermsSkipContractions(t *testing.T) {
	if got, want := strings.Join(Terms("it isn't converting, we can't tell, they'll retry and it won't help"), " "), "convert tell retri"; got != want {
		t.Errorf("Terms: got %q; want %q", got, want)
	}
}

// TestSurface: a stem is shown as the task's own word for it, the first
// one, unless the task also spells the stem as it is: "rename the file,
// then check other files" matched "file", which it says.
func TestSurface(t *testing.T) {
	ix := testIndex(unit("files", "Rename files and fix policy rules."))
	tests := []struct {
		name, task string
		want       map[string]string
	}{
		{"a stem", "fix the policies", map[string]string{"polici": "policies"}},
		{"the first word for it", "policy and policies", map[string]string{"polici": "policy"}},
		{"spelt as it is too", "rename the file, then check other files", map[string]string{}},
		{"not asked about", "the policy", map[string]string{}},
		{"the instruction's word over a paste's", "```\nPolicies: 3 denied\n```\n\nexplain this policy", map[string]string{"polici": "policy"}},
		{"a paste's word when the instruction has none", "```\nPolicies: 3 denied\n```\n\nexplain this", map[string]string{"polici": "policies"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			terms := map[string]bool{"polici": tt.name != "not asked about", "file": true}
			got := ix.Analyze(tt.task, nil).Surface(terms)
			if !maps.Equal(got, tt.want) {
				t.Errorf("Surface(%q): got %v; want %v", tt.task, got, tt.want)
			}
		})
	}
}
