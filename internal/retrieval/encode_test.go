package retrieval

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rlmc-dev/rlmc/ir"
)

// exportAll lets cmp compare every unexported field of the index's types.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// roundTrip encodes ix and decodes it against the same catalog.
func roundTrip(t *testing.T, ix *Index) *Index {
	t.Helper()
	r := encoded(t, ix)
	got, err := Decode(r, ix.cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Done(); err != nil {
		t.Fatalf("bytes left after the index: %v", err)
	}
	return got
}

// encodeCatalogs are catalogs whose indexes fill every table: phrases of
// every kind, objects, actions, negative triggers, quoted phrases,
// aliases (one spelling another unit's name), a unit that is not indexed.
func encodeCatalogs(t *testing.T) map[string]*ir.Catalog {
	review := unit("code-review", `Review code changes for bugs. Use when asked to "check my diff".`, "peer check", "deploy")
	trigger(review, ir.TriggerPhrase, "run the linters", ir.DefaultTriggerWeight)
	trigger(review, ir.TriggerPhrase, "audit pull requests", 200)
	trigger(review, ir.TriggerKeyword, "lint", ir.DefaultTriggerWeight)
	trigger(review, ir.TriggerObject, "pull request", ir.DefaultTriggerWeight)
	trigger(review, ir.TriggerVerb, "inspect", ir.DefaultTriggerWeight)
	review.NegativeTriggers = []string{"draft only"}
	review.Headings = []string{"Steps", "Checking the diff"}
	review.Lead = "Read the diff, then the tests."
	styles := trigger(unit("css-tips", "Tips for css layout."), ir.TriggerObject, "stylesheet", ir.DefaultTriggerWeight)
	broken := unit("broken", "Never indexed.")
	broken.Status = ir.StatusInvalid
	hand := ir.NewCatalog(nil, []*ir.Unit{review, styles, broken, unit("chatty", "Talk about anything.", "of the"), unit("deploy", "Deploy the service.")}, nil)
	gen, err := loader.Load(context.Background(), loader.Options{Roots: testkit.GenerateCatalog(t, t.TempDir(), 300, 7)})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*ir.Catalog{"hand": hand, "generated": gen, "empty": ir.NewCatalog(nil, nil, nil)}
}

// TestEncodeRoundTrip: an index decoded from its encoding equals the one
// Build made, in every field, unexported ones included. A field added to
// Index (or to the types it holds) that Encode does not write fails here.
func TestEncodeRoundTrip(t *testing.T) {
	for name, cat := range encodeCatalogs(t) {
		t.Run(name, func(t *testing.T) {
			ix := Build(cat, nil)
			if diff := cmp.Diff(ix, roundTrip(t, ix), exportAll); diff != "" {
				t.Errorf("decoded index differs from the built one (-built +decoded):\n%s", diff)
			}
		})
	}
}

// TestBuildWith: an index built from reused bags (all of them, some, or
// bags made with other aliases) equals a fresh Build, and the bags it
// returns round-trip through their encoding.
func TestBuildWith(t *testing.T) {
	for name, cat := range encodeCatalogs(t) {
		t.Run(name, func(t *testing.T) {
			want := Build(cat, nil)
			_, bags := BuildWith(cat, nil, nil)
			byUnit := map[*ir.Unit]*Bag{}
			for i, bg := range bags {
				if bg == nil {
					continue
				}
				got := roundTripBag(t, bg)
				if diff := cmp.Diff(bg, got, exportAll); diff != "" {
					t.Fatalf("bag %d round trip (-want +got):\n%s", i, diff)
				}
				byUnit[cat.Units[i]] = got
			}
			tests := []struct {
				name  string
				reuse func(*ir.Unit) *Bag
			}{
				{"all", func(u *ir.Unit) *Bag { return byUnit[u] }},
				{"every other", func(u *ir.Unit) *Bag {
					if len(u.Name)%2 == 0 {
						return byUnit[u]
					}
					return nil
				}},
				{"other aliases", func(u *ir.Unit) *Bag {
					bg := byUnit[u]
					if bg == nil {
						return nil
					}
					return &Bag{aliases: append([]string{"stale"}, bg.aliases...), b: bag{terms: []string{"stale"}, fields: []uint8{0}, counts: []float32{}}}
				}},
			}
			for _, tt := range tests {
				got, _ := BuildWith(cat, nil, tt.reuse)
				if diff := cmp.Diff(want, got, exportAll); diff != "" {
					t.Errorf("%s: index differs from Build's (-Build +BuildWith):\n%s", tt.name, diff)
				}
			}
		})
	}
}

// TestDecodeCorrupt: every truncation of an encoding fails to decode or
// decodes, never panics.
func TestDecodeCorrupt(t *testing.T) {
	cat := encodeCatalogs(t)["hand"]
	w := binenc.NewWriter()
	Build(cat, nil).Encode(w)
	data := w.Bytes()
	for n := 0; n < len(data); n++ {
		r, err := binenc.NewReader(data[:n])
		if err != nil {
			continue
		}
		if _, err := Decode(r, cat); err == nil && r.Done() == nil {
			t.Errorf("truncated to %d of %d bytes: decoded without an error", n, len(data))
		}
	}
	for i := 0; i < len(data); i += 7 {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x5a
		r, err := binenc.NewReader(bad)
		if err != nil {
			continue
		}
		_, _ = Decode(r, cat) // must not panic
	}
}

// TestDecodeLazy: an index decoded lazily answers every postings and
// bigram lookup as the built one does, a term or bigram it lacks
// included, and equals it in every other field.
func TestDecodeLazy(t *testing.T) {
	for name, cat := range encodeCatalogs(t) {
		t.Run(name, func(t *testing.T) {
			ix := Build(cat, nil)
			w := binenc.NewWriter()
			ix.Encode(w)
			r, err := binenc.NewSharedReader(w.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			lz, err := DecodeLazy(r, cat)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Done(); err != nil {
				t.Fatal(err)
			}
			for term, want := range ix.postings.m {
				if !lz.postings.has(term) {
					t.Fatalf("term %q: not known", term)
				}
				for range 2 { // decoded, then remembered
					if diff := cmp.Diff(want, lz.postings.get(term), exportAll); diff != "" {
						t.Fatalf("term %q: postings differ (-built +lazy):\n%s", term, diff)
					}
				}
			}
			for g, want := range ix.bigrams.t.all() {
				if !lz.bigrams.has(g) || !slices.Equal(want, lz.bigrams.get(g)) {
					t.Fatalf("bigram %q: got %v; want %v", g, lz.bigrams.get(g), want)
				}
			}
			if lz.postings.has("zzz-absent") || lz.postings.get("zzz-absent") != nil || lz.bigrams.has(bigram{"zzz", "absent"}) || lz.bigrams.get(bigram{"zzz", "absent"}) != nil {
				t.Error("an absent term or bigram is known")
			}
			lz.postings, lz.bigrams = ix.postings, ix.bigrams
			if diff := cmp.Diff(ix, lz, exportAll); diff != "" {
				t.Errorf("lazily decoded index differs from the built one (-built +lazy):\n%s", diff)
			}
		})
	}
}

// TestDecodeLazyCorrupt: a damaged encoding fails to decode lazily, or
// decodes and answers every lookup without a panic.
func TestDecodeLazyCorrupt(t *testing.T) {
	cat := encodeCatalogs(t)["hand"]
	ix := Build(cat, nil)
	w := binenc.NewWriter()
	ix.Encode(w)
	data := w.Bytes()
	for i := 0; i < len(data); i += 3 {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x5a
		r, err := binenc.NewSharedReader(bad)
		if err != nil {
			continue
		}
		lz, err := DecodeLazy(r, cat)
		if err != nil {
			continue
		}
		for term := range ix.postings.m {
			lz.postings.get(term)
		}
		for g := range ix.bigrams.t.all() {
			lz.bigrams.get(g)
		}
	}
}

// TestBigramTable: the table finds exactly the bigrams it was made of,
// not their stems in another pairing or order, and yields them in
// compareBigrams order.
func TestBigramTable(t *testing.T) {
	grams := []bigram{{"pull", "request"}, {"code", "review"}, {"review", "code"}, {"code", "pull"}}
	lists := [][]int32{{0, 3}, {1}, {2}, {0}}
	tb := bigramTableOf(grams, func(i int) []int32 { return lists[i] })
	for i, g := range grams {
		if got := tb.get(g); !slices.Equal(got, lists[i]) {
			t.Errorf("get(%q) = %v; want %v", g, got, lists[i])
		}
	}
	for _, g := range []bigram{{"request", "pull"}, {"pull", "code"}, {"code", "code"}, {"zzz", "review"}, {"code", "zzz"}} {
		if tb.find(g) >= 0 || tb.get(g) != nil {
			t.Errorf("find(%q): found; want absent", g)
		}
	}
	var order []bigram
	for g := range tb.all() {
		order = append(order, g)
	}
	if !slices.IsSortedFunc(order, compareBigrams) || len(order) != len(grams) {
		t.Errorf("all() = %q; want every bigram in compareBigrams order", order)
	}
	var none *bigramTable
	if none.find(grams[0]) >= 0 || none.get(grams[0]) != nil {
		t.Error("a nil table found a bigram")
	}
}

// TestBagGrams: a bag keeps each bigram as two positions, also one whose
// stem is no term of the bag (the addressee of a "Use when" clause, taken
// back out of its field), and gives back the same bigrams after a round
// trip through the cache's encoding.
func TestBagGrams(t *testing.T) {
	u := &ir.Unit{Name: "deploy-helper", Description: "Use when the user asks to deploy a preview build."}
	b := bagOf(u, nil)
	got := func(b *bag) []bigram {
		var gs []bigram
		for i := range b.grams {
			gs = append(gs, b.gram(i))
		}
		return gs
	}
	want := []bigram{{"ask", "deploy"}, {"deploy", "helper"}, {"deploy", "preview"}, {"preview", "build"}, {"user", "ask"}}
	if diff := cmp.Diff(want, got(&b)); diff != "" {
		t.Errorf("bigrams (-want +got):\n%s", diff)
	}
	if _, ok := slices.BinarySearch(b.terms, "user"); ok || !slices.Equal(b.gramStems, []string{"user"}) {
		t.Errorf("got terms %q, gram stems %q; want user among the gram stems alone", b.terms, b.gramStems)
	}
	dec := roundTripBag(t, &Bag{b: b})
	if diff := cmp.Diff(want, got(&dec.b)); diff != "" {
		t.Errorf("decoded bigrams (-want +got):\n%s", diff)
	}
}

// encoded returns a reader of ix's encoding.
func encoded(t *testing.T, ix *Index) *binenc.Reader {
	t.Helper()
	w := binenc.NewWriter()
	ix.Encode(w)
	r, err := binenc.NewReader(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// roundTripBag returns bg encoded as the cache writes it and decoded.
func roundTripBag(t *testing.T, bg *Bag) *Bag {
	t.Helper()
	w := binenc.NewWriter()
	bg.Encode(w)
	r, err := binenc.NewReader(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeBag(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBindOtherCatalog: an index decoded without its catalog does not
// bind to a catalog of another count of units.
func TestBindOtherCatalog(t *testing.T) {
	cat := encodeCatalogs(t)["hand"]
	u, err := DecodeUnbound(encoded(t, Build(cat, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ok := slices.IndexFunc(cat.Units, func(u *ir.Unit) bool { return u.Status == ir.StatusOK })
	fewer := ir.NewCatalog(cat.Roots, slices.Delete(slices.Clone(cat.Units), ok, ok+1), nil)
	if _, err := u.Bind(fewer); !errors.Is(err, binenc.ErrCorrupt) {
		t.Errorf("bound to a catalog with one indexed unit fewer: got %v; want %v", err, binenc.ErrCorrupt)
	}
}
