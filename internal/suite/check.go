package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rlmc-dev/rlmc/compiler"
)

// check compares one compile with its expectation and returns each
// difference as "what: got X; want Y". full is the same compile with every
// rejected unit listed, where a unit's reason is read when res only
// counts it.
func check(w Want, res, full *compiler.Result, err error) []string {
	var out []string
	if w.Error != "" || err != nil {
		var ce *compiler.Error
		got := ""
		if errors.As(err, &ce) {
			got = string(ce.Code)
		} else if err != nil {
			got = err.Error()
		}
		if got != w.Error {
			if got == "" {
				got = "no error"
			}
			want := w.Error
			if want == "" {
				want = "no error"
			}
			out = append(out, fmt.Sprintf("error: got %s; want %s", got, want))
		}
		return out
	}
	if w.Decision != "" && string(res.Decision) != w.Decision {
		out = append(out, fmt.Sprintf("decision: got %s; want %s", res.Decision, w.Decision))
	}
	names := res.Names()
	if w.Selected != nil && strings.Join(names, " ") != strings.Join(*w.Selected, " ") {
		out = append(out, fmt.Sprintf("selected: got %q; want %q", names, *w.Selected))
	}
	selected := map[string]bool{}
	for _, n := range names {
		selected[n] = true
	}
	for _, n := range w.Includes {
		if !selected[n] {
			out = append(out, fmt.Sprintf("includes %s: got %q; want it selected", n, names))
		}
	}
	for _, n := range w.Excludes {
		if selected[n] {
			out = append(out, fmt.Sprintf("excludes %s: got it selected; want it never selected", n))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(w.Rejected)) {
		want := w.Rejected[n]
		// Namesakes share a name: a shadowed copy is rejected beside the
		// selected one, and the case may pin either.
		if slices.ContainsFunc(slices.Concat(res.Rejected, full.Rejected), func(r compiler.Rejected) bool {
			return r.Name == n && len(r.Reasons) > 0 && string(r.Reasons[0].Code) == want
		}) {
			continue
		}
		got := "not rejected"
		for _, rs := range [][]compiler.Rejected{res.Rejected, full.Rejected} {
			if i := slices.IndexFunc(rs, func(r compiler.Rejected) bool { return r.Name == n && len(r.Reasons) > 0 }); i >= 0 {
				got = string(rs[i].Reasons[0].Code)
				break
			}
		}
		if selected[n] {
			got = "selected"
		}
		if got != want {
			out = append(out, fmt.Sprintf("rejected %s: got %s; want %s", n, got, want))
		}
	}
	codes := map[string]bool{}
	for _, d := range res.Diagnostics {
		codes[string(d.Code)] = true
	}
	for _, c := range w.Diagnostics {
		if !codes[c] {
			out = append(out, fmt.Sprintf("diagnostics: got no %s; want one", c))
		}
	}
	for _, s := range w.PromptContains {
		if !strings.Contains(res.Prompt, s) {
			out = append(out, fmt.Sprintf("prompt: got no %q; want it", s))
		}
	}
	for _, s := range w.PromptExcludes {
		if strings.Contains(res.Prompt, s) {
			out = append(out, fmt.Sprintf("prompt: got %q; want it absent", s))
		}
	}
	out = append(out, unruled(res)...)
	if len(w.Match) > 0 {
		var want, got any
		if err := json.Unmarshal(w.Match, &want); err != nil {
			return append(out, fmt.Sprintf("match: %v", err))
		}
		data, _ := json.Marshal(res)
		json.Unmarshal(data, &got)
		if diff := subset("", want, got); diff != "" {
			out = append(out, "match: "+diff)
		}
	}
	return out
}

// unruled reports every reason of a result that names no rule of the
// policy, or a rule other than the one its code belongs to: every decision
// must say which rule made it (docs/how-a-compile-decides.md, "Output").
func unruled(res *compiler.Result) []string {
	var out []string
	each := func(name string, rs []compiler.Reason) {
		for _, r := range rs {
			if n := r.Rule.Name.Number(); n == 0 || n != r.Rule.Number {
				out = append(out, fmt.Sprintf("reason %s of %s: got rule %d %q; want a rule of the policy", r.Code, name, r.Rule.Number, r.Rule.Name))
			}
			if (r.Code == compiler.ReasonLexical || r.Code == compiler.ReasonBelowThreshold) && r.Rule.Clause == "" {
				out = append(out, fmt.Sprintf("reason %s of %s: got no clause of %s; want the clause that decided", r.Code, name, r.Rule))
			}
		}
	}
	for _, s := range res.Selected {
		each(s.Name, s.Reasons)
	}
	for _, r := range res.Rejected {
		each(r.Name, r.Reasons)
	}
	return out
}

// subset reports where want is not a subset of got: objects match key by
// key, arrays as an ordered subsequence, scalars by equality.
func subset(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s; want an object", orRoot(path), brief(got))
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if d := subset(path+"."+k, w[k], g[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %s; want an array", orRoot(path), brief(got))
		}
		j := 0
		for i, we := range w {
			for j < len(g) && subset("", we, g[j]) != "" {
				j++
			}
			if j == len(g) {
				return fmt.Sprintf("%s[%d]: got no element matching %s (in order)", orRoot(path), i, brief(we))
			}
			j++
		}
		return ""
	default:
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("%s: got %s; want %s", orRoot(path), brief(got), brief(want))
		}
		return ""
	}
}

func orRoot(path string) string {
	if path == "" {
		return "."
	}
	return path
}

func brief(v any) string {
	data, _ := json.Marshal(v)
	if len(data) > 120 {
		return string(data[:120]) + "..."
	}
	return string(data)
}

// materialize writes a case's files below dir. With scramble, files are
// created in reverse order and given unrelated modification times, so that
// neither can leak into a result. Every file, folder and link is created
// through an os.Root opened on dir, so nothing a case holds can write
// outside it, even through a link it created itself; a file or link name
// that leaves the case folder is an error, which fails the case.
func materialize(c *Case, dir string, scramble bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	files := c.archive.Files
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
		if scramble {
			order[i] = len(files) - 1 - i
		}
	}
	for k, i := range order {
		f := files[i]
		if f.Name == "request.json" || f.Name == "want.json" || f.Name == "symlinks" {
			continue
		}
		name, err := inCase(f.Name)
		if err != nil {
			return fmt.Errorf("case file %w", err)
		}
		if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
			return err
		}
		if err := root.WriteFile(name, f.Data, 0o644); err != nil {
			return err
		}
		if scramble {
			when := time.Date(2001+k, time.Month(1+k%12), 1+k%28, k%24, 0, 0, 0, time.UTC)
			if err := root.Chtimes(name, when, when); err != nil {
				return err
			}
		}
	}
	links, err := c.links()
	if err != nil {
		return err
	}
	for _, l := range links {
		link, name, target := l.link, l.name, l.target
		if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
			return fmt.Errorf("symlinks: link %s cannot be created inside the case folder: %w", link, err)
		}
		// The target may point anywhere: pointing outside is how a case
		// attacks confinement, and the loader must refuse to follow it.
		if strings.HasPrefix(target, "/") {
			target = filepath.FromSlash(target)
		} else {
			target = filepath.Join(dir, filepath.FromSlash(target))
		}
		if err := root.Symlink(target, name); err != nil {
			return fmt.Errorf("symlinks: link %s cannot be created inside the case folder: %w", link, err)
		}
	}
	return nil
}

// caseLink is one line of a case's symlinks file.
type caseLink struct {
	link   string // as written
	name   string // cleaned, inside the case folder
	target string // as written, slash-separated
}

// links parses the case's symlinks file: lines "link -> target", spaces
// around "->" optional, blank lines and "#" comments skipped. It is the only
// parser of that file, so what HasCatalog sees is what materialize creates.
// A line without "->", with an empty side, or whose link leaves the case
// folder is an error.
func (c *Case) links() ([]caseLink, error) {
	data, ok := c.Files()["symlinks"]
	if !ok {
		return nil, nil
	}
	var out []caseLink
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		link, target, ok := strings.Cut(line, "->")
		link, target = strings.TrimSpace(link), strings.TrimSpace(target)
		if !ok || link == "" || target == "" {
			return nil, fmt.Errorf("symlinks: %q is not \"link -> target\"", line)
		}
		name, err := inCase(link)
		if err != nil {
			return nil, fmt.Errorf("symlinks: link %w; links are created only inside the case folder", err)
		}
		if archiveOnly[name] {
			// Read from the case file itself: a link of that name would
			// be created and never read, and the case would test
			// something it does not say.
			return nil, fmt.Errorf("symlinks: link %q names a section read from the case file itself; write %s in the case file", link, name)
		}
		out = append(out, caseLink{link: link, name: name, target: target})
	}
	return out, sc.Err()
}

// archiveOnly are the sections a run reads from the case file, never from
// the folder it materializes.
var archiveOnly = map[string]bool{"request.json": true, "want.json": true, "policy.yaml": true, "symlinks": true}

// inCase returns the slash-separated name cleaned, or an error when it is
// empty, absolute or climbs out of the case folder.
func inCase(name string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
	if name == "" || clean == "." || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q leaves the case folder", name)
	}
	return clean, nil
}

// Materialize writes the case's files and links below dir, as a run does
// for its relocated copy: in reverse order, with modification times years
// in the past. Tests of other packages (the catalog cache's) run the
// corpus through it.
func (c *Case) Materialize(dir string) error { return materialize(c, dir, true) }
