package compiler

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCJKRefusalLoadsNothing: a task that refuses a skill in Chinese,
// Japanese or Korean, its name written against the text, does not load
// it, now that the words of such text are read (TestCJKTasksRoute).
func TestCJKRefusalLoadsNothing(t *testing.T) {
	root := t.TempDir()
	testkit.WriteFile(t, filepath.Join(root, "sql-optimize", "SKILL.md"), "---\nname: sql-optimize\ndescription: Optimize slow SQL queries with indexes and rewrites.\n---\nBody.\n")
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{
		"不要使用sql-optimize技能",
		"别用sql-optimize",
		"sql-optimizeを使わないで",
		"sql-optimize는 쓰지 마세요",
		"别用 pgbouncer 或 sql-optimize",
		"sql-optimizeやpgbouncerは使わずに",
	} {
		t.Run(task, func(t *testing.T) {
			res, err := c.Compile(context.Background(), Request{Task: task})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(res.Names(), "sql-optimize") {
				t.Errorf("got %v; want sql-optimize left out: the task refuses it", res.Names())
			}
		})
	}
}

// TestCJKTasksRoute: skills described in Chinese, Japanese and Korean
// route from tasks in those languages, English terms written against
// the text ("优化ClickHouse查询") included, and a task about something
// else loads nothing. Before the text was read by script (a run of
// letters was one word, "优化clickhouse查询"), none of these routed.
func TestCJKTasksRoute(t *testing.T) {
	root := t.TempDir()
	for name, desc := range map[string]string{
		"clickhouse-io":     "ClickHouse数据库模式、查询优化、分析以及高性能分析工作负载的数据工程最佳实践。",
		"docker-patterns":   "用于本地开发的Docker和Docker Compose模式，包括容器安全、网络、卷策略和多服务编排。",
		"golang-testing":    "Go のテスト: テーブル駆動テスト、サブテスト、ベンチマーク、ファジング。",
		"security-review":   "인증, 사용자 입력 처리, 비밀 키 관리를 위한 보안 검토 체크리스트.",
		"frontend-patterns": "React、Next.js、状态管理和性能优化的前端开发模式。",
	} {
		testkit.WriteFile(t, filepath.Join(root, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nBody.\n")
	}
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, task string
		want       []string
	}{
		{name: "Chinese against English", task: "帮我优化ClickHouse查询，分析很慢", want: []string{"clickhouse-io"}},
		{name: "Chinese alone", task: "容器网络和卷策略怎么配置", want: []string{"docker-patterns"}},
		{name: "Japanese", task: "Go でテーブル駆動テストを書いて", want: []string{"golang-testing"}},
		{name: "Korean", task: "사용자 입력 처리와 비밀 키 관리 보안 검토해 줘", want: []string{"security-review"}},
		{name: "something else", task: "帮我写一个 Excel VBA 宏", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.Compile(context.Background(), Request{Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Names(); !slices.Equal(got, tt.want) {
				t.Errorf("%q: got %v; want %v", tt.task, got, tt.want)
			}
		})
	}
}
