package compiler

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// TestCJKRoutes: skills described in Chinese or Japanese are routed from
// tasks written in those languages, which write no blank between words.
// Each run of such text read as one word, and a task routed only on the
// Latin words in it ("Kubernetes"): 2 of these 9 tasks came out right.
func TestCJKRoutes(t *testing.T) {
	root := t.TempDir()
	for name, desc := range map[string]string{
		"weather-lookup":      "查询城市的天气预报和当前气温。当用户询问天气、温度或是否下雨时使用。",
		"db-migration-review": "审查数据库迁移脚本的安全性：锁表、回滚和数据丢失风险。",
		"code-review":         "审查代码变更，找出缺陷、风格问题和潜在的安全漏洞。",
		"release-notes":       "根据提交记录撰写发布说明和更新日志。",
		"k8s-deploy":          "把服务部署到 Kubernetes 集群，编写部署清单和滚动更新策略。",
		"translate-docs":      "把技术文档翻译成英文或中文，保持术语一致。",
		"jp-review":           "プルリクエストのコードをレビューして、バグや設計上の問題を指摘する。",
		"jp-db":               "データベースのマイグレーションを作成し、スキーマ変更を安全に適用する。",
	} {
		testkit.WriteFile(t, filepath.Join(root, name, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nBody.\n", name, desc))
	}
	c, err := Load(context.Background(), Options{Roots: []string{root}}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ task, want string }{
		{"帮我查一下明天北京的天气", "weather-lookup"},
		{"请审查这个数据库迁移脚本，看看会不会锁表", "db-migration-review"},
		{"帮我写这个版本的发布说明", "release-notes"},
		{"把这个服务部署到 Kubernetes 集群", "k8s-deploy"},
		{"把这篇文档翻译成英文", "translate-docs"},
		{"这段代码有没有安全漏洞？帮我审查一下", "code-review"},
		{"今天午饭吃什么好？", ""},
		{"このプルリクエストをレビューしてください", "jp-review"},
		{"新しいテーブルを追加するマイグレーションを作って", "jp-db"},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			res, err := c.Compile(context.Background(), Request{Task: tt.task})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if got := res.Names(); !slices.Equal(got, want) {
				t.Errorf("got %v; want %v", got, want)
			}
		})
	}
}
