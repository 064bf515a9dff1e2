package catcache

import (
	"bytes"
	"context"
	"encoding/gob"
	"testing"
	"time"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/testkit"
)

// BenchmarkRecordEncoding compares the cache's encoding of a load's record
// (every unit, its stamps and diagnostics: most of a cache file's strings)
// with encoding/gob's, decoding a 5,000-skill record: the choice of
// encoding was made on these numbers (docs/skills-and-catalog.md, "Catalog cache").
func BenchmarkRecordEncoding(b *testing.B) {
	dir := b.TempDir()
	roots := testkit.GenerateCatalog(b, dir, 5000, 1)
	testkit.Backdate(b, dir, time.Now().Add(-time.Hour))
	_, rec, err := loader.LoadRecorded(context.Background(), loader.Options{Roots: roots})
	if err != nil {
		b.Fatal(err)
	}
	w := binenc.NewWriter()
	encodeRecord(w, rec)
	own := w.Bytes()
	gob.Register(map[string]any{})
	gob.Register([]any{})
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(rec); err != nil {
		b.Fatal(err)
	}
	gobbed := buf.Bytes()
	b.Run("binenc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r, err := binenc.NewReader(own)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, err := decodeRecord(r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(own))/(1<<20), "MiB")
	})
	b.Run("gob", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var got loader.Record
			if err := gob.NewDecoder(bytes.NewReader(gobbed)).Decode(&got); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(gobbed))/(1<<20), "MiB")
	})
}
