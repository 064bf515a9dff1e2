package catcache

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/rlmc-dev/rlmc/internal/binenc"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/retrieval"
	"github.com/rlmc-dev/rlmc/ir"
)

// encodeRecord writes a load's record: its diagnostics and every unit with
// its origin, stamps, status before shadowing and own diagnostics. A unit
// holding a host field of a type this encoding does not know is written
// without its unit, so it is read again at the next load.
func encodeRecord(w *binenc.Writer, rec *loader.Record) {
	retrieval.EncodeDiagnostics(w, rec.Diags)
	w.Uint(uint64(len(rec.Folders)))
	for _, f := range rec.Folders {
		w.Str(f.Path)
		w.Str(f.Stamp)
		w.Uint(uint64(len(f.Entries)))
		for _, e := range f.Entries {
			w.Str(e.Base)
			w.Uint(uint64(e.Mode))
		}
	}
	w.Uint(uint64(len(rec.Scans)))
	for _, sc := range rec.Scans {
		w.Bool(sc != nil)
		if sc != nil {
			w.Str(sc.Root)
			w.Str(sc.RootReal)
			w.Int(int64(sc.First))
			w.Int(int64(sc.End))
			w.Strs(sc.Skills)
			retrieval.EncodeDiagnostics(w, sc.Diags)
		}
	}
	w.Uint(uint64(len(rec.Units)))
	for i := range rec.Units {
		r := &rec.Units[i]
		o := r.Origin
		w.Str(o.Root)
		w.Int(int64(o.Precedence))
		w.Str(o.RootReal)
		w.Str(o.RelDir)
		w.Str(o.RelReal)
		w.Str(o.DirReal)
		w.Str(o.FileReal)
		w.Bool(o.FileLinked)
		w.Str(o.Stamp)
		w.Count(len(r.Items), r.Items == nil)
		for _, it := range r.Items {
			w.Str(it.Path)
			w.Str(it.Stamp)
		}
		w.Str(string(r.Status))
		retrieval.EncodeDiagnostics(w, r.Diags)
		ok := holdsUnit(r)
		w.Bool(ok)
		if ok {
			encodeUnit(w, r.Unit)
		} else {
			w.Str(unitSum(r.Unit))
		}
	}
	w.Int32s(rec.Order)
}

// unitSum is a digest of u as the index and the catalog's decisions read
// it: every field but its host fields (recorded, never read, and covered
// by its SHA256). A unit that is not written (untrusted, or holding a host
// field this encoding does not know) is read again at every load, and
// when its sum is what it was, the index need not be built again, nor
// the file written; "" for no unit.
func unitSum(u *ir.Unit) string {
	if u == nil {
		return ""
	}
	v := *u
	v.HostFields = nil
	w := binenc.NewWriter()
	encodeUnit(w, &v)
	sum := sha256.Sum256(w.Bytes())
	return string(sum[:])
}

// decodeRecord decodes a load's record, and the sum (unitSum) of each
// unit it holds without its unit, "" for the others.
func decodeRecord(r *binenc.Reader) (*loader.Record, []string, error) {
	rec := &loader.Record{Diags: retrieval.DecodeDiagnostics(r)}
	rec.Folders = make([]loader.FolderRecord, r.Len())
	for i := range rec.Folders {
		f := &rec.Folders[i]
		f.Path, f.Stamp = r.Str(), r.Str()
		f.Entries = make([]loader.Entry, r.Len())
		for j := range f.Entries {
			f.Entries[j] = loader.Entry{Base: r.Str(), Mode: fs.FileMode(r.Uint())}
		}
	}
	rec.Scans = make([]*loader.Scan, r.Len())
	for i := range rec.Scans {
		if r.Bool() {
			rec.Scans[i] = &loader.Scan{Root: r.Str(), RootReal: r.Str(), First: int(r.Int()), End: int(r.Int()), Skills: r.Strs(), Diags: retrieval.DecodeDiagnostics(r)}
		}
	}
	if r.Err() == nil {
		rec.StatAhead() // while the units decode
	}
	rec.Units = make([]loader.UnitRecord, r.Len())
	var sums []string
	// The units in one allocation: a catalog of thousands would otherwise
	// be as many objects for the allocator and the collector.
	slab := make([]ir.Unit, len(rec.Units))
	for i := range rec.Units {
		u := &rec.Units[i]
		u.Origin = loader.Origin{
			Root: r.Str(), Precedence: int(r.Int()), RootReal: r.Str(), RelDir: r.Str(), RelReal: r.Str(),
			DirReal: r.Str(), FileReal: r.Str(), FileLinked: r.Bool(), Stamp: r.Str(),
		}
		if n, isNil := r.Count(); !isNil {
			u.Items = make([]loader.Item, n)
		}
		for j := range u.Items {
			u.Items[j] = loader.Item{Path: r.Str(), Stamp: r.Str()}
		}
		u.Status = ir.Status(r.Str())
		u.Diags = retrieval.DecodeDiagnostics(r)
		if u.Trusted = r.Bool(); u.Trusted {
			u.Unit = &slab[i]
			decodeUnit(r, u.Unit)
		} else if sum := r.Str(); sum != "" {
			if sums == nil {
				sums = make([]string, len(rec.Units))
			}
			sums[i] = sum
		}
	}
	rec.Order = r.Int32s() // checked when taken (loader.catalogOrder)
	if err := r.Err(); err != nil {
		return nil, nil, fmt.Errorf("decoding the catalog: %w", err)
	}
	return rec, sums, nil
}

// encodeUnit writes every field of u. TestUnitRoundTrip fills every field
// and checks that it comes back, so a field added to ir.Unit without a
// place here fails it.
func encodeUnit(w *binenc.Writer, u *ir.Unit) {
	w.Str(u.Name)
	w.Str(u.Root)
	w.Int(int64(u.Precedence))
	w.Str(u.Path)
	w.Str(string(u.Variant))
	w.Str(string(u.Invocation))
	w.Str(string(u.Status))
	w.Str(u.ShadowedBy)
	w.Str(u.Description)
	w.Str(u.WhenToUse)
	w.Str(u.License)
	w.Str(u.Compatibility)
	encodeStringMap(w, u.Metadata)
	w.Strs(u.AllowedTools)
	w.Count(len(u.HostFields), u.HostFields == nil)
	for _, k := range sortedKeys(u.HostFields) {
		w.Str(k)
		encodeAny(w, u.HostFields[k])
	}
	w.Str(u.Category)
	w.Strs(u.Aliases)
	w.Count(len(u.Triggers), u.Triggers == nil)
	for _, t := range u.Triggers {
		w.Str(string(t.Kind))
		w.Str(t.Value)
		w.Int(int64(t.Weight))
	}
	w.Strs(u.NegativeTriggers)
	w.Strs(u.Headings)
	w.Str(u.Lead)
	encodeRefs(w, u.Requires)
	w.Int(int64(u.RequiresLine))
	encodeRefs(w, u.Suggests)
	encodeRefs(w, u.Conflicts)
	encodeRefs(w, u.Supersedes)
	w.Int(int64(u.Priority))
	w.Strs(u.Resources)
	w.Str(u.SHA256)
	w.Int(u.Size)
	w.Int(u.BodyOffset)
	w.Str(u.File)
	w.Str(u.RootDir)
}

func decodeUnit(r *binenc.Reader, u *ir.Unit) {
	*u = ir.Unit{
		Name: r.Str(), Root: r.Str(), Precedence: int(r.Int()), Path: r.Str(),
		Variant: ir.Variant(r.Str()), Invocation: ir.Invocation(r.Str()), Status: ir.Status(r.Str()), ShadowedBy: r.Str(),
		Description: r.Str(), WhenToUse: r.Str(), License: r.Str(), Compatibility: r.Str(),
	}
	u.Metadata = decodeStringMap(r)
	u.AllowedTools = r.Strs()
	if n, isNil := r.Count(); !isNil {
		u.HostFields = make(map[string]any, n)
		for range n {
			k := r.Str()
			u.HostFields[k] = decodeAny(r, 0)
		}
	}
	u.Category = r.Str()
	u.Aliases = r.Strs()
	if n, isNil := r.Count(); !isNil {
		u.Triggers = make([]ir.Trigger, n)
		for i := range u.Triggers {
			u.Triggers[i] = ir.Trigger{Kind: ir.TriggerKind(r.Str()), Value: r.Str(), Weight: int(r.Int())}
		}
	}
	u.NegativeTriggers = r.Strs()
	u.Headings = r.Strs()
	u.Lead = r.Str()
	u.Requires = decodeRefs(r)
	u.RequiresLine = int(r.Int())
	u.Suggests = decodeRefs(r)
	u.Conflicts = decodeRefs(r)
	u.Supersedes = decodeRefs(r)
	u.Priority = int(r.Int())
	u.Resources = r.Strs()
	u.SHA256 = r.Str()
	u.Size = r.Int()
	u.BodyOffset = r.Int()
	u.File = r.Str()
	u.RootDir = r.Str()
}

func encodeRefs(w *binenc.Writer, refs []ir.Ref) {
	w.Count(len(refs), refs == nil)
	for _, x := range refs {
		w.Str(string(x.Kind))
		w.Str(x.Name)
	}
}

func decodeRefs(r *binenc.Reader) []ir.Ref {
	n, isNil := r.Count()
	if isNil {
		return nil
	}
	out := make([]ir.Ref, n)
	for i := range out {
		out[i] = ir.Ref{Kind: ir.RefKind(r.Str()), Name: r.Str()}
	}
	return out
}

func encodeStringMap(w *binenc.Writer, m map[string]string) {
	w.Count(len(m), m == nil)
	for _, k := range sortedKeys(m) {
		w.Str(k)
		w.Str(m[k])
	}
}

func decodeStringMap(r *binenc.Reader) map[string]string {
	n, isNil := r.Count()
	if isNil {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := r.Str()
		m[k] = r.Str()
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// The kinds of value a host field holds: what yaml.v3 decodes into an
// interface.
const (
	anyNil byte = iota
	anyBool
	anyInt
	anyInt64
	anyUint64
	anyFloat64
	anyString
	anyList
	anyMap
	anyTime
)

// maxAnyDepth bounds the nesting of a host field, decoded or encoded.
const maxAnyDepth = 64

// encodable reports whether every value in v is of a kind encodeAny writes.
func encodable(v any) bool { return encodableAt(v, 0) }

func encodableAt(v any, depth int) bool {
	if depth > maxAnyDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int, int64, uint64, float64, string, time.Time:
		return true
	case []any:
		for _, e := range x {
			if !encodableAt(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !encodableAt(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// encodeAny writes v, of a kind encodable accepts.
func encodeAny(w *binenc.Writer, v any) {
	switch x := v.(type) {
	case nil:
		w.Uint(uint64(anyNil))
	case bool:
		w.Uint(uint64(anyBool))
		w.Bool(x)
	case int:
		w.Uint(uint64(anyInt))
		w.Int(int64(x))
	case int64:
		w.Uint(uint64(anyInt64))
		w.Int(x)
	case uint64:
		w.Uint(uint64(anyUint64))
		w.Uint(x)
	case float64:
		w.Uint(uint64(anyFloat64))
		w.Float64(x)
	case string:
		w.Uint(uint64(anyString))
		w.Str(x)
	case []any:
		w.Uint(uint64(anyList))
		w.Count(len(x), x == nil)
		for _, e := range x {
			encodeAny(w, e)
		}
	case map[string]any:
		w.Uint(uint64(anyMap))
		w.Count(len(x), x == nil)
		for _, k := range sortedKeys(x) {
			w.Str(k)
			encodeAny(w, x[k])
		}
	case time.Time:
		w.Uint(uint64(anyTime))
		b, _ := x.MarshalBinary()
		w.Str(string(b))
	}
}

func decodeAny(r *binenc.Reader, depth int) any {
	if depth > maxAnyDepth {
		r.Fail()
		return nil
	}
	switch byte(r.Uint()) {
	case anyNil:
		return nil
	case anyBool:
		return r.Bool()
	case anyInt:
		return int(r.Int())
	case anyInt64:
		return r.Int()
	case anyUint64:
		return r.Uint()
	case anyFloat64:
		return r.Float64()
	case anyString:
		return r.Str()
	case anyList:
		n, isNil := r.Count()
		if isNil {
			return []any(nil)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = decodeAny(r, depth+1)
		}
		return out
	case anyMap:
		n, isNil := r.Count()
		if isNil {
			return map[string]any(nil)
		}
		out := make(map[string]any, n)
		for range n {
			k := r.Str()
			out[k] = decodeAny(r, depth+1)
		}
		return out
	case anyTime:
		var t time.Time
		if err := t.UnmarshalBinary([]byte(r.Str())); err != nil {
			r.Fail()
		}
		return t
	}
	r.Fail()
	return nil
}
