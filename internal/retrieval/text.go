package retrieval

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words splits text into case-folded words. A word is a run of letters,
// digits and combining marks; apostrophes inside a word are dropped so that
// "don't", "dont" and "don`t" are the same word. Everything else is a
// boundary, which is what keeps "hack" from matching "Hacker News" and
// "unit9" from matching "unit99": words are compared whole.
func Words(text string) []string {
	// Most texts are a few words: growing in a buffer on the stack and
	// copying once costs one allocation where growing on the heap costs
	// several, and indexing splits every field of every unit.
	var buf [8]string
	words, _ := appendWords(buf[:0], nil, text, 0, false)
	if len(words) == 0 {
		return nil
	}
	return slices.Clone(words)
}

// appendWords appends the words of text, as Words folds them, to words
// and, withSpan, where each is to spans; text starts at byte off of the
// whole.
func appendWords(words []string, spans []span, text string, off int, withSpan bool) ([]string, []span) {
	start := -1        // byte offset where the current word starts
	plain := true      // the word so far is text[start:i] verbatim: already folded, no apostrophe
	var b []byte       // the folded word, once it differs from the text
	cur := scriptOther // the script of the current word (cjk.go)
	skip := 0          // a run of Han characters read ahead ends here
	flush := func(end int) {
		switch {
		case start < 0:
			return
		case plain:
			words = append(words, text[start:end])
		default:
			words = append(words, string(b))
		}
		if withSpan {
			spans = append(spans, span{int32(off + start), int32(off + end)})
		}
		start, plain, b, cur = -1, true, b[:0], scriptOther
	}
	for i, r := range text {
		if i < skip {
			continue
		}
		if cur != scriptOther && start >= 0 && (r < utf8.RuneSelf || scriptOf(r) != cur) {
			// A change of script ends a word: "优化ClickHouse".
			flush(i)
		}
		if r < utf8.RuneSelf && r != '\'' && r != '`' {
			// ASCII, but for the two apostrophes: a letter or digit is a
			// word's, folded by lowering A-Z (fold does the same to
			// them), anything else ends a word.
			c := byte(r)
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				if start < 0 {
					start = i
				}
				if !plain {
					b = append(b, c)
				}
			case 'A' <= c && c <= 'Z':
				if start < 0 {
					start = i
				}
				if plain {
					plain = false
					b = append(b[:0], text[start:i]...)
				}
				b = append(b, c+'a'-'A')
			default:
				flush(i)
			}
			continue
		}
		switch {
		case isApostrophe(r):
			if start < 0 || !nextIsLetter(text, i+utf8.RuneLen(r)) {
				flush(i)
				continue
			}
			// inside a word ("don't"): dropped, so the word is no longer verbatim
			if plain {
				plain = false
				b = append(b[:0], text[start:i]...)
			}
		case r >= 0x1100 && scriptOf(r) != scriptOther:
			switch sc := scriptOf(r); {
			case start >= 0 && cur == scriptOther:
				flush(i)
				fallthrough
			case start < 0:
				switch sc {
				case scriptHan:
					if !isHanGrammar(r) {
						words, spans, skip = appendHan(words, spans, text, off, i, withSpan)
					}
				case scriptKatakana, scriptHangul:
					start, cur = i, sc
				}
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
	return words, spans
}

// isApostrophe reports whether r is one of the marks people and keyboards
// type for an apostrophe. They must all read alike, or "don't use X" typed
// with a modifier letter, an acute accent or a backtick would escape the
// negation the plain apostrophe triggers. U+02BC and U+02B9 (the
// modifier letter prime) are letters to Unicode, so they are tested before
// letters are; U+2032 is the prime some keyboards and fonts give.
func isApostrophe(r rune) bool {
	switch r {
	case '\'', '\u2019', '\u2018', '\u02bc', '\u02b9', '\u2032', '\u00b4', '`', '\uff07':
		return true
	}
	return false
}

// nextIsLetter reports whether text[i:] starts with a letter.
func nextIsLetter(text string, i int) bool {
	r, n := utf8.DecodeRuneInString(text[i:])
	return n > 0 && unicode.IsLetter(r)
}

// fold maps a rune to its lower-case form (and a full-width letter or
// digit to its ASCII one), using the smallest rune of its case-folding
// orbit for runes whose lower case is ambiguous (e.g. the Kelvin sign and
// "k").
func fold(r rune) rune {
	if '！' <= r && r <= '～' {
		// The full-width forms of ASCII, as Chinese and Japanese input
		// methods type them ("ＣｌｉｃｋＨｏｕｓｅ"), are the same letters.
		r -= '！' - '!'
	}
	l := unicode.ToLower(r)
	min := l
	for f := unicode.SimpleFold(l); f != l; f = unicode.SimpleFold(f) {
		if f < min && unicode.IsLower(f) {
			min = f
		}
	}
	return min
}

// stopWords carry no evidence about which skill a task wants. The list is
// generic English; it names no skill and no benchmark phrase. Adverbs of
// degree, frequency and time ("really", "often", "now"), and the sentence
// adverbs in -ly ("currently", "probably"), which Stem would otherwise
// take to an adjective a skill may use ("current"), and the words for
// "thing" are among them: a skill that lists one among its triggers is no
// more asked for by a task that says it in passing (number words are not:
// "the sum of two numbers" names what a function takes). Negation cues
// are among them: "avoid X" is no evidence for a skill about avoiding.
// Contractions of stop words fold to one word ("I'm" reads "im") and are
// stop words too: "I'm" is no evidence for a unit whose name ends in "im".
// So are the wh-ever words and most indefinite pronouns and adverbs of
// place: "whatever", "anyone" or "anywhere" in a skill's triggers says
// nothing a task that uses them asks for. "someone" and "somebody" are
// not: "review someone else's change" is what a skill for reviewing
// others' code says of itself (a red team's task lost it when they were).
var stopWords = toSet(`a an the and or but if then else of to in on at by for from with as is are was were be been being
do does did doing done have has had having i me my we our you your he she it its they them their this that these those
there here what which who whom whose when where why how can could should would will shall may might must
please just also very so too than not no nor only own same some such any all each both few more most other
into onto over under about above below up down out off again further once am s t
dont never avoid without
let lets get gets got make makes made use using used want wants need needs help me us like
im ive youre youve weve theyre theyve thats whats heres theres
isnt arent wasnt werent doesnt didnt cant cannot couldnt wouldnt shouldnt wont hasnt havent hadnt
youll theyll itll youd theyd shes whos wheres hows
much many lot lots little less least enough really actually quite rather still even yet already always often sometimes maybe perhaps
now today later soon ago thing things something anything everything nothing way ways
currently recently lately previously originally initially eventually usually normally typically generally basically essentially
literally definitely certainly probably possibly hopefully obviously apparently simply merely nearly mostly partly slightly
totally completely entirely fully exactly immediately
anyone anybody everyone everybody nobody somewhere anywhere everywhere
whatever whenever wherever whichever whoever however
` + cjkStopWords)

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Stem reduces a folded word to a light stem: plural and common verb
// endings only, conservative enough that distinct words rarely collide
// ("hacker" stays "hacker", "tests" and "testing" become "test"). A
// noun in -sis and its plural in -ses meet ("analysis", "analyses" and
// "analyse" are all "analys"). A verb's
// forms share one stem whether or not it ends in a silent e: "analyze",
// "analyzes", "analyzed" and "analyzing" are all "analyz", and "write",
// "writes" and "writing" all "write" (Porter's rules for the final e:
// it is kept after one consonant-vowel-consonant syllable, as in "note" or
// "state", so these stay apart from "not" and "stat").
func Stem(w string) string {
	if endsHangul(w) {
		return hangulStem(w)
	}
	if len(w) <= clippedLen {
		if full, ok := clipped[w]; ok {
			w = full
		}
	}
	return derived(finalY(sisNoun(stem(spelledZ(adjectival(w))))))
}

// adjectival takes an adverb in -ly back to the adjective it is made of,
// so that a task's "run it locally" meets a skill's "local dev
// environment", "recursively" its "recursive" and "weekly" its "week":
// "-ally", "-fully" and "-ately" lose their "ly", as does "ly" after the
// consonants Porter's second English stemmer allows before it (c, d, e,
// g, h, k, m, n, r, t), after "-ous" and "-less" (not after any other l:
// "wholly", "chilly"); "-ably" and "-ibly"
// become "-able" and "-ible", a long "-ily" "-y" ("temporarily",
// "temporary"). Words of five letters or fewer stay as they are ("early",
// "only", "apply", "daily"), and so do the -ly nouns whose base ends
// otherwise ("supply", "family", "assembly", "anomaly").
func adjectival(w string) string {
	n := len(w)
	if n < 6 || w[n-2] != 'l' || w[n-1] != 'y' {
		return w
	}
	base := w[:n-2]
	switch {
	case n >= 8 && w[n-3] == 'i':
		return base[:len(base)-1] + "y"
	case strings.HasSuffix(base, "ab") || strings.HasSuffix(base, "ib"):
		return base + "le"
	case strings.HasSuffix(base, "ous") || strings.HasSuffix(base, "less") || strings.HasSuffix(base, "al") || strings.HasSuffix(base, "ful"):
		return base
	}
	switch base[len(base)-1] {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return base
	}
	return w
}

// clippedLen is the longest clipped form: a longer word, most of those
// Stem reads while a catalog is indexed, needs no look-up.
var clippedLen = func() int {
	n := 0
	for w := range clipped {
		n = max(n, len(w))
	}
	return n
}()

// clipped maps the clipped forms developers type to the words skills
// write out: "bump deps" asks what a dependency upgrade skill declares,
// "pr desc" what a description does. Only clippings with one reading in
// a developer's prose: "dev" (development or developer), "app" (an
// application or a job application) and "auth" (authentication or
// authorization) stay as they are, and so does "config": "the flat
// config" of an ESLint request drew every skill that configures anything,
// nor "func", Go's keyword, all over a pasted Go file.
var clipped = map[string]string{
	"dep": "dependency", "deps": "dependencies",
	"desc": "description",
	"repo": "repository", "repos": "repositories",
	"env": "environment", "envs": "environments",
	"db": "database", "dbs": "databases",
	"perf": "performance",
	"impl": "implementation",
	"msg":  "message", "msgs": "messages",
	"prod": "production",
	"spec": "specification", "specs": "specifications",
	"param": "parameter", "params": "parameters",
	"arg": "argument", "args": "arguments",
	"dir": "directory", "dirs": "directories",
	"pkg": "package", "pkgs": "packages",
	"lib": "library", "libs": "libraries",
	"k8s":   "kubernetes",
	"info":  "information",
	"gh":    "github",
	"creds": "credentials",
	"cert":  "certificate", "certs": "certificates",
}

// derived takes the noun a verb in -ize or -ate makes back to the verb's
// stem, so that a skill's "visualizer", "optimization" or "generator"
// meets a task's "visualize", "optimize" or "generate" (and the other way
// round): "-ization" and "-izer" stem as "-ize" does ("visualiz"),
// "-ation" and "-ator" as "-ate" does ("migrat", "generat"). Only word
// lengths where the suffix cannot be most of the word: "station" and
// "nation" stay whole. Other nouns of a verb ("-ment", "-ion" after "ct")
// are left as they are: "document", "production" and "product" are
// different words. A verb in -ize made of a noun in -er stems as that
// noun: "containerize the service" asks what a skill on container images
// declares ("dockerize", "parameterize"); only after "er", since
// "organize", "authorize" and "normalize" are not "organ", "author" and
// "normal".
func derived(w string) string {
	w = sionVerb(verbal(w))
	if n := len(w); n >= 8 && strings.HasSuffix(w, "eriz") {
		return w[:n-2]
	}
	return w
}

// sionVerb takes a noun in -sion of a verb in -de back to the verb's
// stem, so that a task's "we decided" meets a skill's "decision record",
// "include" meets "inclusion" and "explode" "explosion": "-ision",
// "-usion", "-osion" and "-asion" become the "-id", "-ud", "-od" and "-ad"
// that "decide", "conclude", "erode" and "invade" stem as. Only nouns of
// eight letters or more ("vision", "fusion" stay whole); a noun whose
// stem would be another word stays whole too ("provision" is no
// "provide"). The nouns of this shape with no verb in -de ("occasion",
// "precision") stem as no word does.
func sionVerb(w string) string {
	n := len(w)
	if n < 8 || !strings.HasSuffix(w, "sion") || sionKept[w] {
		return w
	}
	switch w[n-5] {
	case 'i', 'u', 'o', 'a':
		return w[:n-4] + "d"
	}
	return w
}

// sionKept are nouns in -sion whose verb in -de means another thing.
// Generic English; no skill's name.
var sionKept = toSet(`provision`)

// verbal takes a noun of a verb in -ize or -ate to the verb's stem (see
// derived).
func verbal(w string) string {
	n := len(w)
	if n < 7 || w[n-1] != 'n' && w[n-1] != 'r' {
		return w // the endings below end in "n" or "r"
	}
	switch {
	case n >= 9 && (strings.HasSuffix(w, "ization") || strings.HasSuffix(w, "isation")):
		return w[:n-5]
	case n >= 8 && (strings.HasSuffix(w, "izer") || strings.HasSuffix(w, "iser") || strings.HasSuffix(w, "yzer") || strings.HasSuffix(w, "yser")):
		return w[:n-2]
	case n >= 8 && strings.HasSuffix(w, "ation"):
		return w[:n-3]
	case n >= 7 && strings.HasSuffix(w, "ator"):
		return w[:n-2]
	}
	return w
}

// spelledZ spells a word in -ise (and its forms: -ised, -ising, -iser,
// -isation) as its -ize spelling ("optimise" as "optimize"), so British
// and American spellings meet. A verb in -yze and its noun in -ysis stay
// apart ("analyz", "analys"): joined, a tool catalog's "get-X" and
// "analyze-X" for one X could no longer be told apart by a task asking
// for "the analysis of X" (Seal-Tools' single-tool top-1 fell from 0.865
// to 0.858).
func spelledZ(w string) string {
	// Every form ends within eight bytes of its "is": most words are
	// passed over without trying each.
	at := -1
	for i := max(0, len(w)-8); i+1 < len(w); i++ {
		if w[i] == 'i' && w[i+1] == 's' {
			at = i
		}
	}
	if at < 3 {
		return w
	}
	for _, suffix := range iseForms {
		// A verb in -sise is its noun's in -sis ("synthesise",
		// "synthesis"): sisNoun joins them.
		if n := len(w) - len(suffix); n >= 3 && strings.HasSuffix(w, suffix) {
			if w[n-1] == 's' {
				return w
			}
			return w[:n] + "iz" + suffix[2:]
		}
	}
	return w
}

// iseForms are the endings of a verb in -ise, longest first.
var iseForms = []string{"isations", "isation", "isers", "ising", "iser", "ised", "ises", "ise"}

func stem(w string) string {
	n := len(w)
	switch {
	case n <= 3 || wholeS[w]:
		return w
	case strings.HasSuffix(w, "ies") && n > 4:
		return yOrI(w[:n-3])
	case strings.HasSuffix(w, "ied") && n > 4:
		return yOrI(w[:n-3])
	case strings.HasSuffix(w, "sses"):
		return w[:n-2]
	case strings.HasSuffix(w, "ing") && n > 5:
		return restoreE(w[:n-3])
	case strings.HasSuffix(w, "ed") && n > 4 && !strings.HasSuffix(w, "eed"):
		return restoreE(w[:n-2])
	case strings.HasSuffix(w, "es") && n > 4 && (strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes")):
		return dropE(w[:n-2])
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return dropE(w[:n-1])
	}
	return dropE(w)
}

// yOrI finishes a word whose "ies" or "ied" was taken off as its base
// form stems: "i" after a vowel-holding base ("queries" "queri", as
// "query" stems, see finalY), else "y" ("tries" and "tried" "try",
// "spies" "spy", not the "spi" of SPI).
func yOrI(base string) string {
	if strings.ContainsAny(base, "aeiou") {
		return base + "i"
	}
	return base + "y"
}

// finalY spells a final y after a consonant as i when the rest holds a
// vowel (Porter's step 1c), the way the plural and the past take it
// ("query", "queries" and "querying" are all "queri"; "copy" and "copied"
// "copi"), so that a noun in -ie ("movie", "calorie") and its plural in
// -ies meet too. "sky", "key" and "day" keep theirs.
func finalY(w string) string {
	n := len(w)
	if n < 3 || w[n-1] != 'y' || !consonant(w, n-2) || !strings.ContainsAny(w[:n-1], "aeiou") {
		return w
	}
	return w[:n-1] + "i"
}

// sisNoun takes the "is" off a noun in -sis of seven letters or more,
// after any ending came off: the noun meets its plural in -ses and its
// verb in -se or -ise ("analysis", "analyses", "analyse", "analysed" are
// "analys"; "synthesis", "synthesise", "synthesised" "synthes"). Shorter
// ones ("basis", "crisis") stay whole, apart from the words their
// plurals would stem as ("base").
func sisNoun(w string) string {
	if len(w) >= 7 && strings.HasSuffix(w, "sis") {
		return w[:len(w)-2]
	}
	return w
}

// wholeS are singular nouns whose final s is part of the word, no plural
// ending, where taking it off would make the word another one ("news" is
// not "new") or no word at all ("series", "species", "physics"): invariant
// nouns (the same in the singular and the plural), and the -s singulars
// whose plural adds -es ("bias", "biases"), which the plural s rule would
// otherwise split ("bias" "bia", "biases" "bias"). Sciences in -ics whose
// -ic is a word of the same family ("statistic", "metric", "economic")
// are not here: they are one family. Generic English; no skill's name.
var wholeS = toSet(`news series species physics mathematics
alias bias canvas atlas lens chaos`)

// keptE are verbs in -e that keep it, and their -ing and -ed forms get it
// back, although Porter's step 5a drops it: the word it leaves is another
// one that is no verb ("paste" is not "past": "copy paste the log" is no
// "past week"). Generic English; no skill's name.
var keptE = toSet(`paste range`)

// restoreE finishes a word whose "ing" or "ed" was taken off: a doubled
// consonant is undoubled ("stopp" from "stopping" is "stop"); else one
// short syllable gets back the e the ending took ("writ" from "writing" is
// "write", as "write" stems), and any other word is left as the base form
// stems ("creat" from "creating", as "create" stems).
func restoreE(w string) string {
	if keptE[w+"e"] {
		return w + "e"
	}
	if u := undouble(w); len(u) < len(w) {
		return u
	}
	if measure(w) == 1 && cvc(w) {
		return w + "e"
	}
	return w
}

// dropE takes off a final silent e, except after a single short syllable
// ("note", "state", "file" keep theirs): Porter's step 5a.
func dropE(w string) string {
	n := len(w)
	if n <= 3 || w[n-1] != 'e' || keptE[w] {
		return w
	}
	base := w[:n-1]
	if m := measure(base); m > 1 || (m == 1 && !cvc(base)) {
		return base
	}
	return w
}

// consonant reports whether w[i] is a consonant: a letter other than a
// vowel, and y after a vowel or first (Porter's definition). Bytes of
// other scripts count as consonants.
func consonant(w string, i int) bool {
	switch w[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !consonant(w, i-1)
	}
	return true
}

// measure is Porter's m: how many vowel-consonant sequences w holds
// ("tree" 0, "trouble" 1, "private" 2).
func measure(w string) int {
	m := 0
	vowel := false
	for i := range len(w) {
		if !consonant(w, i) {
			vowel = true
		} else if vowel {
			m++
			vowel = false
		}
	}
	return m
}

// cvc reports whether w ends consonant-vowel-consonant and its last
// consonant is not w, x or y: a short syllable ("hop", "writ", "not").
func cvc(w string) bool {
	n := len(w)
	if n < 3 || !consonant(w, n-1) || consonant(w, n-2) || !consonant(w, n-3) {
		return false
	}
	c := w[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

// undouble turns "stopp" (from "stopping") back into "stop".
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// appendTerms appends Terms(text) to dst, reusing its room.
func appendTerms(dst []string, text string) []string { return appendTermsBy(dst, text, stemTerm) }

// appendTermsBy is appendTerms with the terms of words given by term
// (stemTerm, or a memo of it).
func appendTermsBy(dst []string, text string, term func(string) string) []string {
	from := len(dst)
	dst, _ = appendWords(dst, nil, text, 0, false)
	out := dst[:from]
	for _, w := range dst[from:] {
		if st := term(w); st != "" {
			out = append(out, st)
		}
	}
	return out
}

// stemTerm is the term a word carries: its stem, or "" for a stop word.
func stemTerm(w string) string {
	if st := Stem(w); !isStop(w, st) {
		return st
	}
	return ""
}

// Terms returns the stems of the words of text that carry evidence.
func Terms(text string) []string {
	words := Words(text)
	out := words[:0]
	for _, w := range words {
		if st := Stem(w); !isStop(w, st) {
			out = append(out, st)
		}
	}
	return out
}

// isStop reports whether a word carries no evidence: it is a stop word or
// inflects one ("wanted", "helped"), since a word is judged by its stem
// wherever it is matched.
func isStop(w, stem string) bool { return stopWords[w] || stopWords[stem] || isNumber(w) }

// isNumber reports whether a word is all digits: a quantity, an id or a
// date in a task ("16.5", "2002"), a value the task passes, not what it is
// about, and in a name a version or a unit's number ("pm2-5"), which a
// task's numbers match only by chance.
func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return w != ""
}

// UseWhen returns the "Use when ..." clauses of text: a skill's own words
// for when it is wanted ("Use when you need to resolve an in-progress git
// merge/rebase conflict"). A clause starts after "use" and "when" (with at
// most useWhenGap words between them: "use this skill when") and runs to
// the end of its sentence; the addressee that opens it ("the user",
// "you") is left out and returned apart, as its folded words, since it
// says who asks, not what for. Each clause is returned as folded words
// joined by spaces.
func UseWhen(text string) (clauses, addressees []string) {
	if !containsUse(text) {
		// Most texts hold no "use": their sentences are not split.
		return nil, nil
	}
	for _, sentence := range sentences(text) {
		ws := Words(sentence)
		for i := 0; i < len(ws); i++ {
			if ws[i] != "use" {
				continue
			}
			j := i + 1
			for j < len(ws) && j-i-1 < useWhenGap && ws[j] != "when" && ws[j] != "whenever" {
				j++
			}
			if j >= len(ws) || (ws[j] != "when" && ws[j] != "whenever") {
				continue
			}
			if negates(ws[max(0, i-2):i]) {
				break // "do not use when ...": when not to
			}
			rest := ws[j+1:]
			k := 0
			for k < len(rest) && k < 2 && addressee[rest[k]] {
				k++
			}
			if k > 0 {
				addressees = append(addressees, rest[:k]...)
			}
			if len(rest[k:]) > 0 {
				clauses = append(clauses, strings.Join(rest[k:], " "))
			}
			break // one clause per sentence
		}
	}
	return clauses, addressees
}

// containsUse reports whether text may hold the word "use" as Words
// reads it: "use" in any ASCII case, or any non-ASCII letter (which may
// fold to one, as full-width letters do).
func containsUse(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf || i+3 <= len(text) && text[i]|0x20 == 'u' && text[i+1]|0x20 == 's' && text[i+2]|0x20 == 'e' {
			return true
		}
	}
	return false
}

// negates reports whether words hold a negation (negators: "not",
// "don't", "never").
func negates(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return negators[w] })
}

// negativeCue are the words that, a few words after a negation, make a
// sentence say when a unit is not wanted: "do not trigger when", "not
// for", "never use on".
var negativeCue = map[string]bool{"use": true, "trigger": true, "invoke": true, "activate": true, "load": true, "when": true, "for": true, "if": true, "on": true}

// negativeCueGap bounds the words between a negation and its cue.
const negativeCueGap = 3

// saysWhenNot reports whether the sentence of text that holds the rune
// offset at, up to it, says when the unit is not wanted: a negation
// followed within negativeCueGap words by a cue ("DO NOT TRIGGER when the
// user says", "not for"), outside what the text puts between double
// quotes (a quoted "users sign up but don't use the product" is a user's
// words, not the author's). A phrase quoted there names a task the unit
// must not answer.
func saysWhenNot(text []rune, at int) bool {
	before := string(text[:at])
	var sentence string // the sentence at ends, up to it: "" when one ends right there
	if ss := sentences(before); len(ss) > 0 && strings.HasSuffix(before, ss[len(ss)-1]) {
		sentence = ss[len(ss)-1]
	}
	ws := Words(unquoted(sentence))
	for i, w := range ws {
		cue := ws[i+1 : min(len(ws), i+1+negativeCueGap)]
		if negators[w] && slices.ContainsFunc(cue, func(c string) bool { return negativeCue[c] }) {
			return true
		}
	}
	return false
}

// unquoted returns s without what it puts between double quotes, straight
// or curly.
func unquoted(s string) string {
	var b strings.Builder
	quoting := false
	for _, r := range s {
		switch {
		case r == '"':
			quoting = !quoting
			r = ' '
		case r == '\u201c' || r == '\u201d':
			quoting = r == '\u201c'
			r = ' '
		case quoting:
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// useWhenGap bounds the words between "use" and "when" in a clause's
// opening ("use this skill when").
const useWhenGap = 3

// addressee are the words that open a "Use when" clause by saying who
// asks ("the user", "a user", "you"): no evidence of what the task is.
var addressee = map[string]bool{"the": true, "a": true, "user": true, "users": true, "you": true, "agent": true}

// sentences splits text at full stops, question and exclamation marks
// followed by a blank or the end, semicolons and line breaks, leaving out
// the marks and the empty pieces.
func sentences(text string) []string {
	var out []string
	for start, end := range sentenceBounds(text, true) {
		if end > start {
			out = append(out, text[start:end])
		}
	}
	return out
}

// sentenceBounds yields the start and end of each sentence of text, in
// order: a sentence ends before a full stop, question or exclamation mark
// followed by a blank or the end, before a line break and, with
// semicolons, before a semicolon; the next starts after that mark. The
// last runs to the end of text. It is the one place text is cut into
// sentences, for a skill's fields (sentences) as for a task
// (contextSentences).
func sentenceBounds(text string, semicolons bool) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		start := 0
		for i := 0; i < len(text); i++ {
			c := text[i]
			end := c == '\n' || (semicolons && c == ';') ||
				(c == '.' || c == '?' || c == '!') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n')
			if end {
				if !yield(start, i) {
					return
				}
				start = i + 1
			}
		}
		if start < len(text) {
			yield(start, len(text))
		}
	}
}
