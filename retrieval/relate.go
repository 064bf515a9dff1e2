package retrieval

// relate computes the pair facts the policy's ambiguity and redundancy
// rules read (rules 9 and 11), and each candidate's breadth. For every
// ordered pair (a, b) of distinct candidates where b is lexical: b is
// redundant beside a when what b's positive evidence rests on beyond a's
// covered terms (residual) is less than redundantShare of b's score; a and
// b share an object when the task names an object both declare. It is a
// pure function of the index, the query, the candidates and their
// evidence (as evidence computes it).
func (ix *Index) relate(q *Query, cands []Candidate, ev map[string][]Evidence) (redundant, sameObject map[[2]string]bool, width map[string]int) {
	redundant, sameObject = map[[2]string]bool{}, map[[2]string]bool{}
	width = make(map[string]int, len(cands))
	for _, c := range cands {
		width[c.Name] = breadth(ev[c.Name])
	}
	// A phrase of several words the unit declares (a multi-word trigger,
	// a quoted phrase, its name or an alias), matched whole, rests on all
	// of them, stop words included: "debug this" quoted by a unit is not
	// one incidental word.
	for _, m := range q.phrases {
		ph := &ix.phrases[m.id]
		if ph.kind == notWhen || len(ph.stems) < 2 || m.score <= 0 {
			continue
		}
		if n := ix.units[m.unit].Name; width[n] > 0 && width[n] < len(ph.stems) {
			width[n] = len(ph.stems)
		}
	}
	named := map[string][]string{} // candidate -> its objects the task names
	for _, c := range cands {
		if id, ok := ix.ids[c.Name]; ok {
			named[c.Name] = intersect(ix.unitObjects[id], q.objects)
		}
	}
	for _, a := range cands {
		for _, b := range cands {
			if a.Name == b.Name || b.Origin != OriginLexical {
				continue
			}
			pair := [2]string{a.Name, b.Name}
			if isRedundant(ev[a.Name], ev[b.Name], b.Score) {
				redundant[pair] = true
			}
			if shares(named[a.Name], set(named[b.Name])) {
				sameObject[pair] = true
			}
		}
	}
	return redundant, sameObject, width
}

// isRedundant reports whether b, scoring score, adds too little beside a:
// less than redundantShare of its score rests on terms a's positive
// evidence does not cover.
func isRedundant(a, b []Evidence, score float64) bool {
	return residual(a, b) < redundantShare*score
}

func set(keys []string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}
