package compiler

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
)

func BenchmarkZZReal(b *testing.B) {
	rb, _ := os.ReadFile("/tmp/cat5k.roots")
	roots := strings.Fields(string(rb))
	f, _ := os.Open("/tmp/cat5k.prompts")
	var prompts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		prompts = append(prompts, sc.Text())
	}
	c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range prompts {
		if _, err := c.Compile(context.Background(), Request{Task: p}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Compile(context.Background(), Request{Task: prompts[i%len(prompts)]}); err != nil {
			b.Fatal(err)
		}
	}
}
