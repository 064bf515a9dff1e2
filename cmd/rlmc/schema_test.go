package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlmc-dev/rlmc/schema"
)

// schemaCmd is the testscript command `schema NAME FILE`: FILE (stdout
// for the last command's output) must validate against the published
// schema file NAME; a trajectory file is checked line by line. Scripts use
// it after each JSON output the contract covers, so the CLI's real outputs
// are checked against the schemas, not only the compiler's.
func schemaCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: schema NAME FILE")
	}
	if neg {
		ts.Fatalf("unsupported: ! schema")
	}
	data := []byte(ts.ReadFile(args[1]))
	if len(bytes.TrimSpace(data)) == 0 {
		ts.Fatalf("%s is empty; want a %s document", args[1], args[0])
	}
	docs := [][]byte{data}
	if args[0] == schema.Trajectory {
		docs = bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	}
	for i, doc := range docs {
		if err := schema.Validate(args[0], doc); err != nil {
			ts.Fatalf("%s line %d: %v", args[1], i+1, err)
		}
	}
}

// TestDoctorSchemaMatchesGo checks schema/doctor.v1.json against the Go
// that writes the report, both ways: its sections, origins and finding
// codes, and each object's fields and which are always written; and
// schema/validate.v1.json's fields against validate's report.
func TestDoctorSchemaMatchesGo(t *testing.T) {
	doc := readSchema(t, schema.DoctorReport)
	props := func(m map[string]any) map[string]any { return m["properties"].(map[string]any) }
	item := func(m map[string]any, key string) map[string]any {
		return props(m)[key].(map[string]any)["items"].(map[string]any)
	}
	enum := func(m map[string]any) []string {
		var out []string
		for _, v := range m["enum"].([]any) {
			out = append(out, v.(string))
		}
		slices.Sort(out)
		return out
	}
	sections := slices.Clone(doctorSections)
	slices.Sort(sections)
	codes := []string{findAllDenied, findCacheOff, findCheckoutNotFound, findDuplicateRoot, findHookFailed, findHookNotFound, findHookOK, findHookSettings, findHookTimeout, findHookTwice, findHookNotRun, findHookGoRun, findHookNotClaudeCode, findHookLeavesClaudeOwn, findHookRoots, findHookRelativeRoot, findHookSkillTwice, findLockMismatch, findLockOk, findLockUnreadable,
		findLockVerifyFailed, findNoRoot, findNoUnits, findOverlappingRoot, findUnreadableBody}
	slices.Sort(codes)
	origins := []string{originFlag, originPolicy, originEnv, originDefault}
	slices.Sort(origins)
	enums := []struct {
		name              string
		schema, goSpelled []string
	}{
		{"sections", enum(props(item(doc, "findings"))["section"].(map[string]any)), sections},
		{"finding codes", enum(doc["$defs"].(map[string]any)["findingCode"].(map[string]any)), codes},
		{"finding code constants", codes, constNames(t, "doctor.go", "find")},
		{"origins", enum(props(item(doc, "roots"))["origin"].(map[string]any)), origins},
		{"origin constants", origins, constNames(t, "doctor.go", "origin")},
	}
	for _, tt := range enums {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.schema, tt.goSpelled) {
				t.Errorf("got %v; want Go's %v", tt.schema, tt.goSpelled)
			}
		})
	}
	objects := []struct {
		name   string
		schema map[string]any
		typ    reflect.Type
	}{
		{"report", doc, reflect.TypeFor[doctorReport]()},
		{"root", item(doc, "roots"), reflect.TypeFor[doctorRoot]()},
		{"units", props(doc)["units"].(map[string]any), reflect.TypeFor[doctorCounts]()},
		{"finding", item(doc, "findings"), reflect.TypeFor[doctorFinding]()},
		{"tokens", props(doc)["tokens"].(map[string]any), tokensField()},
		{"validate report", readSchema(t, schema.ValidateReport), reflect.TypeFor[validation]()},
	}
	for _, tt := range objects {
		t.Run(tt.name, func(t *testing.T) {
			var fields, required []string
			jsonFields(tt.typ, &fields, &required)
			slices.Sort(fields)
			slices.Sort(required)
			got := slices.Sorted(maps.Keys(props(tt.schema)))
			if !slices.Equal(got, fields) {
				t.Errorf("got schema properties %v; want Go's fields %v", got, fields)
			}
			var gotRequired []string
			for _, k := range tt.schema["required"].([]any) {
				gotRequired = append(gotRequired, k.(string))
			}
			slices.Sort(gotRequired)
			if !slices.Equal(gotRequired, required) {
				t.Errorf("got schema required %v; want Go's fields without omitempty %v", gotRequired, required)
			}
			if tt.schema["additionalProperties"] != false {
				t.Error("schema allows additional properties; want additionalProperties false")
			}
		})
	}
}

// jsonFields appends the JSON names of a struct's marshalled fields, and
// of those always written (no omitempty), flattening embedded structs as
// encoding/json does.
func jsonFields(typ reflect.Type, fields, required *[]string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			jsonFields(f.Type, fields, required)
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		*fields = append(*fields, name)
		if !slices.Contains(strings.Split(opts, ","), "omitempty") {
			*required = append(*required, name)
		}
	}
}

// constNames returns the values of the string constants of file whose
// names start with prefix, sorted, so a constant added in Go without the
// schema fails.
func constNames(t *testing.T, file, prefix string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, prefix) || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// tokensField is the type of doctorReport's anonymous Tokens struct.
func tokensField() reflect.Type {
	f, _ := reflect.TypeFor[doctorReport]().FieldByName("Tokens")
	return f.Type
}

func readSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := fs.ReadFile(schema.Files(), name)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}
