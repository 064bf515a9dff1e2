package bench

import (
	"math"

	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/ir"
)

// baseline is a plain BM25 ranking over each usable unit's name and
// description, the yardstick rlmc's routing is measured against: it has no
// fields, phrases, thresholds or abstention, and always routes its first
// result. Its words are rlmc's (retrieval.Terms), so the comparison is of
// the ranking and the decision, not of the tokenizer.
type baseline struct {
	names    []string
	postings map[string][]baselinePosting
	lens     []float64
	avgLen   float64
}

type baselinePosting struct {
	unit int
	tf   float64
}

// BM25's usual parameters, untuned.
const (
	baselineK1 = 1.2
	baselineB  = 0.75
)

func newBaseline(cat *ir.Catalog) *baseline {
	b := &baseline{postings: map[string][]baselinePosting{}}
	for _, u := range cat.Units {
		if u.Status != ir.StatusOK {
			continue
		}
		id := len(b.names)
		b.names = append(b.names, u.Name)
		terms := retrieval.Terms(u.Name + " " + u.Description)
		tf := map[string]float64{}
		var order []string
		for _, t := range terms {
			if tf[t] == 0 {
				order = append(order, t)
			}
			tf[t]++
		}
		for _, t := range order {
			b.postings[t] = append(b.postings[t], baselinePosting{id, tf[t]})
		}
		b.lens = append(b.lens, float64(len(terms)))
		b.avgLen += float64(len(terms))
	}
	if len(b.names) > 0 {
		b.avgLen /= float64(len(b.names))
	}
	if b.avgLen == 0 {
		b.avgLen = 1
	}
	return b
}

// first returns the best-scoring unit for task, the first by catalog
// order on a tie, or "" when no unit shares a word with it.
func (b *baseline) first(task string) string {
	scores := make([]float64, len(b.names))
	n := float64(len(b.names))
	seen := map[string]bool{}
	for _, t := range retrieval.Terms(task) {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := b.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ps {
			norm := 1 - baselineB + baselineB*b.lens[p.unit]/b.avgLen
			scores[p.unit] += idf * p.tf * (baselineK1 + 1) / (p.tf + baselineK1*norm)
		}
	}
	best := -1
	for u, s := range scores {
		if s > 0 && (best < 0 || s > scores[best]) {
			best = u
		}
	}
	if best < 0 {
		return ""
	}
	return b.names[best]
}
