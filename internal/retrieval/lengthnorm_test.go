package retrieval

import (
	"strings"
	"testing"
)

// TestLongDescriptionRepeats: a word a long description repeats among
// many others is less telling than the same word in a short description
// about little else. Description length normalization (fieldB) must be
// strong enough that repetition in a long text does not outweigh it: with
// 0.3 the long one ranked first.
func TestLongDescriptionRepeats(t *testing.T) {
	filler := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = "word" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		}
		return strings.Join(ws, " ")
	}
	ix := testIndex(
		unit("ledger", "Invoices "+filler(1)+"."),
		unit("suite", "Invoices and "+filler(16)+" invoices."),
		unit("other-a", filler(8)+"."),
		unit("other-b", filler(8)+"."),
	)
	q := ix.Analyze("send an invoice", nil)
	scores, _ := ix.score(q, never)
	short, long := scores[ix.ids["ledger"]], scores[ix.ids["suite"]]
	if short <= long {
		t.Errorf("got ledger %.3f <= suite %.3f; want the short description first", short, long)
	}
}
