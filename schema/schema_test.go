package schema_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rlmc-dev/rlmc/internal/httpsafe"
	"github.com/rlmc-dev/rlmc/internal/server"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/internal/rules"
	"github.com/rlmc-dev/rlmc/internal/suite"
	"github.com/rlmc-dev/rlmc/ir"
	"github.com/rlmc-dev/rlmc/schema"
)

// errorOutput is what `rlmc compile --format json` and `rlmc serve` print
// for a failed compile: compiler.ErrorDocument.
func errorOutput(t *testing.T, ce *compiler.Error) []byte {
	t.Helper()
	data, err := json.Marshal(compiler.ErrorDocument(ce))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustValidate(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := schema.Validate(name, data); err != nil {
		t.Errorf("%v\ndocument: %s", err, brief(data))
	}
}

func brief(data []byte) string {
	if len(data) > 2000 {
		return string(data[:2000]) + "..."
	}
	return string(data)
}

// TestAdversarialOutputs validates every result, error and trajectory line
// the adversarial corpus produces against the published schemas.
func TestAdversarialOutputs(t *testing.T) {
	cases, err := suite.Load("../testdata/adversarial")
	if err != nil {
		t.Fatal(err)
	}
	var trail bytes.Buffer
	results, failures := 0, map[compiler.ErrorCode]int{}
	decisions := map[compiler.Decision]int{}
	r := &suite.Runner{
		TempDir: func() (string, error) { return os.MkdirTemp(t.TempDir(), "case") },
		Audit:   compiler.NewAudit(&trail),
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r.Observe = func(_ *suite.Case, res *compiler.Result, err error) {
				if err != nil {
					var ce *compiler.Error
					if !errors.As(err, &ce) {
						t.Errorf("compile failed with %T, not a *compiler.Error: %v", err, err)
						return
					}
					failures[ce.Code]++
					mustValidate(t, schema.CompileError, errorOutput(t, ce))
					return
				}
				results++
				decisions[res.Decision]++
				data, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				mustValidate(t, schema.CompileResult, data)
			}
			r.Run(context.Background(), c) // TestAdversarial checks the expectations
		})
	}
	lines := 0
	sc := bufio.NewScanner(&trail)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		mustValidate(t, schema.Trajectory, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// The corpus must exercise the contract broadly, or this test proves
	// little: every decision, and failed compiles.
	for _, d := range []compiler.Decision{compiler.DecisionRoute, compiler.DecisionNoRoute, compiler.DecisionAmbiguous} {
		if decisions[d] == 0 {
			t.Errorf("no adversarial compile decided %s; want at least one", d)
		}
	}
	if len(failures) == 0 {
		t.Error("no adversarial compile failed; want some error outputs")
	}
	if want := results + sumCounts(failures); lines != want {
		t.Errorf("got %d trajectory lines; want %d, one per compile", lines, want)
	}
	t.Logf("validated %d results, %d errors %v, %d trajectory lines", results, sumCounts(failures), failures, lines)
}

func sumCounts(m map[compiler.ErrorCode]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// writeCatalog writes a small catalog: tdd (automatic), deploy
// (explicit-user-only), and lint-css, which requires a unit that does not
// exist.
func writeCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"tdd/SKILL.md":      "---\nname: tdd\ndescription: Test-driven development, red green refactor.\n---\nWrite the failing test first.\n",
		"deploy/SKILL.md":   "---\nname: deploy\ndescription: Deploy the service to production.\ndisable-model-invocation: true\n---\nShip it.\n",
		"lint-css/SKILL.md": "---\nname: lint-css\ndescription: Lint css stylesheets.\nmetadata:\n  prolog-rlm: '{\"schema\": 1, \"requires\": [\"css-base\"]}'\n---\nRun the linter.\n",
		"Bad_Name/SKILL.md": "---\nname: Bad_Name\ndescription: An invalid name.\n---\nNothing.\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCompileOutputs validates results and error outputs of requests chosen
// to reach each error code a request can cause, and their trajectory lines.
func TestCompileOutputs(t *testing.T) {
	ctx := context.Background()
	c, err := compiler.Load(ctx, loader.Options{Roots: []string{writeCatalog(t)}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  compiler.Request
		code compiler.ErrorCode // "" for a result
	}{
		{"route", compiler.Request{Task: "test-driven development red green"}, ""},
		{"no route", compiler.Request{Task: "the capital of France"}, ""},
		{"explicit selection", compiler.Request{Task: "x", Select: []string{"deploy"}, Tokenizer: "cl100k_base"}, ""},
		{"missing dependency", compiler.Request{Task: "lint css stylesheets"}, ""},
		{"unknown unit", compiler.Request{Task: "x", Select: []string{"nope"}}, compiler.ErrUnknownUnit},
		{"selection rejected", compiler.Request{Task: "x", Select: []string{"tdd"}, Deny: []string{"tdd"}}, compiler.ErrSelectionRejected},
		{"selection over budget", compiler.Request{Task: "x", Select: []string{"tdd"}, Budget: 1}, compiler.ErrSelectionRejected},
		{"invalid request", compiler.Request{Task: strings.Repeat("a", compiler.MaxTaskBytes+1)}, compiler.ErrInvalidRequest},
		{"canceled", compiler.Request{Task: "tdd"}, compiler.ErrCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var trail bytes.Buffer
			cctx := ctx
			if tt.code == compiler.ErrCanceled {
				var cancel context.CancelFunc
				cctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			res, err := compiler.NewAudit(&trail).Compile(cctx, c, tt.req)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("got error %v; want a result", err)
				}
				data, _ := json.Marshal(res)
				mustValidate(t, schema.CompileResult, data)
			} else {
				var ce *compiler.Error
				if !errors.As(err, &ce) || ce.Code != tt.code {
					t.Fatalf("got error %v; want code %s", err, tt.code)
				}
				mustValidate(t, schema.CompileError, errorOutput(t, ce))
			}
			mustValidate(t, schema.Trajectory, bytes.TrimSuffix(trail.Bytes(), []byte("\n")))
		})
	}
}

// TestRejectsDrift shows the schemas are strict where the contract is: a
// real result, changed in one place, no longer validates.
func TestRejectsDrift(t *testing.T) {
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{writeCatalog(t)}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	// Every unit listed, so that there are rejected entries to change.
	res, err := c.Compile(context.Background(), compiler.Request{Task: "test-driven development red green", AllRejected: true})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(res)
	mustValidate(t, schema.CompileResult, data)
	tests := []struct {
		name   string
		change func(m map[string]any)
	}{
		{"unknown top-level field", func(m map[string]any) { m["extra"] = 1 }},
		{"schema 1", func(m map[string]any) { m["schema"] = 1 }},
		{"without unlisted", func(m map[string]any) { delete(m, "unlisted") }},
		{"a decided reason unlisted", func(m map[string]any) { m["unlisted"] = map[string]any{"denied": 1} }},
		{"an unlisted count of 0", func(m map[string]any) { m["unlisted"] = map[string]any{"no_evidence": 0} }},
		{"unknown decision", func(m map[string]any) { m["decision"] = "maybe" }},
		{"short fingerprint", func(m map[string]any) { m["fingerprint"] = "sha256:abc" }},
		{"ambiguous without the decision", func(m map[string]any) { m["ambiguous"] = []any{"a", "b"} }},
		{"unknown reason code", func(m map[string]any) { reason(m, "rejected")["code"] = "bored" }},
		{"selection code on a rejection", func(m map[string]any) { reason(m, "rejected")["code"] = "lexical" }},
		{"rule number and name disagree", func(m map[string]any) {
			reason(m, "selected")["rule"] = map[string]any{"number": 3, "name": "strength"}
		}},
		{"unknown clause", func(m map[string]any) {
			reason(m, "selected")["rule"].(map[string]any)["clause"] = "vibes"
		}},
		{"unknown fact", func(m map[string]any) { reason(m, "selected")["facts"] = map[string]any{"mood": 1} }},
		{"unknown evidence field", func(m map[string]any) {
			unit(m, "selected")["evidence"].([]any)[0].(map[string]any)["field"] = "body"
		}},
		{"unknown diagnostic code", func(m map[string]any) {
			m["diagnostics"].([]any)[0].(map[string]any)["code"] = "oops"
		}},
		{"unknown tokenizer", func(m map[string]any) { m["budget"].(map[string]any)["tokenizer"] = "bytes" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			tt.change(m)
			changed, _ := json.Marshal(m)
			if err := schema.Validate(schema.CompileResult, changed); err == nil {
				t.Errorf("got a valid document; want the schema to reject it: %s", brief(changed))
			}
		})
	}
	line, _ := json.Marshal(compiler.AuditRecord{CatalogFingerprint: res.CatalogFingerprint, Decision: compiler.DecisionError, Selected: []string{},
		Rejected: map[compiler.ReasonCode]int{"bored": 1}, Error: &compiler.Error{Stage: compiler.StageAnalyze, Code: compiler.ErrUnknownUnit, Message: "m"}})
	if err := schema.Validate(schema.Trajectory, line); err == nil {
		t.Errorf("got a valid trajectory line with an unknown reason count; want it rejected: %s", line)
	}
	bad, _ := json.Marshal(map[string]any{"schema": 1, "error": map[string]any{"stage": "decide", "code": "oops", "message": "m"}})
	if err := schema.Validate(schema.CompileError, bad); err == nil {
		t.Errorf("got a valid error output with an unknown code; want it rejected: %s", bad)
	}
}

func unit(m map[string]any, list string) map[string]any {
	return m[list].([]any)[0].(map[string]any)
}

func reason(m map[string]any, list string) map[string]any {
	return unit(m, list)["reasons"].([]any)[0].(map[string]any)
}

// defs reads the shared definitions file.
func defs(t *testing.T) map[string]any {
	t.Helper()
	return readSchema(t, schema.Defs)["$defs"].(map[string]any)
}

func readSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := fs.ReadFile(schema.Files(), name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func enum(t *testing.T, def map[string]any) []string {
	t.Helper()
	var out []string
	for _, v := range def["enum"].([]any) {
		out = append(out, v.(string))
	}
	slices.Sort(out)
	return out
}

// valueSpecs returns the const or var specs (tok) of the Go package in dir,
// test files aside.
func valueSpecs(t *testing.T, dir string, tok token.Token) []*ast.ValueSpec {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []*ast.ValueSpec
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == tok {
				for _, spec := range gd.Specs {
					out = append(out, spec.(*ast.ValueSpec))
				}
			}
		}
	}
	return out
}

// constsOf returns the values of the string constants the Go package in
// dir declares with the named type, sorted: the vocabulary as the code
// spells it, so that a constant added without its schema entry (or the
// reverse) fails TestCodesMatchGo.
func constsOf(t *testing.T, dir, typ string) []string {
	t.Helper()
	var out []string
	for _, vs := range valueSpecs(t, dir, token.CONST) {
		id, ok := vs.Type.(*ast.Ident)
		if !ok || id.Name != typ {
			continue
		}
		for _, v := range vs.Values {
			lit, ok := v.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("%s constant of type %s is not a string literal", dir, typ)
			}
			s, _ := strconv.Unquote(lit.Value)
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no constants of type %s in %s", typ, dir)
	}
	slices.Sort(out)
	return out
}

// sortedAll returns the strings of every list, sorted.
func sortedAll(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return out
}

func sorted[S ~string](xs []S) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	slices.Sort(out)
	return out
}

// TestCodesMatchGo checks every closed set of codes in the schemas against
// the Go constants that produce them, both ways.
func TestCodesMatchGo(t *testing.T) {
	d := defs(t)
	reasons := append(enum(t, d["selectionReason"].(map[string]any)), enum(t, d["rejectionReason"].(map[string]any))...)
	slices.Sort(reasons)
	decisions := append(enum(t, d["decision"].(map[string]any)), string(compiler.DecisionError))
	slices.Sort(decisions)
	ruleNames := d["ruleName"].(map[string]any)["enum"].([]any)
	var ruleOrder []string
	for _, r := range ruleNames {
		ruleOrder = append(ruleOrder, r.(string))
	}
	var goRuleOrder []string
	for _, r := range rules.RuleNames {
		goRuleOrder = append(goRuleOrder, string(r))
	}
	tests := []struct {
		name      string
		schema    []string
		goSpelled []string
	}{
		{"reason codes", reasons, constsOf(t, "../internal/rules", "ReasonCode")},
		{"reason codes listed", reasons, sorted(rules.Reasons)},
		{"rule names", enum(t, d["ruleName"].(map[string]any)), constsOf(t, "../internal/rules", "RuleName")},
		{"rule order", ruleOrder, goRuleOrder},
		{"clauses", enum(t, d["clause"].(map[string]any)), constsOf(t, "../internal/rules", "Clause")},
		{"decisions", decisions, constsOf(t, "../compiler", "Decision")},
		// rlmc serve answers the compiler's errors and its own in one shape.
		{"error codes", enum(t, d["errorCode"].(map[string]any)), sortedAll(constsOf(t, "../compiler", "ErrorCode"), sorted(httpsafe.Codes))},
		{"stages", enum(t, d["stage"].(map[string]any)), sortedAll(sorted(compiler.Stages()), []string{string(server.StageServe), string(compiler.StageLoad)})},
		{"stage constants", enum(t, d["stage"].(map[string]any)), sortedAll(constsOf(t, "../compiler", "Stage"), []string{string(server.StageServe)})},
		{"diagnostic codes", enum(t, d["diagnosticCode"].(map[string]any)), constsOf(t, "../ir", "Code")},
		{"severities", enum(t, d["severity"].(map[string]any)), constsOf(t, "../ir", "Severity")},
		{"tokenizers", enumAt(t, readSchema(t, schema.CompileResult), "properties", "budget", "properties", "tokenizer"), sorted(compiler.Tokenizers)},
		// What a result may leave unlisted is a unit's standing: the
		// reasons retrieval gives by itself (spelt as the contract's,
		// compiler's TestRetrievalCodes sees to it), never the policy's.
		{"unlisted reasons", enumAt(t, readSchema(t, schema.CompileResult), "properties", "unlisted", "propertyNames"), sorted(retrieval.Codes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.schema, tt.goSpelled) {
				t.Errorf("got schema %v; want Go's %v", tt.schema, tt.goSpelled)
			}
		})
	}
	// Rule numbers: rule n is the n-th name, in the oneOf as in Go.
	rule := d["rule"].(map[string]any)
	for i, alt := range rule["oneOf"].([]any) {
		p := alt.(map[string]any)["properties"].(map[string]any)
		num := p["number"].(map[string]any)["const"].(float64)
		name := p["name"].(map[string]any)["const"].(string)
		if int(num) != i+1 || i >= len(goRuleOrder) || name != goRuleOrder[i] {
			t.Errorf("schema pairs rule %v with %q; want rule %d %v", num, name, i+1, goRuleOrder)
		}
	}
	if max := rule["properties"].(map[string]any)["number"].(map[string]any)["maximum"].(float64); int(max) != len(goRuleOrder) {
		t.Errorf("got rule number maximum %v; want %d", max, len(goRuleOrder))
	}
}

func enumAt(t *testing.T, m map[string]any, path ...string) []string {
	t.Helper()
	for _, k := range path {
		m = m[k].(map[string]any)
	}
	return enum(t, m)
}

// TestFieldsMatchGo checks that each schema object names exactly the JSON
// fields of the Go type that marshals it, and requires exactly those
// without omitempty: a field added, renamed or made optional in Go fails
// here until the schema says so.
func TestFieldsMatchGo(t *testing.T) {
	d := defs(t)
	res := readSchema(t, schema.CompileResult)
	props := func(m map[string]any) map[string]any { return m["properties"].(map[string]any) }
	item := func(m map[string]any, key string) map[string]any {
		return props(m)[key].(map[string]any)["items"].(map[string]any)
	}
	tests := []struct {
		name   string
		schema map[string]any
		value  any
	}{
		{"result", res, compiler.Result{}},
		{"budget", props(res)["budget"].(map[string]any), compiler.Budget{}},
		{"selected", item(res, "selected"), compiler.Selected{}},
		{"rejected", item(res, "rejected"), compiler.Rejected{}},
		{"selection reason", d["selectionReasonObject"].(map[string]any), compiler.Reason{}},
		{"rejection reason", d["rejectionReasonObject"].(map[string]any), compiler.Reason{}},
		{"rule", d["rule"].(map[string]any), compiler.Rule{}},
		{"facts", d["facts"].(map[string]any), compiler.Facts{}},
		{"evidence", d["evidence"].(map[string]any), compiler.Evidence{}},
		{"diagnostic", d["diagnostic"].(map[string]any), ir.Diagnostic{}},
		{"error", d["error"].(map[string]any), compiler.Error{}},
		{"trajectory", readSchema(t, schema.Trajectory), compiler.AuditRecord{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, required := jsonFields(reflect.TypeOf(tt.value))
			var gotFields []string
			for k := range props(tt.schema) {
				gotFields = append(gotFields, k)
			}
			slices.Sort(gotFields)
			if !slices.Equal(gotFields, fields) {
				t.Errorf("got schema properties %v; want Go's fields %v", gotFields, fields)
			}
			if tt.schema["additionalProperties"] != false {
				t.Error("schema allows additional properties; want additionalProperties false")
			}
			var gotRequired []string
			if r, ok := tt.schema["required"].([]any); ok {
				for _, k := range r {
					gotRequired = append(gotRequired, k.(string))
				}
			}
			slices.Sort(gotRequired)
			if !slices.Equal(gotRequired, required) {
				t.Errorf("got schema required %v; want Go's fields without omitempty %v", gotRequired, required)
			}
		})
	}
}

// jsonFields returns the JSON names of a struct's marshalled fields and
// those of them that are always written (no omitempty), sorted.
func jsonFields(typ reflect.Type) (fields, required []string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fields = append(fields, name)
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			required = append(required, name)
		}
	}
	slices.Sort(fields)
	slices.Sort(required)
	return fields, required
}

// TestVersion checks that the files describe the version the compiler
// writes, and that each file's name and $id carry it.
func TestVersion(t *testing.T) {
	if schema.Version != compiler.Schema {
		t.Fatalf("got schema.Version %d; want compiler.Schema %d", schema.Version, compiler.Schema)
	}
	names, err := fs.Glob(schema.Files(), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{schema.CompileError, schema.CompileResult, schema.Defs, schema.DoctorReport, schema.Trajectory, schema.ValidateReport,
		schema.CompileResultV1, schema.CompileErrorV1}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("got files %v; want %v", names, want)
	}
	version := regexp.MustCompile(`\.v([0-9]+)\.json$`)
	for _, n := range names {
		m := readSchema(t, n)
		if v := version.FindStringSubmatch(n); v == nil || v[1] == "0" || len(v[1]) > 1 && v[1][0] == '0' {
			t.Errorf("file %s does not carry a version in its name", n)
		} else if k, _ := strconv.Atoi(v[1]); k > schema.Version {
			t.Errorf("file %s carries version %d, past the contract's %d", n, k, schema.Version)
		}
		if m["$id"] != schema.Base+n {
			t.Errorf("%s: got $id %v; want %s", n, m["$id"], schema.Base+n)
		}
		if m["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: got $schema %v; want draft 2020-12", n, m["$schema"])
		}
	}
	for n, v := range map[string]int{schema.CompileResult: compiler.Schema, schema.CompileError: compiler.Schema, schema.CompileResultV1: 1, schema.CompileErrorV1: 1} {
		if !strings.HasSuffix(n, ".v"+strconv.Itoa(v)+".json") {
			t.Errorf("file %s does not carry version %d in its name", n, v)
		}
		p := readSchema(t, n)["properties"].(map[string]any)["schema"].(map[string]any)
		if p["const"] != float64(v) {
			t.Errorf("%s: got schema const %v; want %d", n, p["const"], v)
		}
	}
}

// TestVersionOneStays pins the compile result and error files of schema 1,
// which version 2 replaced: they stay as they are, for hosts that read an
// earlier rlmc's output (docs/how-a-compile-decides.md, "JSON Schema and
// versioning"). A schema-1 result, listing every unit, still validates
// against them.
func TestVersionOneStays(t *testing.T) {
	for name, want := range map[string]string{
		schema.CompileResultV1: "9904633d8371ca65ee2ed88b86f8ba7e4e32d3a67e65cdd65243e391e1e5db5c",
		schema.CompileErrorV1:  "84d0158b45a090f79ce96378a86bdcf6cb54c78138d84a8410524d27ed83a4ba",
	} {
		data, err := fs.ReadFile(schema.Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(data)); got != want {
			t.Errorf("%s: got sha256 %s; want %s, the file as schema 1 published it", name, got, want)
		}
	}
	c, err := compiler.Load(context.Background(), loader.Options{Roots: []string{writeCatalog(t)}}, compiler.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compile(context.Background(), compiler.Request{Task: "test-driven development red green", AllRejected: true})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	data, _ := json.Marshal(res)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["schema"] = 1
	delete(m, "unlisted")
	v1, _ := json.Marshal(m)
	mustValidate(t, schema.CompileResultV1, v1)
	if err := schema.Validate(schema.CompileResultV1, data); err == nil {
		t.Errorf("got a schema 2 result valid against %s; want it rejected", schema.CompileResultV1)
	}
}

// stringsOfVar returns the string literals of the composite literal a
// package-level var of the Go package in dir is initialized with.
func stringsOfVar(t *testing.T, dir, name string) []string {
	t.Helper()
	var out []string
	for _, vs := range valueSpecs(t, dir, token.VAR) {
		for i, id := range vs.Names {
			if id.Name != name || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.CompositeLit)
			if !ok {
				t.Fatalf("%s.%s is not a composite literal", dir, name)
			}
			for _, e := range lit.Elts {
				if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
					s, _ := strconv.Unquote(b.Value)
					out = append(out, s)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no strings in %s.%s", dir, name)
	}
	return out
}

// TestEvidenceFieldsMatchGo checks the evidence field pattern against the
// fields retrieval scores (its fieldNames), so a new field cannot reach
// the output without the schema.
func TestEvidenceFieldsMatchGo(t *testing.T) {
	pattern := defs(t)["evidence"].(map[string]any)["properties"].(map[string]any)["field"].(map[string]any)["pattern"].(string)
	alt := regexp.MustCompile(`\(([a-z_|]+)\)`).FindStringSubmatch(pattern)
	if alt == nil {
		t.Fatalf("the evidence field pattern %q has no group of field names", pattern)
	}
	got := strings.Split(alt[1], "|")
	slices.Sort(got)
	want := stringsOfVar(t, "../internal/retrieval", "fieldNames")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got schema evidence fields %v; want retrieval's %v", got, want)
	}
	re := regexp.MustCompile(pattern)
	for _, f := range []string{"name", "name+description+heading", "alias phrase", "bigram", "object", "object mismatch", "action", "not_when"} {
		if !re.MatchString(f) {
			t.Errorf("evidence field %q does not match the schema's pattern", f)
		}
	}
	for _, f := range []string{"body", "name+", "phrase", "name phrase+alias"} {
		if re.MatchString(f) {
			t.Errorf("evidence field %q matches the schema's pattern; want it rejected", f)
		}
	}
}
