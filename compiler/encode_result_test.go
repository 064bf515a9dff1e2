package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/internal/testkit"
	"github.com/rogpeppe/go-internal/txtar"
)

// indentedStdlib is the compile contract's bytes as encoding/json writes
// them: the standard encoder, indented, HTML left alone.
func indentedStdlib(t *testing.T, v any) ([]byte, error) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

func checkWriteJSON(t *testing.T, what string, res *Result) {
	t.Helper()
	want, wantErr := indentedStdlib(t, res)
	var got bytes.Buffer
	err := WriteJSON(&got, res)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: WriteJSON error %v; encoding/json's %v", what, err, wantErr)
	}
	if err == nil && !bytes.Equal(got.Bytes(), want) {
		g, w := got.String(), string(want)
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		t.Fatalf("%s: WriteJSON differs from encoding/json at byte %d:\n got %q\nwant %q", what, i, g[max(0, i-80):min(len(g), i+80)], w[max(0, i-80):min(len(w), i+80)])
	}
}

// TestWriteJSONResult holds the hand-written rejected entries to
// encoding/json's bytes: on compiles over a generated catalog and over
// every catalog of the adversarial corpus, and on results whose names,
// roots, paths, scores, confidences, reasons and evidence are drawn to
// need every escape and number form encoding/json has.
func TestWriteJSONResult(t *testing.T) {
	roots := testkit.GenerateCatalog(t, t.TempDir(), 200, 5)
	c, err := Load(context.Background(), loader.Options{Roots: roots}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{benchTask, "render the chart", "please audit the billing schema", "", "deploy docker and kubernetes, not terraform"} {
		res, err := c.Compile(context.Background(), Request{Task: task})
		if err != nil {
			t.Fatal(err)
		}
		checkWriteJSON(t, task, res)
	}
	files, _ := filepath.Glob("../testdata/adversarial/*.txtar")
	corpus := 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		testkit.WriteArchive(t, dir, ar)
		root := filepath.Join(dir, "skills")
		if loader.CheckRoot(root) != nil {
			continue
		}
		c, err := Load(context.Background(), loader.Options{Roots: []string{root}}, Policy{})
		if err != nil {
			continue
		}
		var req struct{ Task string }
		for _, file := range ar.Files {
			if file.Name == "request.json" {
				json.Unmarshal(file.Data, &req)
			}
		}
		for _, task := range []string{req.Task, "review the code"} {
			if res, err := c.Compile(context.Background(), Request{Task: task}); err == nil {
				checkWriteJSON(t, filepath.Base(f), res)
				corpus++
			}
		}
	}
	if corpus < len(files)/2 {
		t.Errorf("got %d compiles over %d corpus cases; want most of them", corpus, len(files))
	}
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{`"`, `\`, "\n", "\t", "\x00", "\x1f", "\x7f", "é", "<skill>", "&", "\u2028", "\u2029", "\xff", "a", "/", " ", ""}
	str := func() string {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.001, 1e-7, 1.5e-9, -2e-7, 1e20, 1e21, 123456789e15, 0.1 + 0.2, 3.14159}
	num := func() float64 {
		if r.IntN(2) == 0 {
			return floats[r.IntN(len(floats))]
		}
		return (r.Float64() - 0.3) * math.Pow(10, float64(r.IntN(30)-15))
	}
	shared := [][]Reason{noEvidenceReasons, outsideCapReasons, belowFloorReasons}
	for k := range 300 {
		res := &Result{Schema: Schema, Decision: DecisionNoRoute, Selected: []Selected{}, Rejected: []Rejected{}, Prompt: str()}
		for range 1 + r.IntN(6) {
			rj := Rejected{Name: str(), Root: str(), Path: str(), Score: num()}
			if r.IntN(3) == 0 {
				f := num()
				rj.Confidence = &f
			}
			switch r.IntN(4) {
			case 0:
				rj.Reasons = []Reason{{Code: ReasonDenied, Rule: Rule{Number: 2, Name: rules.RuleName(str())}, Detail: str(), Facts: &Facts{Score: num(), By: str()}}}
			case 1:
				rj.Reasons = nil
			default:
				rj.Reasons = shared[r.IntN(len(shared))]
			}
			if r.IntN(3) == 0 {
				rj.Evidence = []Evidence{{Field: str(), Terms: []string{str(), str()}, Weight: num()}}
			}
			res.Rejected = append(res.Rejected, rj)
		}
		checkWriteJSON(t, "random result "+string(rune('0'+k%10)), res)
	}
	// A score encoding/json refuses is refused alike.
	checkWriteJSON(t, "NaN score", &Result{Rejected: []Rejected{{Name: "a", Score: math.NaN()}}})
}

// TestPlainJSON checks the word-at-a-time test against a byte-at-a-time
// one, every byte value at every place of strings around a word's length.
func TestPlainJSON(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 17; n++ {
		base := []byte(strings.Repeat("a", n))
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := append([]byte(nil), base...)
				b[at] = byte(c)
				if got, want := plainJSON(string(b)), slow(string(b)); got != want {
					t.Fatalf("plainJSON(%q) = %v; want %v", b, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 0x1f, 0x20, 0x21, '"', '\\', 'a', 0x7e, 0x7f, 0x80, 0xff, 0x5b, 0x5d}
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, want := plainJSON(string(b)), slow(string(b)); got != want {
			t.Fatalf("plainJSON(%q) = %v; want %v", b, got, want)
		}
	}
}
