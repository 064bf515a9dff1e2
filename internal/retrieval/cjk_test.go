package retrieval

import (
	"regexp"
	"strings"
	"testing"
)

// TestCJKNegation: refusals written in Chinese, Japanese and Korean, the
// cue before the name or after it, with lists; and the tasks that name a
// skill in those languages without refusing it.
func TestCJKNegation(t *testing.T) {
	ix := negationIndex()
	tests := []struct {
		name, task, want, said string
	}{
		{name: "不要用X", task: "不要用tdd技能", want: "tdd", said: "不要用tdd"},
		{name: "不要使用 X", task: "请不要使用 tdd 来写这个", want: "tdd", said: "不要使用 tdd"},
		{name: "别用X", task: "别用deploy", want: "deploy", said: "别用deploy"},
		{name: "无需X", task: "无需 tdd，直接改代码", want: "tdd"},
		{name: "避免X", task: "避免 code-review-bot", want: "code-review-bot"},
		{name: "a list after the cue", task: "别用 deploy 或 tdd 去做", want: "deploy tdd"},
		{name: "a list of a word and a name", task: "别用 exa 或 tdd", want: "tdd"},
		{name: "X就不用了", task: "tdd 就不用了，帮我部署", want: "tdd", said: "tdd 就不用了"},
		{name: "Xを使わないで", task: "tddを使わないで", want: "tdd", said: "tddを使わないで"},
		{name: "Xは使わずに", task: "deploy は使わずに、tdd で書いて", want: "deploy"},
		{name: "AやBは使わないで", task: "deployやtddは使わないで", want: "deploy tdd"},
		{name: "Xなしで", task: "tddなしで実装して", want: "tdd"},
		{name: "X 사용하지 마", task: "tdd 사용하지 마세요", want: "tdd", said: "tdd 사용하지 마세요"},
		{name: "X는 쓰지 마", task: "tdd는 쓰지 마", want: "tdd"},
		{name: "X 없이", task: "tdd 없이 그냥 고쳐 줘", want: "tdd"},
		{name: "Chinese asks for X", task: "用tdd写测试", want: ""},
		{name: "Chinese, don't skip X", task: "不要跳过 tdd 的步骤", want: ""},
		{name: "Chinese, X does not need", task: "tdd不用写文档", want: ""},
		{name: "Japanese asks for X", task: "tddを使って", want: ""},
		{name: "Korean asks for X", task: "tdd를 사용해 줘", want: ""},
		{name: "a refusal of something else", task: "不要用 jest，用 tdd", want: ""},
		// What a red team found read as refusals.
		{name: "have to use", task: "不得不用tdd写测试", want: ""},
		{name: "why not use", task: "何不用tdd", want: ""},
		{name: "whether to use", task: "我不知道要不要用tdd，帮我部署", want: ""},
		{name: "without X, what follows", task: "不用 tdd 会怎样？", want: ""},
		{name: "without X, any problem", task: "不用 tdd 会有问题吗？", want: ""},
		{name: "without X, faster", task: "不用 tdd 会更快吗？", want: ""},
		{name: "Traditional, without X if", task: "不用 tdd 的話會怎樣", want: ""},
		{name: "better without X", task: "不用 deploy 的话更好，先打个镜像就行", want: "deploy"},
		// Words that may lead a Chinese cue, and polite Japanese and
		// Korean refusals, a red team found missed.
		{name: "when writing, don't use X", task: "写测试的时候不要用 tdd，直接补单元测试", want: "tdd"},
		{name: "while deploying", task: "部署时不要用 deploy，先发 staging", want: "deploy"},
		{name: "I think don't use X", task: "我觉得不要用 code-review 了，直接合并", want: "code-review"},
		{name: "also don't use X", task: "直接合并，另外别用 code-review", want: "code-review"},
		{name: "and don't use X", task: "帮我写个 Dockerfile 并且不要用 deploy", want: "deploy"},
		{name: "better not use X", task: "最好还是不要用 code-review，直接合并", want: "code-review"},
		{name: "if you can, don't use X", task: "方便的话不要用 tdd，直接写", want: "tdd"},
		{name: "Japanese, better not use X", task: "tddは使わない方がいいです。ユニットテストだけ書いてください", want: "tdd"},
		{name: "Korean, I'd like you not to use X", task: "tdd는 안 쓰면 좋겠어요", want: "tdd"},
		{name: "Korean, better not to use X", task: "deploy는 쓰지 않는 게 좋겠어요", want: "deploy"},
		{name: "use them separately", task: "分别用 tdd 和 deploy 检查", want: ""},
		// What a red team found the leads above refused: a lead of one
		// character or a reported opinion before "不用" (no need), an
		// either-or question, and polite forms asked or reported.
		{name: "usually without X", task: "平时不用 deploy 的，这次要用 deploy 部署", want: ""},
		{name: "the boss thinks no X is risky", task: "老板觉得不用 code-review 太冒险，所以请用 code-review", want: ""},
		{name: "use X or not", task: "用还是不用 tdd，你来决定", want: ""},
		{name: "use X or don't", task: "是用 tdd 还是别用 tdd？帮我判断", want: ""},
		{name: "an error without X", task: "不用 deploy 会出错，请用 deploy 部署", want: ""},
		{name: "is it all right without X", task: "我觉得不用 tdd 也行吗？", want: ""},
		{name: "better without X", task: "不用 tdd 会更好", want: "tdd"},
		{name: "don't, I will", task: "不要用 tdd 我会自己写测试", want: "tdd"},
		{name: "Japanese, is it better not to", task: "tddは使わない方がいいですか？", want: ""},
		{name: "Japanese, why better not to", task: "tddを使わない方がいい理由を教えてください", want: ""},
		{name: "Korean, asked", task: "tdd는 안 쓰면 좋겠어요?", want: ""},
		{name: "Korean, reported", task: "deploy는 쓰지 않는 게 좋겠다고 했지만 이번에는 deploy 써 주세요", want: ""},
		{name: "would it be faster", task: "别用 deploy 会不会更快？", want: ""},
		{name: "a refusal that asks politely", task: "能不能不要用 tdd？", want: "tdd"},
		{name: "identify", task: "帮我识别 tdd 问题", want: ""},
		{name: "each", task: "分别用 deploy 和 tdd 检查", want: ""},
		{name: "avoid a drop", task: "避免 deploy 失败", want: ""},
		{name: "remove values from", task: "去掉 deploy 里的异常值", want: ""},
		{name: "a comma is no connector", task: "别用 MySQL，tdd 更合适", want: ""},
		{name: "X should not be", task: "deploy不要太激进", want: ""},
		{name: "X no need by hand", task: "用 tdd 不用 手动检查", want: ""},
		{name: "other than X", task: "deploy 除外的技能都别用", want: ""},
		{name: "Japanese must use", task: "tddを使わないといけない", want: ""},
		{name: "Korean must use", task: "tdd를 사용하지 않으면 안 돼", want: ""},
		{name: "Korean not without", task: "tdd 없이는 안 돼", want: ""},
		// What a second red team found read as refusals.
		{name: "nothing but X", task: "不要用 tdd 以外的技能", want: ""},
		{name: "nothing besides X", task: "别用 tdd 之外的", want: ""},
		{name: "Korean besides X also", task: "tdd 말고도 deploy도 써줘", want: ""},
		// What a second red team found missed.
		{name: "we should not use", task: "我们不要用 tdd，帮我部署", want: "tdd"},
		{name: "best not to use", task: "最好别用 tdd", want: "tdd"},
		{name: "could we not use", task: "能不能不用 tdd", want: "tdd"},
		{name: "Japanese polite no", task: "tddは使いません", want: "tdd"},
		{name: "Japanese with a comma", task: "tdd は、使わないで", want: "tdd"},
		{name: "Japanese with an adverb", task: "tddは絶対に使わないでください", want: "tdd"},
		{name: "Korean will not use", task: "tdd는 사용하지 않겠습니다", want: "tdd"},
		{name: "Korean must not use", task: "tdd는 쓰면 안 돼", want: "tdd"},
		{name: "Korean promises not to use", task: "tdd은 쓰지 않을게요", want: "tdd"},
		{name: "Korean no reason not to use", task: "tdd를 사용하지 않을 이유가 없어", want: ""},
		{name: "Korean with a comma", task: "tdd는, 사용하지 마세요", want: "tdd"},
		{name: "a comma list all refused", task: "tdd，deploy 都不要用", want: "deploy tdd"},
		{name: "a comma list, the last refused", task: "用 tdd，deploy 不用了", want: "deploy"},
		// What a red team found missed.
		{name: "Traditional", task: "別用tdd，幫我部署", want: "tdd"},
		{name: "both not", task: "tdd和deploy都不要用，帮我审查", want: "deploy tdd"},
		{name: "skip as an object", task: "跳过 tdd，直接部署", want: "tdd"},
		{name: "quoted in brackets", task: "不要用【tdd】", want: "tdd"},
		{name: "Japanese instead", task: "tddではなく deploy で", want: "tdd"},
		{name: "Korean not X but", task: "tdd 말고 deploy로 해 줘", want: "tdd"},
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
			if tt.said != "" {
				if got := q.Negated(strings.Fields(tt.want)[0]); got != tt.said {
					t.Errorf("said in %q: got %q; want %q", tt.task, got, tt.said)
				}
			}
		})
	}
}

// TestCJKRefusedClauseIsNoEvidence: a clause that refuses in Chinese
// (opening with the refusal), Japanese or Korean (closing with it) is
// evidence for no unit; a clause after it, or one whose refusal asks, is.
func TestCJKRefusedClauseIsNoEvidence(t *testing.T) {
	ix := testIndex(
		unit("e2e-browser", "端到端 浏览器 E2E テスト 브라우저 테스트"),
		unit("unit-tests", "单元测试 pytest"),
	)
	tests := []struct {
		name, task, unit string
		want             bool // some evidence
	}{
		{name: "Chinese refusal opens the clause", task: "无需写 E2E 端到端用例，只补上 pytest 单元测试", unit: "e2e-browser", want: false},
		{name: "the next clause counts", task: "无需写 E2E 端到端用例，只补上 pytest 单元测试", unit: "unit-tests", want: true},
		{name: "Chinese refusal that asks", task: "别忘了写 E2E 端到端用例", unit: "e2e-browser", want: true},
		{name: "Japanese refusal closes the clause", task: "E2E テストは使わずに、pytest で書いて", unit: "e2e-browser", want: false},
		{name: "Korean refusal closes the clause", task: "E2E 브라우저 테스트는 쓰지 말고, pytest로 작성해 줘", unit: "e2e-browser", want: false},
		{name: "a plain request", task: "写 E2E 端到端用例", unit: "e2e-browser", want: true},
		{name: "other people wrote", task: "别人写的 E2E 端到端用例太慢", unit: "e2e-browser", want: true},
		{name: "the unused", task: "不用的 E2E 端到端用例帮我删掉", unit: "e2e-browser", want: true},
		// A second red team's finds.
		{name: "a refusal's scope ends at a turn", task: "不要用 pytest 而写 E2E 端到端用例", unit: "e2e-browser", want: true},
		{name: "don't use only", task: "别只用 E2E 端到端用例", unit: "e2e-browser", want: true},
		{name: "Japanese nothing but", task: "E2E テストしか使わないで", unit: "e2e-browser", want: true},
		{name: "Korean nothing besides", task: "E2E 브라우저 테스트 외에는 쓰지 마", unit: "e2e-browser", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := ix.Analyze(tt.task, nil)
			scores, _ := ix.score(q, never)
			if got := scores[ix.ids[tt.unit]]; (got > 0) != tt.want {
				t.Errorf("score of %s for %q: got %.3f; want evidence %v", tt.unit, tt.task, got, tt.want)
			}
		})
	}
}

// TestCJKPatternsCompile compiles every pattern of cjk.go, which compile
// on their first use (lazyRegexp): a bad one fails here, not in a user's
// first Chinese task.
func TestCJKPatternsCompile(t *testing.T) {
	for name, re := range map[string]func() *regexp.Regexp{
		"cjkBefore": cjkBefore, "cjkNegated": cjkNegated, "cjkObjectEnds": cjkObjectEnds,
		"cjkAfter": cjkAfter, "cjkOnlyAfter": cjkOnlyAfter, "cjkAfterAsks": cjkAfterAsks,
		"cjkJoin": cjkJoin, "cjkJoinWide": cjkJoinWide, "cjkAll": cjkAll,
		"cjkRefusalOpens": cjkRefusalOpens, "cjkRefusalCloses": cjkRefusalCloses, "cjkOnly": cjkOnly,
		"cjkTurn": cjkTurn, "cjkAsks": cjkAsks, "cjkSupposes": cjkSupposes, "cjkBetter": cjkBetter, "cjkAsksWhether": cjkAsksWhether,
	} {
		if re() == nil {
			t.Errorf("%s: got no pattern", name)
		}
	}
}
