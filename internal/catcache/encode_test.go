package catcache

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/ir"
)

// fill sets every field of the struct v points to, recursively, to a value
// that is not its zero, so that a field added to ir.Unit later is filled
// too and must survive the round trip.
func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i), n)
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(t, k, n)
		e := reflect.New(v.Type().Elem()).Elem()
		if e.Kind() == reflect.Interface {
			e.Set(reflect.ValueOf(hostValue))
		} else {
			fill(t, e, n)
		}
		m.SetMapIndex(k, e)
		v.Set(m)
	default:
		t.Fatalf("fill: no value for a %s; teach fill and encodeUnit about it", v.Type())
	}
}

// hostValue holds every kind of value a host field can hold.
var hostValue = map[string]any{
	"nil": nil, "bool": true, "int": 7, "int64": int64(-8), "uint64": uint64(1 << 63), "float": 2.5,
	"string": "x", "list": []any{"a", 1, []any{}, map[string]any{}}, "empty list": []any{},
	"time": time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC), "zone": time.Date(2025, 1, 2, 3, 4, 5, 0, time.FixedZone("", 3600)),
	"map": map[string]any{"deep": map[string]any{"deeper": []any{nil}}},
}

// TestUnitRoundTrip: a unit with every field set, and a record holding it,
// come back from their encoding as they were.
func TestUnitRoundTrip(t *testing.T) {
	var u ir.Unit
	n := 0
	fill(t, reflect.ValueOf(&u).Elem(), &n)
	rec := &loader.Record{
		Diags:   ir.Diagnostics{{Root: "r", Path: "p", Line: 3, Code: ir.CodeScanLimit, Severity: ir.SeverityError, Message: "m"}},
		Folders: []loader.FolderRecord{{Path: "/f", Stamp: "st", Entries: []loader.Entry{{Base: "a", Mode: 0o20000000000}}}},
		Scans: []*loader.Scan{nil, {Root: "r", RootReal: "rr", First: 0, End: 1, Skills: []string{".", "d"},
			Diags: ir.Diagnostics{{Root: "r", Path: "x", Code: ir.CodeSymlinkLoop, Severity: ir.SeverityWarning, Message: "m"}}}},
		Units: []loader.UnitRecord{
			{Origin: loader.Origin{Root: "r", Precedence: 1, RootReal: "rr", RelDir: "d", RelReal: "dr", DirReal: "/d", FileReal: "/d/SKILL.md", FileLinked: true, Stamp: "s"},
				Items: []loader.Item{{Path: "/d/x", Stamp: "absent"}}, Unit: &u, Status: ir.StatusOK, Trusted: true,
				Diags: ir.Diagnostics{{Path: "d/SKILL.md", Code: ir.CodeMissingResource, Severity: ir.SeverityWarning, Message: "w"}}},
			{Origin: loader.Origin{Root: "r"}, Status: ir.StatusInvalid},
		},
	}
	got := recordRoundTrip(t, rec)
	if diff := cmp.Diff(rec, got, cmpopts.IgnoreUnexported(loader.Record{})); diff != "" {
		t.Errorf("record round trip (-want +got):\n%s", diff)
	}
}

// TestUnencodableHostField: a unit whose host field holds a value this
// encoding does not know is stored without its unit, and so is read again
// at the next load, never stored wrong.
func TestUnencodableHostField(t *testing.T) {
	u := &ir.Unit{Name: "odd", HostFields: map[string]any{"k": map[any]any{1: 2}}}
	rec := &loader.Record{Units: []loader.UnitRecord{{Unit: u, Trusted: true, Status: ir.StatusOK}}}
	got := recordRoundTrip(t, rec)
	if ur := got.Units[0]; ur.Unit != nil || ur.Trusted {
		t.Errorf("got unit %v, trusted %v; want none, untrusted", ur.Unit, ur.Trusted)
	}
}

// recordRoundTrip encodes rec and decodes it again, to the last byte.
func recordRoundTrip(t *testing.T, rec *loader.Record) *loader.Record {
	t.Helper()
	w := binenc.NewWriter()
	encodeRecord(w, rec)
	r, err := binenc.NewReader(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := decodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Done(); err != nil {
		t.Fatal(err)
	}
	return got
}
