package compiler

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"testing"

	"github.com/rlmc-dev/rlmc/loader"
)

type gcase struct {
	ID, Task, Expected, Category string
	Skills, Alternatives         []string
}

func even(id string) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()%2 == 0
}

func gridEval(c *Compiler, cases []gcase) map[string]float64 {
	n := map[string]float64{}
	hit := map[string]float64{}
	for _, cs := range cases {
		r, err := c.Compile(context.Background(), Request{Task: cs.Task})
		if err != nil {
			continue
		}
		acc := map[string]bool{}
		for _, s := range append(cs.Skills, cs.Alternatives...) {
			acc[s] = true
		}
		n["decision"]++
		if r.Decision == cs.Expected {
			hit["decision"]++
		}
		switch cs.Expected {
		case "route":
			if len(cs.Skills) > 1 {
				n["both"]++
				sel := map[string]bool{}
				for _, s := range r.Selected {
					sel[s.Name] = true
				}
				if sel[cs.Skills[0]] && sel[cs.Skills[1]] {
					hit["both"]++
				}
			} else {
				n["single"]++
				if r.Decision == "route" && acc[r.Selected[0].Name] {
					hit["single"]++
				}
			}
		case "no_route":
			n["fr"]++
			if r.Decision == "route" {
				hit["fr"]++
			}
		}
	}
	out := map[string]float64{}
	for k := range n {
		out[k] = float64(int(hit[k]/n[k]*1000)) / 1000
	}
	return out
}

func readCases(file string) []gcase {
	data, _ := os.ReadFile(file)
	var out []gcase
	var g struct {
		Cases []struct {
			ID, Category, Prompt, Expected string
			Skills, Alternatives           []string
		}
	}
	if json.Unmarshal(data, &g) == nil && len(g.Cases) > 0 {
		for _, c := range g.Cases {
			if even(c.ID) {
				out = append(out, gcase{c.ID, c.Prompt, c.Expected, c.Category, c.Skills, c.Alternatives})
			}
		}
		return out
	}
	f, _ := os.Open(file)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c gcase
		json.Unmarshal(sc.Bytes(), &c)
		if even(c.ID) {
			out = append(out, c)
		}
	}
	return out
}

func TestGrid(t *testing.T) {
	if os.Getenv("GRID") == "" {
		t.Skip()
	}
	srCat, _ := loader.Load(context.Background(), loader.Options{Roots: []string{"../../shared/benchmarks/skill-router/corpus/skills"}})
	mtCat, _ := loader.Load(context.Background(), loader.Options{Roots: []string{"../../shared/benchmarks/metatool/catalog"}})
	sr := readCases("../../shared/benchmarks/skill-router/gold-set.json")
	mt := readCases("../../shared/benchmarks/metatool/cases.jsonl")
	for _, th := range []float64{4.0, 4.5} {
		for _, tie := range []int{65, 75, 85} {
			for _, sf := range []float64{2.0} {
				Threshold, TieRatio, SupportFloor = th, tie, sf
				a, _ := New(srCat, Policy{})
				b, _ := New(mtCat, Policy{})
				fmt.Printf("th %.1f tie %d sec %.2f | SR %v | MT %v\n", th, tie, sf, gridEval(a, sr), gridEval(b, mt))
			}
		}
	}
}
