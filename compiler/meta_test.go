package compiler

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

func TestParsePolicyRefusesWhatOtherReadersReadDifferently(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr bool
	}{
		{name: "empty", yaml: ""},
		{name: "one document", yaml: "deny: [x]\n"},
		{name: "second document with unknown keys", yaml: "deny: [x]\n---\nallow_everything: true\n", wantErr: true},
		{name: "second document", yaml: "budget: 100\n---\ndeny: [x]\n", wantErr: true},
		{name: "merge key", yaml: "<<: {deny: [x]}\n", wantErr: true},
		{name: "anchor", yaml: "deny: &d [x]\nmandatory: *d\n", wantErr: true},
		{name: "unknown key", yaml: "denny: [x]\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(tt.yaml))
			if (err != nil) != tt.wantErr {
				t.Errorf("got error %v; want error %v", err, tt.wantErr)
			}
		})
	}
}

// TestParsePolicyErrorIsDeterministic gives several invalid priorities: the
// one reported must not depend on map order.
func TestParsePolicyErrorIsDeterministic(t *testing.T) {
	var b strings.Builder
	b.WriteString("priority:\n")
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&b, "  unit%d: -%d\n", i, i+1)
	}
	_, first := ParsePolicy([]byte(b.String()))
	if first == nil {
		t.Fatal("got no error; want one")
	}
	for i := 0; i < 50; i++ {
		if _, err := ParsePolicy([]byte(b.String())); err == nil || err.Error() != first.Error() {
			t.Fatalf("run %d: got %v; want %v", i, err, first)
		}
	}
}

// TestCatalogFingerprintCoversSideFiles changes only a file beside SKILL.md
// in ways that change decisions: the catalog fingerprint must move.
func TestCatalogFingerprintCoversSideFiles(t *testing.T) {
	base := map[string]string{
		"wayfind/SKILL.md": skill("wayfind", "Map a large effort as tickets.", "", "# wayfind"),
		"tdd/SKILL.md":     skill("tdd", "Test-driven development.", "", "# tdd"),
	}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name string
		a, b map[string]string
		same bool
	}{
		{
			name: "codex policy flipped",
			a:    with(map[string]string{"wayfind/agents/openai.yaml": "policy:\n  allow_implicit_invocation: true\n"}),
			b:    with(map[string]string{"wayfind/agents/openai.yaml": "policy:\n  allow_implicit_invocation: false\n"}),
		},
		{
			name: "manifest conflict added",
			a:    with(map[string]string{"wayfind/manifest.json": `{"keywords": ["tickets"]}`}),
			b:    with(map[string]string{"wayfind/manifest.json": `{"keywords": ["tickets"], "conflicts_with": ["tdd"]}`}),
		},
		{
			name: "manifest keyword changed",
			a:    with(map[string]string{"wayfind/manifest.json": `{"keywords": ["tickets"]}`}),
			b:    with(map[string]string{"wayfind/manifest.json": `{"keywords": ["issues"]}`}),
		},
		{
			name: "codex display name only",
			a:    with(map[string]string{"wayfind/agents/openai.yaml": "interface:\n  display_name: A\n"}),
			b:    with(map[string]string{"wayfind/agents/openai.yaml": "interface:\n  display_name: B\n"}),
			same: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := build(t, tt.a, Policy{}), build(t, tt.b, Policy{})
			if same := a.CatalogFingerprint() == b.CatalogFingerprint(); same != tt.same {
				t.Errorf("got equal fingerprints %v; want %v", same, tt.same)
			}
		})
	}
}

// TestCatalogFingerprintCoversEveryUnitField sets each field of an admitted
// unit in turn: every field must move the fingerprint except the ones that
// only locate the unit or that no decision reads. A field added to ir.Unit
// later is covered unless it is listed here with its reason.
func TestCatalogFingerprintCoversEveryUnitField(t *testing.T) {
	located := map[string]bool{
		"Root": true, "Path": true, "File": true, // where, not what: a relocated catalog keeps its fingerprint
		"RootDir":      true, // the resolved root, an absolute path; never encoded (json:"-")
		"ShadowedBy":   true, // a path; shadowed units are not admitted anyway
		"Variant":      true, // informational, and derived from the root's path
		"HostFields":   true, // recorded, never interpreted; covered by SHA256
		"RequiresLine": true, // a line number, for diagnostics; never encoded (json:"-")
		// Counted by its rank among the roots that hold units, which one
		// unit alone does not move (TestCatalogFingerprintRootRanks).
		"Precedence": true,
	}
	unit := func() *ir.Unit {
		return &ir.Unit{Name: "a", Status: ir.StatusOK, Invocation: ir.InvocationAutomatic, Priority: ir.DefaultPriority, SHA256: "00"}
	}
	fp := func(u *ir.Unit) string {
		return catalogFingerprint(ir.NewCatalog(nil, []*ir.Unit{u}, nil))
	}
	base := fp(unit())
	typ := reflect.TypeOf(ir.Unit{})
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			u := unit()
			v := reflect.ValueOf(u).Elem().Field(i)
			if !setSomething(v) {
				t.Fatalf("cannot set a %s; teach setSomething", v.Type())
			}
			if f.Name == "Status" {
				u.Status = ir.StatusOK // only admitted units count; flip invocation instead
				u.Invocation = ir.InvocationExplicitUser
			}
			changed := fp(u) != base
			if changed == located[f.Name] {
				t.Errorf("field %s: got fingerprint changed %v; want %v", f.Name, changed, !located[f.Name])
			}
		})
	}
}

// setSomething gives v a value different from the one unit() gives it.
func setSomething(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 7)
	case reflect.Slice:
		e := reflect.New(v.Type().Elem()).Elem()
		if !setSomething(e) {
			return false
		}
		v.Set(reflect.Append(v, e))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		e := reflect.New(v.Type().Elem()).Elem()
		if !setSomething(k) {
			return false
		}
		if e.Kind() == reflect.Interface {
			e.Set(reflect.ValueOf("x"))
		} else if !setSomething(e) {
			return false
		}
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !setSomething(v.Field(i)) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// TestClosuresAreLinear builds a dependency chain of thousands of units:
// preparing the facts must take memory linear in the graph, not one full
// closure list per unit.
func TestClosuresAreLinear(t *testing.T) {
	const n = 6000
	units := make([]*ir.Unit, n)
	for i := range units {
		units[i] = &ir.Unit{Name: fmt.Sprintf("u%05d", i), Status: ir.StatusOK, Invocation: ir.InvocationAutomatic, Priority: ir.DefaultPriority, Precedence: i % 3}
		if i > 0 {
			units[i].Requires = []ir.Ref{{Kind: ir.RefSkill, Name: fmt.Sprintf("u%05d", i-1)}}
		}
	}
	cat := ir.NewCatalog(nil, units, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := newFacts(cat, Policy{})
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(64<<20); got > limit {
		t.Errorf("preparing a %d-unit chain allocated %d MiB; want at most %d MiB", n, got>>20, limit>>20)
	}
	c := f.Closure(fmt.Sprintf("u%05d", n-1))
	if len(c.Deps) != n-1 || c.Deps[0] != "u00000" || c.Missing != "" || len(c.Cycle) > 0 {
		t.Errorf("got closure of %d deps (first %v, missing %q, cycle %v); want %d deps, dependencies first", len(c.Deps), c.Deps[:min(1, len(c.Deps))], c.Missing, c.Cycle, n-1)
	}
}

func TestClosureOutcomes(t *testing.T) {
	req := func(names ...string) []ir.Ref {
		var out []ir.Ref
		for _, n := range names {
			out = append(out, ir.Ref{Kind: ir.RefSkill, Name: n})
		}
		return out
	}
	units := []*ir.Unit{
		{Name: "a", Requires: req("b", "c")},
		{Name: "b", Requires: req("d")},
		{Name: "c", Requires: req("d", "b")},
		{Name: "d"},
		{Name: "loop1", Requires: req("loop2")},
		{Name: "loop2", Requires: req("loop1")},
		{Name: "to-loop", Requires: req("d", "loop1")},
		{Name: "to-missing", Requires: req("d", "ghost")},
		{Name: "self", Requires: req("self")},
		{Name: "via-missing", Requires: req("to-missing")},
	}
	for _, u := range units {
		u.Status, u.Invocation, u.Priority = ir.StatusOK, ir.InvocationAutomatic, ir.DefaultPriority
	}
	f := newFacts(ir.NewCatalog(nil, units, nil), Policy{})
	tests := []struct {
		name    string
		deps    string
		missing string
		cycle   bool
	}{
		{name: "a", deps: "d b c"},
		{name: "b", deps: "d"},
		{name: "c", deps: "d b"},
		{name: "d", deps: ""},
		{name: "loop1", cycle: true},
		{name: "loop2", cycle: true},
		{name: "to-loop", cycle: true},
		{name: "to-missing", missing: "ghost"},
		{name: "via-missing", missing: "ghost"},
		{name: "self", cycle: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := f.Closure(tt.name)
			if got := strings.Join(c.Deps, " "); got != tt.deps || c.Missing != tt.missing || (len(c.Cycle) > 0) != tt.cycle {
				t.Errorf("got deps %q, missing %q, cycle %v; want deps %q, missing %q, cycle %v", got, c.Missing, c.Cycle, tt.deps, tt.missing, tt.cycle)
			}
		})
	}
}

// TestRunsOf: a command (an explicit-user-only unit) that runs a skill by
// its /name in its opening prose wraps it, as a requires edge does, so it
// is no rival of that skill; a path, a URL, an unknown name, itself and an
// automatic unit's mention are none.
func TestRunsOf(t *testing.T) {
	units := []*ir.Unit{
		{Name: "grill-me", Invocation: ir.InvocationExplicitUser, Lead: "Run a `/grilling` session, then /tdd (see src/deploy and https://x.example/deploy; /ghost; /grill-me)."},
		{Name: "grilling", Invocation: ir.InvocationAutomatic},
		{Name: "tdd", Invocation: ir.InvocationAutomatic, Lead: "Run /grilling first."},
		{Name: "deploy", Invocation: ir.InvocationAutomatic},
	}
	for _, u := range units {
		u.Status, u.Priority = ir.StatusOK, ir.DefaultPriority
	}
	cat := ir.NewCatalog(nil, units, nil)
	f := newFacts(cat, Policy{})
	for _, tt := range []struct {
		unit, dep string
		want      bool
	}{
		{"grill-me", "grilling", true},
		{"grill-me", "tdd", true},
		{"grill-me", "deploy", false},
		{"grill-me", "ghost", false},
		{"tdd", "grilling", false},
	} {
		if got := f.wraps(tt.unit, tt.dep); got != tt.want {
			t.Errorf("wraps(%s, %s): got %v; want %v", tt.unit, tt.dep, got, tt.want)
		}
	}
	if got := f.Closure("grill-me").Deps; len(got) != 0 {
		t.Errorf("closure of grill-me: got %v; want none (running a skill adds no dependency)", got)
	}
}
