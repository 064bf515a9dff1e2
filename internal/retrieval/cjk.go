package retrieval

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Chinese, Japanese and Korean are written without blanks between words
// (Korean has blanks, but its particles and endings are written onto the
// word), and people mix English terms into them without a blank
// ("帮我优化ClickHouse查询"). Words reads such text by script:
//
//   - a change of script ends a word, so "ClickHouse" is a word of its own
//     wherever it stands;
//   - a run of Han characters gives its overlapping pairs ("数据库" gives
//     "数据" and "据库"), the usual way to match Chinese without a
//     dictionary, and a run of one character gives that character. A
//     handful of characters that are grammar, not content (the "的" of
//     possession, the "了" of completion, "和" for "and"), end a run;
//   - hiragana, which in Japanese writes particles and verb endings, ends
//     a word and is none ("データベースのクエリを最適化して" gives
//     "データベース", "クエリ", "最適" and "適化");
//   - a run of katakana (loanwords: "テスト") is one word;
//   - a Hangul word is one word, and Stem takes a particle or a request's
//     ending off it ("쿼리를" reads "쿼리", "최적화해줘" "최적화").
//
// Nothing here names a skill: these are properties of the scripts.

// script is the writing system a letter belongs to, as Words reads it.
type script uint8

const (
	scriptOther script = iota // Latin, Cyrillic, Greek ...: words end at blanks and punctuation
	scriptHan
	scriptHiragana
	scriptKatakana
	scriptHangul
)

// scriptOf returns the script of a non-ASCII letter or mark.
func scriptOf(r rune) script {
	switch {
	case r < 0x1100:
		return scriptOther
	case unicode.Is(unicode.Han, r):
		return scriptHan
	case unicode.Is(unicode.Hiragana, r):
		return scriptHiragana
	case unicode.Is(unicode.Katakana, r) || r == 'ー':
		// The prolonged sound mark lengthens a katakana vowel
		// ("データ"); Unicode gives it to no one script.
		return scriptKatakana
	case unicode.Is(unicode.Hangul, r):
		return scriptHangul
	}
	return scriptOther
}

// hanGrammar are Han characters that are grammar rather than content in
// nearly every word they stand in: a particle of possession, aspect or
// question, a conjunction, a preposition of the object or place, a
// pronoun, the common measure word. "在" and "个" joined the next word
// into pairs that matched nothing the task meant ("在准" of "在准备",
// "个消" of "发个消息"): Chinese small talk a red team wrote loaded a
// skill 9 times in 105 with them, 5 without.
// They end a run of Han characters, so a pair never spans them ("查询的性能"
// gives "查询" and "性能", not "询的" and "的性").
const hanGrammar = "的了吗呢吧啊呀嘛和与及或把被给很也都就是我你他她它在个個嗎與給"

// isHanGrammar reports whether r is one of hanGrammar.
func isHanGrammar(r rune) bool { return strings.ContainsRune(hanGrammar, r) }

// appendHan appends the words of the run of Han characters that starts at
// text[i:] (see the top of this file) and returns where the run ends. The
// spans of a run's pairs do not overlap: each pair's span is its first
// character, the last pair's both, so they tile the run and the gap between
// two of them is empty, as between the words of one clause.
func appendHan(words []string, spans []span, text string, off, i int, withSpan bool) ([]string, []span, int) {
	var buf [32]int
	starts := buf[:0]
	j := i
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if scriptOf(r) != scriptHan || isHanGrammar(r) {
			break
		}
		starts = append(starts, j)
		j += n
	}
	starts = append(starts, j)
	emit := func(from, to, spanEnd int) {
		words = append(words, text[from:to])
		if withSpan {
			spans = append(spans, span{int32(off + from), int32(off + spanEnd)})
		}
	}
	if n := len(starts) - 1; n == 1 {
		// One character is a word only standing alone ("写 code"): one
		// left over beside a grammar character is most often the rest of a
		// word the grammar character began or ended ("们" of "我们", "否"
		// of "是否").
		if !nextToGrammar(text, i, j) {
			emit(starts[0], starts[1], starts[1])
		}
	} else {
		for k := 0; k+2 <= n; k++ {
			end := starts[k+1]
			if k+2 == n {
				end = starts[k+2]
			}
			emit(starts[k], starts[k+2], end)
		}
	}
	return words, spans, j
}

// hanOverlap reports whether a and b are neighbouring pairs of one run of
// Han characters ("用户" and "户反" of "用户反馈"): together they are one
// run of three characters, which the pairs already match, not a phrase of
// two words, so they earn no phrase's weight (a four-character phrase
// would count as two phrases and its three pairs).
func hanOverlap(a, b string) bool {
	ra, na := utf8.DecodeLastRuneInString(a)
	rb, _ := utf8.DecodeRuneInString(b)
	return na > 0 && ra == rb && ra >= 0x1100 && scriptOf(ra) == scriptHan
}

// nextToGrammar reports whether a Han grammar character stands right
// before text[i:] or at text[j:].
func nextToGrammar(text string, i, j int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	s, _ := utf8.DecodeRuneInString(text[j:])
	return isHanGrammar(r) || isHanGrammar(s)
}

// hangulEndings are the particles and request endings Stem takes off a
// Hangul word, longest first: the object, subject and topic markers, the
// locatives, "and", "too", and "do (it) for me" in its common forms. One
// is taken, and only from a word it leaves two syllables of: "속도"
// (speed) keeps its "도", "전문가" (expert) becomes "전문" (specialty).
var hangulEndings = func() []string {
	es := strings.Fields(`에서는 에서도 으로는 으로 에서 에게 까지 부터 처럼 보다 이나 라는 이라는 하고 과 와 을 를 이 가 은 는 에 의 로 도 만
해주세요 해주십시오 해줘요 해줘 해주 하세요 하려면 하려고 하는 하기 해서 했는데 합니다 한다 하다 하지 해 할 한`)
	// Longest first, so "에서는" is taken whole rather than its "는".
	slices.SortStableFunc(es, func(a, b string) int { return utf8.RuneCountInString(b) - utf8.RuneCountInString(a) })
	return es
}()

// hangulStem takes up to two of hangulEndings off a Hangul word: a
// particle, then an ending the word itself ends in, so that a word reads
// alike with a particle and without ("게이트웨이를" and "게이트웨이").
func hangulStem(w string) string {
	for range 2 {
		cut := false
		for _, e := range hangulEndings {
			if base, ok := strings.CutSuffix(w, e); ok && utf8.RuneCountInString(base) >= 2 {
				w, cut = base, true
				break
			}
		}
		if !cut {
			break
		}
	}
	return w
}

// endsHangul reports whether w's last letter is Hangul.
func endsHangul(w string) bool {
	r, _ := utf8.DecodeLastRuneInString(w)
	return r >= 0x1100 && scriptOf(r) == scriptHangul
}

// cjkStopWords carry no evidence, as stopWords' English ones: pairs of
// Chinese characters that are pronouns, question words, conjunctions,
// "can", "need", "use", "help me", "please", "thing"; lone characters
// of the same kind; their Japanese and Korean like.
const cjkStopWords = `这个 那个 一个 一下 一些 这些 那些 我们 你们 他们 帮忙 帮助 如何 怎么 怎样 什么 为什 为何 可以 能够 需要 使用 进行 以及 或者
所有 现在 然后 还是 但是 因为 所以 如果 时候 已经 应该 一直 总是 非常 比较 其他 其它 其中 对于 关于 通过 根据 由于 虽然 而且 并且
不过 只是 只要 一样 这样 那样 这里 那里 哪里 哪个 能否 是否 谢谢 麻烦 东西 用于 一点 有点 有没 没有 不要 要用 不用 不想 想要 希望 时使
一 个 这 那 有 不 要 会 能 让 请 帮 对 在 从 到 用 使 些 想 下 该 时 当 中 为 并 而 等 其 之 以 于 可 将 已 由
這個 那個 一個 這些 那些 我們 你們 他們 什麼 為什 為何 怎麼 怎樣 時候 現在 然後 還是 但是 因為 所以 如果 已經 應該 總是 比較 對於 關於
通過 根據 由於 雖然 而且 並且 只是 只要 一樣 這樣 那樣 這裡 那裡 哪裡 哪個 謝謝 麻煩 東西 用於 一點 有點 沒有 不要 要用 不用 想要 能夠 需要 進行 幫忙 幫助
這 個 們 讓 請 幫 對 從 將 於 該 時 當 為 並
場合 必要 使用 方法 以下 時 際 等 用 上 下 中
이 가 을 를 은 는 에 의 로 도 와 과 만 에서 으로 에게
사용 이거 이것 그거 그것 저것 좀 그리고 그냥 지금 어떻게 무엇 뭐 왜 있는 없는 같은 위한 위해 대한 통해 및 또는 하지만 수 등 더 것 때`

// A refusal in Chinese, Japanese or Korean names the skill as English does,
// in Latin letters, but its cue stands where those languages put it:
// before the name in Chinese ("不要用X", "别用X", "避免X"), after it in
// Japanese ("Xを使わないで", "Xなしで") and Korean ("X 사용하지 마",
// "X 없이"), and after it in Chinese too when the clause ends there ("X就不用了").
// The cues are read on the text around a name rather than as words, as
// the pairs a run of Han characters gives do not line up with them.
var (
	// cjkList is the rest of a list of names in Latin letters a cue
	// refuses as one: "别用 exa 或 deep-research", "AやBは使わないで". A
	// comma is no connector: "别用 MySQL，postgres-patterns 更合适" wants
	// the second.
	cjkList = `(?:` + cjkQuotes + `*[A-Za-z0-9][A-Za-z0-9_.\-/]*` + cjkQuotes + `*(?:` + cjkConnectors + `)\s*){0,4}`
	// cjkBefore matches a cue that ends right before a name. The cue must
	// open its clause or follow a word that may lead it ("我不要用X",
	// "也别用X"): "识别", "个别", "分别" are no "别", and "不得不用X",
	// "何不用X", "要不要用X" ask for X.
	cjkBefore = lazyRegexp(`(?:(^|[^\p{Han}]|` + cjkLeads + `)(?:` +
		`(?:不要|不用|别|別|切勿|勿|甭|禁止|无需|無需|无须|無須|毋需|毋须|毋須|不需要|不需|不必|不想|不准|不许|不許|没必要|沒必要|用不着|用不著)(?:再|继续|繼續|去)?(?:使用|用|调用|調用|加载|載入|载入|启用|啟用|开启|開啟|依赖|依賴)?` +
		`|不(?:再|去)?(?:使用|调用|調用|加载|载入|載入|启用|啟用|考虑|考慮|依赖|依賴)` +
		`|忽略` +
		`|(避免|跳过|跳過|排除|去掉|不包括|而不是|代替|替代)(?:使用|用)?` +
		`)|(` + cjkCommandLeads + `)` + cjkCommands +
		`)(?:这个|這個|那个|那個|该|該)?(?:技能)?` + cjkQuotes + `*` + cjkList + `$`)
	// cjkNegated matches a negator that ends right before a refuser
	// (cjkBefore's group): "不要跳过X" asks for X.
	cjkNegated = lazyRegexp(`(?:不|别|別|勿|没|沒|千万|千萬)(?:要|能|可以|可|准|许|許|用|必|有)?\s*$`)
	// cjkObjectEnds matches what may follow the names a refuser (cjkBefore's
	// group) takes: the clause's end or the word "skill". "避免 seo 排名下降"
	// avoids a drop, not the skill; "去掉 benchmark 里的异常值" removes values.
	cjkObjectEnds = lazyRegexp(`^` + cjkQuotes + `*(?:技能|skill)?` + cjkQuotes + `*(?:[，。,.!！？?；;、\n]|$|了|吧)`)
	// cjkAfter matches a cue that starts right after a name.
	cjkAfter = lazyRegexp(`^` + cjkQuotes + `*(?:` +
		// Chinese, where the clause ends after the cue: "X就不用了",
		// "X都不要用", "X先别用了"; "X不要太激进" and "X 不用 手动检查"
		// go on, and refuse nothing.
		`(?:这个|這個)?(?:技能)?(?:就|也|都|先|暂时|暫時)?(?:(?:不要|不用|别|別|不需要|不需)(?:再)?(?:用|使用)?了?|就算了|除外)(?:[，。,.!！？?；;\n]|$)` +
		// Japanese.
		`|(?:スキル)?(?:は|を|も)?(?:[、,，]\s*)?(?:絶対に|今回は|もう|決して)?(?:使いません|使用しません|使うのはやめて|使ってはいけ|使っちゃだめ|使っちゃダメ|使わないように|避けて|使用不可|無しで|スキップして|読み込まないで|使う必要はな|使わなくても|使わないで|使わずに|使わず|使用しないで|使用せずに|使用せず|使用しない(?:で|こと)|用いずに|使いたくない|使わなくていい|使わなくて(?:も)?いい|(?:使わない|使用しない)(?:方|ほう)が(?:いい|良い)(?:です|でしょう)?(?:[。．.!！、,，\s]|$)|呼び出さないで|ロードしないで|使うな|なしで|抜きで|(?:は)?(?:いらない|いりません|要らない|要りません|必要(?:ありません|ない))|(?:は|も)?不要(?:です|だ)?(?:[、。,.!！\s]|$)|(?:は)?(?:使用)?禁止|ではなく|じゃなくて|の代わりに|はやめて|を?除外して)` +
		// Korean: "X 말고 Y" and "X 대신 Y" want Y.
		`|(?:스킬)?(?:은|는|을|를|도)?(?:[,，、]\s*)?\s*(?:(?:사용|이용)\s?하지|쓰지)\s*(?:마|말고|말아|않고|않아도|않도록|않겠|않을|않았으면|말라)` +
		`|(?:스킬)?(?:은|는|을|를|도)?(?:[,，、]\s*)?\s*(?:(?:안\s?(?:쓰면|썼으면|사용하면|사용했으면)|(?:쓰지|사용하지)\s?않는\s?(?:게|것이))\s?좋겠(?:어요|어|습니다|네요)?(?:[.!。,，\s]|$)|안\s?쓸|쓰면\s?안|사용하면\s?안|제외해|사용\s?안\s?해|피해|불필요|생략해|건너뛰어)` +
		`|(?:스킬)?(?:은|는|을|를)?\s*(?:안\s?(?:써도|쓸래|쓸게)|빼\s?줘|빼고|제외하고|사용\s?금지|말고(?:[^도]|$)|대신|필요\s?없(?:어|어요|음|습니다)?(?:[\s,.!]|$)|없이(?:[\s,.!]|$))` +
		`)`)
	// cjkOnlyAfter matches what makes a refused name the one thing
	// allowed: "不要用 X 以外的技能", "别用 X 之外的".
	cjkOnlyAfter = lazyRegexp(`^` + cjkQuotes + `*(?:技能)?(?:以外|之外|外的|除外)`)
	// cjkAfterAsks matches the forms of cjkAfter that ask after all:
	// "Xを使わないといけない" (must use X), "X 없이는 안 돼".
	cjkAfterAsks = lazyRegexp(`^` + cjkQuotes + `*(?:スキル)?(?:は|を|も)?(?:使わない(?:と|理由|わけ)|使わずには|なしでは|なしには)` +
		`|^` + cjkQuotes + `*(?:스킬)?(?:은|는|을|를|도)?\s*(?:(?:사용|이용)\s?하지|쓰지)\s*않(?:으면|을\s?이유)` +
		`|^` + cjkQuotes + `*(?:스킬)?(?:은|는)?\s*없이는`)
)

// lazyRegexp returns a function that compiles src on its first call: the
// patterns of this file are wanted only by a task in these scripts, and
// compiling them all took a start without one about 0.7 ms.
// TestCJKPatternsCompile compiles every one.
func lazyRegexp(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// cjkQuoteMarks are the quotes, brackets and marks that may wrap a name;
// cjkQuotes is the pattern of one of them or a blank.
const (
	cjkQuoteMarks = "\"'“”‘’「」『』《》【】（）()/@`"
	cjkQuotes     = `[\s` + cjkQuoteMarks + `]`
)

// cjkCommandLeads may stand before a cue that commands (cjkCommands), and
// before no other: "写测试的时候不要用X", "部署时别用X", "可以的话别用X" refuse X,
// while "平时不用X" (usually without X), "老板觉得不用X太冒险" and "方便的话用X，
// 不方便的话不用X" say what happens without it.
const cjkCommandLeads = `的时候|的時候|时候|時候|时|時|的话|的話|觉得|覺得|需求`

// cjkCommands are the cues that command: "不用" may say "no need", "不想"
// a wish.
const cjkCommands = `(?:不要|别|別|禁止|切勿|请勿|請勿|不准|不许|不許)(?:再|继续|繼續|去)?(?:使用|用|调用|調用|加载|載入|载入|启用|啟用|开启|開啟|依赖|依賴)?`

// cjkConnectors join the names of a list.
const cjkConnectors = `或者|或|和|与|與|跟|及|还有|還有|以及|、|/|や|と|또는|이나|과|와|랑`

// cjkLeads may stand before a cue that opens a clause: a pronoun, "please",
// "also", "just", "first", "for now", "both", "better", "could we", "but",
// "I think", "and".
const cjkLeads = `另外|此外|同时|同時|然后|然後|而且|并且|並且|不过|不過|最好还是|最好還是|我觉得|我覺得|顺便|順便|我们|我們|咱们|咱們|你们|你們|大家|我|你|请|請|也|就|先|千万|千萬|这次|這次|这回|暂时|暫時|都|还|還|所以|那就|可以|最好|尽量|盡量|建议|建議|一定|绝对|絕對|完全|根本|目前|以后|以後|这里|這裡|今天|麻烦|麻煩|拜托|拜託|注意|记得|記得|但|但是|能不能|可不可以|能否`

// cjkJoin matches the gap between two names of one list ("A 和 B",
// "A、B"): a cue after the last refuses them all. cjkJoinWide lets a
// comma join them too, which a cue after them takes only when it says
// "all" (cjkAll): "用 A，B 不用了" wants A.
var (
	cjkJoin     = lazyRegexp(`^` + cjkQuotes + `*(?:` + cjkConnectors + `)` + cjkQuotes + `*$`)
	cjkJoinWide = lazyRegexp(`^` + cjkQuotes + `*(?:` + cjkConnectors + `|[,，])` + cjkQuotes + `*$`)
	cjkAll      = lazyRegexp(`^` + cjkQuotes + `*(?:技能)?(?:都|全都|也都|全部|均|とも|どちらも|両方とも|모두|둘 다|다)`)
)

// cjkCueReach is how many bytes around a name cjkBefore and cjkAfter read:
// the longest cue with its blanks and quotes, in three-byte characters.
const cjkCueReach = 160

// isCJKTerm reports whether a term is a word of the scripts of this file.
func isCJKTerm(t string) bool {
	if t == "" || t[0] < 0xe1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(t)
	return scriptOf(r) != scriptOther
}

// hasCJK reports whether text holds a letter of the scripts of this file
// (hiragana too, which gives no word: "tddではなく").
func hasCJK(text string) bool {
	for i := 0; i < len(text); i++ {
		// U+1100, where Hangul starts, is the first rune of three bytes
		// that opens with 0xE1: a byte below it starts no such letter.
		if text[i] >= 0xe1 {
			r, n := utf8.DecodeRuneInString(text[i:])
			if scriptOf(r) != scriptOther {
				return true
			}
			i += n - 1
		}
	}
	return false
}

// A clause that refuses, as maskRefused reads English ones, asks for
// nothing: its words are evidence for no unit. In Chinese the refusal
// opens the clause ("无需写 E2E 测试，只补单元测试"); in Japanese and Korean
// it closes it ("Playwright は使わずに、", "TDD 워크플로우는 쓰지 말고,").
var (
	cjkRefusalOpens  = lazyRegexp(`^(?:` + cjkLeads + `)*(?:不要|别|別|无需|無需|不需要|不用|不必|请勿|請勿|切勿|勿|甭|禁止|不想)`)
	cjkRefusalCloses = lazyRegexp(`(?:使わないで|使わずに|使わない|使いません|しないで|せずに|なしで|抜きで|は不要|いらない|(?:쓰|사용하|하)지\s*(?:마|말고|말아|마세요|않아도))[\s、，,。.!！]*$`)
	// cjkOnly matches a clause that refuses everything but what it names
	// ("不要用 X 以外的技能", "Xしか使わないで", "X 외에는 쓰지 마"): it asks
	// for X.
	cjkOnly = lazyRegexp(`以外|之外|除了|しか|だけ|외에|외엔|만\s?(?:쓰|사용)|말고는|빼고는`)
	// cjkTurn ends the scope of a Chinese refusal that opens a clause: what
	// follows is asked for ("不要用 MySQL 而用 X", "别用 ORM 直接用 X").
	cjkTurn = lazyRegexp(`而|但|却|卻|直接|改用|换用|換用|还要|還要|就用|只用`)
	// cjkAsks are the verbs whose refusal asks ("不要忘记", "别漏了"), and
	// the words that open with a refusal's characters and are none
	// ("别人写的查询", "不用的查询").
	cjkAsks = lazyRegexp(`^(?:` + cjkLeads + `)*(?:(?:不要|别|別|勿|不)(?:再)?(?:忘|漏|跳过|跳過|省略|错过|錯過|只|犹豫|猶豫|担心|擔心|怕)|(?:别|別)(?:人|的|处|處|说|說)|(?:不用|不要|不需要)的)`)
)

// cjkSupposes matches what, right after a refused name, makes a Chinese
// refusal a statement or a question about going without the skill: what
// follows from it ("不用 X 会怎样？", "不用 X 会慢一点", "别用 X 会不会更快？",
// "不用 X 的话会怎么样") or whether it is all right ("不用 X 也行吗？").
// cjkBetter is the one consequence that refuses: "不用 X 会更好" (better
// without X); "不用 X 的话更好" and "不要用 X 我会自己写" (don't, I will write
// it) refuse X too. cjkAsksWhether is a clause that ends as a yes-or-no
// question.
var (
	cjkSupposes    = lazyRegexp(`^` + cjkQuotes + `*(?:的话|的話)?(?:[会會]|也?(?:行|可以|好|没关系|沒關係|没问题|沒問題)[吗嗎])`)
	cjkBetter      = lazyRegexp(`^` + cjkQuotes + `*(?:的话|的話)?[会會](?:更|比较|比較|还是|還是)?(?:好|合适|合適)`)
	cjkAsksWhether = lazyRegexp(`[吗嗎][\s？?]*$`)
)

// supposesAfter reports whether the clause that after (the text after a
// refused name) goes on in supposes: cjkSupposes but not cjkBetter, or a
// yes-or-no question.
func supposesAfter(after string) bool {
	if end := strings.IndexAny(after, "，。,.!！？?；;\n"); end >= 0 {
		after = after[:end]
	}
	return cjkSupposes().MatchString(after) && !cjkBetter().MatchString(after) || cjkAsksWhether().MatchString(after)
}

// maskRefusedCJK marks, in masked (allocated when nil and needed), the
// words of each clause that refuses (cjkRefusalOpens, cjkRefusalCloses).
func maskRefusedCJK(q *Query, masked []bool) []bool {
	for from := 0; from < len(q.words); {
		to := from + 1
		for to < len(q.words) && !q.endsClause(to-1) {
			to++
		}
		end := len(q.task)
		if to < len(q.words) {
			end = int(q.spans[to].start)
		}
		start := int(q.spans[from].start)
		clause := q.task[start:end]
		stop := to // the words up to here are masked
		opens := cjkRefusalOpens().FindStringIndex(clause)
		switch {
		case cjkOnly().MatchString(clause), cjkAsksWhether().MatchString(clause), strings.ContainsAny(clause, "会會"):
			// A clause that allows nothing but a name, asks whether, or
			// says what follows ("会") is masked nowhere: negation reads
			// the clause right after the name more closely (supposesAfter).
			stop = from
		case opens != nil && !cjkAsks().MatchString(clause):
			cue := opens[1]
			if loc := cjkTurn().FindStringIndex(clause[cue:]); loc != nil {
				for stop = from; stop < to && int(q.spans[stop].start) < start+cue+loc[0]; stop++ {
				}
			}
		case cjkRefusalCloses().MatchString(clause):
		default:
			stop = from
		}
		for j := from; j < stop; j++ {
			if masked == nil {
				masked = make([]bool, len(q.words))
			}
			masked[j] = true
		}
		from = to
	}
	return masked
}

// cjkRefusals calls refuse for each whole name the text around it refuses
// (see cjkBefore), with the words that did it. nameAt is the longest name
// at each word, depth a name's length in words.
func (q *Query) cjkRefusals(nameAt []int32, depth func(int32) int, stop func() bool, refuse func(l listName, said string)) {
	var list []listName // the names of the list the name at k ends
	var wide []listName // the same, commas joining names too
	last := -1          // where the last name ends, in bytes
	for k := 0; k < len(q.words) && !stop(); k++ {
		state := nameAt[k]
		if state < 0 {
			continue
		}
		m := depth(state)
		from, to := int(q.spans[k].start), int(q.spans[k+m-1].end)
		gap := ""
		if last >= 0 && from-last <= 16 {
			gap = q.task[last:from]
		}
		if !cjkJoin().MatchString(gap) {
			list = list[:0]
		}
		if !cjkJoinWide().MatchString(gap) {
			wide = wide[:0]
		}
		l := listName{state: state, at: k, len: m, from: k}
		list, wide, last = append(list, l), append(wide, l), to
		before := q.task[max(0, from-cjkCueReach):from]
		after := q.task[to:min(len(q.task), to+cjkCueReach)]
		// Most names stand near no cue: a character every cue before a
		// name holds, or one a cue after it opens with, is looked for
		// before the patterns are run.
		if !strings.ContainsAny(before, cjkBeforeMarks) && !strings.ContainsAny(firstRune(strings.TrimLeftFunc(after, isCJKQuote)), cjkAfterMarks) {
			k += m - 1
			continue
		}
		if loc := cjkBefore().FindStringSubmatchIndex(before); loc != nil && !cjkOnlyAfter().MatchString(after) && !supposesAfter(after) && (loc[4] < 0 || !cjkNegated().MatchString(before[:loc[4]]) && cjkObjectEnds().MatchString(after)) {
			// The quote starts at the cue, past the lead that let it in.
			cue := loc[0]
			if loc[2] >= 0 {
				cue = loc[3]
			} else if loc[6] >= 0 {
				cue = loc[7]
			}
			refuse(listName{state: state, at: k, len: m, from: k}, strings.TrimSpace(before[cue:]+q.task[from:to]))
		} else if loc := cjkAfter().FindStringIndex(after); loc != nil && !cjkAfterAsks().MatchString(after) {
			names := list
			if cjkAll().MatchString(after) {
				// "A，B 都不要用": "all" takes the names a comma lists.
				names = wide
			}
			said := q.task[int(q.spans[names[0].at].start):to] + wholeCue(after, loc[1])
			for _, l := range names {
				refuse(l, strings.TrimSpace(said))
			}
		}
		k += m - 1
	}
}

// wholeCue returns the cue that ends at byte end of after, to quote: the
// punctuation that ended its clause left off, the word it ends in read to
// its end ("사용하지 마" of "사용하지 마세요").
func wholeCue(after string, end int) string {
	if r, _ := utf8.DecodeLastRuneInString(after[:end]); unicode.IsPunct(r) || unicode.IsSpace(r) {
		return strings.TrimRightFunc(after[:end], func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	}
	for end < len(after) {
		r, n := utf8.DecodeRuneInString(after[end:])
		if !unicode.IsLetter(r) || r < utf8.RuneSelf {
			break
		}
		end += n
	}
	return after[:end]
}

// cjkBeforeMarks holds a character of every cue cjkBefore matches;
// cjkAfterMarks the first character of every cue cjkAfter matches after
// the quotes.
const (
	cjkBeforeMarks = "不别別勿禁无無毋没沒忽避跳排去代替"
	cjkAfterMarks  = "这這技就也都先暂暫不别別除スはをも使用呼ロなで抜いい要必禁じの避無読스은는을를도사이쓰안빼제말대필없피불생건、，,"
)

// isCJKQuote reports whether r is one of cjkQuotes.
func isCJKQuote(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(cjkQuoteMarks, r) }

// firstRune returns the first rune of s, as a string.
func firstRune(s string) string {
	_, n := utf8.DecodeRuneInString(s)
	return s[:n]
}
